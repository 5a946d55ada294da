package rtsog

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/kgfixture"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
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
		{Name: TaskEndOfSearch, Repeat: true, Replies: []string{"Yes, the films are listed."}},
		{Name: TaskStack, Repeat: true, Replies: []string{"Yes"}},
		{Name: TaskAnswer, Func: answerBy(regexp.MustCompile(`Jerry Lewis directed (\d+) in all`))},
	}}
	db := kgfixture.Open(t)
	cfg := DefaultConfig()
	cfg.SubQuestions, cfg.Iterations = 0, 2
	tr := answerWith(t, db, m, m, cfg, reasoner.Query{Question: "How many films did Jerry Lewis direct?",
		Graphs: []string{kgfixture.Graph}, TopicEntities: []string{kgfixture.JerryLewis}})
	if tr.Answer.Text != "13" {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if p := userPrompt(m.CallsFor(TaskAnswer)[0]); !strings.Contains(p, "Jerry Lewis directed 13 in all (10 listed)") {
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
	if p := userPrompt(m.CallsFor(TaskAnswer)[0]); !strings.Contains(p, "Blade Runner starring 133 in all (10 listed)") {
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
