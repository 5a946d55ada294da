package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// labelHeavy returns n label and alias quads spread over graphs, with
// repeated texts, repeated subjects and non-ASCII labels.
func labelHeavy(seed uint64, n int, graphs ...string) []quad.Quad {
	r := rand.New(rand.NewPCG(seed, 3))
	words := []string{"Blade Runner", "Alien", "Café Society", "Straße", "東京物語", "Zardoz"}
	qs := make([]quad.Quad, n)
	for i := range qs {
		p := store.RDFSLabel
		if r.IntN(4) == 0 {
			p = store.SKOSAltLabel
		}
		text := fmt.Sprintf("%s %d", words[r.IntN(len(words))], r.IntN(n/2+1))
		qs[i] = quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%d", r.IntN(n/3+1))), Predicate: quad.IRI(p),
			Object: quad.LangString{Value: quad.String(text), Lang: "en"}, Label: quad.IRI(graphs[r.IntN(len(graphs))])}
	}
	return qs
}

// loadCountingRuns bulk-loads qs into the database and returns the
// number of sorted label runs the load's label builders spilled.
func loadCountingRuns(t *testing.T, db *DB, qs []quad.Quad, keep bool, mem int64) int {
	t.Helper()
	return loadOpts(t, db, LoadOptions{Graph: "a", KeepLabels: keep, MaxMemory: mem}, qs).LabelRuns
}

// TestBulkLabelsSpilled: a label phase whose builders spill many sorted
// runs (a tiny budget) writes label index files byte for byte equal to
// those of a load that keeps every label in memory, for a first load and
// for a second load into graphs that already have an index, with one
// graph and with several graphs sharing the budget. No temporary file is
// left beside the database or the label files.
func TestBulkLabelsSpilled(t *testing.T) {
	tests := []struct {
		name   string
		keep   bool
		graphs []string
	}{
		{"one graph", false, []string{"a"}},
		{"three graphs", true, []string{"x", "y", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loads := [][]quad.Quad{labelHeavy(1, 40000, tt.graphs...), labelHeavy(2, 30000, tt.graphs...)}
			var files []map[string][]byte
			for _, mem := range []int64{DefaultMaxMemory, minMaxMemory} {
				dir := t.TempDir()
				db, err := Open(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for i, qs := range loads {
					runs := loadCountingRuns(t, db, qs, tt.keep, mem)
					if mem == minMaxMemory && runs < 2 {
						t.Errorf("load %d: %d label runs; the tiny budget should force several", i, runs)
					}
				}
				files = append(files, labelFiles(t, db, tt.graphs))
				for _, n := range append(spillDirs(t, dir), tmpLabelFiles(t, dir)...) {
					t.Errorf("temporary file left: %s", n)
				}
				db.Close()
			}
			for g, want := range files[0] {
				if got := files[1][g]; string(got) != string(want) {
					t.Errorf("graph %s: label index with a tiny budget (%d bytes) differs from in memory (%d bytes)", g, len(got), len(want))
				}
			}
		})
	}
}

// labelFiles returns the main label index file of each graph, which must
// hold labels.
func labelFiles(t *testing.T, db *DB, graphs []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, g := range graphs {
		gm, err := db.graphByName(g)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(db.mainFile(g, gm.LabelGen))
		if err != nil || gm.Labels == 0 {
			t.Fatalf("graph %s: label file: %v, %d labels", g, err, gm.Labels)
		}
		out[g] = data
	}
	return out
}

// tmpLabelFiles lists the temporary files in the label directory.
func tmpLabelFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "labels"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// failingSink fails the write phase after n keys, or at the flush after
// waiting for ready when n is negative.
type failingSink struct {
	kvWriter
	mu    sync.Mutex
	n     int
	ready func() bool
}

func (s *failingSink) Flush() error {
	if s.ready == nil {
		return s.kvWriter.Flush()
	}
	for deadline := time.Now().Add(10 * time.Second); !s.ready() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	s.kvWriter.Cancel()
	return errSinkFull
}

var errSinkFull = errors.New("sink full")

func (s *failingSink) Set(stream uint32, key, val []byte) error {
	if s.ready != nil {
		return s.kvWriter.Set(stream, key, val)
	}
	s.mu.Lock()
	s.n--
	fail := s.n < 0
	s.mu.Unlock()
	if fail {
		return errSinkFull
	}
	return s.kvWriter.Set(stream, key, val)
}

// TestFailedWriteKeepsLabelIndex: the label index a load writes while its
// keys are written is never named when the write phase fails, early (the
// build is cancelled) or at the flush once the new index file is written
// (it is removed): the label directory holds the same files as before,
// search answers as before, and the same load then succeeds.
func TestFailedWriteKeepsLabelIndex(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	loadOpts(t, db, LoadOptions{Graph: "a", KeepLabels: true}, labelHeavy(1, 20000, "a"))
	before := labelFiles(t, db, []string{"a"})
	names := func() []string {
		ents, err := os.ReadDir(filepath.Join(dir, "labels"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	files := names()
	hits, err := db.Search(context.Background(), "a", "Alien 7", 5)
	if err != nil {
		t.Fatal(err)
	}
	second := labelHeavy(2, 20000, "a")
	written := func() bool {
		_, err := os.Stat(db.mainFile("a", 2))
		return err == nil
	}
	for _, n := range []int{0, 100, 5000, -1} {
		l, err := db.NewLoader(LoadOptions{Graph: "a", KeepLabels: true})
		if err != nil {
			t.Fatal(err)
		}
		l.wrapSink = func(w kvWriter) kvWriter {
			if n < 0 {
				return &failingSink{kvWriter: w, ready: written}
			}
			return &failingSink{kvWriter: w, n: n}
		}
		for _, q := range second {
			if err := l.WriteQuad(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.Commit(context.Background()); !errors.Is(err, errSinkFull) {
			t.Fatalf("fail after %d keys: commit error %v", n, err)
		}
		l.Close()
		if got := names(); !slices.Equal(got, files) {
			t.Errorf("fail after %d keys: label files %v, want %v", n, got, files)
		}
		if got := labelFiles(t, db, []string{"a"}); !bytes.Equal(got["a"], before["a"]) {
			t.Errorf("fail after %d keys: label index changed", n)
		}
		again, err := db.Search(context.Background(), "a", "Alien 7", 5)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(hits) || len(hits) == 0 {
			t.Errorf("fail after %d keys: search %v, %v; want %v", n, again, err, hits)
		}
	}
	loadOpts(t, db, LoadOptions{Graph: "a", KeepLabels: true}, second)
	if got := labelFiles(t, db, []string{"a"}); bytes.Equal(got["a"], before["a"]) {
		t.Error("the successful load did not write a new label index")
	}
}
