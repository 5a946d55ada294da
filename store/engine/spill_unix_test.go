//go:build unix

package engine

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestSpillTooManyFiles: running out of file descriptors while creating
// or opening temporary files is reported as such, with what to do.
func TestSpillTooManyFiles(t *testing.T) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("cannot count open files here:", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	low := lim
	low.Cur = uint64(len(fds) + 8)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
	}()
	sd := &spillDir{path: t.TempDir()}
	var open []*spillWriter
	defer func() {
		for _, w := range open {
			w.abort()
		}
	}()
	for range 64 {
		w, err := sd.create("many")
		if err != nil {
			if !errors.Is(err, errTooManyFiles) || !errors.Is(err, syscall.EMFILE) || !strings.Contains(err.Error(), "ulimit -n") {
				t.Fatalf("create: %v, want a too-many-open-files error that says what to do", err)
			}
			if _, err := openSpill(open[0].path, 4096); !errors.Is(err, errTooManyFiles) {
				t.Fatalf("openSpill: %v, want a too-many-open-files error", err)
			}
			return
		}
		open = append(open, w)
	}
	t.Fatalf("64 files created under a limit of %d", low.Cur)
}
