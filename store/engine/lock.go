package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grove-kg/grove/store/dirlock"
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

// inUseErr names the processes holding the database (nobody when
// unknown).
func inUseErr(holders []dirlock.Holder) error {
	who := dirlock.Describe(holders, "another process (grove serve, ingest or optimize, or commands reading it)")
	advice := "wait for it or stop it"
	if dirlock.AnyWriter(holders) {
		advice += "; a running grove serve answers the same KG calls over HTTP"
	}
	return fmt.Errorf("%w: held by %s; Badger lets one process write a database, or several read it at once: %s",
		ErrInUse, who, advice)
}
