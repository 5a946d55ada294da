package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestPredFeed: entries queued through the feed come out of the sorter
// sorted, complete and without duplicates, in memory and from spilled runs.
func TestPredFeed(t *testing.T) {
	for _, n := range []int{0, 1, predBlock - 1, predBlock, 3*predBlock + 7, 150_000} {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		sd := &spillDir{path: t.TempDir()}
		f := newPredFeed(newQuadSorter(sd, "pred", orderPGS, 0)) // at least 64k in memory
		var want []qids
		for range n {
			q := qids{s: r.Uint64N(1000), p: r.Uint64N(20), g: r.Uint64N(3)}
			want = append(want, q)
			if err := f.add(q); err != nil {
				t.Fatal(err)
			}
		}
		m, err := f.finish(context.Background())
		if err != nil {
			t.Fatalf("%d entries: %v", n, err)
		}
		got := drainMerger(t, m)
		f.stop() // a second stop is harmless
		slices.SortFunc(want, orderPGS.cmp)
		want = slices.Compact(want) // the merger drops duplicates
		if !slices.Equal(got, want) {
			t.Errorf("%d entries: got %d back, not the sorted input", n, len(got))
		}
	}
}

// TestPredFeedError: a sorter that cannot spill fails finish, without
// blocking the feed; stop without finish ends the goroutine too.
func TestPredFeedError(t *testing.T) {
	sd := &spillDir{path: filepath.Join(t.TempDir(), "gone")}
	f := newPredFeed(newQuadSorter(sd, "pred", orderPGS, 0))
	for i := range 200_000 {
		if err := f.add(qids{s: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.finish(context.Background()); err == nil {
		t.Fatal("finish succeeded although the sorter could not spill")
	}
	g := newPredFeed(newQuadSorter(sd, "pred", orderPGS, 0))
	for i := range 10_000 {
		_ = g.add(qids{s: uint64(i)})
	}
	g.stop()
}
