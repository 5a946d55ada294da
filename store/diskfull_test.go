package store

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestMarkDiskFull: an ENOSPC error, however wrapped, gains ErrDiskFull
// and the disk to free space on, once; other errors stay as they are.
func TestMarkDiskFull(t *testing.T) {
	nospace := &fs.PathError{Op: "write", Path: "/tmp/x", Err: syscall.ENOSPC}
	marked := MarkDiskFull(nospace, "/tmp/spool")
	cases := []struct {
		name   string
		err    error
		full   bool
		suffix string
	}{
		{"enospc", nospace, true, "free space on the disk of /tmp/spool"},
		{"wrapped", fmt.Errorf("copy: %w", nospace), true, "free space on the disk of /tmp/spool"},
		{"marked once", marked, true, ""},
		{"other", errors.New("permission denied"), false, ""},
		{"nil", nil, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MarkDiskFull(c.err, "/tmp/spool")
			if errors.Is(got, ErrDiskFull) != c.full || !errors.Is(got, c.err) {
				t.Fatalf("MarkDiskFull(%v) = %v; disk full %v, want %v, wrapping the error", c.err, got, errors.Is(got, ErrDiskFull), c.full)
			}
			if !c.full && got != c.err {
				t.Errorf("an error not caused by a full disk changed: %v", got)
			}
			if c.suffix != "" && !strings.Contains(got.Error(), c.suffix) {
				t.Errorf("%v does not say %q", got, c.suffix)
			}
			if strings.Count(fmt.Sprint(got), "disk full") > 1 {
				t.Errorf("marked twice: %v", got)
			}
		})
	}
}
