package baseline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

const question = "Who directed Blade Runner?"

func build(t *testing.T, method string, model llm.Model, params reasoner.Params) reasoner.Reasoner {
	t.Helper()
	reg := reasoner.NewRegistry()
	Register(reg)
	r, err := reg.New(method, reasoner.Deps{Model: model}, params)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestZeroShot(t *testing.T) {
	for _, tc := range []struct {
		name, reply, text string
		found             bool
		warnings          int
	}{
		{"canonical", "Answer: Ridley Scott", "Ridley Scott", true, 0},
		{"bare reply", "Ridley Scott.\nHe is British.", "Ridley Scott", true, 1},
		{"non-answer", "Answer: I cannot say", "I cannot say", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &llm.Scripted{Rules: []llm.Rule{{Name: TaskZeroShot, Kind: llm.KindAnswer, Replies: []string{tc.reply}}}}
			tr, err := build(t, MethodZeroShot, m, nil).Answer(t.Context(), reasoner.Query{Question: question})
			if err != nil {
				t.Fatal(err)
			}
			a := tr.Answer
			if a.Text != tc.text || a.Found != tc.found || a.Node != 2 {
				t.Fatalf("answer = %+v", a)
			}
			if len(tr.Nodes) != 2 || !tr.Nodes[1].Answer || !tr.Nodes[1].Chosen || !tr.Nodes[0].Chosen {
				t.Errorf("nodes = %+v", tr.Nodes)
			}
			if len(tr.Warnings) != tc.warnings {
				t.Errorf("warnings = %+v", tr.Warnings)
			}
			if tr.Totals.ModelCalls != 1 || tr.ModelCalls[0].Node != 1 || tr.Method != MethodZeroShot {
				t.Errorf("calls = %+v, method %s", tr.ModelCalls, tr.Method)
			}
			if !strings.Contains(m.Calls()[0].Messages[1].Content, question) {
				t.Errorf("prompt lacks the question: %q", m.Calls()[0].Messages[1].Content)
			}
		})
	}
}

// TestIDAnswers checks that an answer given as an id is flagged, since the
// baselines show their model no KG: unchecked without a KG, checked
// against the query's graphs and named with one. Without a KG only an
// unmistakable KG id is flagged, not a name that looks like a code.
func TestIDAnswers(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q64> <http://www.w3.org/2000/01/rdf-schema#label> "Berlin" .
`, "film": `</en/ridley_scott> <http://www.w3.org/2000/01/rdf-schema#label> "Ridley Scott" .
`})
	for _, tc := range []struct {
		name, method, reply string
		kg                  store.KG
		graphs              []string
		text, warn          string
	}{
		{"no KG", MethodZeroShot, "Answer: Q64", nil, []string{"film"}, "Q64", "saw no KG and none was at hand"},
		{"a Freebase MID, no KG", MethodZeroShot, "Answer: m.0jw67", nil, nil, "m.0jw67", "saw no KG and none was at hand"},
		{"a name like a code, no KG", MethodZeroShot, "Answer: B12", nil, nil, "B12", ""},
		{"a name like a code, no KG, cot", MethodCoT, "Answer: COVID-19", nil, nil, "COVID-19", ""},
		{"outside the query's graphs", MethodZeroShot, "Answer: Q64", db, []string{"film"}, "Q64",
			"outside the query's graphs film"},
		{"in the query's graphs", MethodZeroShot, "Answer: Q64", db, []string{"wd"}, "Berlin", "from its memory (Berlin in wd)"},
		{"id without a digit, cot", MethodCoT, "Answer: /en/ridley_scott", db, nil, "Ridley Scott", "saw no KG"},
		{"a name", MethodZeroShot, "Answer: Berlin", db, nil, "Berlin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return tc.reply, nil }}
			reg := reasoner.NewRegistry()
			Register(reg)
			r, err := reg.New(tc.method, reasoner.Deps{KG: tc.kg, Model: m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := r.Answer(t.Context(), reasoner.Query{Question: "What is the capital of Germany?", Graphs: tc.graphs})
			if err != nil {
				t.Fatal(err)
			}
			if a := tr.Answer; a.Text != tc.text || !a.Found || a.Confident {
				t.Errorf("answer = %+v, want text %q", a, tc.text)
			}
			warned := slices.ContainsFunc(tr.Warnings, func(w trace.Warning) bool {
				return w.Node == tr.Answer.Node && strings.Contains(w.Message, tc.warn)
			})
			if tc.warn != "" && !warned || tc.warn == "" && len(tr.Warnings) != 0 {
				t.Errorf("warnings = %+v, want one containing %q", tr.Warnings, tc.warn)
			}
		})
	}
}

func TestCoT(t *testing.T) {
	reasoning := "Blade Runner is a 1982 film.\nIt was directed by Ridley Scott."
	m := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskReason, Kind: llm.KindFree, Replies: []string{reasoning}},
		{Name: TaskAnswer, Kind: llm.KindAnswer, Replies: []string{"So the answer is...\nAnswer: **Ridley Scott**"}},
	}}
	tr, err := build(t, MethodCoT, m, reasoner.Params{"max_tokens": 200}).Answer(t.Context(), reasoner.Query{Question: question})
	if err != nil {
		t.Fatal(err)
	}
	if a := tr.Answer; !a.Found || a.Text != "Ridley Scott" || a.Node != 3 {
		t.Fatalf("answer = %+v", a)
	}
	calls := m.Calls()
	if len(calls) != 2 || calls[0].MaxTokens != 200 || calls[1].MaxTokens != 64 {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[1].Task.Context != reasoning || !strings.Contains(calls[1].Messages[1].Content, "It was directed by Ridley Scott.") ||
		!strings.Contains(calls[1].Messages[1].Content, "So the answer is") {
		t.Errorf("answer call lacks the reasoning: %+v", calls[1])
	}
	want := []struct {
		parents []int
		action  string
	}{{nil, ""}, {[]int{1}, "THINK"}, {[]int{2}, "ANSWER"}}
	for i, w := range want {
		n := tr.Nodes[i]
		if !slices.Equal(n.Parents, w.parents) || n.Action != w.action || !n.Chosen || n.Depth != i {
			t.Errorf("node %d = %+v", i+1, n)
		}
	}
	if tr.Nodes[1].Text != reasoning {
		t.Errorf("THINK node text = %q", tr.Nodes[1].Text)
	}
	if got := []int{tr.ModelCalls[0].Node, tr.ModelCalls[1].Node}; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("model call nodes = %v", got)
	}
}

func TestModelError(t *testing.T) {
	boom := errors.New("connection refused")
	m := &llm.Scripted{Rules: []llm.Rule{{Name: TaskReason, Err: boom}}}
	tr, err := build(t, MethodCoT, m, nil).Answer(t.Context(), reasoner.Query{Question: question})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), TaskReason) {
		t.Fatalf("err = %v", err)
	}
	if tr == nil || tr.Error == "" || tr.Answer.Found || tr.Totals.ModelErrors != 1 {
		t.Fatalf("partial trace = %+v", tr)
	}
}

func TestLexicalPolicyGivesNoAnswer(t *testing.T) {
	for _, method := range []string{MethodZeroShot, MethodCoT} {
		tr, err := build(t, method, lexical.Policy{}, nil).Answer(t.Context(), reasoner.Query{Question: question})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Answer.Found || tr.Answer.Text != "unknown" || !reasoner.NeedsFallback(tr.Answer) {
			t.Errorf("%s: answer = %+v", method, tr.Answer)
		}
	}
}

func TestConfigFromParams(t *testing.T) {
	for _, tc := range []struct {
		p    reasoner.Params
		want string
	}{
		{reasoner.Params{"temperature": "0.5", "max_tokens": 10}, ""},
		{reasoner.Params{"k": 3}, `unknown parameter(s) "k"`},
		{reasoner.Params{"temperature": -1}, "must not be negative"},
		{reasoner.Params{"answer_max_tokens": "x"}, `parameter "answer_max_tokens": want an integer`},
	} {
		_, err := ConfigFromParams(tc.p)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: err = %v, want %q", tc.p, err, tc.want)
		}
	}
	if _, err := NewCoT(reasoner.Deps{}, DefaultConfig()); err == nil {
		t.Error("NewCoT without a model succeeded")
	}
}

func TestQueryValidation(t *testing.T) {
	_, err := build(t, MethodCoT, lexical.Policy{}, nil).Answer(context.Background(), reasoner.Query{Question: "  "})
	if err == nil || !strings.Contains(err.Error(), "empty question") {
		t.Fatalf("err = %v", err)
	}
}

// TestTraceNamesModel checks that both baselines record, like every other
// method, the model that answered and the Grove version, whether the
// answer succeeds or the model fails.
func TestTraceNamesModel(t *testing.T) {
	failing := &llm.Scripted{}
	for _, tc := range []struct {
		name, method string
		model        llm.Model
		wantErr      bool
	}{
		{"zeroshot lexical", MethodZeroShot, llm.NewStats(lexical.Policy{}), false},
		{"cot lexical", MethodCoT, llm.NewStats(lexical.Policy{}), false},
		{"cot scripted", MethodCoT, &llm.Scripted{Rules: []llm.Rule{
			{Name: TaskReason, Kind: llm.KindFree, Replies: []string{"Ridley Scott directed it."}},
			{Name: TaskAnswer, Kind: llm.KindAnswer, Replies: []string{"Answer: Ridley Scott"}}}}, false},
		{"zeroshot model error", MethodZeroShot, failing, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := build(t, tc.method, tc.model, nil).Answer(t.Context(), reasoner.Query{Question: question})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			want := llm.Describe(tc.model)
			if tr == nil || want.Name == "" || !tr.Model.Same(want) {
				t.Fatalf("trace model = %+v, want %+v", tr.Model, want)
			}
			if tr.Evaluator != nil {
				t.Errorf("evaluator = %+v, want none (the model answers alone)", tr.Evaluator)
			}
			if tr.Grove == "" || tr.Grove != reasoner.Version() {
				t.Errorf("grove version = %q, want %q", tr.Grove, reasoner.Version())
			}
		})
	}
}
