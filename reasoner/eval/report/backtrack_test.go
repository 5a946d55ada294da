package report

import (
	"testing"

	"github.com/grove-kg/grove/reasoner/trace"
)

// tree builds a trace from (parent, order, answer value) triples; value
// < 0 means "not an answer". Node ids are 1-based positions.
func tree(nodes ...[3]float64) *trace.Trace {
	t := &trace.Trace{}
	for i, n := range nodes {
		node := trace.Node{ID: i + 1, Order: int(n[1])}
		if n[0] > 0 {
			node.Parents = []int{int(n[0])}
		}
		if n[2] >= 0 {
			node.Answer, node.Evaluated, node.Value, node.Text = true, true, n[2], "answer"
		}
		t.Nodes = append(t.Nodes, node)
	}
	return t
}

func TestFirstSubtreeAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *trace.Trace
		want int // node id, 0 for none
	}{
		{"nothing expanded", tree([3]float64{0, 0, -1}), 0},
		{"only the root expanded", tree([3]float64{0, 1, -1}, [3]float64{1, 0, 0.5}), 0},
		{"chain", tree([3]float64{0, 1, -1}, [3]float64{1, 2, -1}, [3]float64{2, 0, 0.9}), 0},
		{"backtracked", tree(
			[3]float64{0, 1, -1},  // 1 root
			[3]float64{1, 2, -1},  // 2 first subtree
			[3]float64{1, 4, -1},  // 3 sibling, expanded after the answer
			[3]float64{2, 3, -1},  // 4
			[3]float64{4, 0, 0.2}, // 5 answer in the first subtree (proposed at order 3)
			[3]float64{3, 0, 0.9}, // 6 final answer
		), 5},
		{"best of several", tree(
			[3]float64{0, 1, -1},
			[3]float64{1, 2, -1},
			[3]float64{1, 3, -1},
			[3]float64{2, 0, 0.3},
			[3]float64{2, 0, 0.6},
			[3]float64{2, 0, 0.6},
		), 5},
		{"outside expansion came before the answer", tree(
			[3]float64{0, 1, -1},
			[3]float64{1, 2, -1},
			[3]float64{1, 3, -1},
			[3]float64{2, 4, -1},
			[3]float64{4, 0, 0.1},
		), 0},
		{"no answer in the first subtree", tree(
			[3]float64{0, 1, -1},
			[3]float64{1, 2, -1},
			[3]float64{1, 3, -1},
			[3]float64{3, 0, 0.9},
		), 0},
		{"unevaluated answers do not count", func() *trace.Trace {
			tr := tree([3]float64{0, 1, -1}, [3]float64{1, 2, -1}, [3]float64{1, 3, -1}, [3]float64{2, 0, 0.5})
			tr.Nodes[3].Evaluated = false
			return tr
		}(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := FirstSubtreeAnswer(tc.t)
			if ok != (tc.want != 0) || n.ID != tc.want {
				t.Errorf("got node %d (%v), want %d", n.ID, ok, tc.want)
			}
		})
	}
}

func TestBins(t *testing.T) {
	for v, want := range map[float64]int{0: 0, 0.19: 0, 0.2: 1, 0.79: 3, 0.8: 4, 1: 4, 1.5: 4, -1: 0} {
		if got := binOf(v); got != want {
			t.Errorf("binOf(%v) = %d, want %d", v, got, want)
		}
	}
	if BinLabel(4) != "0.8-1.0" || BinLabel(0) != "0.0-0.2" {
		t.Error("bin labels")
	}
}

// TestValueProfileSkipsNonAnswers: Figure 5 bins the evaluated answers
// only; a non-answer node ("unknown", "cannot determine") is not one.
func TestValueProfileSkipsNonAnswers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"Ridley Scott", 1},
		{"unknown", 0},
		{"I cannot determine the answer", 0},
		{"", 0},
	} {
		tr := &trace.Trace{Nodes: []trace.Node{{ID: 1, Answer: true, Evaluated: true, Value: 0.9, Text: tc.text}}}
		prof := map[string]*ValueProfile{}
		addValues(prof, "tot", tr, []string{"No"})
		got := 0
		if p := prof["tot"]; p != nil {
			got = p.Answers
		}
		if got != tc.want {
			t.Errorf("%q: %d answers profiled, want %d", tc.text, got, tc.want)
		}
	}
}
