//go:build linux

package dirlock

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestParseLocks(t *testing.T) {
	const locks = `1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF
2: POSIX  ADVISORY  WRITE 99 fd:01:5678 0 EOF
3: FLOCK  ADVISORY  READ  2345 00:2a:5678 0 EOF
4: FLOCK  ADVISORY  READ  3456 fd:01:5679 0 EOF
5: FLOCK  ADVISORY  READ  x fd:01:5678 0 EOF
6: -> FLOCK  ADVISORY  WRITE 4567 fd:01:5678 0 EOF
short line`
	cmd := func(pid int) string { return map[int]string{1234: "grove eval"}[pid] }
	for _, tc := range []struct {
		name, want string
		holders    []Holder
	}{
		{"writer on fd:01", "fd:1:5678", []Holder{{PID: 1234, Write: true, Cmd: "grove eval"}}},
		{"zero-padded device", "0:2a:5678", []Holder{{PID: 2345}}},
		{"other inode", "fd:1:1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseLocks(locks, tc.want, cmd)
			if len(got) != len(tc.holders) {
				t.Fatalf("holders %+v, want %+v", got, tc.holders)
			}
			for i := range got {
				if got[i] != tc.holders[i] {
					t.Errorf("holder %d: %+v, want %+v", i, got[i], tc.holders[i])
				}
			}
		})
	}
}

// TestHoldersOfOwnLock: a flock this process takes on a directory is
// found, with its mode and this process's command line.
func TestHoldersOfOwnLock(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks")
	}
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if hs := Holders(dir); len(hs) != 0 {
		t.Fatalf("holders of an unlocked directory: %+v", hs)
	}
	for _, mode := range []struct {
		how   int
		write bool
	}{{syscall.LOCK_EX, true}, {syscall.LOCK_SH, false}} {
		if err := syscall.Flock(int(f.Fd()), mode.how|syscall.LOCK_NB); err != nil {
			t.Fatal(err)
		}
		hs := Holders(dir)
		if len(hs) != 1 || hs[0].PID != os.Getpid() || hs[0].Write != mode.write || hs[0].Cmd == "" {
			t.Errorf("holders %+v, want this process (write %v)", hs, mode.write)
		}
	}
	if got := Describe(Holders(dir), "?"); !strings.HasSuffix(got, " reading it") {
		t.Errorf("Describe = %q", got)
	}
}

func TestDescribeAndIsLocked(t *testing.T) {
	hs := []Holder{{PID: 1, Write: true, Cmd: "grove serve"}, {PID: 2}}
	if got := Describe(hs, "?"); got != "process 1 (grove serve) writing it, process 2 reading it" {
		t.Errorf("Describe = %q", got)
	}
	if got := Describe(nil, "someone"); got != "someone" {
		t.Errorf("Describe(nil) = %q", got)
	}
	if !AnyWriter(hs) || AnyWriter(hs[1:]) {
		t.Error("AnyWriter")
	}
	if !IsLocked(errors.New(`Cannot acquire directory lock on "/x".  Another process is using this Badger database.`)) ||
		IsLocked(errors.New("other")) || IsLocked(nil) {
		t.Error("IsLocked")
	}
}
