package reasoner

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

func TestRun(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .` + "\n" + `<a> <r> <b> .`})
	boom := errors.New("boom")
	deps := Deps{KG: db, Model: lexical.Policy{}}
	resolve := func(ctx context.Context, s *Session) (trace.Answer, error) {
		if err := s.ResolveGraphs(ctx); err != nil {
			return trace.Answer{}, err
		}
		return trace.Answer{Found: true, Text: strings.Join(s.Graphs, ",")}, nil
	}
	tests := []struct {
		name      string
		deps      Deps
		q         Query
		solve     Solve
		wantErr   string
		wantTrace bool
		answer    string
	}{
		{"answer", deps, Query{Question: "q?"}, resolve, "", true, "g"},
		{"invalid query", deps, Query{Question: " "}, resolve, "m: query: empty question", false, ""},
		{"no KG", Deps{Model: lexical.Policy{}}, Query{Question: "q?"}, resolve, "m: reasoner deps: no knowledge graph", false, ""},
		{"unknown graph", deps, Query{Question: "q?", Graphs: []string{"x"}}, resolve, `m: graph "x": not found`, true, ""},
		{"solve fails", deps, Query{Question: "q?"}, func(context.Context, *Session) (trace.Answer, error) {
			return trace.Answer{}, boom
		}, "m: boom", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Run(t.Context(), "m", map[string]any{"k": 1}, tt.deps, tt.q, tt.solve)
			switch {
			case tt.wantErr == "" && err != nil,
				tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if (tr != nil) != tt.wantTrace {
				t.Fatalf("trace %+v, want one: %v", tr, tt.wantTrace)
			}
			if tr == nil {
				return
			}
			if tr.Method != "m" || tr.Params["k"] != 1 || tr.Question != "q?" || tr.Answer.Text != tt.answer {
				t.Errorf("trace %+v", tr)
			}
			if (err != nil) != (tr.Error != "") {
				t.Errorf("trace error %q with err %v", tr.Error, err)
			}
		})
	}
	if _, err := Run(t.Context(), "m", nil, deps, Query{Question: "q?", Graphs: []string{"x"}}, resolve); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown graph: %v does not wrap store.ErrNotFound", err)
	}
}

func TestSessionTracesAndWarns(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .`})
	var logs bytes.Buffer
	deps := Deps{KG: db, Model: lexical.Policy{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	tr, err := Run(t.Context(), "m", nil, deps, Query{Question: "Who is A?"}, func(ctx context.Context, s *Session) (trace.Answer, error) {
		id := s.Rec.AddNode(trace.Node{State: "root"})
		nctx := trace.WithNode(ctx, id)
		if err := s.ResolveGraphs(nctx); err != nil {
			return trace.Answer{}, err
		}
		if _, err := s.Model.Generate(nctx, llm.Request{Task: llm.Task{Kind: llm.KindExtract, Name: "m/extract", Question: s.Question}}); err != nil {
			return trace.Answer{}, err
		}
		if _, err := s.Evaluator.Generate(nctx, llm.Request{Task: llm.Task{Kind: llm.KindFree, Name: "m/eval"}}); err != nil {
			return trace.Answer{}, err
		}
		s.Warn(nctx, "odd reply %d", 7)
		return trace.Answer{Found: true, Text: "A", Node: id}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Graphs, []string{"g"}) || len(tr.KGCalls) != 1 || tr.KGCalls[0].Node != 1 {
		t.Errorf("graphs %v, KG calls %+v", tr.Graphs, tr.KGCalls)
	}
	if len(tr.ModelCalls) != 2 || tr.ModelCalls[0].Task != "m/extract" || tr.ModelCalls[1].Task != "m/eval" {
		t.Errorf("model calls %+v", tr.ModelCalls)
	}
	if len(tr.Warnings) != 1 || tr.Warnings[0] != (trace.Warning{Node: 1, Message: "odd reply 7"}) {
		t.Errorf("warnings %+v", tr.Warnings)
	}
	if !strings.Contains(logs.String(), `msg="m: odd reply 7" node=1`) {
		t.Errorf("log %q", logs.String())
	}
}

// checked is a configuration whose Validate returns err.
type checked struct{ err error }

func (c checked) Validate() error { return c.err }

func TestPrepare(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .`})
	bad := errors.New("parameter \"k\" must be at least 1")
	tests := []struct {
		name string
		deps Deps
		cfg  checked
		want error
	}{
		{"ok", Deps{KG: db, Model: lexical.Policy{}}, checked{}, nil},
		{"no model", Deps{KG: db}, checked{}, errors.New("reasoner deps: no model (Model is nil)")},
		{"bad config", Deps{KG: db, Model: lexical.Policy{}}, checked{bad}, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Prepare(tt.deps, tt.cfg)
			if (err == nil) != (tt.want == nil) || err != nil && err.Error() != tt.want.Error() {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err == nil && (d.Evaluator == nil || d.Logger == nil) {
				t.Errorf("defaults not filled: %+v", d)
			}
		})
	}
}

// TestRunNamesModel checks that every trace names the model, the evaluator
// when it differs, and the Grove version.
func TestRunNamesModel(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .`})
	done := func(context.Context, *Session) (trace.Answer, error) {
		return trace.Answer{Found: true, Text: "A"}, nil
	}
	scripted := &llm.Scripted{Name: "judge"}
	cases := []struct {
		name          string
		deps          Deps
		model         string
		notLLM        bool
		evaluatorName string
	}{
		{"lexical", Deps{KG: db, Model: lexical.Policy{}}, lexical.ModelName, true, ""},
		{"separate evaluator", Deps{KG: db, Model: lexical.Policy{}, Evaluator: scripted}, lexical.ModelName, true, "judge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Run(context.Background(), "m", nil, c.deps, Query{Question: "q?"}, done)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Model.Name != c.model || tr.Model.NotLLM != c.notLLM || tr.Grove == "" {
				t.Fatalf("trace model %+v, grove %q", tr.Model, tr.Grove)
			}
			switch {
			case c.evaluatorName == "" && tr.Evaluator != nil:
				t.Fatalf("evaluator recorded though it is the model: %+v", tr.Evaluator)
			case c.evaluatorName != "" && (tr.Evaluator == nil || tr.Evaluator.Name != c.evaluatorName):
				t.Fatalf("evaluator %+v, want %s", tr.Evaluator, c.evaluatorName)
			}
			var out strings.Builder
			if err := trace.Render(&out, tr); err != nil || !strings.Contains(out.String(), "model: "+c.model) {
				t.Fatalf("rendered trace does not name the model: %v\n%s", err, out.String())
			}
		})
	}
}

// TestRunMaxTokens: the max_tokens parameter bounds every model and
// evaluator request that sets no MaxTokens of its own; without it requests
// go as the method wrote them.
func TestRunMaxTokens(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .`})
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   []int // MaxTokens of: unbounded model call, bounded model call, unbounded evaluator call
	}{
		{"parameter set", map[string]any{ParamMaxTokens: 77}, []int{77, 5, 77}},
		{"parameter absent", map[string]any{}, []int{0, 5, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return "ok", nil }}
			eval := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return "ok", nil }}
			deps := Deps{KG: db, Model: model, Evaluator: eval}
			_, err := Run(t.Context(), "m", tc.params, deps, Query{Question: "q?"}, func(ctx context.Context, s *Session) (trace.Answer, error) {
				for _, c := range []struct {
					m   llm.Model
					max int
				}{{s.Model, 0}, {s.Model, 5}, {s.Evaluator, 0}} {
					if _, err := c.m.Generate(ctx, llm.Request{Prompt: "p", MaxTokens: c.max}); err != nil {
						return trace.Answer{}, err
					}
				}
				return trace.Answer{Found: true, Text: "x"}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range append(model.Calls(), eval.Calls()...) {
				got = append(got, r.MaxTokens)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("max tokens sent %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRunNamesIDAnswers: Run answers with an entity's label when a method
// answers with the id of an entity it saw (among the answer's Entities) in
// the query's graphs; any other id answer keeps its text, is not
// confident and leaves a warning on the answer's node.
func TestRunNamesIDAnswers(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams" .`,
		"h": `<Q5> <http://www.w3.org/2000/01/rdf-schema#label> "human" .`})
	for _, tc := range []struct {
		name      string
		graphs    []string
		answer    trace.Answer
		text      string
		confident bool
		warning   string
	}{
		{"seen", nil, trace.Answer{Found: true, Confident: true, Text: "Q42", Entities: []string{"Q42"}, Node: 1},
			"Douglas Adams", true, ""},
		{"never seen", []string{"g"}, trace.Answer{Found: true, Confident: true, Text: "Q42", Node: 1},
			"Q42", false, "the answer Q42 is the id of an entity the reasoning never saw (Douglas Adams in g)"},
		{"outside the query's graphs", []string{"g"}, trace.Answer{Found: true, Confident: true, Text: "Q5",
			Entities: []string{"Q5"}, Node: 1}, "Q5", false, "the answer Q5 is an entity of h (human), outside the query's graphs g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Run(t.Context(), "m", nil, Deps{KG: db, Model: lexical.Policy{}},
				Query{Question: "q?", Graphs: tc.graphs},
				func(ctx context.Context, s *Session) (trace.Answer, error) {
					s.Rec.AddNode(trace.Node{Text: "answer"})
					return tc.answer, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			a := tr.Answer
			if a.Text != tc.text || a.Confident != tc.confident || slices.Contains(a.Entities, tc.answer.Text) == (tc.warning != "") {
				t.Errorf("answer %+v, want %q (confident %v)", a, tc.text, tc.confident)
			}
			warned := slices.ContainsFunc(tr.Warnings, func(w trace.Warning) bool {
				return w.Node == 1 && strings.HasPrefix(w.Message, tc.warning)
			})
			if tc.warning != "" && !warned || tc.warning == "" && len(tr.Warnings) > 0 {
				t.Errorf("warnings %+v, want one on #1 starting %q", tr.Warnings, tc.warning)
			}
		})
	}
}

// TestRunDropsOversizedReplies: a reply longer than its max tokens explain
// fails the call, and the trace never records it.
func TestRunDropsOversizedReplies(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <name> "A" .`})
	huge := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return strings.Repeat("y", 200<<10), nil }}
	tr, err := Run(t.Context(), "m", map[string]any{ParamMaxTokens: 100}, Deps{KG: db, Model: huge}, Query{Question: "q?"},
		func(ctx context.Context, s *Session) (trace.Answer, error) {
			_, err := s.Model.Generate(ctx, llm.Request{Prompt: "p"})
			return trace.Answer{}, err
		})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 65536 bytes for 100 max tokens") {
		t.Fatalf("err %v", err)
	}
	for _, c := range tr.ModelCalls {
		for _, o := range c.Outputs {
			if len(o) > 64<<10 {
				t.Fatalf("the trace recorded a reply of %d bytes", len(o))
			}
		}
	}
}
