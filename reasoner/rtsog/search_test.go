package rtsog

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/storetest"
)

var toyQuery = reasoner.Query{Question: "Which entity lies two steps from Topic?", TopicEntities: []string{"T"}}

// TestSearchOrder checks the UCT selection order and the self-critic on
// the toy graph, computed by hand (alpha 0.5, c 1):
//
//	it 1: T (unvisited). Children A 0.7, B 0.5, C 0.2, all N=1.
//	it 2: N(T)=1, no bonus: A. Children A1 0.2, A2 0.4; Q(A)=0.3, N(A)=2.
//	it 3: N(T)=2: A 0.3/2+sqrt(ln2/2)=0.739, B 0.5+sqrt(ln2)=1.333,
//	      C 0.2+0.833=1.033: B. Child B1 0.9; Q(B)=0.9, N(B)=2.
//	it 4: N(T)=3: A 0.15+0.741=0.891, B 0.45+0.741=1.191,
//	      C 0.2+1.048=1.248: C. Child C1 0.1; Q(C)=0.1, N(C)=2.
//	it 5: N(T)=4: A 0.15+0.833=0.983, B 0.45+0.833=1.283, C 0.05+0.833=0.883:
//	      B then B1 (its only child), unless the self-critic flagged B1 as
//	      End-of-Search, which leaves B exhausted: then A, and under A
//	      (N=2) A2 0.4+0.833 beats A1 0.2+0.833. A2's relations are all
//	      refused by the value model: a dead end.
func TestSearchOrder(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	tests := []struct {
		name     string
		eos      bool
		order    []int
		expanded []string
	}{
		{"self-critic stops under the correct node", true, []int{idT, idA, idB, idC, idA2}, []string{"T", "A", "B", "C", "A2"}},
		{"without the signal the search goes on below it", false, []int{idT, idA, idB, idC, idB1}, []string{"T", "A", "B", "C", "B1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := toyOracle()
			o.eos["Beta One"] = tt.eos
			m := o.model()
			tr := answerWith(t, db, m, m, toyConfig(nil), toyQuery)
			if got := tr.ExpansionOrder(); !slices.Equal(got, tt.order) {
				t.Fatalf("expansion order %v, want %v\n%s", got, tt.order, tracetest.Render(t, tr))
			}
			if got := relationCalls(tr); !slices.Equal(got, tt.expanded) {
				t.Errorf("relations fetched for %v, want %v", got, tt.expanded)
			}
			b1 := tnode(t, tr, idB1)
			if tt.eos != (b1.State == StateEndOfSearch && b1.Terminal && b1.Extra["leaf"] == "end-of-search") {
				t.Errorf("Beta One: state %s terminal %v extra %v", b1.State, b1.Terminal, b1.Extra)
			}
			if a2 := tnode(t, tr, idA2); tt.eos && (!a2.Terminal || a2.Extra["leaf"] != "dead end") {
				t.Errorf("Alpha Two should be a dead end: %+v", a2)
			}
		})
	}
}

// TestBackpropagationValues checks Q and N of every node after the two
// searches of TestSearchOrder, by hand:
//
//	with End-of-Search at B1: Q(A2)=0.4 (dead end, N=2), Q(A)=(0.2+2*0.4)/3,
//	Q(B)=0.9, Q(C)=0.1, Q(T)=(3*Q(A)+2*0.9+2*0.1)/7=3/7, Q(root)=Q(T).
//	without: B11=0.5 under B1, Q(B1)=0.5 (N=2), Q(B)=0.5 (N=3),
//	Q(A)=0.3 (N=2), Q(T)=(2*0.3+3*0.5+2*0.1)/7=2.3/7.
func TestBackpropagationValues(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	type qn struct {
		q float64
		n int
	}
	tests := []struct {
		name string
		eos  bool
		want map[int]qn
	}{
		{"end-of-search at Beta One", true, map[int]qn{
			idRoot: {3.0 / 7, 5}, idT: {3.0 / 7, 5}, idA: {1.0 / 3, 3}, idB: {0.9, 2}, idC: {0.1, 2},
			idA1: {0.2, 1}, idA2: {0.4, 2}, idB1: {0.9, 1}, idC1: {0.1, 1}}},
		{"no end-of-search", false, map[int]qn{
			idRoot: {2.3 / 7, 5}, idT: {2.3 / 7, 5}, idA: {0.3, 2}, idB: {0.5, 3}, idC: {0.1, 2},
			idA1: {0.2, 1}, idA2: {0.4, 1}, idB1: {0.5, 2}, idC1: {0.1, 1}, idB11: {0.5, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := toyOracle()
			o.eos["Beta One"] = tt.eos
			m := o.model()
			tr := answerWith(t, db, m, m, toyConfig(nil), toyQuery)
			if len(tr.Nodes) != len(tt.want) {
				t.Fatalf("%d nodes, want %d\n%s", len(tr.Nodes), len(tt.want), tracetest.Render(t, tr))
			}
			for id, w := range tt.want {
				n := tnode(t, tr, id)
				if !near(n.Value, w.q) || n.Visits != w.n || !n.Evaluated {
					t.Errorf("node %d (%s): Q=%g N=%d evaluated=%v; want Q=%g N=%d", id, n.Text, n.Value, n.Visits,
						n.Evaluated, w.q, w.n)
				}
			}
		})
	}
}

// TestAlphaWeighting checks Q = alpha*s_r + (1-alpha)*s_P on the first
// expansion (s_r, s_P: Alpha 0.6, 0.8; Beta 0.4, 0.6; Gamma 0.2, 0.2).
func TestAlphaWeighting(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	for _, alpha := range []float64{0, 0.33, 0.5, 1} {
		o := toyOracle()
		m := o.model()
		tr := answerWith(t, db, m, m, toyConfig(func(c *Config) { c.Iterations, c.Alpha = 1, alpha }), toyQuery)
		want := map[int][3]float64{
			idA: {0.6, 0.8, alpha*0.6 + (1-alpha)*0.8},
			idB: {0.4, 0.6, alpha*0.4 + (1-alpha)*0.6},
			idC: {0.2, 0.2, 0.2},
		}
		for id, w := range want {
			n := tnode(t, tr, id)
			if !near(n.Value, w[2]) {
				t.Errorf("alpha %g: node %s Q=%g, want %g", alpha, n.Text, n.Value, w[2])
			}
			if n.Extra["s_r"] != strconv.FormatFloat(w[0], 'f', 3, 64) || n.Extra["s_p"] != strconv.FormatFloat(w[1], 'f', 3, 64) {
				t.Errorf("alpha %g: node %s s_r=%s s_p=%s, want %g, %g", alpha, n.Text, n.Extra["s_r"], n.Extra["s_p"], w[0], w[1])
			}
		}
		// T's value is the mean of its three children.
		if tn := tnode(t, tr, idT); !near(tn.Value, (want[idA][2]+want[idB][2]+want[idC][2])/3) {
			t.Errorf("alpha %g: Q(T)=%g", alpha, tn.Value)
		}
	}
}

// TestPathStack checks the weighted reasoning paths and the stack: the
// K=4 best paths by Q are Beta (0.9), Beta One (0.9), Alpha Two (0.4),
// Alpha (1/3); they are judged in that order, each against the paths
// kept before it; Alpha Two is refused, so the answer is generated from
// the three others only.
func TestPathStack(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	o := toyOracle()
	o.eos["Beta One"] = true
	o.drop["Alpha Two"] = true
	o.answer = func(task llm.Task) string {
		if strings.Contains(task.Context, "Beta -> r6 -> Beta One") {
			return "The path says so.\nAnswer: Beta One"
		}
		return "Answer: unknown"
	}
	m := o.model()
	tr := answerWith(t, db, m, m, toyConfig(func(c *Config) { c.Paths = 4 }), toyQuery)

	calls := tracetest.Calls(tr, TaskStack)
	wantPaths := []string{"Topic -> r2 -> Beta", "Topic -> r2 -> Beta -> r6 -> Beta One",
		"Topic -> r1 -> Alpha -> r5 -> Alpha Two", "Topic -> r1 -> Alpha"}
	wantNodes := []int{idB, idB1, idA2, idA}
	if len(calls) != len(wantPaths) {
		t.Fatalf("%d stack checks, want %d\n%s", len(calls), len(wantPaths), tracetest.Render(t, tr))
	}
	kept := []string{}
	for i, c := range calls {
		prompt := c.Messages[1].Content
		if c.Node != wantNodes[i] || !strings.Contains(prompt, "): "+wantPaths[i]+"\n") {
			t.Errorf("stack check %d: node %d, prompt:\n%s", i+1, c.Node, prompt)
		}
		for _, k := range kept {
			if !strings.Contains(prompt, "  "+k+"\n") {
				t.Errorf("stack check %d does not show the kept path %q", i+1, k)
			}
		}
		if wantNodes[i] != idA2 {
			kept = append(kept, wantPaths[i])
		} else if strings.Contains(strings.Split(prompt, "New reasoning path")[0], "Alpha Two") {
			t.Errorf("Alpha Two shown as kept before being judged")
		}
	}
	verdicts := map[int]string{idB: "rank 1 of 4: kept as 1", idB1: "rank 2 of 4: kept as 2",
		idA2: "rank 3 of 4: dropped", idA: "rank 4 of 4: kept as 3"}
	for id, v := range verdicts {
		if got := tnode(t, tr, id).Extra["stack"]; got != v {
			t.Errorf("node %d stack verdict %q, want %q", id, got, v)
		}
	}
	ans := tracetest.Calls(tr, TaskAnswer)
	if len(ans) != 1 || strings.Contains(ans[0].Messages[1].Content, "Alpha Two") ||
		!strings.Contains(ans[0].Messages[1].Content, "1. (weight 0.90) Topic -> r2 -> Beta\n") {
		t.Fatalf("answer prompt:\n%s", ans[0].Messages[1].Content)
	}
	a := tr.Answer
	if !a.Found || a.Text != "Beta One" || !slices.Equal(a.Entities, []string{"B1"}) || a.Node != idB1 ||
		!near(a.Value, 0.9) || !a.Confident {
		t.Fatalf("answer %+v\n%s", a, tracetest.Render(t, tr))
	}
	if len(a.Support) != 2 || a.Support[0].Relation != "r2" || a.Support[1].Relation != "r6" {
		t.Errorf("support %+v", a.Support)
	}
	var chosen []int
	for _, n := range tr.Nodes {
		if n.Chosen {
			chosen = append(chosen, n.ID)
		}
	}
	if !slices.Equal(chosen, []int{idRoot, idT, idB, idB1}) {
		t.Errorf("chosen nodes %v", chosen)
	}
}
