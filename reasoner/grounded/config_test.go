package grounded

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

func TestConfigFromParams(t *testing.T) {
	tests := []struct {
		name   string
		i      Interaction
		s      Strategy
		params reasoner.Params
		check  func(Config) bool
		errs   []string
	}{
		{"paper defaults", Agent, ToT, nil, func(c Config) bool {
			return c.Steps == 10 && c.K == 3 && c.T == 3 && c.Evaluator == Select && c.Temperature == 0.7
		}, nil},
		{"cot is one chain", Explore, CoT, nil, func(c Config) bool { return c.K == 1 && c.T == 1 && c.Depth == 3 }, nil},
		{"strings from flags", Explore, GoT, reasoner.Params{"k": "2", "t": 1.0, "evaluator": "score", "depth": "1", "steps": 4},
			func(c Config) bool {
				return c.K == 2 && c.T == 1 && c.Evaluator == Score && c.Depth == 1 && c.Steps == 4
			}, nil},
		{"cot takes no k", Agent, CoT, reasoner.Params{"k": 3}, nil, []string{`unknown parameter(s) "k"`}},
		{"agent takes no depth", Agent, ToT, reasoner.Params{"depth": 2, "entity_width": 1}, nil,
			[]string{`"depth"`, `"entity_width"`}},
		{"bad evaluator", Agent, GoT, reasoner.Params{"evaluator": "vote"}, nil, []string{`"evaluator" must be "score" or "select", got "vote"`}},
		{"wrong type", Explore, ToT, reasoner.Params{"k": "three"}, nil, []string{`parameter "k": want an integer`}},
		{"out of range", Explore, ToT, reasoner.Params{"steps": 0, "t": -1, "temperature": -0.5}, nil,
			[]string{`"steps" must be at least 1`, `"t" must be at least 1`, "temperatures must not be negative"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigFromParams(tc.i, tc.s, tc.params)
			if len(tc.errs) == 0 {
				if err != nil || !tc.check(c) {
					t.Fatalf("config %+v, %v", c, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error for %v", tc.params)
			}
			for _, w := range tc.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{
		cfgWith(Agent, CoT, func(c *Config) { c.K = 2 }),
		cfgWith("graph", ToT, nil),
		cfgWith(Agent, "mcts", nil),
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v validated", c)
		}
	}
	p := DefaultConfig(Agent, CoT).Params()
	if _, ok := p[ParamK]; ok {
		t.Errorf("cot params list k: %v", p)
	}
	if _, ok := p[ParamDepth]; ok {
		t.Errorf("agent params list depth: %v", p)
	}
	if p := DefaultConfig(Explore, GoT).Params(); p[ParamEvaluator] != "select" || p[ParamDepth] != 3 {
		t.Errorf("explore-got params %v", p)
	}
}

func TestRegister(t *testing.T) {
	reg := reasoner.NewRegistry()
	Register(reg)
	want := []string{"agent-cot", "agent-got", "agent-tot", "explore-cot", "explore-got", "explore-tot"}
	if !slices.Equal(reg.Names(), want) {
		t.Fatalf("names = %v", reg.Names())
	}
	db := goodreads(t)
	for _, name := range want {
		r, err := reg.New(name, reasoner.Deps{KG: db, Model: lexical.Policy{}}, reasoner.Params{"steps": 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := r.(*Reasoner).Config().Method(); got != name {
			t.Errorf("%s builds %s", name, got)
		}
		tr, err := r.Answer(context.Background(), reasoner.Query{Question: "Which series includes the book Demelza (Poldark, #2)?"})
		if err != nil || tr.Method != name || len(tr.Nodes) < 2 {
			t.Errorf("%s: %v, %+v", name, err, tr)
		}
	}
	if _, err := reg.New("agent-tot", reasoner.Deps{KG: db, Model: lexical.Policy{}}, reasoner.Params{"depth": 1}); err == nil ||
		!strings.Contains(err.Error(), "method agent-tot") {
		t.Errorf("bad params: %v", err)
	}
	if _, err := New(reasoner.Deps{Model: lexical.Policy{}}, DefaultConfig(Agent, CoT)); err == nil {
		t.Error("no KG accepted")
	}
	for _, m := range reg.Methods() {
		if !strings.Contains(m.Description, "Graph-grounded") {
			t.Errorf("%s: %q", m.Name, m.Description)
		}
	}
}

// brokenKG fails Features calls.
type brokenKG struct{ store.KG }

func (brokenKG) Features(context.Context, string) ([]store.Feature, error) {
	return nil, errors.New("disk on fire")
}

func TestRunErrors(t *testing.T) {
	db := goodreads(t)
	ctx := context.Background()
	q := reasoner.Query{Question: qid40}
	modelDown := agentModel([]string{"x"}, []string{"RetrieveNode[Demelza]"}, nil)
	delete(modelDown.handlers, TaskAgentAction)
	tests := []struct {
		name  string
		kg    store.KG
		model llm.Model
		q     reasoner.Query
		ctx   func() context.Context
		want  string
	}{
		{"model error", db, modelDown, q, nil, `unexpected task "grounded/agent-action"`},
		{"kg error", brokenKG{db}, agentModel([]string{"x"}, []string{"NodeFeature[book/6186, title]"}, nil), q, nil, "disk on fire"},
		{"unknown graph", db, lexical.Policy{}, reasoner.Query{Question: "x", Graphs: []string{"nope"}}, nil, `graph "nope"`},
		{"cancelled", db, lexical.Policy{}, q, func() context.Context {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c
		}, "context canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(reasoner.Deps{KG: tc.kg, Model: tc.model}, DefaultConfig(Agent, CoT))
			if err != nil {
				t.Fatal(err)
			}
			c := ctx
			if tc.ctx != nil {
				c = tc.ctx()
			}
			tr, err := r.Answer(c, tc.q)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "agent-cot: ") {
				t.Fatalf("error = %v", err)
			}
			if tr == nil || tr.Error == "" || len(tr.Nodes) == 0 {
				t.Errorf("no partial trace: %+v", tr)
			}
		})
	}
	r, _ := New(reasoner.Deps{KG: db, Model: lexical.Policy{}}, DefaultConfig(Agent, CoT))
	if tr, err := r.Answer(ctx, reasoner.Query{Question: " "}); err == nil || tr != nil {
		t.Errorf("empty question: %v", err)
	}
}

func TestSchemaCache(t *testing.T) {
	db := goodreads(t)
	r, err := New(reasoner.Deps{KG: db, Model: lexical.Policy{}}, DefaultConfig(Explore, CoT))
	if err != nil {
		t.Fatal(err)
	}
	schemaCalls := func() int {
		tr, err := r.Answer(context.Background(), reasoner.Query{Question: "Who wrote Demelza?"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(tr.Nodes[0].Extra["graph_definition"], "book nodes (found by their title)") {
			t.Fatalf("root extra = %v", tr.Nodes[0].Extra)
		}
		n := 0
		for _, c := range tr.KGCalls {
			if c.Node == 1 && c.Op == "search" {
				n++
			}
		}
		return n
	}
	if first, second := schemaCalls(), schemaCalls(); first == 0 || second != 0 {
		t.Errorf("schema probes: %d then %d (cached)", first, second)
	}
}
