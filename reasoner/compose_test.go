package reasoner_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

func TestIsNonAnswer(t *testing.T) {
	for text, want := range map[string]bool{
		"":                           true,
		"  ":                         true,
		"Ridley Scott":               false,
		"UNKNOWN":                    true,
		"I am unable to find it":     true,
		"It is not possible to say":  true,
		"I cannot determine this":    true,
		"Unsure":                     true,
		"Not\npossible":              true,
		"The Undetermined Ones film": true, // the paper's rule is a plain substring test
		"1982":                       false,
	} {
		if got := reasoner.IsNonAnswer(text); got != want {
			t.Errorf("reasoner.IsNonAnswer(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec, primary, fallback, err string
	}{
		{"tot", "tot", "", ""},
		{" tot -> cot ", "tot", "cot", ""},
		{"chain→cot", "chain", "cot", ""},
		{"->cot", "", "", "empty method name"},
		{"tot->", "", "", "empty fallback"},
		{"a->b->c", "", "", "only one fallback"},
	} {
		p, f, err := reasoner.ParseSpec(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || p != tc.primary || f != tc.fallback {
			t.Errorf("%q = %q, %q, %v", tc.spec, p, f, err)
		}
		if got := reasoner.SpecName(p, f); got != strings.ReplaceAll(strings.ReplaceAll(tc.spec, " ", ""), "→", "->") {
			t.Errorf("reasoner.SpecName = %q", got)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"tot", "tot->cot", "→", "a->b->c", " -> "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, fb, err := reasoner.ParseSpec(spec)
		if err != nil {
			return
		}
		if p == "" || strings.Contains(p, reasoner.SpecSeparator) || strings.Contains(fb, reasoner.SpecSeparator) {
			t.Fatalf("reasoner.ParseSpec(%q) = %q, %q", spec, p, fb)
		}
		p2, fb2, err := reasoner.ParseSpec(reasoner.SpecName(p, fb))
		if err != nil || p2 != p || fb2 != fb {
			t.Fatalf("round trip of %q: %q, %q, %v", spec, p2, fb2, err)
		}
	})
}

// fallbackModel scripts a zero-shot non-answer and a cot answer.
func fallbackModel(zeroShot string) *llm.Scripted {
	return &llm.Scripted{Rules: []llm.Rule{
		{Name: baseline.TaskZeroShot, Replies: []string{zeroShot}},
		{Name: baseline.TaskReason, Replies: []string{"Blade Runner was directed by Ridley Scott."}},
		{Name: baseline.TaskAnswer, Replies: []string{"Answer: Ridley Scott"}},
	}}
}

func buildSpec(t *testing.T, spec string, m llm.Model) reasoner.Reasoner {
	t.Helper()
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	r, err := reg.Build(spec, reasoner.Deps{Model: m}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFallbackRuns(t *testing.T) {
	m := fallbackModel("Answer: unknown")
	tr, err := buildSpec(t, "zeroshot->cot", m).Answer(t.Context(), reasoner.Query{Question: composeQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if !reasoner.UsedFallback(tr) || tr.Method != "zeroshot->cot" || tr.Params[reasoner.ParamFallback] != baseline.MethodCoT {
		t.Fatalf("trace %s %v warnings %+v", tr.Method, tr.Params, tr.Warnings)
	}
	a := tr.Answer
	if !a.Found || a.Text != "Ridley Scott" || a.Node != 5 || !strings.HasPrefix(a.Reason, `fallback to cot (no answer: "unknown" is a non-answer)`) {
		t.Fatalf("answer = %+v", a)
	}
	checkIDs(t, tr)
	if len(tr.Nodes) != 5 || len(tr.Nodes[2].Parents) != 0 || tr.Nodes[3].Parents[0] != 3 || tr.Nodes[4].Parents[0] != 4 {
		t.Fatalf("nodes = %+v", tr.Nodes)
	}
	if tr.Nodes[1].Chosen || !tr.Nodes[4].Chosen || tr.Nodes[4].Extra[reasoner.ParamFallback] != baseline.MethodCoT {
		t.Errorf("chosen flags / extra wrong: %+v", tr.Nodes)
	}
	if tr.Totals.ModelCalls != 3 || tr.Totals.Nodes != 5 || tr.Totals.Expansions != 3 || tr.ModelCalls[2].Node != 4 {
		t.Errorf("totals = %+v, calls %+v", tr.Totals, tr.ModelCalls)
	}
	if got := tr.ExpansionOrder(); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 4 {
		t.Errorf("expansion order = %v", got)
	}
}

func TestFallbackNotNeeded(t *testing.T) {
	m := fallbackModel("Answer: Ridley Scott")
	tr, err := buildSpec(t, "zeroshot->cot", m).Answer(t.Context(), reasoner.Query{Question: composeQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if reasoner.UsedFallback(tr) || len(tr.Nodes) != 2 || m.CallCount() != 1 || tr.Method != "zeroshot->cot" {
		t.Fatalf("fallback ran: %+v", tr)
	}
}

func TestFallbackDoesNotRescueErrors(t *testing.T) {
	boom := errors.New("rate limited")
	m := &llm.Scripted{Rules: []llm.Rule{{Name: baseline.TaskZeroShot, Err: boom}}, Default: llm.Reply("Answer: x")}
	tr, err := buildSpec(t, "zeroshot->cot", m).Answer(t.Context(), reasoner.Query{Question: composeQuestion})
	if !errors.Is(err, boom) || tr == nil || reasoner.UsedFallback(tr) || m.CallCount() != 1 {
		t.Fatalf("err = %v, trace %+v", err, tr)
	}
}

func TestBuildErrors(t *testing.T) {
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	for spec, want := range map[string]string{
		"nope":          `unknown reasoning method "nope"`,
		"cot->nope":     `unknown reasoning method "nope"`,
		"cot->":         "empty fallback",
		"zeroshot->cot": "",
	} {
		_, err := reg.Build(spec, reasoner.Deps{Model: lexical.Policy{}}, func(string) reasoner.Params { return nil })
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: err = %v, want %q", spec, err, want)
		}
	}
	_, err := reg.Build("cot", reasoner.Deps{Model: lexical.Policy{}}, func(string) reasoner.Params { return reasoner.Params{"k": 1} })
	if err == nil || !strings.Contains(err.Error(), "method cot") {
		t.Errorf("bad params: err = %v", err)
	}
}

const composeQuestion = "Who directed Blade Runner?"

// checkIDs verifies that node ids are 1..n, parents point backwards and
// call sequence numbers are 1..n.
func checkIDs(t *testing.T, tr *trace.Trace) {
	t.Helper()
	for i, n := range tr.Nodes {
		if n.ID != i+1 {
			t.Errorf("node %d has id %d", i+1, n.ID)
		}
		for _, p := range n.Parents {
			if p < 1 || p >= n.ID {
				t.Errorf("node %d has parent %d", n.ID, p)
			}
		}
	}
	for i, c := range tr.ModelCalls {
		if c.Seq != i+1 || c.Node < 0 || c.Node > len(tr.Nodes) {
			t.Errorf("model call %d: seq %d node %d", i+1, c.Seq, c.Node)
		}
	}
}

// TestNewComposes checks that Registry.New, which ask and the server use,
// builds compositions as eval's Build does, giving the parameters to the
// primary method only.
func TestNewComposes(t *testing.T) {
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	m := fallbackModel("Answer: unknown")
	r, err := reg.New("zeroshot->cot", reasoner.Deps{Model: m}, reasoner.Params{"k": 1})
	if err == nil || !strings.Contains(err.Error(), "method zeroshot") {
		t.Fatalf("parameters must go to the primary (which rejects k): %v", err)
	}
	r, err = reg.New("zeroshot->cot", reasoner.Deps{Model: m}, reasoner.Params{"temperature": 0.0})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(t.Context(), reasoner.Query{Question: composeQuestion})
	if err != nil || !reasoner.UsedFallback(tr) || tr.Answer.Text != "Ridley Scott" || tr.Method != "zeroshot->cot" {
		t.Fatalf("composition via New: %v, %+v", err, tr)
	}
	if _, err := reg.New("zeroshot->", reasoner.Deps{Model: m}, nil); err == nil {
		t.Fatal("bad spec accepted")
	}
}

func TestCheck(t *testing.T) {
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	for spec, ok := range map[string]bool{"cot": true, "zeroshot->cot": true, "nope": false, "cot->nope": false, "cot->": false} {
		if err := reg.Check(spec); (err == nil) != ok {
			t.Errorf("Check(%q) = %v", spec, err)
		}
	}
}
