package engine

import (
	"math/rand/v2"
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
// exactly the sorted, distinct input, in every order.
func TestSortedRunsRoundTrip(t *testing.T) {
	for _, order := range []quadOrder{orderSPO, orderOPS, orderPGS} {
		r := rand.New(rand.NewPCG(9, uint64(order)))
		sd := &spillDir{path: t.TempDir()}
		s := newQuadSorter(sd, "t", order, 1) // at least 64k records per run
		var want []qids
		for i := 0; i < 300000; i++ {
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
		m, err := s.finish()
		if err != nil {
			t.Fatal(err)
		}
		got := drainMerger(t, m)
		if !slices.Equal(got, want) {
			t.Errorf("order %d: %d quads back, want %d", order, len(got), len(want))
		}
	}
}

// TestQuadSorterGrow checks that the sort buffer doubles up to the limit,
// never past it, and keeps every record when it grows.
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
		{"doubled", 1 << 22, sorterFirstBuf + 1, 2 * sorterFirstBuf, false},
		{"capped at limit", 3 << 20, 2*sorterFirstBuf + 1, 3 << 20, false},
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
