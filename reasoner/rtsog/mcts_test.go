package rtsog

import (
	"math"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool {
	return math.Abs(a-b) < eps || (math.IsInf(a, 1) && math.IsInf(b, 1))
}

func TestUCT(t *testing.T) {
	tests := []struct {
		name       string
		q          float64
		n, parentN int
		c          float64
		want       float64
	}{
		{"unvisited is tried first", 0.9, 0, 5, 1, math.Inf(1)},
		{"parent visited once adds no bonus", 0.7, 1, 1, 1, 0.7},
		{"mean divided by visits", 0.3, 2, 1, 1, 0.15},
		// 0.3/2 + sqrt(ln 2 / 2) = 0.15 + 0.588705...
		{"with bonus", 0.3, 2, 2, 1, 0.15 + math.Sqrt(math.Ln2/2)},
		// 0.5/1 + 2*sqrt(ln 4 / 1)
		{"exploration weight", 0.5, 1, 4, 2, 0.5 + 2*math.Sqrt(math.Log(4))},
		{"no exploration", 0.8, 4, 100, 0, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UCT(tt.q, tt.n, tt.parentN, tt.c); !near(got, tt.want) {
				t.Errorf("UCT(%g, %d, %d, %g) = %g, want %g", tt.q, tt.n, tt.parentN, tt.c, got, tt.want)
			}
		})
	}
}

func TestSelectChild(t *testing.T) {
	tests := []struct {
		name     string
		children []Stat
		parentN  int
		c        float64
		want     int
	}{
		{"none", nil, 3, 1, -1},
		{"unvisited first", []Stat{{0.9, 3}, {0, 0}, {0.1, 0}}, 3, 1, 1},
		{"parent with one visit: highest value", []Stat{{0.7, 1}, {0.5, 1}, {0.2, 1}}, 1, 1, 0},
		// parent N=2: A 0.3/2+0.8326/sqrt2 = 0.7387, B 0.5+0.8326 = 1.3326, C 0.2+0.8326 = 1.0326.
		{"exploration favours the less visited", []Stat{{0.3, 2}, {0.5, 1}, {0.2, 1}}, 2, 1, 1},
		// parent N=3: A 0.15+0.7412 = 0.8912, B 0.45+0.7412 = 1.1912, C 0.2+1.0481 = 1.2481.
		{"third iteration", []Stat{{0.3, 2}, {0.9, 2}, {0.2, 1}}, 3, 1, 2},
		// without exploration only Q/N counts: 0.15, 0.45, 0.2.
		{"pure exploitation", []Stat{{0.3, 2}, {0.9, 2}, {0.2, 1}}, 3, 0, 1},
		{"ties go to the earlier", []Stat{{0.4, 1}, {0.4, 1}}, 2, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SelectChild(tt.children, tt.parentN, tt.c); got != tt.want {
				t.Errorf("SelectChild = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestValue(t *testing.T) {
	tests := []struct{ alpha, sr, sp, want float64 }{
		{0.33, 0.6, 0.8, 0.33*0.6 + 0.67*0.8},
		{0.33, 1, 0, 0.33},
		{0, 0.6, 0.8, 0.8},
		{1, 0.6, 0.8, 0.6},
		{0.5, 0.2, 0.4, 0.3},
	}
	for _, tt := range tests {
		if got := Value(tt.alpha, tt.sr, tt.sp); !near(got, tt.want) {
			t.Errorf("Value(%g, %g, %g) = %g, want %g", tt.alpha, tt.sr, tt.sp, got, tt.want)
		}
	}
}

func TestBackup(t *testing.T) {
	tests := []struct {
		name     string
		children []Stat
		want     float64
		ok       bool
	}{
		{"no children", nil, 0, false},
		{"only unvisited", []Stat{{0.5, 0}}, 0, false},
		{"one child", []Stat{{0.9, 1}}, 0.9, true},
		{"plain mean", []Stat{{0.2, 1}, {0.4, 1}}, 0.3, true},
		// (2*0.3 + 1*0.5 + 1*0.2) / 4
		{"visit weighted", []Stat{{0.3, 2}, {0.5, 1}, {0.2, 1}}, 1.3 / 4, true},
		{"unvisited weigh nothing", []Stat{{0.3, 3}, {1, 0}}, 0.3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Backup(tt.children)
			if ok != tt.ok || !near(got, tt.want) {
				t.Errorf("Backup = %g, %v; want %g, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestBackpropagate checks equations 10 and 11 on a hand-built tree:
// root -> T -> {A (expanded: A1 0.2, A2 0.4), B 0.5, C 0.2}, path root, T,
// A just expanded.
func TestBackpropagate(t *testing.T) {
	root := &node{n: 1, expanded: true}
	tn := &node{parent: root, depth: 1, n: 1, expanded: true}
	root.children = []*node{tn}
	a := &node{parent: tn, depth: 2, q: 0.7, n: 1, hop: &hop{}, expanded: true}
	b := &node{parent: tn, depth: 2, q: 0.5, n: 1, hop: &hop{}}
	c := &node{parent: tn, depth: 2, q: 0.2, n: 1, hop: &hop{}, terminal: true, exhausted: true}
	tn.children = []*node{a, b, c}
	a1 := &node{parent: a, depth: 3, q: 0.2, n: 1, hop: &hop{}, terminal: true, exhausted: true}
	a2 := &node{parent: a, depth: 3, q: 0.4, n: 1, hop: &hop{}, terminal: true, exhausted: true}
	a.children = []*node{a1, a2}

	backpropagate([]*node{root, tn, a})

	checks := []struct {
		name string
		n    *node
		q    float64
		v    int
		exh  bool
	}{
		{"A: mean of A1, A2", a, 0.3, 2, true},
		{"T: (2*0.3 + 0.5 + 0.2) / 4", tn, 1.3 / 4, 2, false},
		{"root: T's value", root, 1.3 / 4, 2, false},
		{"B untouched", b, 0.5, 1, false},
	}
	for _, ck := range checks {
		if !near(ck.n.q, ck.q) || ck.n.n != ck.v || ck.n.exhausted != ck.exh {
			t.Errorf("%s: Q=%g N=%d exhausted=%v; want Q=%g N=%d exhausted=%v",
				ck.name, ck.n.q, ck.n.n, ck.n.exhausted, ck.q, ck.v, ck.exh)
		}
	}
}
