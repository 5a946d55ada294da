// Package memtest measures the peak heap of a function, for tests that
// check that a reader streams: its memory must stay far below the size of
// its input.
package memtest

import (
	"runtime"
	"time"
)

// PeakHeap runs fn and returns the largest runtime.MemStats.HeapInuse
// sampled every 5 ms while it ran (garbage not yet collected included).
func PeakHeap(fn func()) uint64 {
	peak := make(chan uint64)
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		var p uint64
		for {
			select {
			case <-stop:
				peak <- p
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				p = max(p, ms.HeapInuse)
			}
		}
	}()
	fn()
	close(stop)
	return <-peak
}
