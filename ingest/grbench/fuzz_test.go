package grbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// FuzzRead checks that any input either reads into well-formed quads or
// fails with a positioned *source.Error, with and without SkipInvalid.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"a_nodes": {"x": {"neighbors": {"knows": ["y", 3]}}, "y": {}}, "b_nodes": {"y": {"features": {"n": {"m": [1, null]}}}}}`,
		`{"papers": [1, {"x": 2}], "paper_nodes": {"p": {"features": NaN}}}`,
		`{"opinion_nodes": {"op-1": {"neighbors": {"reference": {"1": ["op-2"]}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			var quads []quad.Quad
			w := source.WriterFunc(func(q quad.Quad) error {
				quads = append(quads, q)
				return nil
			})
			rd := New(Options{Options: source.Options{SkipInvalid: skip}})
			err := rd.Read(context.Background(), "fuzz.json", bytes.NewReader(data), w)
			if err != nil {
				var se *source.Error
				if !errors.As(err, &se) || se.File != "fuzz.json" {
					t.Fatalf("error %v (%T) is not a positioned error", err, err)
				}
				continue
			}
			for _, q := range quads {
				if _, ok := q.Subject.(quad.IRI); !ok || q.Predicate == quad.IRI("") || q.Object == nil {
					t.Fatalf("malformed quad %v", q)
				}
			}
		}
	})
}
