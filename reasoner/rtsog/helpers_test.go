package rtsog

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// toyGraph is a hand-built graph whose search is computed by hand in the
// tests: T -r1-> Alpha, T -r2-> Beta, T -r3-> Gamma; Alpha -r4-> Alpha
// One, Alpha -r5-> Alpha Two -r8-> Alpha Two One; Beta -r6-> Beta One
// -r9-> Beta Eleven; Gamma -r7-> Gamma One.
const toyGraph = `
<T> <name> "Topic" .
<T> <r1> <A> .
<T> <r2> <B> .
<T> <r3> <C> .
<A> <name> "Alpha" .
<B> <name> "Beta" .
<C> <name> "Gamma" .
<A> <r4> <A1> .
<A> <r5> <A2> .
<A1> <name> "Alpha One" .
<A2> <name> "Alpha Two" .
<A2> <r8> <A21> .
<A21> <name> "Alpha Two One" .
<B> <r6> <B1> .
<B1> <name> "Beta One" .
<B1> <r9> <B11> .
<B11> <name> "Beta Eleven" .
<C> <r7> <C1> .
<C1> <name> "Gamma One" .
`

// Trace node ids of the toy search (creation order).
const (
	idRoot = iota + 1
	idT
	idA
	idB
	idC
	idA1
	idA2
	idB1
	idC1
	idB11
)

// oracle is a scripted policy and value model for hand-computed searches:
// it keeps the relations whose label is in keep, scores relations and
// paths from tables (a missing entry fails the call, so the test notices),
// says End-of-Search for the entities in eos, drops from the path stack
// the paths ending in an entity of drop, and answers with answer.
type oracle struct {
	subs   string
	keep   map[string]bool
	rel    map[string]float64
	ent    map[string]float64
	eos    map[string]bool
	drop   map[string]bool
	answer func(t llm.Task) string
}

// toyOracle scores the toy graph so that, with alpha 0.5, the values are
// Alpha 0.7, Beta 0.5, Gamma 0.2, Alpha One 0.2, Alpha Two 0.4, Beta One
// 0.9, Gamma One 0.1, Beta Eleven 0.5.
func toyOracle() *oracle {
	return &oracle{
		subs: "Sub-question 1: Which entity follows Topic?\nSub-question 2: Which entity follows that one?",
		keep: map[string]bool{"r1": true, "r2": true, "r3": true, "r4": true, "r5": true, "r6": true, "r7": true, "r9": true},
		rel:  map[string]float64{"r1": 0.6, "r2": 0.4, "r3": 0.2, "r4": 0.2, "r5": 0.4, "r6": 0.9, "r7": 0.1, "r9": 0.5},
		ent: map[string]float64{"Alpha": 0.8, "Beta": 0.6, "Gamma": 0.2, "Alpha One": 0.2, "Alpha Two": 0.4,
			"Beta One": 0.9, "Gamma One": 0.1, "Beta Eleven": 0.5},
		eos:  map[string]bool{},
		drop: map[string]bool{},
		answer: func(t llm.Task) string {
			return "Answer: " + lastPart(strings.Split(t.Context, "\n")[0])
		},
	}
}

// lastPart is the last " -> " part of a path or triple.
func lastPart(path string) string {
	parts := strings.Split(path, " -> ")
	return parts[len(parts)-1]
}

// model returns the oracle as a scripted model.
func (o *oracle) model() *llm.Scripted {
	return &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskDecompose, Func: func(llm.Request, int) (string, error) { return o.subs, nil }},
		{Name: TaskSelectRelation, Func: func(req llm.Request, _ int) (string, error) {
			var ids []string
			for _, opt := range req.Task.Options {
				if o.keep[opt.Text] {
					ids = append(ids, opt.ID)
				}
			}
			if len(ids) == 0 {
				return "none", nil
			}
			return "Selected relations: " + strings.Join(ids, ", "), nil
		}},
		{Name: TaskScoreRelation, Func: func(req llm.Request, _ int) (string, error) {
			parts := strings.Split(req.Task.Candidate, " -> ")
			return lookup(o.rel, parts[len(parts)-2])
		}},
		{Name: TaskScorePath, Func: func(req llm.Request, _ int) (string, error) {
			return lookup(o.ent, lastPart(req.Task.Candidate))
		}},
		{Name: TaskEndOfSearch, Func: func(req llm.Request, _ int) (string, error) {
			if o.eos[lastPart(req.Task.Candidate)] {
				return "Yes\nthe path reaches the answer", nil
			}
			return "No", nil
		}},
		{Name: TaskStack, Func: func(req llm.Request, _ int) (string, error) {
			if o.drop[lastPart(req.Task.Candidate)] {
				return "No, it does not help.", nil
			}
			return "Yes.", nil
		}},
		{Name: TaskAnswer, Func: func(req llm.Request, _ int) (string, error) { return o.answer(req.Task), nil }},
	}}
}

func lookup(m map[string]float64, key string) (string, error) {
	v, ok := m[key]
	if !ok {
		return "", fmt.Errorf("oracle: no score for %q", key)
	}
	return fmt.Sprintf("Reasoning...\nScore: %g", v), nil
}

// toyConfig is the configuration of the hand-computed toy searches.
func toyConfig(f func(*Config)) Config {
	c := DefaultConfig()
	c.Iterations, c.Alpha, c.Exploration, c.SubQuestions = 5, 0.5, 1, 2
	if f != nil {
		f(&c)
	}
	return c
}

// answerWith answers q with a reasoner built from cfg and fails on error.
func answerWith(t *testing.T, kg store.KG, policy, value llm.Model, cfg Config, q reasoner.Query) *trace.Trace {
	t.Helper()
	r, err := New(reasoner.Deps{KG: kg, Model: policy, Evaluator: value}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tracetest.Answer(t, r, q)
}

// tnode returns a trace node or fails.
func tnode(t *testing.T, tr *trace.Trace, id int) trace.Node {
	t.Helper()
	n, ok := tr.Node(id)
	if !ok {
		t.Fatalf("no node %d (have %d)\n%s", id, len(tr.Nodes), tracetest.Render(t, tr))
	}
	return n
}

// relationCalls returns the ids whose relations the KG was asked for in
// both directions (expansions), in call order.
func relationCalls(tr *trace.Trace) []string {
	var out []string
	for _, c := range tr.KGCalls {
		if c.Op == "relations" && c.Args.Dir == "both" {
			out = append(out, strings.Join(c.Args.IDs, ","))
		}
	}
	return out
}

// failing is a model whose every call fails.
type failing struct{ err error }

func (f failing) Generate(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, f.err
}
