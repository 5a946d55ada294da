package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// BenchmarkApplyDeltasBatch adds 60,000 new quads (new subjects, one
// predicate, new literal objects, one graph) to a fresh on-disk database
// in batches of each size, through store.ApplyInParts as the server and
// grove ingest --incremental apply them: a batch too large for one
// transaction is cut where the store says it fits. The cost per quad
// should not grow much with the batch's size (the server applies a write
// body of up to 65,536 quads as one batch). b.N counts whole runs;
// ns/quad is reported.
func BenchmarkApplyDeltasBatch(b *testing.B) {
	const n = 60000
	ds := newQuadDeltas(n)
	for _, size := range []int{2500, 10000, 30000, 60000} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				db, err := Open(b.TempDir(), Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for i := 0; i < n; i += size {
					if _, err := store.ApplyInParts(ds[i:min(i+size, n)], func(b []graph.Delta) error {
						return db.ApplyDeltas(b, graph.IgnoreOpts{})
					}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/quad")
		})
	}
}

// TestApplyDeltasTooBigEarly: a batch too large for one Badger
// transaction stops once its estimate is over the limits, before the rest
// of its work and before Badger refuses it, with a store.TooBigError whose
// Fit is a batch that does fit; a batch that fits is never refused by the
// estimate (it is a lower bound).
func TestApplyDeltasTooBigEarly(t *testing.T) {
	const n = 60000
	ds := newQuadDeltas(n)
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.ApplyDeltas(ds, graph.IgnoreOpts{})
	var tb *store.TooBigError
	if !errors.As(err, &tb) || !errors.Is(err, store.ErrTooBig) || strings.Contains(err.Error(), badger.ErrTxnTooBig.Error()) {
		t.Fatalf("a batch of %d: %v; want a store.TooBigError from the estimate, before Badger's refusal", n, err)
	}
	if tb.Fit < n/4 || tb.Fit >= n/2 {
		t.Errorf("Fit %d, want about a third of the %d deltas (a new subject and object each: ~4 keys per delta)", tb.Fit, n)
	}
	if got := db.Counts().Quads; got != 0 {
		t.Fatalf("%d quads stored by a refused batch", got)
	}
	// 20,000 such deltas are ~82,500 keys, under Badger's 104,857.
	if err := db.ApplyDeltas(ds[:20000], graph.IgnoreOpts{}); err != nil {
		t.Fatalf("a batch that fits: %v", err)
	}
	if err := db.ApplyDeltas(ds[20000:20000+tb.Fit], graph.IgnoreOpts{}); err != nil {
		t.Fatalf("a batch of the %d said to fit: %v", tb.Fit, err)
	}
}

// newQuadDeltas is n additions of new quads: a new subject, one predicate,
// a new literal object, one graph (about four keys each).
func newQuadDeltas(n int) []graph.Delta {
	ds := make([]graph.Delta, n)
	for i := range ds {
		ds[i] = graph.Delta{Action: graph.Add, Quad: quad.Make(quad.IRI(fmt.Sprintf("s%d", i)), quad.IRI("p"),
			quad.String(fmt.Sprintf("v%d", i)), quad.IRI("g"))}
	}
	return ds
}

// TestApplyDeltasTooBigDeletes: a delete batch too large for one
// transaction whose quads all exist is refused as too big (to be split);
// one that names a missing quad anywhere, even past where it was found too
// big, fails as missing, with nothing deleted, so that no part of it is
// applied after a split.
func TestApplyDeltasTooBigDeletes(t *testing.T) {
	const n = 60000
	adds := newQuadDeltas(n)
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := store.ApplyInParts(adds, func(b []graph.Delta) error { return db.ApplyDeltas(b, graph.IgnoreOpts{}) }); err != nil {
		t.Fatal(err)
	}
	dels := make([]graph.Delta, n)
	for i, d := range adds {
		dels[i] = graph.Delta{Action: graph.Delete, Quad: d.Quad}
	}
	if err := db.ApplyDeltas(dels, graph.IgnoreOpts{}); !errors.Is(err, store.ErrTooBig) {
		t.Fatalf("deleting %d stored quads at once: %v, want too big", n, err)
	}
	missing := slices.Clone(dels)
	missing[n-10].Quad.Object = quad.String("not stored")
	err = db.ApplyDeltas(missing, graph.IgnoreOpts{})
	if !errors.Is(err, graph.ErrQuadNotExist) || errors.Is(err, store.ErrTooBig) {
		t.Fatalf("a delete batch naming a missing quad: %v, want the quad named missing", err)
	}
	if got := db.Counts().Quads; got != n {
		t.Fatalf("%d quads left, want all %d", got, n)
	}
}

// cancelAfter is a context whose Err turns to context.Canceled after n
// calls: a deadline reached while a batch is applied.
type cancelAfter struct {
	context.Context
	n *int
}

func (c cancelAfter) Err() error {
	if *c.n--; *c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestApplyDeltasContext: a batch whose context ends while its deltas are
// applied stops with the context's error and writes nothing, wherever it
// ends (inside the deltas or before the commit); with a live context it
// is applied whole.
func TestApplyDeltasContext(t *testing.T) {
	ds := newQuadDeltas(2000)
	for _, calls := range []int{0, 3, 7, 8} { // 2,000 deltas: 7 checks inside, one before the commit
		db := openOpts(t, t.TempDir(), Options{})
		n := calls
		err := db.ApplyDeltasContext(cancelAfter{context.Background(), &n}, ds, graph.IgnoreOpts{})
		got := db.Counts().Quads
		if calls < 8 && (!errors.Is(err, context.Canceled) || got != 0) {
			t.Errorf("cancelled after %d checks: %v, %d quads stored; want canceled, none", calls, err, got)
		}
		if calls == 8 && (err != nil || got != 2000) {
			t.Errorf("never cancelled: %v, %d quads", err, got)
		}
		db.Close()
	}
}

// TestWriteRunnerContext: a write run's batch whose context ends while it
// is applied writes nothing and leaves the run's count where it was.
func TestWriteRunnerContext(t *testing.T) {
	db := openOpts(t, t.TempDir(), Options{})
	defer db.Close()
	w, err := db.BeginWriteRun(WriteRun{Graph: "g", Files: []WriteRunFile{{Name: "upd.nt", Size: 1}}, Total: 2000})
	if err != nil {
		t.Fatal(err)
	}
	ds := newQuadDeltas(2000)
	if err := w.ApplyDeltasContext(context.Background(), ds[:1000], graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	n := 2
	if err := w.ApplyDeltasContext(cancelAfter{context.Background(), &n}, ds[1000:], graph.IgnoreOpts{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled batch: %v", err)
	}
	runs, err := db.UnfinishedWriteRuns()
	if err != nil || len(runs) != 1 || runs[0].Done != 1000 || w.Done() != 1000 || db.Counts().Quads != 1000 {
		t.Fatalf("after a cancelled batch: runs %+v (%v), runner %d, %d quads; want 1000 each", runs, err, w.Done(), db.Counts().Quads)
	}
}
