package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// BenchmarkBulkLoad loads the film sample into a fresh on-disk database
// per iteration; b.N counts loads, and quads/s is reported.
func BenchmarkBulkLoad(b *testing.B) {
	qs := readFilm(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		loadQuads(b, db, "film", qs)
		db.Close()
	}
	b.ReportMetric(float64(len(qs)*b.N)/b.Elapsed().Seconds(), "quads/s")
}

// BenchmarkKG measures warm KG calls on the film sample; the Gizmo
// sub-benchmarks ask the same question through Cayley's query layer on the
// same database as the baseline.
func BenchmarkKG(b *testing.B) {
	db := filmDB(b)
	ctx := context.Background()
	ids := []string{"/en/blade_runner"}
	b.Run("Relations", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := db.Relations(ctx, ids, store.Both); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Edges", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := db.Edges(ctx, ids, "/film/film/starring", store.Out, 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EdgesHubIn", func(b *testing.B) {
		// "type" film: the biggest in-list of the sample.
		for i := 0; i < b.N; i++ {
			if _, err := db.Edges(ctx, []string{"/film/film"}, "type", store.In, 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SearchExact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := db.Search(ctx, "film", "Blade Runner", 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SearchFuzzy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := db.Search(ctx, "film", "Blade Runnr", 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("QuadIteratorBaseline", func(b *testing.B) {
		// Cayley-level scan of the same edges, without labels: the floor.
		ref, _ := db.ValueOf(quad.IRI("/en/blade_runner"))
		for i := 0; i < b.N; i++ {
			it := db.QuadIterator(quad.Subject, ref).Iterate()
			for it.Next(ctx) {
			}
			it.Close()
		}
	})
}

var _ = bytes.MinRead
