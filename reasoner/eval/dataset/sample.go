package dataset

// Sample returns the first n questions of qs after shuffling their positions
// with Python's random.Random(seed).shuffle, which is how ReAct and
// Tree-of-Traversals subsample (seed 233, see DefaultSeed). n <= 0 or n >=
// len(qs) returns every question, in shuffled order. qs is not modified.
func Sample(qs []Question, n int, seed int64) []Question {
	idx := SampleIndices(len(qs), n, seed)
	out := make([]Question, len(idx))
	for i, j := range idx {
		out[i] = qs[j]
	}
	return out
}

// SampleIndices returns the positions Sample picks from a dataset of size
// questions: the first n of Python's random.Random(seed).shuffle(list(range(size))).
func SampleIndices(size, n int, seed int64) []int {
	idx := make([]int, size)
	for i := range idx {
		idx[i] = i
	}
	r := newPyRandom(seed)
	r.shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	if n > 0 && n < size {
		idx = idx[:n]
	}
	return idx
}
