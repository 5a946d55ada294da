package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/graphtest"

	"github.com/grove-kg/grove/store/internal/cayleysrc"
)

// cayleyGen opens an engine for Cayley's suites. The integration suite
// loads its 471,705 quads through the engine's own quad writer, i.e.
// ApplyDeltas in Cayley's 10,000-quad batches, as `cayley load` would.
func cayleyGen(t testing.TB) (graph.QuadStore, graph.Options) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, nil
}

// TestCayleyConformance runs Cayley's own QuadStore suite, graphtest.TestAll,
// against the engine: loading, duplicates, deletes, sizes, iterators, HasA,
// typed values, node deletion, schema, writers, 1k-quad batches, the path
// morphism tests (pathtest) and the integration suite (Gizmo queries with
// known answers over the 30k-movie data, the same file as data/film.nq.gz).
//
// The suites open their data by relative paths: pathtest reads
// "data/testdata.nq" from the working directory or up to four parents, and
// the integration suite reads "../../data/30kmoviedata.nq.gz" (or one more
// level up). The test runs them from a temporary directory tmp/a/b with
// tmp/data holding symlinks to this repository's data/film.nq.gz and to
// testdata.nq in the pinned Cayley module (nothing is copied). Under -short
// the integration suite is skipped by Cayley itself.
func TestCayleyConformance(t *testing.T) {
	film, err := filepath.Abs("../../data/film.nq.gz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(film); err != nil {
		t.Fatalf("film data: %v", err)
	}
	cayleyDir, err := cayleysrc.Dir()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	data := filepath.Join(root, "data")
	work := filepath.Join(root, "a", "b")
	for _, d := range []string{data, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"30kmoviedata.nq.gz": film,
		"testdata.nq":        filepath.Join(cayleyDir, "data", "testdata.nq"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(data, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	graphtest.TestAll(t, cayleyGen, &graphtest.Config{AlwaysRunIntegration: true})
}
