package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/grove-kg/grove/store/engine"
)

// Files with blank nodes of every kind Grove names: labelled ones in two
// graphs, Turtle's anonymous nodes and collections, a MusicBrainz-like
// statement node and a graph named by an IRI.
const (
	rtNT     = "_:x <http://ex.org/knows> _:y .\n_:y <http://ex.org/name> \"Y\" .\n<http://ex.org/a> <http://ex.org/p> _:x .\n"
	rtTurtle = "@prefix ex: <http://ex.org/> .\nex:a ex:p [ ex:q \"v\" ; ex:r ( ex:one ex:two ) ] .\n_:z ex:q \"w\" .\n"
	rtMB     = "_:mbrel-0a1b2c3d4e5f60718293a4b5 <http://ex.org/p> _:x .\n"
	rtIRI    = "_:x <http://ex.org/p> \"in a graph named by an IRI\" .\n"
)

// dumpNQuads writes the quads of db (of graph, or all with "") through
// Cayley's N-Quads writer, as grove serve's /cayley/api/v2/read does, and
// returns the lines sorted.
func dumpNQuads(t *testing.T, db *engine.DB, graphName string) []string {
	t.Helper()
	var buf bytes.Buffer
	w := nquads.NewWriter(&buf)
	qr := graph.NewQuadStoreReader(db)
	defer qr.Close()
	for {
		q, err := qr.ReadQuad()
		if err != nil {
			break
		}
		if graphName != "" && q.Label != quad.IRI(graphName) {
			continue
		}
		if err := w.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// blankNodes lists the blank node names in N-Quads lines (whose literals
// hold no "_:"), sorted, once each.
func blankNodes(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		for _, f := range strings.Fields(l) {
			if b, ok := strings.CutPrefix(f, "_:"); ok {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestDumpReadsBack: a Grove database dumped as N-Quads through Cayley's
// writer and ingested into a fresh database is the same database, blank
// node names included, whether the dump is read whole with its graph
// labels kept or graph by graph into graphs of the same names; read into
// another graph, its blank nodes are new ones, one per original.
func TestDumpReadsBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nt, ttl, mb, iri := file("a.nt", rtNT), file("b.ttl", rtTurtle), file("c.nt", rtMB), file("d.nt", rtIRI)
	graphs := map[string]string{nt: "g1", ttl: "g2", mb: "musicbrainz", iri: "http://ex.org/graph?v=1"}
	db := openDB(t, t.TempDir())
	defer db.Close()
	if _, err := Run(ctx, db, []string{nt, ttl, mb, iri}, Options{Graph: "g1", GraphOf: graphs}); err != nil {
		t.Fatal(err)
	}
	want := dumpNQuads(t, db, "")
	bnodes := blankNodes(t, want)
	for _, b := range []string{"g1/x", "g2/z", "musicbrainz/mbrel-0a1b2c3d4e5f60718293a4b5", "http://ex.org/graph?v=1/x"} {
		if !slices.Contains(bnodes, b) {
			t.Fatalf("fixture: blank node %s missing from %v", b, bnodes)
		}
	}
	if !slices.ContainsFunc(bnodes, func(b string) bool { return strings.HasPrefix(b, "g2/b.ttl@") && strings.Contains(b, "#") }) {
		t.Fatalf("fixture: no anonymous Turtle node in %v", bnodes)
	}

	all := file("all.nq", strings.Join(want, "\n")+"\n")
	t.Run("whole dump with labels", func(t *testing.T) {
		checkReadsBack(t, []string{all}, Options{Graph: "g1", KeepLabels: true}, want)
	})
	t.Run("graph by graph", func(t *testing.T) {
		var files []string
		of := map[string]string{}
		for i, g := range []string{"g1", "g2", "musicbrainz", "http://ex.org/graph?v=1"} {
			f := file("graph"+string(rune('0'+i))+".nq", strings.Join(dumpNQuads(t, db, g), "\n")+"\n")
			files = append(files, f)
			of[f] = g
		}
		checkReadsBack(t, files, Options{Graph: "g1", GraphOf: of}, want)
	})
	t.Run("into another graph", func(t *testing.T) {
		db2 := openDB(t, t.TempDir())
		defer db2.Close()
		if _, err := Run(ctx, db2, []string{all}, Options{Graph: "copy"}); err != nil {
			t.Fatal(err)
		}
		var wantCopy []string
		for _, b := range bnodes {
			wantCopy = append(wantCopy, "copy/"+b)
		}
		if got := blankNodes(t, dumpNQuads(t, db2, "")); !slices.Equal(got, wantCopy) {
			t.Errorf("copy's blank nodes %v, want %v", got, wantCopy)
		}
	})
}

// checkReadsBack loads files with opts into a fresh database and fails
// unless its N-Quads dump is want.
func checkReadsBack(t *testing.T, files []string, opts Options, want []string) {
	t.Helper()
	db := openDB(t, t.TempDir())
	defer db.Close()
	if _, err := Run(context.Background(), db, files, opts); err != nil {
		t.Fatal(err)
	}
	if got := dumpNQuads(t, db, ""); !slices.Equal(got, want) {
		t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
