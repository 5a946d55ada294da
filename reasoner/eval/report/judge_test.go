package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/llm"
)

// judgeModel is a scripted judge that names itself as a language model
// would.
type judgeModel struct{ *llm.Scripted }

func (judgeModel) Describe() llm.Info {
	return llm.Info{Name: "judge-7b", Provider: llm.ProviderOpenAI, Endpoint: "http://<host>:8000/v1"}
}

// TestReportNamesJudge: the Markdown and JSON reports name the judge
// model and count its failures; the Judge column stays when every judge
// call failed.
func TestReportNamesJudge(t *testing.T) {
	qs, _ := questions()
	qs = qs[:4]
	for _, tc := range []struct {
		name       string
		rule       llm.Rule
		wantErrors int
		wantCells  string // the cot row's Judge and Judge errors cells
	}{
		{"judged", llm.Rule{Name: metric.JudgeTaskName, Replies: []string{"Yes"}, Repeat: true}, 0, "| 100.0 |"},
		{"every call fails", llm.Rule{Name: metric.JudgeTaskName, Err: errors.New("HTTP 500")}, 4, "| - |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answerer := &llm.Scripted{Rules: []llm.Rule{
				{Name: baseline.TaskReason, Replies: []string{"Recalling."}, Repeat: true},
				{Name: baseline.TaskAnswer, Replies: []string{"Answer: Ridley Scott"}, Repeat: true}}}
			reg := reasoner.NewRegistry()
			baseline.Register(reg)
			dir := t.TempDir()
			_, err := eval.Run(t.Context(), eval.Config{Questions: qs, Methods: []string{"cot"}, Out: dir,
				Concurrency: 1, Registry: reg, Deps: reasoner.Deps{Model: answerer},
				Judge: &metric.Judge{Model: judgeModel{&llm.Scripted{Rules: []llm.Rule{tc.rule}}}}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Build(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Judges) != 1 || rep.Judges[0].Name != "judge-7b" || rep.Judged != 4 ||
				rep.JudgeErrors != tc.wantErrors || rep.Methods[0].JudgeErrors != tc.wantErrors {
				t.Errorf("judges %v, judged %d, judge errors %d (row %d), want judge-7b, 4, %d", rep.Judges,
					rep.Judged, rep.JudgeErrors, rep.Methods[0].JudgeErrors, tc.wantErrors)
			}
			var js bytes.Buffer
			if err := json.NewEncoder(&js).Encode(rep); err != nil || !strings.Contains(js.String(), `"judges":[{"name":"judge-7b"`) {
				t.Errorf("JSON report does not name the judge: %v\n%s", err, js.String())
			}
			var md bytes.Buffer
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Judge: judge-7b (openai-compatible, http://<host>:8000/v1)",
				"| Judge | No answer | ->CoT | Errors | Judge errors |",
				tc.wantCells,
				"judged correct by judge-7b. The judge failed on " + strconv.Itoa(tc.wantErrors) + " of 4 answers"} {
				if !strings.Contains(md.String(), want) {
					t.Errorf("markdown lacks %q:\n%s", want, md.String())
				}
			}
		})
	}
	// A run without a judge has no Judge column and names no judge.
	dir := runWithoutJudge(t, qs)
	rep, err := Build(dir)
	if err != nil || len(rep.Judges) != 0 || strings.Contains(strings.Join(rep.Scores, ","), eval.ScoreJudge) {
		t.Errorf("no judge: %v, scores %v, %v", rep.Judges, rep.Scores, err)
	}
}

func runWithoutJudge(t *testing.T, qs []dataset.Question) string {
	t.Helper()
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	dir := t.TempDir()
	m := &llm.Scripted{Rules: []llm.Rule{
		{Name: baseline.TaskReason, Replies: []string{"Recalling."}, Repeat: true},
		{Name: baseline.TaskAnswer, Replies: []string{"Answer: Ridley Scott"}, Repeat: true}}}
	if _, err := eval.Run(t.Context(), eval.Config{Questions: qs, Methods: []string{"cot"}, Out: dir,
		Concurrency: 1, Registry: reg, Deps: reasoner.Deps{Model: m}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFigureTitlesNameModel: both figures say which model produced them,
// and that a non-LLM policy is not an LLM.
func TestFigureTitlesNameModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		models []llm.Info
		want   string
	}{
		{"language model", []llm.Info{{Name: "Qwen2.5-7B-Instruct", Provider: llm.ProviderOpenAI}}, "model: Qwen2.5-7B-Instruct"},
		{"lexical", []llm.Info{{Name: "lexical-baseline (not an LLM)", Provider: "lexical", NotLLM: true}},
			"model: lexical-baseline (not an LLM)"},
		{"oracle", []llm.Info{{Name: "sim-oracle", Provider: "simulated", NotLLM: true}}, "model: sim-oracle (not an LLM)"},
		{"two", []llm.Info{{Name: "a"}, {Name: "b", NotLLM: true}}, "model: a + b (not an LLM)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Models: tc.models,
				Value:     []ValueProfile{{Method: "tot", Count: [valueBins]int{1}, EMIn: [valueBins]float64{1}, Answers: 1}},
				Backtrack: []Backtrack{{Method: "tot", Cases: 1, Questions: 1, Without: 0, With: 1}}}
			for _, c := range []interface {
				WriteSVG(w io.Writer) error
			}{rep.ValueChart(), rep.BacktrackChart()} {
				var svg bytes.Buffer
				if err := c.WriteSVG(&svg); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(svg.String(), tc.want) || strings.Contains(svg.String(), "(not an LLM) (not an LLM)") {
					t.Errorf("figure lacks %q:\n%.400s", tc.want, svg.String())
				}
			}
		})
	}
}
