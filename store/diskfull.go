package store

import (
	"errors"
	"fmt"
	"syscall"
)

// MarkDiskFull adds ErrDiskFull, and what to do, to an error caused by a
// full disk (ENOSPC), so that callers can tell the cause apart and users
// see it at once; other errors, and errors already marked, are returned
// as they are. dir names the disk to free space on.
func MarkDiskFull(err error, dir string) error {
	if errors.Is(err, syscall.ENOSPC) && !errors.Is(err, ErrDiskFull) {
		return fmt.Errorf("%w (free space on the disk of %s and re-run): %w", ErrDiskFull, dir, err)
	}
	return err
}
