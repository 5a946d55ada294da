//go:build unix

package rdf

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system, all threads) this process
// has used. Benchmarks report it besides wall time because the machine is
// shared: CPU time per operation is far less sensitive to other load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
