package main

import (
	"strings"
	"testing"
)

func TestUsableMemory(t *testing.T) {
	const meminfo = "MemTotal:       24000000 kB\nMemFree:        1000 kB\n"
	tests := []struct {
		name            string
		meminfo, v2, v1 string
		want            int64
	}{
		{"physical only", meminfo, "", "", 24000000 << 10},
		{"cgroup v2 unlimited", meminfo, "max\n", "", 24000000 << 10},
		{"cgroup v2 limit", meminfo, "4294967296\n", "", 4 << 30},
		{"cgroup v1 unlimited", meminfo, "", "9223372036854771712\n", 24000000 << 10},
		{"cgroup v1 limit", meminfo, "", "1073741824", 1 << 30},
		{"limit above RAM", meminfo, "99999999999999", "", 24000000 << 10},
		{"no meminfo, cgroup limit", "", "2147483648", "", 2 << 30},
		{"nothing known", "", "", "", 0},
		{"garbage", "MemTotal: lots\n", "-5", "x", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := usableMemory(tc.meminfo, tc.v2, tc.v1); got != tc.want {
				t.Fatalf("usableMemory = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAutoMaxMemoryBounds(t *testing.T) {
	got := autoMaxMemory()
	if got < minAutoBudget {
		t.Fatalf("autoMaxMemory = %d, below the %d floor", got, minAutoBudget)
	}
	if usable := usableHere(); usable > 0 && got > max(usable/autoBudgetFraction, minAutoBudget) {
		t.Fatalf("autoMaxMemory = %d, above a sixth of %d", got, usable)
	}
}

func FuzzMemTotal(f *testing.F) {
	f.Add("MemTotal:       24000000 kB\n")
	f.Add("MemTotal:\n")
	f.Add("MemFree: 1 kB\nMemTotal: 99999999999999999999 kB")
	f.Fuzz(func(t *testing.T, s string) {
		if n := memTotal(strings.NewReader(s)); n < 0 {
			t.Fatalf("memTotal(%q) = %d", s, n)
		}
	})
}

func TestParseMaxMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"auto", autoMaxMemory(), false},
		{" AUTO ", autoMaxMemory(), false},
		{"1GiB", 1 << 30, false},
		{"512MiB", 512 << 20, false},
		{"511MiB", 0, true},
		{"128MiB", 0, true},
		{"0", 0, true},
		{"lots", 0, true},
		{"1024TiB", 0, true}, // more than this machine has
		{"99999999999GiB", 0, true},
	} {
		got, err := parseMaxMemory(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("parseMaxMemory(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("parseMaxMemory(%q): error %q does not name the flag", tc.in, err)
		}
	}
}
