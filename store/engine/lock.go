package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
	return fmt.Errorf("%w: held by %s; Badger lets one process write a database, or several read it at once: %s",
		ErrInUse, who, inUseAdvice(holders))
}

// inUseAdvice says what to do about the holders of a database: wait, or
// stop them; use a writing grove serve's HTTP API, which answers the same
// KG calls (not a grove ingest or optimize, which serve nothing: every
// other process, readers included, is refused until they end).
func inUseAdvice(holders []dirlock.Holder) string {
	advice := "wait for it or stop it"
	for _, h := range holders {
		if !h.Write {
			continue
		}
		switch words := strings.Fields(h.Cmd); {
		case slices.Contains(words, "optimize"):
			return advice + "; grove optimize holds the database alone until it ends, so every other " +
				"process, readers included, is refused meanwhile (stopping it keeps reads correct; " +
				"writes are then refused until it is run again)"
		case slices.Contains(words, "serve"):
			return advice + "; a running grove serve answers the same KG calls over HTTP"
		case slices.Contains(words, "ingest"):
			return advice + "; grove ingest holds the database alone until it ends"
		default:
			return advice + "; if it is a grove serve, it answers the same KG calls over HTTP"
		}
	}
	return advice
}
