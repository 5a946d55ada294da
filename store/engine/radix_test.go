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
