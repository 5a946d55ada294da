package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/labelindex"
)

// BenchmarkLabelUpdate measures one ApplyDeltas batch that adds one label
// to a graph of 200,000 labelled entities: "segment" is the engine's path
// (a delta segment per batch, a compaction every maxSegments batches,
// amortized); "rewrite" adds to it a rewrite and fsync of the whole index
// per batch, which is what every batch cost before segments.
//
//	go test ./store/engine -run '^$' -bench BenchmarkLabelUpdate -benchtime 64x
func BenchmarkLabelUpdate(b *testing.B) {
	const n = 200_000
	for _, mode := range []string{"segment", "rewrite"} {
		b.Run(mode, func(b *testing.B) {
			db, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			qs := make([]quad.Quad, n)
			for i := range qs {
				qs[i] = labelQuad(fmt.Sprint("e", i), fmt.Sprint("Entity number ", i), "g")
			}
			loadQuads(b, db, "g", qs)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				q := labelQuad(fmt.Sprint("new", i), fmt.Sprint("New entity ", i), "g")
				if err := db.ApplyDeltas([]graph.Delta{{Quad: q, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
					b.Fatal(err)
				}
				if mode == "rewrite" {
					lb := labelindex.NewBuilder()
					lb.Add(string(q.Object.(quad.String)), 1)
					p, err := db.prepareSearch(ctx, "g", lb)
					if err == nil {
						err = db.commitPrepared(p)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
