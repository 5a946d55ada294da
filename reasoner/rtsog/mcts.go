package rtsog

import "math"

// The pure pieces of SC-MCTS: the UCT score, the child choice, the
// evaluation formula and the backed-up value. They read only the numbers
// given, so they are tested with hand-computed tables.

// Stat is what selection and backpropagation read of a node: its value
// Q and its visit count N.
type Stat struct {
	Q float64
	N int
}

// UCT is equation 2 of the paper: Q/N + c*sqrt(ln(N(parent))/N). Note
// that Q is already a visit-weighted mean (equation 11), so Q/N divides by
// the visits a second time, as the paper writes it; the effect is a strong
// preference for less visited children. An unvisited node (n <= 0) scores
// +Inf so that it is tried first; a parent with at most one visit adds no
// exploration bonus (ln 1 = 0).
func UCT(q float64, n, parentN int, c float64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	bonus := 0.0
	if parentN > 1 {
		bonus = c * math.Sqrt(math.Log(float64(parentN))/float64(n))
	}
	return q/float64(n) + bonus
}

// SelectChild returns the index of the child with the highest UCT score
// under a parent visited parentN times, the earliest among equals, or -1
// when children is empty.
func SelectChild(children []Stat, parentN int, c float64) int {
	best, bestScore := -1, math.Inf(-1)
	for i, ch := range children {
		s := UCT(ch.Q, ch.N, parentN, c)
		if best < 0 || s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// Value is equation 9: the reward of a new node, alpha*sr + (1-alpha)*sp,
// where sr is the value model's score of the relation that led to it and
// sp its score of the extended reasoning path.
func Value(alpha, sr, sp float64) float64 {
	return alpha*sr + (1-alpha)*sp
}

// Backup is equation 11: the visit-weighted mean of the children's values,
// sum(N_i*Q_i)/sum(N_i). Unvisited children weigh nothing; ok is false
// when no child has been visited (the node keeps its own value).
func Backup(children []Stat) (q float64, ok bool) {
	sum, weight := 0.0, 0
	for _, ch := range children {
		if ch.N <= 0 {
			continue
		}
		sum += float64(ch.N) * ch.Q
		weight += ch.N
	}
	if weight == 0 {
		return 0, false
	}
	return sum / float64(weight), true
}
