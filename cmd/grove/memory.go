package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/store/engine"
)

// The bulk loader's default memory budget (`--max-memory auto`) is a fixed
// fraction of the memory this process may use: the cgroup limit when the
// process runs under one (containers, systemd slices), else physical RAM.
const (
	autoBudgetFraction = 6 // one sixth
	minAutoBudget      = 512 << 20
	fallbackBudget     = 2 << 30 // when neither limit can be read
)

// autoMaxMemory returns the default bulk-load budget: one sixth of the
// usable memory, at least 512 MiB; 2 GiB when it cannot be determined.
func autoMaxMemory() int64 {
	usable := usableHere()
	if usable <= 0 {
		return fallbackBudget
	}
	return max(usable/autoBudgetFraction, minAutoBudget)
}

// usableHere is usableMemory of this machine and process.
func usableHere() int64 {
	return usableMemory(readFile("/proc/meminfo"), readFile("/sys/fs/cgroup/memory.max"),
		readFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
}

// usableMemory is the smaller of physical memory (from /proc/meminfo's
// content) and a cgroup v2 or v1 memory limit; 0 when none is known.
func usableMemory(meminfo, cgroupV2, cgroupV1 string) int64 {
	total := memTotal(strings.NewReader(meminfo))
	for _, lim := range []int64{cgroupLimit(cgroupV2), cgroupLimit(cgroupV1)} {
		if lim > 0 && (total <= 0 || lim < total) {
			total = lim
		}
	}
	return total
}

// memTotal reads MemTotal (in kB) from /proc/meminfo's format; 0 if absent.
func memTotal(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemTotal" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 || kb > 1<<50 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// cgroupLimit parses a cgroup memory limit file: a byte count, or "max"
// (v2) / a huge number (v1) for no limit, which return 0.
func cgroupLimit(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0
	}
	return n
}

// readFile returns a small file's content, "" when it cannot be read.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// checkUsable refuses a budget above the memory the process may use
// (usable, 0 when unknown): the load would be killed before it spilled.
func checkUsable(flag string, n, usable int64) error {
	if usable > 0 && n > usable {
		return fmt.Errorf("%s is more than the %.1f GiB this process may use (physical memory, or the cgroup limit "+
			"it runs under): the load would be killed before it spilled; give at most that, or auto (a sixth of it)",
			flag, float64(usable)/(1<<30))
	}
	return nil
}

// parseMaxMemory reads a --max-memory value: "auto" (autoMaxMemory) or a
// size.
func parseMaxMemory(s string) (int64, error) {
	if strings.TrimSpace(strings.ToLower(s)) == "auto" {
		return autoMaxMemory(), nil
	}
	n, err := parseSize(s)
	if err != nil {
		return 0, fmt.Errorf("--max-memory: %w", err)
	}
	if err := checkBudget("--max-memory "+strings.TrimSpace(s), n); err != nil {
		return 0, err
	}
	usable := usableHere()
	if err := checkUsable("--max-memory "+strings.TrimSpace(s), n, usable); err != nil {
		return 0, err
	}
	return n, nil
}

// checkBudget refuses a bulk-load budget below minMaxMemory; flag names
// where it came from.
func checkBudget(flag string, n int64) error {
	if n < minMaxMemory {
		return fmt.Errorf("%s is below %d MiB, the smallest budget accepted: a bulk load's write phase holds "+
			"about 210 MiB (Badger's memtable, stream and run buffers) whatever the budget (a 200M-quad load "+
			"with 128 MiB peaked at 257 MiB)", flag, minMaxMemory>>20)
	}
	return nil
}

// minMaxMemory is the smallest --max-memory accepted: the smallest budget
// the engine sizes its write phase for (its smallest tables) and within
// which measured loads stayed (plus one memtable, engine.GoMemoryLimit).
const minMaxMemory = minAutoBudget

// limitGoMemory sets the Go soft memory limit for a command that keeps to
// budget (0: no limit set): the budget plus the Badger memtable the
// engine counts as overhead (engine.GoMemoryLimit), which is also what the
// tables the database writes are sized for. A limit near the budget makes
// the GC work harder instead of letting the heap double.
func limitGoMemory(budget int64) {
	if budget > 0 {
		debug.SetMemoryLimit(engine.GoMemoryLimit(budget))
	}
}
