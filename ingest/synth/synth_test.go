package synth

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/source"
)

func TestWriteShape(t *testing.T) {
	var a, b bytes.Buffer
	st, err := Write(&a, Config{Quads: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, Config{Quads: 20000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("output is not deterministic")
	}
	if st.Quads < 20000 || st.Quads > 20100 {
		t.Fatalf("quads = %d", st.Quads)
	}
	frac := float64(st.Literals) / float64(st.Quads)
	if frac < 0.2 || frac > 0.4 {
		t.Fatalf("literal fraction %.2f, want ~0.3", frac)
	}
	// Every line parses with the RDF reader; hubs exist.
	in := map[string]int{}
	n := 0
	err = rdf.New(rdf.Options{Options: source.Options{Graph: "g"}}).Read(context.Background(), "synth.nt",
		strings.NewReader(a.String()), source.WriterFunc(func(q quad.Quad) error {
			n++
			if iri, ok := q.Object.(quad.IRI); ok {
				in[string(iri)]++
			}
			return nil
		}))
	if err != nil || int64(n) != st.Quads {
		t.Fatalf("parsed %d of %d: %v", n, st.Quads, err)
	}
	if in["Q1"] < 200 {
		t.Fatalf("hub Q1 has in-degree %d, want a power-law hub", in["Q1"])
	}
}
