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

// TestByteOrderMarkThroughIngest: an RDF/XML document opening with a UTF-8
// byte order mark is detected as RDF/XML (with or without a telling file
// name) and read, as Turtle and N-Triples documents with one are.
func TestByteOrderMarkThroughIngest(t *testing.T) {
	ctx := context.Background()
	const bom = "\xef\xbb\xbf"
	rdfxml := bom + `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex.org/">
<rdf:Description rdf:about="http://ex.org/a"><ex:p>x</ex:p></rdf:Description>
</rdf:RDF>
`
	tests := []struct{ file, text, format string }{
		{"bom.rdf", rdfxml, "rdfxml"},
		{"bom.data", rdfxml, "rdfxml"},
		{"bom-root.data", bom + rdfxml[len(bom)+len(`<?xml version="1.0"?>`)+1:], "rdfxml"},
		{"bom.ttl", bom + "@prefix ex: <http://ex.org/> .\nex:a ex:p \"x\" .\n", "turtle"},
		{"bom.nt", bom + "<http://ex.org/a> <http://ex.org/p> \"x\" .\n", "ntriples"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			qs, res, err := Parse(ctx, []string{write(t, tc.file, tc.text)}, Options{Graph: "g"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Files[0].Format != tc.format {
				t.Errorf("format %s, want %s", res.Files[0].Format, tc.format)
			}
			if len(qs) != 1 || qs[0].NQuad() != `<http://ex.org/a> <http://ex.org/p> "x" .` {
				t.Errorf("got %v", qs)
			}
		})
	}
}
