package tot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// scorer is an evaluator that replies by the trace node a call serves
// (trace.NodeFrom): evaluations of sibling children run concurrently, so
// a reply queue would be consumed in a nondeterministic order.
type scorer struct {
	byNode map[int]string
	def    string

	mu    sync.Mutex
	calls []int
}

// scores builds a scorer from node values; other nodes score def.
func scores(def float64, values map[int]float64) *scorer {
	s := &scorer{byNode: map[int]string{}, def: fmt.Sprintf("Score: %.2f", def)}
	for id, v := range values {
		s.byNode[id] = fmt.Sprintf("Reasoning...\nScore: %.2f", v)
	}
	return s
}

func (s *scorer) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Task.Kind != llm.KindScore {
		return llm.Response{}, fmt.Errorf("scorer: unexpected task %q (%s)", req.Task.Name, req.Task.Kind)
	}
	id := trace.NodeFrom(ctx)
	s.mu.Lock()
	s.calls = append(s.calls, id)
	s.mu.Unlock()
	text, ok := s.byNode[id]
	if !ok {
		text = s.def
	}
	texts := make([]string, max(1, req.N))
	for i := range texts {
		texts[i] = text
	}
	return llm.Response{Texts: texts, Model: "scorer"}, nil
}

// evaluated returns the node ids evaluated, sorted.
func (s *scorer) evaluated() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.calls))
}

// pickByGoal is a relation-selection policy: it replies with the first
// option whose label (without a "[graph]" tag) occurs in the expansion
// goal carried by Task.Context, or "none".
func pickByGoal(req llm.Request, _ int) (string, error) {
	goal := " " + normalise(req.Task.Context) + " "
	for _, o := range req.Task.Options {
		label, _, _ := strings.Cut(o.Text, " [")
		if strings.Contains(goal, " "+normalise(label)+" ") {
			return o.ID, nil
		}
	}
	return "none", nil
}

func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " ")
}

// answerAll runs a reasoner built with cfg and fails the test on error.
func answerAll(t *testing.T, kg store.KG, model, eval llm.Model, cfg Config, q reasoner.Query) *trace.Trace {
	t.Helper()
	r, err := New(reasoner.Deps{KG: kg, Model: model, Evaluator: eval}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tracetest.Answer(t, r, q)
}

// cfgWith returns DefaultConfig changed by f.
func cfgWith(f func(*Config)) Config {
	c := DefaultConfig()
	f(&c)
	return c
}

// tnode returns a trace node or fails.
func tnode(t *testing.T, tr *trace.Trace, id int) trace.Node {
	t.Helper()
	n, ok := tr.Node(id)
	if !ok {
		t.Fatalf("no node %d (have %d)", id, len(tr.Nodes))
	}
	return n
}

// repeat returns n copies of s.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
