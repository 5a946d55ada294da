//go:build unix

package dirlock

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Holders are the processes holding a flock on dir, from /proc/locks; nil
// when unknown.
func Holders(dir string) []Holder {
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
	return parseLocks(string(b), want, command)
}

// parseLocks picks the flocks on the file want (major:minor:inode, device
// numbers in hex) out of /proc/locks' text, naming each holder by cmd.
func parseLocks(locks, want string, cmd func(pid int) string) []Holder {
	var out []Holder
	for _, line := range strings.Split(locks, "\n") {
		// 1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || !sameFile(f[5], want) {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil {
			continue
		}
		out = append(out, Holder{PID: pid, Write: f[3] == "WRITE", Cmd: cmd(pid)})
	}
	return out
}

// sameFile compares /proc/locks' major:minor:inode (hex device numbers,
// possibly zero-padded) with want.
func sameFile(got, want string) bool {
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

// command is pid's command line, shortened, or "" when unknown.
func command(pid int) string {
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
