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

// lockHolders are the processes holding a flock on dir (Badger's directory
// lock: exclusive for a writer, shared for read-only openers), from
// Linux's /proc/locks; nil when unknown.
func lockHolders(dir string) []lockHolder {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return nil
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	want := strconv.FormatUint(major, 16) + ":" + strconv.FormatUint(minor, 16) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	var out []lockHolder
	for _, line := range strings.Split(string(b), "\n") {
		// 1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || !sameLockFile(f[5], want) {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil {
			continue
		}
		out = append(out, lockHolder{pid: pid, write: f[3] == "WRITE", cmd: processCommand(pid)})
	}
	return out
}

// sameLockFile compares /proc/locks' major:minor:inode (hex device
// numbers, possibly zero-padded) with want.
func sameLockFile(got, want string) bool {
	g, w := strings.Split(got, ":"), strings.Split(want, ":")
	if len(g) != 3 || len(w) != 3 || g[2] != w[2] {
		return false
	}
	for i := range 2 {
		a, err1 := strconv.ParseUint(g[i], 16, 64)
		b, err2 := strconv.ParseUint(w[i], 16, 64)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return true
}

// processCommand is pid's command line, shortened, or "" when unknown.
func processCommand(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	args := strings.Fields(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	if len(args) > 6 {
		args = append(args[:6], "…")
	}
	return strings.Join(args, " ")
}
