//go:build unix

package eval

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f without waiting.
// The lock belongs to f's open file description: it is released when f is
// closed or the process exits, however it exits, and a second open of the
// same file, in this process or another, cannot take it meanwhile. It
// returns errLocked when the lock is held elsewhere.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}
