package rtsog

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/kgfixture"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// The tests of what the model sees (issue 13) on the kgfixture film graph.

func userPrompt(req llm.Request) string { return req.Messages[len(req.Messages)-1].Content }

// pickRel selects the first relation option whose text contains word.
func pickRel(word string) llm.ReplyFunc {
	return func(req llm.Request, _ int) (string, error) {
		for _, o := range req.Task.Options {
			if strings.Contains(o.Text, word) {
				return o.ID, nil
			}
		}
		return "none", nil
	}
}

// scoreBy scores a candidate 0.9 when it contains word, else 0.1.
func scoreBy(word string) llm.ReplyFunc {
	return func(req llm.Request, _ int) (string, error) {
		if strings.Contains(req.Task.Candidate, word) {
			return "Score: 0.9", nil
		}
		return "Score: 0.1", nil
	}
}

// answerBy answers with the first group of re in the answer prompt.
func answerBy(re *regexp.Regexp) llm.ReplyFunc {
	return func(req llm.Request, _ int) (string, error) {
		if m := re.FindStringSubmatch(userPrompt(req)); m != nil {
			return "Answer: " + m[1], nil
		}
		return "Answer: unknown", nil
	}
}

// TestCountBeyondCandidates: Jerry Lewis directed 13 films, 10 are
// scored; the answer prompt states the total, so a reader answers 13.
func TestCountBeyondCandidates(t *testing.T) {
	m := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskSelectRelation, Func: pickRel("directed")},
		{Name: TaskScoreRelation, Repeat: true, Replies: []string{"Score: 0.9"}},
		{Name: TaskScorePath, Repeat: true, Replies: []string{"Score: 0.8"}},
		{Name: TaskScoreMore, Repeat: true, Replies: []string{"Score: 0.1"}},
		{Name: TaskEndOfSearch, Repeat: true, Replies: []string{"Yes, the films are listed."}},
		{Name: TaskStack, Repeat: true, Replies: []string{"Yes"}},
		{Name: TaskAnswer, Func: answerBy(regexp.MustCompile(`Jerry Lewis -> directed: (\d+) in all`))},
	}}
	db := kgfixture.Open(t)
	cfg := DefaultConfig()
	cfg.SubQuestions, cfg.Iterations = 0, 2
	tr := answerWith(t, db, m, m, cfg, reasoner.Query{Question: "How many films did Jerry Lewis direct?",
		Graphs: []string{kgfixture.Graph}, TopicEntities: []string{kgfixture.JerryLewis}})
	if tr.Answer.Text != "13" {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if p := userPrompt(m.CallsFor(TaskAnswer)[0]); !strings.Contains(p, "Jerry Lewis -> directed: 13 in all (10 listed)") {
		t.Errorf("answer prompt:\n%s", p)
	}
}

// TestCVTTailRankedAndDescribed: the needed performance is the last of
// 133 in the store's order; ranking brings it into the 10 candidates, its
// contents describe it, and the answer is grounded through them.
func TestCVTTailRankedAndDescribed(t *testing.T) {
	m := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskSelectRelation, Func: pickRel("starring")},
		{Name: TaskScoreRelation, Repeat: true, Replies: []string{"Score: 0.9"}},
		{Name: TaskScorePath, Func: scoreBy("Rick Deckard")},
		{Name: TaskScoreMore, Repeat: true, Replies: []string{"Score: 0.2"}},
		{Name: TaskEndOfSearch, Func: func(req llm.Request, _ int) (string, error) {
			return map[bool]string{true: "Yes", false: "No"}[strings.Contains(req.Task.Candidate, "Rick Deckard")], nil
		}},
		{Name: TaskStack, Repeat: true, Replies: []string{"Yes"}},
		{Name: TaskAnswer, Func: answerBy(regexp.MustCompile(`\(actor: ([^;]+); character: Rick Deckard\)`))},
	}}
	db := kgfixture.Open(t)
	cfg := DefaultConfig()
	cfg.SubQuestions, cfg.Iterations = 0, 2
	tr := answerWith(t, db, m, m, cfg, reasoner.Query{Question: "Who played Rick Deckard in Blade Runner?",
		Graphs: []string{kgfixture.Graph}, TopicEntities: []string{kgfixture.BladeRunner}})
	if tr.Answer.Text != "Harrison Ford" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.HarrisonFord}) ||
		!tr.Answer.Confident {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if p := userPrompt(m.CallsFor(TaskAnswer)[0]); !strings.Contains(p, "Blade Runner -> starring: 133 in all (10 listed)") {
		t.Errorf("answer prompt lacks the total:\n%s", p)
	}
}

// TestRelinkWhenPathsDieOut: the given topic entity is the video game,
// whose paths die out; the sub-question is linked again and the search
// goes on from the film.
func TestRelinkWhenPathsDieOut(t *testing.T) {
	m := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskDecompose, Replies: []string{"Who directed the film Blade Runner?"}},
		{Name: TaskExtract, Replies: []string{"Blade Runner"}},
		{Name: TaskLink, Replies: []string{kgfixture.BladeRunner}},
		{Name: TaskSelectRelation, Func: pickRel("directed by")},
		{Name: TaskScoreRelation, Repeat: true, Replies: []string{"Score: 0.9"}},
		{Name: TaskScorePath, Repeat: true, Replies: []string{"Score: 0.9"}},
		{Name: TaskEndOfSearch, Repeat: true, Replies: []string{"Yes"}},
		{Name: TaskStack, Repeat: true, Replies: []string{"Yes"}},
		{Name: TaskAnswer, Func: answerBy(regexp.MustCompile(`directed by -> (Ridley Scott)`))},
	}}
	db := kgfixture.Open(t)
	cfg := DefaultConfig()
	cfg.SubQuestions, cfg.Iterations = 1, 3
	tr := answerWith(t, db, m, m, cfg, reasoner.Query{Question: "Who directed the film Blade Runner?",
		Graphs: []string{kgfixture.Graph}, TopicEntities: []string{kgfixture.BladeRunnerGame}})
	if tr.Answer.Text != "Ridley Scott" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.RidleyScott}) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if !tracetest.HasWarning(tr, "re-linking the sub-questions added Blade Runner ("+kgfixture.BladeRunner+")") {
		t.Errorf("no re-link warning\n%s", tracetest.Render(t, tr))
	}
}

// TestMoreTails: Jerry Lewis directed 13 films, named so that no word is
// shared with the question: ranking keeps the store's order and the
// needed film, the last, is on page 2 of 10 candidates. The value model
// scores the shown films low and "more" higher, so the next page is
// scored within the same expansion (no node, no hop) and its film becomes
// the child. Without paging (pages=1) the needed film is never seen.
func TestMoreTails(t *testing.T) {
	const want = "Lewis Comedy 12"
	tests := []struct {
		name      string
		pages     int
		answer    string
		moreCalls int
		tails     string
	}{
		{"next page", 5, want, 1, "13 of 13 (2 pages)"},
		{"paging off", 1, "", 0, "10 of 13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &llm.Scripted{Rules: []llm.Rule{
				{Name: TaskExtract, Repeat: true, Replies: []string{"none"}},
				{Name: TaskSelectRelation, Func: pickRel("directed")},
				{Name: TaskScoreRelation, Repeat: true, Replies: []string{"Score: 0.9"}},
				{Name: TaskScorePath, Func: scoreBy(want)},
				{Name: TaskScoreMore, Repeat: true, Replies: []string{"Score: 0.5"}},
				{Name: TaskEndOfSearch, Func: func(req llm.Request, _ int) (string, error) {
					return map[bool]string{true: "Yes", false: "No"}[strings.Contains(req.Task.Candidate, want)], nil
				}},
				{Name: TaskStack, Func: func(req llm.Request, _ int) (string, error) {
					return map[bool]string{true: "Yes", false: "No"}[strings.HasSuffix(req.Task.Candidate, want)], nil
				}},
				{Name: TaskAnswer, Func: answerBy(regexp.MustCompile(`\d\. \(weight [0-9.]+\) Jerry Lewis -> [^>]+ -> (` + want + `)`))},
			}}
			cfg := DefaultConfig()
			cfg.SubQuestions, cfg.Iterations, cfg.MaxDepth, cfg.Pages = 0, 2, 1, tt.pages
			tr := answerWith(t, kgfixture.Open(t), m, m, cfg, reasoner.Query{
				Question: "Which was the last picture of the man behind The Bellboy?",
				Graphs:   []string{kgfixture.Graph}, TopicEntities: []string{kgfixture.JerryLewis}})
			if tr.Answer.Text != tt.answer {
				t.Fatalf("answer %q, want %q\n%s", tr.Answer.Text, tt.answer, tracetest.Render(t, tr))
			}
			if tt.answer == want && !slices.Equal(tr.Answer.Entities, []string{"/m/lewis_film_12"}) {
				t.Errorf("answer entities %v", tr.Answer.Entities)
			}
			more := m.CallsFor(TaskScoreMore)
			if len(more) != tt.moreCalls {
				t.Fatalf("%d score-more calls, want %d", len(more), tt.moreCalls)
			}
			if len(more) > 0 {
				p := userPrompt(more[0])
				for _, s := range []string{"Tails shown (1-10 of 13, ranked by relevance to the question)",
					"more: show the next 3 of the 13 tails after 1-10"} {
					if !strings.Contains(p, s) {
						t.Errorf("score-more prompt lacks %q:\n%s", s, p)
					}
				}
			}
			// One child under the topic: paging added no node and no hop.
			var children []int
			for _, n := range tr.Nodes {
				if slices.Contains(n.Parents, 2) {
					children = append(children, n.ID)
					if n.Depth != 2 || n.Extra["tails"] != tt.tails {
						t.Errorf("child %d: depth %d, tails %q; want depth 2, tails %q", n.ID, n.Depth,
							n.Extra["tails"], tt.tails)
					}
				}
			}
			if len(children) != 1 {
				t.Errorf("topic has %d children, want 1", len(children))
			}
		})
	}
}

// TestCurrentEntity: the current entity is named in words, then its id,
// which appears once even when the name starts with it (a mediator).
func TestCurrentEntity(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    *node
		want string
	}{
		{"labelled", &node{entity: store.Entity{ID: "m.1", Label: "Blade Runner"}}, "Blade Runner (m.1)"},
		{"mediator", &node{entity: store.Entity{ID: "_:film/6873"}, desc: "(actor: Harrison Ford)"},
			"_:film/6873 (actor: Harrison Ford)"},
		{"unlabelled", &node{entity: store.Entity{ID: "m.2"}}, "m.2 (no label in the KG)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := currentEntity(tc.n); got != tc.want {
				t.Errorf("currentEntity = %q, want %q", got, tc.want)
			}
		})
	}
}
