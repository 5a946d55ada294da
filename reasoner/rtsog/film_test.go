package rtsog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestFilm runs RTSoG on the Freebase film sample, loaded once because
// loading takes seconds.
func TestFilm(t *testing.T) {
	db := storetest.Film(t)
	t.Run("lexical policy", func(t *testing.T) { testLexical(t, db) })
	t.Run("director's films", func(t *testing.T) { testDirectorsFilms(t, db) })
	t.Run("lexical policy, two hops", func(t *testing.T) { testLexicalTwoHops(t, db) })
}

// testLexical: with the deterministic lexical policy and no LLM, "Who
// directed Blade Runner?" is linked to Blade Runner, the value model keeps
// only "directed by", the self-critic stops at Ridley Scott, the tree is
// then exhausted, and the answer is read off the kept path.
func testLexical(t *testing.T, db store.KG) {
	reg := reasoner.NewRegistry()
	Register(reg)
	r, err := reg.New(Method, reasoner.Deps{KG: db, Model: lexical.Policy{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(t.Context(), reasoner.Query{Question: "Who directed Blade Runner?"})
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Answer
	if !a.Found || a.Text != "Ridley Scott" || !a.Confident || !slices.Equal(a.Entities, []string{"/en/ridley_scott"}) {
		t.Fatalf("answer %+v\n%s", a, tracetest.Render(t, tr))
	}
	if len(a.Support) != 1 || a.Support[0].Relation != "/film/film/directed_by" || a.Support[0].Subject.ID != "/en/blade_runner" {
		t.Errorf("support %+v", a.Support)
	}
	ridley := tnode(t, tr, a.Node)
	if ridley.State != StateEndOfSearch || ridley.Action != "directed by" || ridley.Visits != 1 || !ridley.Evaluated {
		t.Errorf("answer node %+v", ridley)
	}
	if !strings.Contains(a.Reason, "exhausted after 1 of 24 iterations") {
		t.Errorf("reason %q", a.Reason)
	}
}

// filmPolicy is a scripted policy and value model for "Which films did the
// director of Blade Runner direct?": it links Blade Runner, keeps the
// relation towards the director and then back to his films, scores films
// above other entities, stops the search at films, keeps the paths that
// mention directing, and answers with every film the kept paths name.
func filmPolicy() *llm.Scripted {
	score := func(s float64) string { return fmt.Sprintf("Reasoning...\nScore: %g", s) }
	return &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskExtract, Replies: []string{"Blade Runner"}},
		{Name: TaskLink, Func: func(req llm.Request, _ int) (string, error) { return "/en/blade_runner", nil }},
		{Name: TaskDecompose, Replies: []string{"1. Who directed Blade Runner?\n2. Which films did that person direct?"}},
		{Name: TaskSelectRelation, Func: func(req llm.Request, _ int) (string, error) {
			var ids []string
			for _, o := range req.Task.Options {
				if o.Text == "directed by" || o.Text == "directed" {
					ids = append(ids, o.ID)
				}
			}
			return "Selected relations: " + strings.Join(ids, ", "), nil
		}},
		{Name: TaskScoreRelation, Func: func(req llm.Request, _ int) (string, error) { return score(0.9), nil }},
		{Name: TaskScorePath, Func: func(req llm.Request, _ int) (string, error) {
			switch {
			case strings.HasSuffix(req.Task.Candidate, "-> Ridley Scott"):
				return score(0.9), nil
			case strings.HasSuffix(req.Task.Candidate, "-> Gladiator"):
				return score(0.8), nil
			}
			return score(0.6), nil
		}},
		{Name: TaskEndOfSearch, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Count(req.Task.Candidate, " -> ") == 4 {
				return "Yes, the path names a film by the director.", nil
			}
			return "No", nil
		}},
		{Name: TaskStack, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Contains(req.Task.Candidate, "directed") {
				return "Yes", nil
			}
			return "No", nil
		}},
		{Name: TaskAnswer, Func: func(req llm.Request, _ int) (string, error) {
			var films []string
			for _, l := range strings.Split(req.Task.Context, "\n") {
				if film, ok := strings.CutPrefix(l, "Ridley Scott -> directed -> "); ok {
					films = append(films, film)
				}
			}
			return "Answer: " + strings.Join(films, ", "), nil
		}},
	}}
}

// testDirectorsFilms is the end-to-end run: the tree reaches Ridley Scott
// and then his best-scored film, whose alternative tails are all his other
// films in the sample; the answer names each of them, grounded.
func testDirectorsFilms(t *testing.T, db store.KG) {
	m := filmPolicy()
	cfg := DefaultConfig()
	cfg.MaxCandidates = 30
	tr := answerWith(t, db, m, m, cfg, reasoner.Query{Question: "Which films did the director of Blade Runner direct?",
		Graphs: []string{"film"}})
	a := tr.Answer
	if !a.Found || !a.Confident || len(a.Entities) < 20 {
		t.Fatalf("answer %+v\n%s", a, tracetest.Render(t, tr))
	}
	want := directedBy(t, db, "/en/ridley_scott")
	for _, id := range a.Entities {
		if !want[id] || id == "/en/blade_runner" {
			t.Errorf("answer entity %s is not another film by Ridley Scott", id)
		}
	}
	if len(a.Entities) != len(want)-1 {
		t.Errorf("%d films in the answer, the sample has %d others", len(a.Entities), len(want)-1)
	}
	gladiator := tnode(t, tr, a.Node)
	if gladiator.Text != "Gladiator" || gladiator.State != StateEndOfSearch || gladiator.Extra["dir"] != "in" {
		t.Errorf("answer node %+v", gladiator)
	}
	if len(a.Support) < 3 || a.Support[0].Relation != "/film/film/directed_by" || a.Support[0].Object.ID != "/en/ridley_scott" {
		t.Errorf("support starts with %+v", a.Support[:min(2, len(a.Support))])
	}
	if got := tr.ExpansionOrder(); len(got) != 2 || !strings.Contains(a.Reason, "exhausted after 2 of 24") {
		t.Errorf("expansions %v, reason %q\n%s", got, a.Reason, tracetest.Render(t, tr))
	}
}

// directedBy returns the films the sample says id directed.
func directedBy(t *testing.T, db store.KG, id string) map[string]bool {
	t.Helper()
	edges, err := db.Edges(context.Background(), []string{id}, "/film/film/directed_by", store.In, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range edges {
		out[e.Subject.ID] = true
	}
	return out
}

// testLexicalTwoHops: with the lexical policy the self-critic does not
// stop at Ridley Scott for "Which films did the director of Blade Runner
// direct?" (the question names directing twice, the path once), so the
// search goes on to his films, and the answer lists films, not him.
func testLexicalTwoHops(t *testing.T, db store.KG) {
	m := lexical.Policy{}
	tr := answerWith(t, db, m, m, DefaultConfig(), reasoner.Query{Question: "Which films did the director of Blade Runner direct?"})
	a := tr.Answer
	t.Logf("answer %q, reason %q", a.Text, a.Reason)
	if !a.Found || len(a.Entities) < 2 {
		t.Fatalf("answer %+v\n%s", a, tracetest.Render(t, tr))
	}
	films := directedBy(t, db, "/en/ridley_scott")
	for _, id := range a.Entities {
		if !films[id] || id == "/en/blade_runner" {
			t.Errorf("answer entity %s is not another film by Ridley Scott", id)
		}
	}
	for _, n := range tr.Nodes {
		if n.Text == "Ridley Scott" && n.State == StateEndOfSearch {
			t.Errorf("the search stopped at Ridley Scott: %+v", n)
		}
	}
}
