package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSampleIndicesMatchesPython(t *testing.T) {
	// Golden values printed by CPython 3.11:
	//   idx = list(range(size)); random.Random(seed).shuffle(idx)
	tests := []struct {
		size int
		seed int64
		head []int
	}{
		{394, 233, []int{302, 218, 389, 97, 4, 130, 374, 262, 271, 273, 16, 339}},
		{333, 233, []int{167, 325, 75, 73, 110, 4, 326, 58, 55, 165, 266, 11}},
		{12576, 233, []int{4450, 4379, 181, 9664, 310, 7334, 11612, 2818, 5780, 305, 499, 9368}},
		{10, 0, []int{7, 8, 1, 5, 3, 4, 2, 0, 9, 6}},
		{5, 1<<40 + 7, []int{2, 0, 1, 3, 4}},
		{1000, -5, []int{910, 516, 275, 950, 612, 970, 52, 75, 804, 447, 452, 288}},
		{2, 233, []int{1, 0}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.size, "/", tt.seed), func(t *testing.T) {
			got := SampleIndices(tt.size, 0, tt.seed)
			if !slices.Equal(got[:len(tt.head)], tt.head) {
				t.Fatalf("head %v, want %v", got[:len(tt.head)], tt.head)
			}
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			for i, v := range sorted {
				if v != i {
					t.Fatalf("not a permutation: %v", sorted)
				}
			}
		})
	}
}

func TestSampleIndicesWholePermutation(t *testing.T) {
	// sum(i*idx[i]) and the last five entries, from CPython 3.11.
	tests := []struct {
		size     int
		checksum int
		tail     []int
	}{
		{394, 15150440, []int{118, 268, 89, 321, 349}},
		{12576, 497823580621, []int{3781, 8604, 2856, 10294, 11181}},
	}
	for _, tt := range tests {
		got := SampleIndices(tt.size, 0, 233)
		sum := 0
		for i, v := range got {
			sum += i * v
		}
		if sum != tt.checksum || !slices.Equal(got[len(got)-5:], tt.tail) {
			t.Errorf("size %d: checksum %d tail %v, want %d %v", tt.size, sum, got[len(got)-5:], tt.checksum, tt.tail)
		}
	}
}

func TestPyRandomGetrandbits(t *testing.T) {
	// random.Random(233).getrandbits(32) three times.
	r := newPyRandom(233)
	for i, want := range []uint32{2931216007, 3446561803, 2698614761} {
		if got := r.getrandbits(32); got != want {
			t.Fatalf("draw %d = %d, want %d", i, got, want)
		}
	}
}

func TestSample(t *testing.T) {
	qs := make([]Question, 10)
	for i := range qs {
		qs[i].ID = fmt.Sprint(i)
	}
	tests := []struct {
		n    int
		want []string
	}{
		{3, []string{"7", "8", "1"}},
		{0, []string{"7", "8", "1", "5", "3", "4", "2", "0", "9", "6"}},
		{500, []string{"7", "8", "1", "5", "3", "4", "2", "0", "9", "6"}},
	}
	for _, tt := range tests {
		var got []string
		for _, q := range Sample(qs, tt.n, 0) {
			got = append(got, q.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Sample(n=%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	if qs[0].ID != "0" {
		t.Error("Sample modified its input")
	}
	if len(Sample(nil, 5, 233)) != 0 {
		t.Error("sample of nothing is not empty")
	}
}

func BenchmarkSampleIndices(b *testing.B) {
	for b.Loop() {
		SampleIndices(12576, 500, 233)
	}
}

// BenchmarkSampleIndicesBaseline shuffles with math/rand/v2 (not
// Python-compatible) for comparison.
func BenchmarkSampleIndicesBaseline(b *testing.B) {
	for b.Loop() {
		idx := make([]int, 12576)
		for i := range idx {
			idx[i] = i
		}
		r := rand.New(rand.NewPCG(233, 0))
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		_ = idx[:500]
	}
}
