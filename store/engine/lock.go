package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrInUse is returned (wrapped) by Open when another process holds the
// database: Badger lets one process write a database, or several open it
// read-only at once.
var ErrInUse = errors.New("database in use by another process")

// ErrNoDatabase is returned (wrapped) by a read-only Open of a directory
// that is missing or holds no database (a read-only open creates nothing).
var ErrNoDatabase = errors.New("no database")

// Exists reports whether dir holds a database (Badger's MANIFEST), for
// commands that must not create one with a writable Open (grove optimize,
// grove serve): a writable Open of an empty or missing directory creates
// an empty database there.
func Exists(dir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, "MANIFEST"))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("database %s: %w", dir, err)
}

// lockHolder is a process holding a database's directory lock.
type lockHolder struct {
	pid   int
	write bool   // exclusive: it opened the database for writing
	cmd   string // its command line, "" when unknown
}

// inUseErr names the processes holding the database (nil when unknown).
func inUseErr(holders []lockHolder) error {
	var who []string
	writing := false
	for _, h := range holders {
		d := fmt.Sprintf("process %d", h.pid)
		if h.cmd != "" {
			d += " (" + h.cmd + ")"
		}
		if h.write {
			d += " writing it"
			writing = true
		} else {
			d += " reading it"
		}
		who = append(who, d)
	}
	if len(who) == 0 {
		who = []string{"another process (grove serve, ingest or optimize, or commands reading it)"}
	}
	advice := "wait for it or stop it"
	if writing {
		advice += "; a running grove serve answers the same KG calls over HTTP"
	}
	return fmt.Errorf("%w: held by %s; Badger lets one process write a database, or several read it at once: %s",
		ErrInUse, strings.Join(who, ", "), advice)
}
