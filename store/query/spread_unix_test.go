//go:build unix

package query

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/grove-kg/grove/store/storetest"
	"github.com/grove-kg/grove/store/storetest/cputime"
)

// TestSandboxSpreadStops checks that a spread, which goja runs in one Go
// loop (quadratic for a call: f(...a) of 30M elements takes hours), stops
// with the program: after the query's timeout the process goes idle.
func TestSandboxSpreadStops(t *testing.T) {
	db := storetest.Open(t, nil)
	for _, q := range []string{
		`var a = []; a.length = 3e7; Math.max(...a)`,
		`var a = []; a.length = 3e8; [...a].length`,
		`var a = []; a.length = 3e8; new Set(a).size`,
		`var s = "x".repeat(1 << 24); for (var i = 0; i < 3; i++) s += s; [...s].length`,
	} {
		t.Run(q, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			if _, err := Run(ctx, db, "gizmo", q, 10); err == nil {
				t.Fatal("Run = nil error, want the timeout")
			}
			// The stopped program ends at its next iterator step; what it
			// allocated is collected before the measure, so that the
			// collector's work is not taken for the spread's.
			time.Sleep(200 * time.Millisecond)
			runtime.GC()
			if busy := cpuOver(time.Second); busy > 500*time.Millisecond {
				t.Fatalf("the process used %v of CPU in the second after the query stopped: the spread runs on", busy)
			}
		})
	}
}

// cpuOver is the CPU time (user and system, all threads) the process uses
// during d.
func cpuOver(d time.Duration) time.Duration {
	start := cputime.Process()
	time.Sleep(d)
	return cputime.Process() - start
}
