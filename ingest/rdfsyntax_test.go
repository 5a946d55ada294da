package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/grove-kg/grove/store"
)

// TestTurtleAndRDFXMLThroughTheKG loads the Turtle fixture xz-compressed
// and the RDF/XML fixture with format detection, and reads them back
// through the KG interface.
func TestTurtleAndRDFXMLThroughTheKG(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ttl, err := os.ReadFile(filepath.Join("rdf", "testdata", "people.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := xz.NewWriter(&buf)
	zw.Write(ttl)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	ttlXz := filepath.Join(dir, "people.ttl.xz")
	if err := os.WriteFile(ttlXz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, filepath.Join(dir, "db"))
	defer db.Close()
	for graph, file := range map[string]string{"ttl": ttlXz, "rdfxml": filepath.Join("rdf", "testdata", "people.rdf")} {
		res, err := Run(ctx, db, []string{file}, Options{Graph: graph})
		if err != nil {
			t.Fatalf("ingest %s: %v", file, err)
		}
		want := map[string]string{"ttl": "turtle", "rdfxml": "rdfxml"}[graph]
		if len(res.Files) != 1 || res.Files[0].Format != want || res.Load.Added == 0 {
			t.Errorf("%s: %+v, want format %s with quads", file, res.Files, want)
		}
	}
	const alice, knows = "http://example.org/kg/alice", "http://xmlns.com/foaf/0.1/knows"
	for graph, friend := range map[string]string{"ttl": "http://example.org/kg/bob", "rdfxml": "http://example.org/kg/#bob"} {
		edges, err := db.Edges(ctx, []string{alice}, knows, store.Out, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(edges, func(e store.Edge) bool { return e.Graph == graph && e.Object.ID == friend }) {
			t.Errorf("%s: alice knows %+v, want %s", graph, edges, friend)
		}
	}
}
