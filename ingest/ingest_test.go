package ingest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/ingest/input"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

func openDB(t testing.TB, dir string) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const small = `<a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .
<a> <knows> <b> .
<b> <http://www.w3.org/2000/01/rdf-schema#label> "Beta" .
_:x <knows> <a> .
`

// TestBadLineLeavesDataUnchanged: a bad line stops the run with file:line
// and nothing of the run is stored.
func TestBadLineLeavesDataUnchanged(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	if _, err := Run(ctx, db, []string{write(t, "good.nt", small)}, Options{Graph: "g"}); err != nil {
		t.Fatal(err)
	}
	before := db.Counts()
	bad := write(t, "bad.nt", "<c> <knows> <a> .\n<d> <knows> <a> .\n<e> <knows> \"unterminated .\n")
	_, err := Run(ctx, db, []string{bad}, Options{Graph: "g"})
	var se *source.Error
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(err.Error(), "bad.nt:3") {
		t.Fatalf("error = %v, want bad.nt:3", err)
	}
	if after := db.Counts(); after != before {
		t.Fatalf("counts changed by a failed run: %+v -> %+v", before, after)
	}
	if _, err := db.Entity(ctx, "c"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("quad of the failed run is visible: %v", err)
	}
	// With SkipInvalid the good lines go in and the bad one is counted.
	res, err := Run(ctx, db, []string{bad}, Options{Graph: "g", SkipInvalid: true})
	if err != nil || res.Skipped != 1 || len(res.Samples) != 1 || res.Load.Added != 2 {
		t.Fatalf("skip-invalid: %+v, %v", res, err)
	}
}

// TestReingestIsIdempotent loads the film sample twice.
func TestReingestIsIdempotent(t *testing.T) {
	ctx := context.Background()
	film := datadir.Film(t)
	db := openDB(t, t.TempDir())
	defer db.Close()
	res, err := Run(ctx, db, []string{film}, Options{Graph: "film"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Load.Added != 471705 {
		t.Fatalf("added %d quads, want 471705", res.Load.Added)
	}
	first := db.Counts()
	res, err = Run(ctx, db, []string{film}, Options{Graph: "film"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Load.Added != 0 || res.Load.Terms != 0 || db.Counts() != first {
		t.Fatalf("re-ingest changed the store: %+v, counts %+v -> %+v", res.Load, first, db.Counts())
	}
	c, err := db.Search(ctx, "film", "Blade Runner", 1)
	if err != nil || len(c) != 1 || c[0].ID != "/en/blade_runner" {
		t.Fatalf("search after re-ingest = %+v, %v", c, err)
	}
	edges, err := db.Edges(ctx, []string{"/en/blade_runner"}, "/film/film/directed_by", store.Out, 0)
	if err != nil || len(edges) != 1 {
		t.Fatalf("edges after re-ingest = %+v, %v", edges, err)
	}
}

// TestIncrementalAndDelete applies and removes a small file through
// transactions.
func TestIncrementalAndDelete(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	p := write(t, "small.nt", small)
	if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, true, 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete from a graph that does not exist: %v", err)
	}
	for _, want := range []int64{4, 0} { // the second run finds every quad there
		res, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, false, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Applied == nil || *res.Applied != want {
			t.Fatalf("applied %v, want %d", res.Applied, want)
		}
	}
	if n := db.Counts().Quads; n != 4 {
		t.Fatalf("quads = %d, want 4", n)
	}
	c, err := db.Search(ctx, "g", "beta", 1)
	if err != nil || len(c) != 1 || c[0].ID != "b" {
		t.Fatalf("search after incremental = %+v, %v", c, err)
	}
	if res, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, true, 100); err != nil || res.Applied == nil || *res.Applied != 4 {
		t.Fatalf("delete: applied %v, %v; want 4", res.Applied, err)
	}
	if st := db.Counts(); st.Quads != 0 || st.Nodes != 0 {
		t.Fatalf("after delete: %+v", st)
	}
	if c, _ := db.Search(ctx, "g", "beta", 1); len(c) != 0 {
		t.Fatalf("deleted label still found: %+v", c)
	}
}

// TestIncrementalSplitsLargeBatches: a batch too large for one Badger
// transaction (10,000 quads with 2 KB literals) is applied in parts, and
// deleted the same way.
func TestIncrementalSplitsLargeBatches(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	var b strings.Builder
	long := strings.Repeat("padding ", 250)
	for i := range 10000 {
		fmt.Fprintf(&b, "<s%d> <p> \"%d %s\" .\n", i, i, long)
	}
	p := write(t, "large.nt", b.String())
	if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, false, 10000); err != nil {
		t.Fatal(err)
	}
	if n := db.Counts().Quads; n != 10000 {
		t.Fatalf("quads = %d, want 10000", n)
	}
	if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, true, 10000); err != nil {
		t.Fatal(err)
	}
	if n := db.Counts().Quads; n != 0 {
		t.Fatalf("quads after delete = %d", n)
	}
}

// TestGraphPerFile loads three files in one bulk run: one into Graph, one
// into its own graph, and an N-Quads file whose labels are not kept (so
// it goes into Graph too); then the same files one graph per run, which
// must give the same graphs.
func TestGraphPerFile(t *testing.T) {
	ctx := context.Background()
	a := write(t, "a.nt", small)
	b := write(t, "b.nt", "_:x <knows> <c> .\n<c> <http://www.w3.org/2000/01/rdf-schema#label> \"Gamma\" .\n")
	nq := write(t, "c.nq", "<d> <knows> <a> <elsewhere> .\n")
	db := openDB(t, t.TempDir())
	defer db.Close()
	res, err := Run(ctx, db, []string{a, b, nq}, Options{Graph: "g", GraphOf: map[string]string{b: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{res.Files[0].Graph, res.Files[1].Graph, res.Files[2].Graph}; !slices.Equal(got, []string{"g", "h", "g"}) {
		t.Fatalf("file graphs = %v", got)
	}
	quads := map[string]int64{}
	for _, gm := range db.GraphMetas() {
		quads[gm.Name] = gm.Quads
	}
	if want := map[string]int64{"g": 5, "h": 2}; !maps.Equal(quads, want) {
		t.Fatalf("graphs %v, want %v", quads, want)
	}
	if c, err := db.Search(ctx, "h", "Gamma", 1); err != nil || len(c) != 1 || c[0].ID != "c" {
		t.Fatalf("search in graph h = %+v, %v", c, err)
	}
	if c, err := db.Search(ctx, "g", "Gamma", 1); err != nil || len(c) != 0 {
		t.Fatalf("graph h's label found in graph g: %+v, %v", c, err)
	}
	// Blank nodes are scoped by the graph of their file: _:x of a.nt and
	// _:x of b.nt are two nodes.
	for _, id := range []string{"_:g/x", "_:h/x"} {
		if _, err := db.Entity(ctx, id); err != nil {
			t.Fatalf("blank node %s: %v", id, err)
		}
	}
	// With KeepLabels the N-Quads label is a graph of its own.
	db2 := openDB(t, t.TempDir())
	defer db2.Close()
	if _, err := Run(ctx, db2, []string{nq, b}, Options{Graph: "g", KeepLabels: true, GraphOf: map[string]string{b: "h"}}); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, gm := range db2.GraphMetas() {
		names = append(names, gm.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"elsewhere", "h"}) {
		t.Fatalf("graphs with KeepLabels = %v", names)
	}
}

func TestGraphPerFileErrors(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	a := write(t, "a.nt", small)
	tests := []struct {
		name    string
		files   []string
		graphOf map[string]string
		want    string
	}{
		{"empty graph name", []string{a}, map[string]string{a: ""}, "empty graph name"},
		{"file not loaded", []string{a}, map[string]string{"other.nt": "h"}, "not among the files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(ctx, db, tc.files, Options{Graph: "g", GraphOf: tc.graphOf})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Incremental(ctx, db, []string{a}, Options{Graph: "g", GraphOf: map[string]string{a: "h"}}, false, 0); err == nil {
		t.Fatal("Incremental accepted a graph per file")
	}
	if n := db.Counts(); n.Quads != 0 {
		t.Fatalf("a refused run wrote %d quads", n.Quads)
	}
}

// TestSniffedNTriplesHint: a Turtle file whose first megabyte is plain
// N-Triples is detected as N-Triples; its first Turtle line fails naming
// the line and saying how to read it as Turtle. With the format given,
// or with Turtle given, there is no such advice.
func TestSniffedNTriplesHint(t *testing.T) {
	var b strings.Builder
	for i := range 20000 { // more than the 1 MiB detection window
		fmt.Fprintf(&b, "<http://ex.org/a%d> <http://ex.org/p> <http://ex.org/b> .\n", i)
	}
	b.WriteString("@prefix ex: <http://ex.org/> .\nex:c ex:p ex:d ;\n  ex:q \"x\" .\n")
	p := write(t, "data.txt", b.String())
	const hint = "(the format was detected as ntriples from the file's first lines; if the file is Turtle, pass --format turtle"
	for _, c := range []struct {
		format input.Format
		want   string // "" for no error
		hint   bool
	}{
		{input.FormatAuto, "data.txt:20001: ", true},
		{input.FormatNTriples, "data.txt:20001: ", false},
		{input.FormatTurtle, "", false},
	} {
		t.Run(c.format.String(), func(t *testing.T) {
			qs, _, err := Parse(context.Background(), []string{p}, Options{Graph: "g", Format: c.format})
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "" && len(qs) != 20002:
				t.Fatalf("%d quads, want 20002", len(qs))
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), hint) != c.hint):
				t.Fatalf("error %v, want %q with the hint: %v", err, c.want, c.hint)
			}
		})
	}
}
