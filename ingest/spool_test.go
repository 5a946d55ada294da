package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/storetest/datadir"
)

// spoolQuads is every value type the readers make, a repeated subject and
// predicate (pquads leaves them out of the next quad), and a literal over
// pquads' default message size (1 MiB).
func spoolQuads() []quad.Quad {
	big := quad.String(strings.Repeat("x", 3<<20))
	return []quad.Quad{
		{Subject: quad.IRI("a"), Predicate: quad.IRI("p"), Object: quad.IRI("b"), Label: quad.IRI("g")},
		{Subject: quad.IRI("a"), Predicate: quad.IRI("p"), Object: quad.String("plain")},
		{Subject: quad.IRI("a"), Predicate: quad.IRI("q"), Object: quad.LangString{Value: "Écosse", Lang: "fr"}},
		{Subject: quad.BNode("b1"), Predicate: quad.IRI("q"), Object: quad.TypedString{Value: "1984", Type: "http://www.w3.org/2001/XMLSchema#gYear"}},
		{Subject: quad.BNode("b1"), Predicate: quad.IRI("ended"), Object: quad.Bool(true), Label: quad.BNode("gb")},
		{Subject: quad.IRI("c"), Predicate: quad.IRI("big"), Object: big},
		{Subject: quad.IRI("c"), Predicate: quad.IRI("p"), Object: quad.IRI("c")},
	}
}

// TestSpool: a spool gives back its quads, values and order exact, in
// batches, whatever part of them went to its file; close removes the
// file's directory; fn's error stops the pass.
func TestSpool(t *testing.T) {
	in := spoolQuads()
	cases := []struct {
		name   string
		budget int64
		onFile int64
	}{
		{"all in memory", 1 << 30, 0},
		{"first quad in memory", 0, int64(len(in) - 1)},
		{"some in memory", 400, 4},
	}
	for _, c := range cases {
		for _, batch := range []int{1, 3, 1000, 1 << 30} { // 1 << 30: --batch 1073741824 must not allocate for it
			t.Run(c.name, func(t *testing.T) {
				base := t.TempDir()
				s := newSpool(c.budget, func() (string, error) { return os.MkdirTemp(base, "spool-") })
				for _, q := range in {
					if err := s.add(q); err != nil {
						t.Fatal(err)
					}
				}
				if s.Len() != int64(len(in)) || s.onFile != c.onFile {
					t.Fatalf("len %d, on file %d; want %d, %d", s.Len(), s.onFile, len(in), c.onFile)
				}
				for pass := range 2 { // a second pass reads the same
					var out []quad.Quad
					err := s.Each(context.Background(), batch, func(b []quad.Quad) error {
						if len(b) > batch {
							t.Errorf("batch of %d, want at most %d", len(b), batch)
						}
						out = append(out, b...)
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					checkSameQuads(t, pass, out, in)
				}
				stop := errors.New("stop")
				calls := 0
				if err := s.Each(context.Background(), 1, func([]quad.Quad) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
					t.Errorf("fn's error: %v after %d calls, want %v after 1", err, calls, stop)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if ents, _ := os.ReadDir(base); len(ents) != 0 {
					t.Errorf("close left %v", ents)
				}
			})
		}
	}
}

// checkSameQuads fails unless out holds in's quads, in order, with the
// same value types.
func checkSameQuads(t *testing.T, pass int, out, in []quad.Quad) {
	t.Helper()
	if len(out) != len(in) {
		t.Fatalf("pass %d: %d quads back, want %d", pass, len(out), len(in))
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("pass %d, quad %d: %#v, want %#v", pass, i, short(out[i]), short(in[i]))
		}
	}
}

// short cuts a quad's long literal for a message.
func short(q quad.Quad) string {
	s := q.String()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// TestSpoolFileErrors: a spool file cut short is an error naming it, not
// quads made up or dropped.
func TestSpoolFileErrors(t *testing.T) {
	base := t.TempDir()
	s := newSpool(0, func() (string, error) { return os.MkdirTemp(base, "spool-") })
	defer s.Close()
	for _, q := range spoolQuads() {
		if err := s.add(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.bw.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(s.path, fi.Size()-10); err != nil {
		t.Fatal(err)
	}
	err = s.Each(context.Background(), 100, func([]quad.Quad) error { return nil })
	if err == nil || !strings.Contains(err.Error(), filepath.Join(s.dir, spoolFile)) {
		t.Fatalf("truncated spool: %v, want an error naming the file", err)
	}
}

// TestIncrementalSpooled: an --incremental load and delete whose quads
// are spooled to disk (a tiny memory budget) store exactly what the bulk
// loader stores, and leave no temporary file beside the database.
func TestIncrementalSpooled(t *testing.T) {
	ctx := context.Background()
	wd := datadir.Repo(t, "wikidata-sample-entities.json.gz")
	bulk := openDB(t, t.TempDir())
	defer bulk.Close()
	if _, err := Run(ctx, bulk, []string{wd}, Options{Graph: "wd"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	inc := openDB(t, dir)
	defer inc.Close()
	opts := Options{Graph: "wd", MaxMemory: 4 << 10} // 1 KiB in memory, the rest spooled
	if _, err := Incremental(ctx, inc, []string{wd}, opts, false, 100); err != nil {
		t.Fatal(err)
	}
	want, got := storedQuads(t, bulk), storedQuads(t, inc)
	if len(want) == 0 || strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("spooled incremental load stored %d quads, bulk %d (or they differ)", len(got), len(want))
	}
	if _, err := Incremental(ctx, inc, []string{wd}, opts, true, 100); err != nil {
		t.Fatal(err)
	}
	if left := storedQuads(t, inc); len(left) != 0 {
		t.Fatalf("spooled delete left %d quads", len(left))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "ingest-spill-") {
			t.Errorf("temporary directory %s left beside the database", e.Name())
		}
	}
}

// TestSpoolBatchBytes: a batch read back from the spool's file ends at
// the spool's memory budget (at least 1 MiB) however many quads were
// asked for, so a huge --batch cannot read the whole file into memory.
func TestSpoolBatchBytes(t *testing.T) {
	base := t.TempDir()
	s := newSpool(0, func() (string, error) { return os.MkdirTemp(base, "spool-") })
	defer s.Close()
	lit := quad.String(strings.Repeat("y", 1000))
	for i := range 5000 { // about 5 MB
		if err := s.add(quad.Quad{Subject: quad.IRI(fmt.Sprint("s", i)), Predicate: quad.IRI("p"), Object: lit}); err != nil {
			t.Fatal(err)
		}
	}
	var batches, quads int
	err := s.Each(context.Background(), 1<<30, func(b []quad.Quad) error {
		batches++
		quads += len(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if quads != 5000 || batches < 5 {
		t.Fatalf("%d quads in %d batches; want 5000 in at least 5 (1 MiB each)", quads, batches)
	}
}

// TestSpoolFilesCheck: a quad Options.Check refuses stops SpoolFiles
// with an error positioned at its file and line, wrapping the check's.
func TestSpoolFilesCheck(t *testing.T) {
	errBad := errors.New("cannot store a NUL")
	check := func(q quad.Quad) error {
		if strings.ContainsRune(quad.StringOf(q.Object), 0) {
			return errBad
		}
		return nil
	}
	dir := t.TempDir()
	cases := []struct {
		name, body, want string // want "": no error
	}{
		{"nul.nt", "<s> <p> \"ok\" .\n<s> <p> \"a\\u0000b\" .\n", "nul.nt:2: cannot store a NUL"},
		{"fine.nt", "<s> <p> \"ok\" .\n<s> <p> \"a b\" .\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			sp, _, err := SpoolFiles(context.Background(), []string{path}, Options{Graph: "g", Check: check},
				func() (string, error) { return t.TempDir(), nil })
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer sp.Close()
				if sp.Len() != 2 {
					t.Errorf("spooled %d quads, want 2", sp.Len())
				}
				return
			}
			if !errors.Is(err, errBad) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("SpoolFiles: %v, want %q", err, c.want)
			}
		})
	}
}
