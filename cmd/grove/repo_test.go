package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoConflictMarkers: no source or document of the repository keeps a
// merge's conflict markers (README.md once did, for a session).
func TestNoConflictMarkers(t *testing.T) {
	root := filepath.Join("..", "..")
	exts := map[string]bool{".go": true, ".md": true, ".yaml": true, ".yml": true, ".json": true,
		".html": true, ".js": true, ".css": true, ".sh": true, ".mod": true, ".sum": true}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") && name != ".ci" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !exts[filepath.Ext(path)] && filepath.Base(filepath.Dir(path)) != ".ci" {
			return nil
		}
		return checkConflictMarkers(t, path)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkConflictMarkers reports each line of path that opens or closes a
// merge conflict.
func checkConflictMarkers(t *testing.T, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		if s := sc.Text(); strings.HasPrefix(s, "<<<<<<< ") || strings.HasPrefix(s, ">>>>>>> ") {
			t.Errorf("%s:%d: merge conflict marker %q", path, line, s)
		}
	}
	return sc.Err()
}
