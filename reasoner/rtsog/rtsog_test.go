package rtsog

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store/storetest"
)

func TestConfigFromParams(t *testing.T) {
	tests := []struct {
		name   string
		params reasoner.Params
		check  func(Config) bool
		err    string
	}{
		{"defaults are the paper's", nil, func(c Config) bool {
			return c.SubQuestions == 3 && c.Iterations == 24 && c.Width == 7 && c.MaxDepth == 5 && c.Alpha == 0.33 && c.Paths == 10
		}, ""},
		{"grailqa preset", reasoner.Params{"preset": "GrailQA"}, func(c Config) bool { return c.Iterations == 18 && c.Width == 7 }, ""},
		{"preset then override", reasoner.Params{"preset": "grailqa", "iterations": "6"}, func(c Config) bool { return c.Iterations == 6 }, ""},
		{"every hyper-parameter", reasoner.Params{"subquestions": 0, "iterations": 12, "width": 3.0, "max_depth": "4",
			"c": 1.4, "alpha": "0.5", "paths": 5, "max_candidates": 20, "pages": 2, "temperature": 0,
			"eval_temperature": 0.1, "search_limit": 3, "max_tokens": 256}, func(c Config) bool {
			return c == Config{SubQuestions: 0, Iterations: 12, Width: 3, MaxDepth: 4, Exploration: 1.4, Alpha: 0.5,
				Paths: 5, MaxCandidates: 20, Pages: 2, Temperature: 0, EvalTemperature: 0.1, SearchLimit: 3, MaxTokens: 256}
		}, ""},
		{"unknown preset", reasoner.Params{"preset": "qald"}, nil, `unknown preset "qald"`},
		{"unknown key", reasoner.Params{"H": 24}, nil, `unknown parameter(s) "H"`},
		{"wrong type", reasoner.Params{"width": "seven"}, nil, `parameter "width": want an integer`},
		{"alpha out of range", reasoner.Params{"alpha": 1.5}, nil, `parameter "alpha" must be in [0, 1]`},
		{"zero pages", reasoner.Params{"pages": 0}, nil, `parameter "pages" must be at least 1`},
		{"zero iterations", reasoner.Params{"iterations": 0}, nil, `parameter "iterations" must be at least 1`},
		{"negative sub-questions", reasoner.Params{"subquestions": -1}, nil, `parameter "subquestions" must be at least 0`},
		{"negative c", reasoner.Params{"c": -1}, nil, `parameter "c" must not be negative`},
		{"negative temperature", reasoner.Params{"temperature": -1}, nil, `must not be negative`},
		{"zero max tokens", reasoner.Params{"max_tokens": 0}, nil, `parameter "max_tokens" must be at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ConfigFromParams(tt.params)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("config %+v, error %v", c, err)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	reg := reasoner.NewRegistry()
	Register(reg)
	m := toyOracle().model()
	r, err := reg.New(Method, reasoner.Deps{KG: db, Model: m}, reasoner.Params{"iterations": 2, "alpha": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(t.Context(), toyQuery)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Method != Method || tr.Params[ParamIterations] != 2 || tr.Totals.Expansions != 2 {
		t.Errorf("method %s params %v expansions %d", tr.Method, tr.Params, tr.Totals.Expansions)
	}
	if _, err := reg.New(Method, reasoner.Deps{KG: db, Model: m}, reasoner.Params{"depth": 3}); err == nil ||
		!strings.Contains(err.Error(), "max_depth") {
		t.Errorf("unknown parameter not reported with the known ones: %v", err)
	}
	if _, err := New(reasoner.Deps{Model: m}, DefaultConfig()); err == nil {
		t.Error("no error without a KG")
	}
	if _, err := r.Answer(t.Context(), reasoner.Query{Question: " "}); err == nil {
		t.Error("no error for an empty question")
	}
}

// barrier holds the calls it matches until want of them are in flight at
// once, so a test deadlocks (and fails after a generous guard) unless the
// calls are concurrent.
type barrier struct {
	inner llm.Model
	match func(ctx context.Context, req llm.Request) bool
	want  int

	mu      sync.Mutex
	arrived int
	release chan struct{}
}

func (b *barrier) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if b.match(ctx, req) {
		b.mu.Lock()
		b.arrived++
		if b.arrived == b.want {
			close(b.release)
		}
		n := b.arrived
		b.mu.Unlock()
		select {
		case <-b.release:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		case <-time.After(30 * time.Second):
			return llm.Response{}, fmt.Errorf("barrier: only %d of %d calls were in flight together", n, b.want)
		}
	}
	return b.inner.Generate(ctx, req)
}

// TestConcurrentExpansion: the three relation scores and the three path
// scores of T's expansion are in flight together, and so are the three
// End-of-Search checks of its children.
func TestConcurrentExpansion(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	m := toyOracle().model()
	value := &barrier{inner: m, want: 6, release: make(chan struct{}), match: func(ctx context.Context, req llm.Request) bool {
		return req.Task.Kind == llm.KindScore && trace.NodeFrom(ctx) == idT
	}}
	policy := &barrier{inner: m, want: 3, release: make(chan struct{}), match: func(ctx context.Context, req llm.Request) bool {
		n := trace.NodeFrom(ctx)
		return req.Task.Name == TaskEndOfSearch && n >= idA && n <= idC
	}}
	tr := answerWith(t, db, policy, value, toyConfig(func(c *Config) { c.Iterations = 1 }), toyQuery)
	if value.arrived != 6 || policy.arrived != 3 {
		t.Errorf("arrived %d score and %d end-of-search calls", value.arrived, policy.arrived)
	}
	for _, c := range tr.ModelCalls {
		isValue := c.Task == TaskSelectRelation || c.Task == TaskScoreRelation || c.Task == TaskScorePath
		if isValue != (c.Kind == string(llm.KindScore) || c.Kind == string(llm.KindSelect)) {
			t.Errorf("call %s of kind %s", c.Task, c.Kind)
		}
	}
}

// events collects observer events.
type events struct {
	mu      sync.Mutex
	created map[int]bool
	updates int
	model   int
	kg      int
	bad     []string
}

func (e *events) OnNode(n trace.Node) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.created[n.ID] = true
}

func (e *events) OnNodeUpdate(n trace.Node) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.created[n.ID] {
		e.bad = append(e.bad, fmt.Sprintf("update of node %d before its creation", n.ID))
	}
	e.updates++
}

func (e *events) OnModelCall(trace.ModelCall) { e.mu.Lock(); e.model++; e.mu.Unlock() }
func (e *events) OnKGCall(trace.KGCall)       { e.mu.Lock(); e.kg++; e.mu.Unlock() }

// TestTraceRecord checks what one run records: every model call tagged
// with the node it serves, every KG call, the live events, the JSON form
// and the rendering with visits.
func TestTraceRecord(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	o := toyOracle()
	o.eos["Beta One"] = true
	m := o.model()
	obs := &events{created: map[int]bool{}}
	r, err := New(reasoner.Deps{KG: db, Model: m, Observer: obs}, toyConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(t.Context(), toyQuery)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.ModelCalls) != m.CallCount() || obs.model != len(tr.ModelCalls) || obs.kg != len(tr.KGCalls) ||
		len(obs.created) != len(tr.Nodes) || obs.updates == 0 || len(obs.bad) > 0 {
		t.Errorf("recorded %d model calls of %d, events %+v", len(tr.ModelCalls), m.CallCount(), obs)
	}
	for _, c := range tr.ModelCalls {
		n := tnode(t, tr, c.Node)
		switch c.Task {
		case TaskDecompose, TaskAnswer:
			if c.Node != idRoot {
				t.Errorf("%s tagged with node %d", c.Task, c.Node)
			}
		case TaskSelectRelation, TaskScoreRelation, TaskScorePath:
			if n.Order == 0 {
				t.Errorf("%s tagged with node %d, which was never expanded", c.Task, c.Node)
			}
		case TaskEndOfSearch:
			if n.State != StateEntity && n.State != StateEndOfSearch {
				t.Errorf("%s tagged with %s node %d", c.Task, n.State, c.Node)
			}
		}
		if len(c.Messages) != 2 || len(c.Outputs) != 1 || c.Model == "" {
			t.Errorf("model call %d incomplete: %+v", c.Seq, c)
		}
	}
	for _, c := range tr.KGCalls {
		if c.Error != "" || (c.Op == "edges" && c.Node == 0) {
			t.Errorf("KG call %+v", c)
		}
	}
	if tr.Totals.Expansions != 5 || tr.Totals.Nodes != 9 || tr.Totals.KGCalls != len(tr.KGCalls) {
		t.Errorf("totals %+v", tr.Totals)
	}
	if root := tnode(t, tr, idRoot); !strings.Contains(root.Extra["subquestions"], "Which entity follows Topic? | ") {
		t.Errorf("root extra %v", root.Extra)
	}
	data, err := json.Marshal(tr)
	if err != nil || !strings.Contains(string(data), `"visits":5`) {
		t.Errorf("json: %v", err)
	}
	out := tracetest.Render(t, tr)
	for _, want := range []string{
		"*   #2 [topic] Topic  value=0.43  visits=5  expanded #1",
		"        #8 [end-of-search] r6: Beta One  value=0.90  visits=1  (terminal)",
		"        #7 [entity] r5: Alpha Two  value=0.40  visits=2  expanded #5  (terminal)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
}
