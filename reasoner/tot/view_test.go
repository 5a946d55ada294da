package tot

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/kgfixture"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

// The tests of what the model sees (issue 13) run Chain-of-Traversals
// with scripted models on the kgfixture film graph, whose lists are
// longer than the caps.

// pickText is a relation-selection policy: the first option whose text
// contains one of words, in order of words.
func pickText(words ...string) llm.ReplyFunc {
	return func(req llm.Request, _ int) (string, error) {
		for _, w := range words {
			for _, o := range req.Task.Options {
				if strings.Contains(o.Text, w) {
					return o.ID, nil
				}
			}
		}
		return "none", nil
	}
}

func prompt(req llm.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// runChain answers question with chain (k=1) at MaxEdges 10.
func runChain(t *testing.T, policy *llm.Scripted, question string, topics ...string) *trace.Trace {
	t.Helper()
	db := kgfixture.Open(t)
	cfg := DefaultConfig()
	cfg.MaxEdges = 10
	r, err := NewChain(reasoner.Deps{KG: db, Model: policy, Evaluator: scores(0.9, nil)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(context.Background(), reasoner.Query{Question: question, Graphs: []string{kgfixture.Graph},
		TopicEntities: topics})
	if err != nil {
		t.Fatalf("%v\n%s", err, tracetest.Render(t, tr))
	}
	return tr
}

// TestNeededEdgeLastInList: Gladiator is the 61st of Ridley Scott's films
// in the store's order and the cap is 10; ranking by the question brings
// it into the first page, so the chain can expand it.
func TestNeededEdgeLastInList(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the films Ridley Scott directed",
			"EXPAND_KG: find when Gladiator was released", "ANSWER: 2000-05-01"}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.RidleyScott, kgfixture.Gladiator}},
		{Name: TaskSelectRelation, Func: pickText("release", "directed")},
	}}
	tr := runChain(t, policy, "When was Gladiator, directed by Ridley Scott, released?", kgfixture.RidleyScott)
	if tr.Answer.Text != "2000-05-01" || !tr.Answer.Confident {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	sel := policy.CallsFor(TaskSelectEntities)
	if p := prompt(sel[1]); !strings.Contains(p, kgfixture.Gladiator+" - Gladiator") ||
		!strings.Contains(p, "directed (61 in all, 10 shown):") {
		t.Errorf("second entity selection does not show Gladiator and the total:\n%s", p)
	}
}

// TestPagingReachesEveryEdge: choosing the same relation again fetches
// the next page of ranked edges, and the prompts say how many are shown.
func TestPagingReachesEveryEdge(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the films directed by Ridley Scott",
			"EXPAND_KG: find more films directed by Ridley Scott", "ANSWER: Scott Picture 00"}},
		{Name: TaskSelectEntities, Repeat: true, Replies: []string{kgfixture.RidleyScott}},
		{Name: TaskSelectRelation, Func: pickText("directed")},
	}}
	tr := runChain(t, policy, "Name films of Ridley Scott.", kgfixture.RidleyScott)
	rels := policy.CallsFor(TaskSelectRelation)
	if len(rels) != 2 {
		t.Fatalf("%d relation selections\n%s", len(rels), tracetest.Render(t, tr))
	}
	if p := prompt(rels[1]); !strings.Contains(p, "61 edges, 10 in the graph already; choose it again for the next ones") {
		t.Errorf("second relation selection does not offer the next page:\n%s", p)
	}
	final := prompt(policy.CallsFor(TaskAction)[2])
	for _, want := range []string{"edges shown: 1-10 of 61", "edges shown: 11-20 of 61", "directed (61 in all, 20 shown):"} {
		if !strings.Contains(final, want) {
			t.Errorf("last prompt lacks %q:\n%s", want, final)
		}
	}
}

// TestCVTHopIsOneStep: a performance CVT is shown by its contents, its
// actor and character are in the local graph after one expansion, and
// the answer needs no further hop through the CVT.
func TestCVTHopIsOneStep(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the cast of Blade Runner", "ANSWER: Harrison Ford"}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.BladeRunner}},
		{Name: TaskSelectRelation, Func: pickText("starring")},
	}}
	tr := runChain(t, policy, "Who played Rick Deckard in Blade Runner?", kgfixture.BladeRunner)
	if tr.Answer.Text != "Harrison Ford" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.HarrisonFord}) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if n, _ := tr.Node(tr.Answer.Node); n.Depth != 4 {
		t.Errorf("answer at depth %d, want 4 (expand, select entity, select relation, answer)", n.Depth)
	}
	p := prompt(policy.CallsFor(TaskAction)[1])
	if !strings.Contains(p, "starring (133 in all, 10 shown):\n        (actor: Harrison Ford; character: Rick Deckard)\n") {
		t.Errorf("the performance is not shown by its contents first:\n%s", p)
	}
	if strings.Contains(p, "      _:film/perf132\n") {
		t.Errorf("a bare CVT id is shown as a name:\n%s", p)
	}
}

// inAll is a faithful reader of totals.
var inAll = regexp.MustCompile(`directed \((\d+) in all`)

// TestCountBeyondCap: Jerry Lewis directed 13 films, the cap is 10; the
// graph text carries the total, so a model that reads it answers 13.
func TestCountBeyondCap(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Func: func(req llm.Request, _ int) (string, error) {
			if m := inAll.FindStringSubmatch(prompt(req)); m != nil {
				return "ANSWER: " + m[1], nil
			}
			return "EXPAND_KG: find the films Jerry Lewis directed", nil
		}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.JerryLewis}},
		{Name: TaskSelectRelation, Func: pickText("directed")},
	}}
	tr := runChain(t, policy, "How many films did Jerry Lewis direct?", kgfixture.JerryLewis)
	if tr.Answer.Text != fmt.Sprint(kgfixture.LewisFilms) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	if p := prompt(policy.CallsFor(TaskAction)[1]); strings.Count(p, "/m/lewis_film_") != 10 {
		t.Errorf("want 10 films listed under the cap:\n%s", p)
	}
}

// TestSearchAgainRepairsWrongLink: the first link picks the video game;
// SEARCH_KG links the film inside the search, which then answers.
func TestSearchAgainRepairsWrongLink(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskExtract, Replies: []string{"Blade Runner"}},
		{Name: TaskLink, Replies: []string{kgfixture.BladeRunnerGame, kgfixture.BladeRunner}},
		{Name: TaskAction, Replies: []string{"SEARCH_KG: Blade Runner (the 1982 film)",
			"EXPAND_KG: find who directed the film Blade Runner", "ANSWER: Ridley Scott"}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.BladeRunner}},
		{Name: TaskSelectRelation, Func: pickText("directed by")},
	}}
	tr := runChain(t, policy, "Who directed Blade Runner?")
	if tr.Answer.Text != "Ridley Scott" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.RidleyScott}) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	links := policy.CallsFor(TaskLink)
	if len(links) != 2 {
		t.Fatalf("%d link calls, want 2", len(links))
	}
	if p := prompt(links[1]); !strings.Contains(p, kgfixture.BladeRunner+": Blade Runner - relations: starring (133)") {
		t.Errorf("the film's candidate is not told apart from the game:\n%s", p)
	}
	if !slices.ContainsFunc(tr.Nodes, func(n trace.Node) bool { return n.Action == string(ActionSearch) }) {
		t.Errorf("no SEARCH_KG node in the trace")
	}
}

// TestSupportNamesMediators: the answer's support names a CVT by its
// contents, as the prompts do, never by its bare id.
func TestSupportNamesMediators(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the cast of Blade Runner", "ANSWER: Harrison Ford"}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.BladeRunner}},
		{Name: TaskSelectRelation, Func: pickText("starring")},
	}}
	tr := runChain(t, policy, "Who played Rick Deckard in Blade Runner?", kgfixture.BladeRunner)
	out := tracetest.Render(t, tr)
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"support: (actor: Harrison Ford; character: Rick Deckard) -> actor -> Harrison Ford", true},
		{"support: _:", false},
	} {
		if strings.Contains(out, tc.text) != tc.want {
			t.Errorf("render contains %q = %v, want %v:\n%s", tc.text, !tc.want, tc.want, out)
		}
	}
	if n := tr.Answer.Names; len(n) == 0 {
		t.Errorf("answer names = %v", n)
	}
}

// TestEdgesFetchedForAnotherSelection: the pages of a relation are kept
// per selection of entities, but the relation prompt counts the edges the
// local graph holds whoever fetched them, and choosing the relation for
// the larger selection passes over the page already there to edges the
// graph lacks (it added nothing new, and the branch died).
func TestEdgesFetchedForAnotherSelection(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the films directed by Ridley Scott",
			"EXPAND_KG: find more films directed by Ridley Scott", "ANSWER: Scott Picture 00"}},
		{Name: TaskSelectEntities, Replies: []string{kgfixture.RidleyScott, kgfixture.RidleyScott + ", /m/a_scott_film_00"}},
		{Name: TaskSelectRelation, Repeat: true, Func: func(req llm.Request, _ int) (string, error) {
			for _, o := range req.Task.Options {
				if strings.Contains(o.Text, "directed") && !strings.Contains(o.Text, "directed by") {
					return o.ID, nil
				}
			}
			return "none", nil
		}},
	}}
	tr := runChain(t, policy, "Name films of Ridley Scott.", kgfixture.RidleyScott)
	rels := policy.CallsFor(TaskSelectRelation)
	if len(rels) != 2 {
		t.Fatalf("%d relation selections\n%s", len(rels), tracetest.Render(t, tr))
	}
	if p := prompt(rels[1]); !strings.Contains(p, "61 edges, 10 in the graph already; choose it again for the next ones") {
		t.Errorf("the relation prompt for [Ridley Scott, Scott Picture 00] does not count the edges fetched for [Ridley Scott]:\n%s", p)
	}
	final := prompt(policy.CallsFor(TaskAction)[2])
	if strings.Contains(final, "added nothing new") || !strings.Contains(final, "OBSERVATION: 10 new edges") {
		t.Errorf("the second expansion did not reach edges the graph lacked:\n%s\n%s", final, tracetest.Render(t, tr))
	}
}
