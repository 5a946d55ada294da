package wikidata

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// batchWriter is a source.BatchWriter around a check, so that the
// emitter's one-call-per-entity path is tested too.
type batchWriter struct{ check func(quad.Quad) error }

func (w batchWriter) WriteQuad(q quad.Quad) error { return w.check(q) }

func (w batchWriter) WriteQuads(qs []quad.Quad) error {
	for _, q := range qs {
		if err := w.check(q); err != nil {
			return err
		}
	}
	return nil
}

// TestWriterErrorPositioned checks that an error from the writer (a
// backend refusing a value) names the file, the line and the entity.
func TestWriterErrorPositioned(t *testing.T) {
	ok := `{"type":"item","id":"Q1","labels":{"en":{"language":"en","value":"ok"}}},`
	nulLabel := `{"type":"item","id":"Q2","labels":{"en":{"language":"en","value":"a\u0000b"}}},`
	nulClaim := `{"type":"item","id":"Q3","claims":{"P1":[{"mainsnak":{"snaktype":"value","property":"P1",` +
		`"datavalue":{"value":"x\u0000y","type":"string"},"datatype":"string"},"type":"statement","rank":"normal"}]}},`
	refuseInverse := func(q quad.Quad) error {
		if q.Predicate == quad.IRI(store.GroveInverseLabel) {
			return store.ErrUnstorable
		}
		return nil
	}
	tests := []struct {
		name  string
		lines []string
		check func(quad.Quad) error
		batch bool
		want  string
	}{
		{"label line 3", []string{"[", ok, nulLabel, "]"}, storetest.RefuseNUL, false, "x.json:3: Q2: "},
		{"label line 3, batch writer", []string{"[", ok, nulLabel, "]"}, storetest.RefuseNUL, true, "x.json:3: Q2: "},
		{"claim line 2", []string{ok, nulClaim, ok}, storetest.RefuseNUL, false, "x.json:2: Q3: "},
		{"property metadata", []string{propP131, propP150}, refuseInverse, false, "x.json: property metadata after the last line: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w source.Writer = source.WriterFunc(tc.check)
			if tc.batch {
				w = batchWriter{tc.check}
			}
			in := []byte(strings.Join(tc.lines, "\n") + "\n")
			// Batches of one line each, decoded by several workers.
			opts := Options{Workers: 3, BatchBytes: 1}
			_, err := New(opts).ReadStats(context.Background(), "x.json", bytes.NewReader(in), w)
			storetest.CheckRefused(t, err, tc.want)
		})
	}
}
