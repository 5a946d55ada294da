// Package dirlock names the processes that hold a Badger directory lock,
// so that an error can say who holds a database or a response cache and
// how: Badger flocks its directory, exclusively for a writer and shared
// for read-only openers. The holders are read from Linux's /proc/locks
// (and each one's command line from /proc/PID/cmdline); elsewhere, or when
// /proc cannot be read, Holders returns nil and callers name nobody.
package dirlock

import (
	"fmt"
	"strings"
)

// Holder is a process holding a directory lock.
type Holder struct {
	PID int
	// Write is set for an exclusive lock: the process opened the
	// directory's store for writing.
	Write bool
	// Cmd is the process's command line, shortened; "" when unknown.
	Cmd string
}

// String describes h: "process 1234 (grove eval …) writing it".
func (h Holder) String() string {
	s := fmt.Sprintf("process %d", h.PID)
	if h.Cmd != "" {
		s += " (" + h.Cmd + ")"
	}
	if h.Write {
		return s + " writing it"
	}
	return s + " reading it"
}

// Describe joins the holders' descriptions, or returns unknown when there
// are none.
func Describe(holders []Holder, unknown string) string {
	if len(holders) == 0 {
		return unknown
	}
	who := make([]string, len(holders))
	for i, h := range holders {
		who[i] = h.String()
	}
	return strings.Join(who, ", ")
}

// AnyWriter reports whether one of holders writes.
func AnyWriter(holders []Holder) bool {
	for _, h := range holders {
		if h.Write {
			return true
		}
	}
	return false
}

// IsLocked reports whether err is Badger's refusal to open a directory
// another process holds. Badger's error is text only (its y.Wrapf does not
// wrap), so the text is matched.
func IsLocked(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock")
}
