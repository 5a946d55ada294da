package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

func TestRadixSortQuads(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		max  uint64
	}{{"small", 100, 50}, {"dense", 20000, 3000}, {"wide ids", 20000, 1 << 40}, {"one graph", 5000, 1 << 20}} {
		for _, order := range []quadOrder{orderSPO, orderOPS, orderPGS} {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(order)))
			qs := make([]qids, tc.n)
			for i := range qs {
				qs[i] = qids{s: r.Uint64N(tc.max) + 1, p: r.Uint64N(min(tc.max, 300)) + 1, o: r.Uint64N(tc.max) + 1, g: 7}
				if tc.name != "one graph" && i%3 == 0 {
					qs[i].g = r.Uint64N(tc.max) + 1
				}
			}
			want := slices.Clone(qs)
			slices.SortFunc(want, order.cmp)
			got := radixSortQuads(qs, make([]qids, len(qs)), make([]uint16, len(qs)), order)
			if !slices.Equal(got, want) {
				t.Errorf("%s order %d: radix sort differs from a comparison sort", tc.name, order)
			}
		}
	}
}

// TestSortedRunsRoundTrip: a sorter that spills many runs streams back
// exactly the sorted, distinct input, in every order, whether its runs are
// merged at once or first reduced to fewer, longer runs (fanIn), and
// leaves no file behind.
func TestSortedRunsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fanIn    int
		wantRuns int // runs left for the final merge
	}{
		{"all runs at once", 0, 6},
		{"fan-in 2", 2, 2},
		{"fan-in 3", 3, 3},
		{"fan-in 5", 5, 5},
	} {
		for _, order := range []quadOrder{orderSPO, orderOPS, orderPGS} {
			r := rand.New(rand.NewPCG(9, uint64(order)))
			sd := &spillDir{path: t.TempDir()}
			s := newQuadSorter(sd, "t", order, 1) // at least 64k records per run
			s.fanIn = tc.fanIn
			var want []qids
			for i := 0; i < 360000; i++ {
				q := qids{s: r.Uint64N(5000) + 1, p: r.Uint64N(40) + 1, o: r.Uint64N(1<<40) + 1, g: r.Uint64N(3) + 1}
				if i%7 == 0 && len(want) > 0 {
					q = want[r.IntN(len(want))] // duplicates across runs
				}
				want = append(want, q)
				if err := s.add(q); err != nil {
					t.Fatal(err)
				}
			}
			if !s.spilled() {
				t.Fatal("nothing spilled")
			}
			slices.SortFunc(want, order.cmp)
			want = slices.Compact(want)
			m, err := s.finish(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(m.all) != tc.wantRuns || len(s.runs) != tc.wantRuns {
				t.Errorf("%s, order %d: %d runs merged (%d listed), want %d", tc.name, order, len(m.all), len(s.runs), tc.wantRuns)
			}
			if files, _ := os.ReadDir(sd.path); len(files) != tc.wantRuns {
				t.Errorf("%s, order %d: %d files before the final merge, want %d", tc.name, order, len(files), tc.wantRuns)
			}
			got := drainMerger(t, m)
			if !slices.Equal(got, want) {
				t.Errorf("%s, order %d: %d quads back, want %d", tc.name, order, len(got), len(want))
			}
			if files, _ := os.ReadDir(sd.path); len(files) != 0 {
				t.Errorf("%s, order %d: %d files left after the merge", tc.name, order, len(files))
			}
		}
	}
}

// TestReduceRunsCancelled: a cancelled reduction stops with the context's
// error and leaves the runs it did not merge, and no partial run.
func TestReduceRunsCancelled(t *testing.T) {
	sd := &spillDir{path: t.TempDir()}
	s := newQuadSorter(sd, "t", orderSPO, 1)
	s.fanIn = 2
	for i := range 4 << 16 {
		if err := s.add(qids{s: uint64(i%977) + 1, p: 1, o: uint64(i) + 1, g: 1}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.reduceRuns(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("reduceRuns: %v, want context.Canceled", err)
	}
	if files, _ := os.ReadDir(sd.path); len(files) != len(s.runs) || len(s.runs) != 4 {
		t.Fatalf("%d files, %d runs after a cancelled reduction, want 4 and 4", len(files), len(s.runs))
	}
}

// TestQuadSorterGrow checks that the sort buffer starts at the first
// buffer, then grows to the limit in one step, never past it, and keeps
// every record when it grows.
func TestQuadSorterGrow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		limit   int
		n       int
		wantCap int
		spilled bool
	}{
		{"below first buffer", 1 << 16, 1000, 1 << 16, false},
		{"first buffer", 1 << 21, 1000, sorterFirstBuf, false},
		{"to the limit at once", 10 << 20, sorterFirstBuf + 1, 10 << 20, false},
		{"first buffer capped at limit", 1<<20 - 5, 1000, 1<<20 - 5, false},
		{"spills at limit", 1 << 16, 1<<16 + 5, 1 << 16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &quadSorter{sd: &spillDir{path: t.TempDir()}, name: "t", limit: tc.limit}
			for i := range tc.n {
				if err := s.add(qids{s: uint64(tc.n - i), p: 1, o: 2, g: 3}); err != nil {
					t.Fatal(err)
				}
			}
			if cap(s.buf) != tc.wantCap || s.spilled() != tc.spilled {
				t.Fatalf("cap %d spilled %v, want %d %v", cap(s.buf), s.spilled(), tc.wantCap, tc.spilled)
			}
			if tc.spilled {
				return
			}
			for i, q := range s.buf {
				if q.s != uint64(tc.n-i) {
					t.Fatalf("record %d = %+v after growing", i, q)
				}
			}
		})
	}
}

// TestSettle: settling a sorter that spilled writes its buffer as the last
// run and drops the buffers (the write phase must not hold them), and the
// runs still merge to every record; a sorter that never spilled keeps its
// records in memory and writes no file.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		wantRuns int
	}{
		{"spilled", 2<<16 + 5000, 3},
		{"in memory", 5000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd := &spillDir{path: t.TempDir()}
			s := newQuadSorter(sd, "t", orderSPO, 1) // 64k records per run
			var want []qids
			for i := range tc.n {
				q := qids{s: uint64(i%977) + 1, p: 1, o: uint64(i) + 1, g: 1}
				want = append(want, q)
				if err := s.add(q); err != nil {
					t.Fatal(err)
				}
			}
			n, err := s.settle(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			files, _ := os.ReadDir(sd.path)
			if n != tc.wantRuns || len(s.runs) != tc.wantRuns || len(files) != tc.wantRuns {
				t.Errorf("settle: %d runs reported, %d listed, %d files; want %d", n, len(s.runs), len(files), tc.wantRuns)
			}
			if held := len(s.buf) > 0 || s.tmp != nil || s.dig != nil; held != (tc.wantRuns == 0) {
				t.Errorf("settle: buffers held = %v (buf %d, tmp %d), want %v", held, len(s.buf), len(s.tmp), tc.wantRuns == 0)
			}
			m, err := s.finish(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, orderSPO.cmp)
			if got := drainMerger(t, m); !slices.Equal(got, want) {
				t.Errorf("%d records back, want %d", len(got), len(want))
			}
		})
	}
}
