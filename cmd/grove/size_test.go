package main

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GiB", 2 << 30, true}, {"512MiB", 512 << 20, true}, {"1.5G", 3 << 29, true}, {"2GB", 2e9, true},
		{"1048576", 1 << 20, true}, {" 64 mib ", 64 << 20, true}, {"", 0, false}, {"GiB", 0, false},
		{"2 parsecs", 0, false}, {"-1GiB", 0, false},
		{"99999999999GiB", 0, false}, {"9223372036854775808", 0, false}, {"1024PiB", 0, false}, {"1024TiB", 1 << 50, true},
	} {
		got, err := parseSize(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestCheckUsable(t *testing.T) {
	for _, c := range []struct {
		n, usable int64
		ok        bool
	}{
		{2 << 30, 24 << 30, true}, {1 << 40, 24 << 30, false}, {24 << 30, 24 << 30, true}, {1 << 40, 0, true},
	} {
		err := checkUsable("--max-memory X", c.n, c.usable)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "--max-memory X is more than the 24.0 GiB") {
			t.Errorf("checkUsable(%d, %d) = %v, want ok %v", c.n, c.usable, err, c.ok)
		}
	}
}

func TestScopedBlank(t *testing.T) {
	for _, c := range []struct {
		id           string
		graphs       []string
		graph, local string
		ok           bool
	}{
		{"_:film/100000", []string{"film"}, "film", "100000", true},
		{"_:a/b/b1", []string{"a/b"}, "a/b", "b1", true},
		{"_:a/b/b1", []string{"a", "a/b"}, "a/b", "b1", true},
		{"_:b1", []string{"film"}, "", "", false},
		{"/m/0abc", []string{"fb"}, "", "", false},
		{"_:film/", []string{"film"}, "", "", false},
	} {
		g, l, ok := scopedBlank(c.id, c.graphs)
		if g != c.graph || l != c.local || ok != c.ok {
			t.Errorf("scopedBlank(%q, %q) = %q, %q, %v; want %q, %q, %v", c.id, c.graphs, g, l, ok, c.graph, c.local, c.ok)
		}
	}
}
