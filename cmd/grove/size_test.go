package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GiB", 2 << 30, true}, {"512MiB", 512 << 20, true}, {"1.5G", 3 << 29, true}, {"2GB", 2e9, true},
		{"1048576", 1 << 20, true}, {" 64 mib ", 64 << 20, true}, {"", 0, false}, {"GiB", 0, false},
		{"2 parsecs", 0, false}, {"-1GiB", 0, false},
	} {
		got, err := parseSize(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}
