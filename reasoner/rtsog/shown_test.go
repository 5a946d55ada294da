package rtsog

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/storetest"
)

// TestAnswerIDShownEarlier: an answer given as an id counts as seen when
// any prompt of the run showed the entity, not only the answer prompt.
// The search is TestPathStack's (K=4: Beta, Beta One, Alpha, with Alpha
// Two dropped by the stack), so the answer prompt shows none of Alpha
// One (a tail scored under Alpha, checked by the self-critic), Alpha Two
// (dropped from the stack; its id was in its relation selection prompt)
// or Alpha Two One (a linking candidate the model did not choose). Such
// an answer is named, joins the answer's entities and is not confident;
// an id never shown stays flagged.
func TestAnswerIDShownEarlier(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	for _, tc := range []struct {
		name, answer string
		link         bool
		wantText     string
		wantEntities []string
		wantWarning  string
	}{
		{"scored tail and self-critic", "A1", false, "Alpha One", []string{"A1"}, ""},
		{"path dropped by the stack", "A2", false, "Alpha Two", []string{"A2"}, ""},
		{"linking candidate not chosen", "A21", true, "Alpha Two One", []string{"A21"}, ""},
		{"never shown", "A21", false, "A21", nil, "the reasoning never saw"},
		{"on an answer path", "B1", false, "Beta One", []string{"B1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := toyOracle()
			o.eos["Beta One"] = true
			o.drop["Alpha Two"] = true
			o.answer = func(llm.Task) string { return "Answer: " + tc.answer }
			m := o.model()
			q := toyQuery
			if tc.link {
				q = reasoner.Query{Question: toyQuery.Question}
				m.Rules = append(m.Rules,
					llm.Rule{Name: TaskExtract, Replies: []string{"Topic\nAlpha Two One"}},
					llm.Rule{Name: TaskLink, Func: func(req llm.Request, _ int) (string, error) {
						if req.Task.Context == "Topic" {
							return "T", nil
						}
						return "none", nil
					}})
			}
			tr := answerWith(t, db, m, m, toyConfig(func(c *Config) { c.Paths = 4 }), q)
			prompt := tracetest.Calls(tr, TaskAnswer)[0].Messages[1].Content
			if strings.Contains(prompt, tc.wantText) && tc.answer != "B1" {
				t.Fatalf("the answer prompt shows %s:\n%s", tc.wantText, prompt)
			}
			a := tr.Answer
			if a.Text != tc.wantText || !slices.Equal(a.Entities, tc.wantEntities) {
				t.Errorf("answer %q entities %v, want %q %v\n%s", a.Text, a.Entities, tc.wantText, tc.wantEntities,
					tracetest.Render(t, tr))
			}
			if a.Confident != (tc.answer == "B1") {
				t.Errorf("confident = %v", a.Confident)
			}
			if tc.wantWarning != "" && !tracetest.HasWarning(tr, tc.wantWarning) {
				t.Errorf("no warning %q in %+v", tc.wantWarning, tr.Warnings)
			}
			if tc.wantWarning == "" && tracetest.HasWarning(tr, "never saw") {
				t.Errorf("answer flagged as never seen: %+v", tr.Warnings)
			}
		})
	}
}
