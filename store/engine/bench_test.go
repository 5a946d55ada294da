package engine

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

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

// BenchmarkHubKG measures Relations and Edges on a synthetic hub shaped
// like the hubs of 'grove gen' data: 300 labelled relations coming in
// from 200,000 nodes, with a few going out.
func BenchmarkHubKG(b *testing.B) {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	loadQuads(b, db, "hub", hubKGQuads(300, 200_000))
	ctx := context.Background()
	hub := []string{"hub"}
	b.Run("Relations", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Relations(ctx, hub, store.Both); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EdgesIn", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Edges(ctx, hub, "p000", store.In, 50); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// hubKGQuads links n nodes to "hub" through rels labelled predicates
// (node i through predicate i mod rels), and the hub to 10 nodes.
func hubKGQuads(rels, n int) []quad.Quad {
	var qs []quad.Quad
	pred := func(i int) quad.IRI { return quad.IRI(fmt.Sprintf("p%03d", i%rels)) }
	for i := range rels {
		qs = append(qs, quad.Quad{Subject: pred(i), Predicate: quad.IRI(store.RDFSLabel),
			Object: quad.String(fmt.Sprintf("relation %d", (i*7919)%rels))})
	}
	for i := range n {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("n%d", i)), Predicate: pred(i), Object: quad.IRI("hub")})
	}
	for i := range 10 {
		qs = append(qs, quad.Quad{Subject: quad.IRI("hub"), Predicate: pred(i), Object: quad.IRI(fmt.Sprintf("n%d", i))})
	}
	return qs
}

var _ = bytes.MinRead

// BenchmarkStreamSinkKeys writes 2M dictionary-like keys (a term of ~40
// bytes -> an 8-byte id, in key order) through the bulk loader's Badger
// sink into a fresh database, per iteration, and reports the CPU time per
// key the whole process spent (Badger's StreamWriter decodes each record,
// builds and compresses the tables on goroutines of its own). This is the
// floor under every key a load writes, whatever the layout does above it.
func BenchmarkStreamSinkKeys(b *testing.B) {
	const n = 2 << 20
	var cpu time.Duration
	for b.Loop() {
		db, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		sink, err := newStreamSink(db.bdb, true, compactLate)
		if err != nil {
			b.Fatal(err)
		}
		c := processCPU()
		key := []byte("T\"value 000000000 of a literal\"^^<http://www.w3.org/2001/XMLSchema#string>")
		key[0] = spaceTerm
		val := make([]byte, idLen)
		for i := range n {
			for j, v := 16, i; v > 0; j, v = j-1, v/10 { // the 9 digits
				key[j] = byte('0' + v%10)
			}
			putID(val, uint64(i))
			if err := sink.Set(streamTerm, key, val); err != nil {
				b.Fatal(err)
			}
		}
		if err := sink.Flush(); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c
		db.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/key")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "cpu-ns/key")
}
