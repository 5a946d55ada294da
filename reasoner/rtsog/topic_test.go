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

// TestTopicEntities: given topic entities are used as they are (unknown
// ones are warnings); with none given, or none usable, the question's
// mentions are linked through KG.Search.
func TestTopicEntities(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	tests := []struct {
		name    string
		given   []string
		link    bool
		want    []string
		warning string
	}{
		{"given", []string{"T", "B"}, false, []string{"T", "B"}, ""},
		{"given twice", []string{"T", "T"}, false, []string{"T"}, ""},
		{"unknown ones are skipped", []string{"nope", "T"}, false, []string{"T"}, `topic entity "nope" is not in the store`},
		{"none usable: linked", []string{"nope"}, true, []string{"T"}, "linking the question's mentions instead"},
		{"none given: linked", nil, true, []string{"T"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := toyOracle().model()
			m.Rules = append(m.Rules,
				llm.Rule{Name: TaskExtract, Replies: []string{"Topic"}},
				llm.Rule{Name: TaskLink, Func: func(req llm.Request, _ int) (string, error) {
					if req.Task.Context != "Topic" || len(req.Task.Options) == 0 || req.Task.Options[0].ID != "T" {
						return "none", nil
					}
					return "T", nil
				}})
			q := reasoner.Query{Question: "Which entity lies two steps from Topic?", TopicEntities: tt.given}
			tr := answerWith(t, db, m, m, toyConfig(func(c *Config) { c.Iterations = 1 }), q)
			var got []string
			for _, n := range tr.Nodes {
				if n.State == StateTopic {
					got = append(got, n.Extra["entity"])
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("topic nodes %v, want %v\n%s", got, tt.want, tracetest.Render(t, tr))
			}
			if linked := len(m.CallsFor(TaskExtract)) == 1; linked != tt.link {
				t.Errorf("linked = %v, want %v", linked, tt.link)
			}
			if tt.warning != "" && !tracetest.HasWarning(tr, tt.warning) {
				t.Errorf("no warning %q in %+v", tt.warning, tr.Warnings)
			}
		})
	}
}

// TestNoTopicEntity: when nothing can be linked the search has nothing to
// start from, and the answer says so.
func TestNoTopicEntity(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	o := toyOracle()
	o.answer = func(llm.Task) string { return "Answer: unknown" }
	m := o.model()
	m.Rules = append(m.Rules, llm.Rule{Name: TaskExtract, Replies: []string{"none"}})
	tr := answerWith(t, db, m, m, toyConfig(nil), reasoner.Query{Question: "what is it?"})
	if tr.Answer.Found || !strings.Contains(tr.Answer.Reason, "no topic entity") || len(tr.Nodes) != 1 {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if !tracetest.HasWarning(tr, "no entity mention") {
		t.Errorf("warnings %+v", tr.Warnings)
	}
}

func TestParseSubQuestions(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"plain lines", "Who directed Blade Runner?\nWhich films did he direct?", 3,
			[]string{"Who directed Blade Runner?", "Which films did he direct?"}},
		{"numbered and labelled", "1. Who is A?\nSub-question 2: Who is B?\n**Q3.** Who is C?\nStep 4) Who is D?", 4,
			[]string{"Who is A?", "Who is B?", "Who is C?", "Who is D?"}},
		{"bare labels and blanks dropped", "Sub-questions:\n\n- Who is A?\n", 3, []string{"Who is A?"}},
		{"at most max", "a?\nb?\nc?\nd?", 2, []string{"a?", "b?"}},
		{"duplicates removed", "Who is A?\nwho is a?", 3, []string{"Who is A?"}},
		{"question words are not labels", "Quentin Tarantino directed what?\nQuestionable: what?", 3,
			[]string{"Quentin Tarantino directed what?", "Questionable: what?"}},
		{"a label alone", "Question:", 3, nil},
		{"question label", "Question: what is A?", 3, []string{"what is A?"}},
		{"none", "none", 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseSubQuestions(tt.text, tt.max); !slices.Equal(got, tt.want) {
				t.Errorf("parseSubQuestions(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzParseSubQuestions(f *testing.F) {
	for _, s := range []string{"1. Who?\n2. What?", "Sub-question 1: x\nQ2. y", "Question:", "İstanbul?\nSTEP 3: ok",
		"q", "Step", "- **Sub-question 1:** Who?", "\"quoted\"\n'x'"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 1 || max > 10 {
			max = 3
		}
		got := parseSubQuestions(text, max)
		if len(got) > max {
			t.Fatalf("%d sub-questions, max %d", len(got), max)
		}
		for i, s := range got {
			if s == "" || s != flat(s) {
				t.Fatalf("sub-question %d is %q", i, s)
			}
			for _, o := range got[:i] {
				if strings.EqualFold(o, s) {
					t.Fatalf("duplicate %q", s)
				}
			}
		}
	})
}
