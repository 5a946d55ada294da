package grounded

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// goodreads opens the GRBench-shaped Goodreads fixture (testdata).
func goodreads(t testing.TB) *engine.DB {
	t.Helper()
	nq, err := os.ReadFile("testdata/goodreads.nq")
	if err != nil {
		t.Fatal(err)
	}
	return storetest.Open(t, map[string]string{"goodreads": string(nq)})
}

// cfgWith returns DefaultConfig(i, s) changed by f.
func cfgWith(i Interaction, s Strategy, f func(*Config)) Config {
	c := DefaultConfig(i, s)
	if f != nil {
		f(&c)
	}
	return c
}

// answer runs a reasoner built with cfg and fails the test on error.
func answer(t *testing.T, kg store.KG, model, eval llm.Model, cfg Config, q reasoner.Query) *trace.Trace {
	t.Helper()
	r, err := New(reasoner.Deps{KG: kg, Model: model, Evaluator: eval}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tracetest.Answer(t, r, q)
}

// stepNodes returns the trace nodes of reasoning steps (not the root or
// a final-answer node).
func stepNodes(tr *trace.Trace) []trace.Node {
	var out []trace.Node
	for _, n := range tr.Nodes {
		if n.State == string(Agent) || n.State == string(Explore) {
			out = append(out, n)
		}
	}
	return out
}

// kgOps lists the KG calls made for a node as "op:args".
func kgOps(tr *trace.Trace, node int) []string {
	var out []string
	for _, c := range tr.KGCalls {
		if c.Node == node {
			out = append(out, c.Op+":"+c.Args.ID+c.Args.Text+strings.Join(c.Args.IDs, ",")+"/"+c.Args.Relation)
		}
	}
	return out
}

// hasOp reports whether ops has an entry with the prefix.
func hasOp(ops []string, prefix string) bool {
	return slices.ContainsFunc(ops, func(o string) bool { return strings.HasPrefix(o, prefix) })
}
