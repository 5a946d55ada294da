//go:build unix

package engine

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// openFileLimit is the soft limit on open files (which the Go runtime
// raises to the hard limit at start), 0 when unknown and math.MaxInt64
// when unlimited.
func openFileLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	if rl.Cur > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(rl.Cur)
}

// mapLimit is Linux's vm.max_map_count, 0 when unknown (other systems).
func mapLimit() int64 {
	b, err := os.ReadFile("/proc/sys/vm/max_map_count")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// openFiles is the number of files this process has open (Linux's
// /proc/self/fd), 0 when unknown.
func openFiles() int64 {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0
	}
	return int64(len(names)) - 1 // the directory itself
}

// openMaps is the number of memory maps of this process (Linux's
// /proc/self/maps, one line each), 0 when unknown.
func openMaps() int64 {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	return int64(bytes.Count(b, []byte{'\n'}))
}
