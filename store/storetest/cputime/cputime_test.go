package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows checks that 50 ms of busy work shows in the reading.
func TestProcessGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no process CPU time here")
	}
	start, end := Process(), time.Now().Add(50*time.Millisecond)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	if got := Process() - start; got < 10*time.Millisecond {
		t.Fatalf("50 ms of busy work read as %v of CPU (%d)", got, x)
	}
}
