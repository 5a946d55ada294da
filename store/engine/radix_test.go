package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
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

// TestSortQuads checks the sorter's sort against a comparison sort in
// every order: objects and subjects that are mostly unique with a few
// hubs (runs of one first field from 1 to thousands of records), and the
// P order with input already in (s, o) order (tailSorted).
func TestSortQuads(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		hubs int // records pointing at a few hub ids
	}{{"tiny", 50, 10}, {"unique", 30000, 0}, {"hubs", 30000, 8000}, {"all one hub", 3000, 3000}} {
		for _, order := range []quadOrder{orderSPO, orderOPS, orderPGS} {
			for _, tailSorted := range []bool{false, true} {
				r := rand.New(rand.NewPCG(uint64(tc.n), uint64(order)))
				qs := make([]qids, tc.n)
				for i := range qs {
					qs[i] = qids{s: r.Uint64N(1<<22) + 1, p: r.Uint64N(300) + 1, o: uint64(i)*7 + 1, g: 1 + uint64(i%5/4)}
					if i < tc.hubs {
						qs[i].o, qs[i].s = r.Uint64N(3)+1, r.Uint64N(3)+1
					}
				}
				r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
				if tailSorted {
					if order != orderPGS {
						continue
					}
					slices.SortFunc(qs, func(a, b qids) int { return cmp4(a.s, b.s, a.o, b.o, 0, 0, 0, 0) })
				}
				want := slices.Clone(qs)
				slices.SortFunc(want, order.cmp)
				got := sortQuads(qs, make([]qids, len(qs)), make([]uint16, len(qs)), order, tailSorted)
				if !slices.Equal(got, want) {
					t.Errorf("%s order %d tailSorted %v: sortQuads differs from a comparison sort", tc.name, order, tailSorted)
				}
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

// BenchmarkSortQuads times a sorter's sort of 4M records shaped like the
// buffers of a 200k-entity Wikidata load: subjects in runs of 2-3
// (statement nodes) to a few hundred quads (entities); entities and their
// properties come in numeric order (Q2 before Q10) while term ids follow
// the IRIs' byte order (Q10 before Q2); 44% of the records with an object
// of their own, 15% sharing it with one or two others, 30% pointing at a
// few hundred hubs. It compares sortQuads with the radix sort of every
// field (the sort before it). On this shape the O order gains little; on
// the buffers dumped from that load (where a hub's records arrive nearly
// in subject order) sortQuads took 35% (S), 34% (O) and 39% (P) less time.
func BenchmarkSortQuads(b *testing.B) {
	const n, props, subjects = 4 << 20, 2000, 600000
	pid, sid := byteOrderIDs(props), byteOrderIDs(subjects)
	r := rand.New(rand.NewPCG(1, 2))
	qs := make([]qids, 0, n)
	for subj := 0; len(qs) < n; subj = (subj + 1) % subjects {
		runLen := []int{2, 2, 3, 3, 3, 8, 8, 40, 150}[r.IntN(9)]
		prop := r.IntN(props / 4)
		for range min(runLen, n-len(qs)) {
			prop = min(prop+r.IntN(4), props-1)
			q := qids{s: sid[subj], p: pid[prop], g: 1}
			switch x := r.Float64(); {
			case x < 0.44:
				q.o = 1<<22 + uint64(len(qs))
			case x < 0.59:
				q.o = r.Uint64N(n*6/100) + 1
			case x < 0.70:
				q.o = n + r.Uint64N(n/200)
			default:
				q.o = 2*n + r.Uint64N(500)
			}
			qs = append(qs, q)
		}
	}
	bySO := slices.Clone(qs)
	slices.SortFunc(bySO, func(a, b qids) int { return cmp4(a.s, b.s, a.o, b.o, 0, 0, 0, 0) })
	tmp, dig, work := make([]qids, n), make([]uint16, n), make([]qids, n)
	for _, bc := range []struct {
		name  string
		order quadOrder
		in    []qids
		tail  bool
	}{{"S", orderSPO, qs, false}, {"O", orderOPS, qs, false}, {"P", orderPGS, bySO, true}} {
		b.Run(bc.name+"/full-radix", func(b *testing.B) {
			for b.Loop() {
				copy(work, bc.in)
				radixSortQuads(work, tmp, dig, bc.order)
			}
		})
		b.Run(bc.name+"/sortQuads", func(b *testing.B) {
			for b.Loop() {
				copy(work, bc.in)
				sortQuads(work, tmp, dig, bc.order, bc.tail)
			}
		})
	}
}

// byteOrderIDs maps the numbers 0..n-1 (as 1..n) to the ids that the
// decimal strings get in byte order, as a dictionary numbers Q2 and Q10.
func byteOrderIDs(n int) []uint64 {
	names := make([]string, n)
	for i := range names {
		names[i] = strconv.Itoa(i + 1)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	ids := make([]uint64, n)
	for i, name := range names {
		j, _ := slices.BinarySearch(sorted, name)
		ids[i] = uint64(j) + 1
	}
	return ids
}
