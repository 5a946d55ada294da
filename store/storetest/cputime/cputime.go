// Package cputime reads the CPU time the process has used, for benchmarks
// and tests: on a shared machine CPU time per operation varies far less
// than wall time, and a test can tell whether work still runs after it
// should have stopped. It imports nothing of Grove, so any package's tests
// may use it.
package cputime

import "time"

// Process returns the user and system CPU time of the whole process (all
// threads) so far, or 0 where the platform does not report it (the
// benchmarks then report 0 CPU time).
func Process() time.Duration { return process() }
