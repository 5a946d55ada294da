package ingest

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/grove-kg/grove/store/engine"
)

// storedQuads lists every quad of db as N-Quads lines, sorted.
func storedQuads(t *testing.T, db *engine.DB) []string {
	t.Helper()
	ctx := context.Background()
	it := db.QuadsAllIterator().Iterate()
	defer it.Close()
	var out []string
	for it.Next(ctx) {
		q, err := db.Quad(it.Result())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, q.NQuad())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// graphQuads maps each graph of db to its quad count.
func graphQuads(db *engine.DB) map[string]int64 {
	out := map[string]int64{}
	for _, gm := range db.GraphMetas() {
		if gm.Quads > 0 {
			out[gm.Name] = gm.Quads
		}
	}
	return out
}

// TestIncrementalKeepsLabelsLikeBulk: --incremental stores exactly the
// quads, in the same graphs, as the bulk loader, with and without
// KeepLabels, and --delete removes them all again.
func TestIncrementalKeepsLabelsLikeBulk(t *testing.T) {
	ctx := context.Background()
	nq := write(t, "q.nq", `_:b1 <http://ex.org/p> "in A" <http://ex.org/gA> .
_:b1 <http://ex.org/p> "in B" <http://ex.org/gB> .
_:b1 <http://ex.org/p> "default" .
<http://ex.org/s> <http://www.w3.org/2000/01/rdf-schema#label> "Label in A" <http://ex.org/gA> .
_:b1 <http://ex.org/p> "in a blank graph" _:gb .
`)
	tests := []struct {
		name   string
		keep   bool
		graphs map[string]int64
	}{
		{"labels dropped", false, map[string]int64{"g": 5}},
		{"labels kept", true, map[string]int64{"g": 1, "http://ex.org/gA": 2, "http://ex.org/gB": 1, "_:g/gb": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Graph: "g", KeepLabels: tc.keep}
			bulk := openDB(t, t.TempDir())
			defer bulk.Close()
			if _, err := Run(ctx, bulk, []string{nq}, opts); err != nil {
				t.Fatal(err)
			}
			inc := openDB(t, t.TempDir())
			defer inc.Close()
			if _, err := Incremental(ctx, inc, []string{nq}, opts, false, 2); err != nil {
				t.Fatal(err)
			}
			want, got := storedQuads(t, bulk), storedQuads(t, inc)
			if !slices.Equal(got, want) {
				t.Errorf("incremental stored\n%v\nbulk\n%v", got, want)
			}
			for name, db := range map[string]*engine.DB{"bulk": bulk, "incremental": inc} {
				if g := graphQuads(db); !maps.Equal(g, tc.graphs) {
					t.Errorf("%s: graphs %v, want %v", name, g, tc.graphs)
				}
			}
			// The label is searchable in the graph it went into.
			labelGraph := "g"
			if tc.keep {
				labelGraph = "http://ex.org/gA"
			}
			if c, err := inc.Search(ctx, labelGraph, "Label in A", 1); err != nil || len(c) != 1 || c[0].ID != "http://ex.org/s" {
				t.Errorf("search in %s = %+v, %v", labelGraph, c, err)
			}
			for name, db := range map[string]*engine.DB{"bulk": bulk, "incremental": inc} {
				if _, err := Incremental(ctx, db, []string{nq}, opts, true, 2); err != nil {
					t.Fatal(err)
				}
				if left := storedQuads(t, db); len(left) != 0 {
					t.Errorf("%s: delete left %v", name, left)
				}
			}
		})
	}
}
