// Package datadir locates the data files of Grove's tests, so that every
// package finds them the same way.
//
// Core tests use the repository's own data/ directory (Repo, Film), which
// every clone has: they never skip for want of data. Tests that need large
// external data sets (benchmark question files, dumps) are opt-in through
// one environment variable, GROVE_SHARED_DATA=<dir> (Shared): unset, such a
// test is skipped with a message saying how to run it; set, a missing file
// fails the test, so a misconfigured run cannot pass silently.
//
// The package has no dependencies inside Grove, so any package's tests
// (including the engine's own) can import it.
package datadir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvShared names the directory of the opt-in external test data (the
// layout of the project's shared data: freebase-questions/, qald_10.json,
// grbench-questions/, ...).
const EnvShared = "GROVE_SHARED_DATA"

// FilmFile is the bundled demo KG: 471,705 real Freebase quads.
const FilmFile = "film.nq.gz"

// repoData is the repository's data/ directory, found from this source
// file so that it works from any package's test directory.
func repoData() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "data")
}

// Repo returns the path of data/<name> in this repository. The file is part
// of every clone, so a missing file fails the test.
func Repo(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(repoData(), filepath.FromSlash(name))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("bundled test data missing (it is part of the repository): %v", err)
	}
	return p
}

// Film returns the path of the bundled film sample, data/film.nq.gz.
func Film(t testing.TB) string {
	t.Helper()
	return Repo(t, FilmFile)
}

// Shared returns the path of name under $GROVE_SHARED_DATA. When the
// variable is unset the test is skipped (the data is opt-in); when it is set
// and the file is missing the test fails.
func Shared(t testing.TB, name string) string {
	t.Helper()
	dir, ok := os.LookupEnv(EnvShared)
	if !ok || dir == "" {
		t.Skipf("needs external data %s: set %s=<dir> to run", name, EnvShared)
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is set but %s is missing: %v", EnvShared, name, err)
	}
	return p
}
