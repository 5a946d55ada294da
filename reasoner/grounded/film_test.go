package grounded

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/grounded/schema"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestFilm runs the methods on the Freebase film sample (loaded once: it
// takes seconds).
func TestFilm(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the film sample")
	}
	db := storetest.Film(t)
	q := reasoner.Query{Question: "Who directed Blade Runner?"}

	t.Run("graph definition", func(t *testing.T) {
		d, err := schema.Derive(context.Background(), db, "film", nil, schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		text := d.Text()
		for _, want := range []string{"node types are not declared", "directed by (e.g. ", "actor (e.g. ", "directed (e.g. "} {
			if !strings.Contains(text, want) {
				t.Errorf("definition lacks %q:\n%s", want, text)
			}
		}
	})

	t.Run("lexical exploration answers", func(t *testing.T) {
		for _, s := range []Strategy{CoT, ToT, GoT} {
			tr := answer(t, db, lexical.Policy{}, nil, DefaultConfig(Explore, s), q)
			if tr.Answer.Text != "Ridley Scott" || len(tr.Answer.Support) != 1 ||
				tr.Answer.Support[0].Relation != "/film/film/directed_by" {
				t.Errorf("explore-%s: answer %+v\n%s", s, tr.Answer, tracetest.Warnings(tr))
			}
		}
	})

	t.Run("answer after the budget passes its check but is not confident", func(t *testing.T) {
		// One step retrieves the fact but does not finish the chain; the
		// final-answer prompt's answer is supported by it, yet it was
		// asked after the budget: the check passed, with a doubt.
		m := &llm.Scripted{Rules: []llm.Rule{
			{Name: TaskExploreThought, Replies: []string{"I need the director of Blade Runner."}, Repeat: true},
			{Name: TaskDecide, Replies: []string{"THINK"}, Repeat: true},
			{Name: TaskAnswer, Replies: []string{"Answer: Ridley Scott"}, Repeat: true}},
			Default: func(req llm.Request, _ int) (string, error) {
				resp, err := lexical.Policy{}.Generate(context.Background(), req)
				if err != nil {
					return "", err
				}
				return resp.Texts[0], nil
			}}
		tr := answer(t, db, m, nil, cfgWith(Explore, CoT, func(c *Config) { c.Steps = 1 }), q)
		a := tr.Answer
		if len(m.CallsFor(TaskAnswer)) != 1 || a.Text != "Ridley Scott" || a.Confident ||
			a.Doubt != "answered from the chain after the budget" {
			t.Fatalf("answer = %+v\n%s", a, tracetest.Warnings(tr))
		}
		var out strings.Builder
		if err := trace.Render(&out, tr); err != nil {
			t.Fatal(err)
		}
		want := "supported by the facts found: yes, but answered from the chain after the budget: not confident"
		if !strings.Contains(out.String(), want) {
			t.Errorf("rendered trace lacks %q:\n%s", want, out.String())
		}
	})

	t.Run("lexical agent retrieves, checks neighbours and finishes", func(t *testing.T) {
		// The lexical policy answers every call; the scripted wrapper
		// records the requests so the action tasks' contexts can be read.
		m := &llm.Scripted{Default: func(req llm.Request, _ int) (string, error) {
			resp, err := lexical.Policy{}.Generate(context.Background(), req)
			if err != nil {
				return "", err
			}
			return resp.Texts[0], nil
		}}
		tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), q)
		var actions []string
		for _, n := range stepNodes(tr) {
			actions = append(actions, n.Extra["action"])
		}
		want := []string{"RetrieveNode[Blade Runner]", "NeighbourCheck[/en/blade_runner, directed by]", "Finish[Ridley Scott]"}
		if !slices.Equal(actions, want) || tr.Answer.Text != "Ridley Scott" || len(tr.Answer.Support) != 1 {
			t.Fatalf("actions %q, answer %+v\n%s", actions, tr.Answer, tracetest.Warnings(tr))
		}
		calls := m.CallsFor(TaskAgentAction)
		// The action tasks carry the evidence as structured fields.
		type wantTask struct {
			fact     *llm.Fact
			node     *llm.NodeRef
			edgeType string
			previous string
		}
		wants := []wantTask{
			{edgeType: "directed by"},
			{node: &llm.NodeRef{ID: "/en/blade_runner", Name: "Blade Runner"}, previous: "RetrieveNode[Blade Runner]"},
			{fact: &llm.Fact{Subject: "Blade Runner", Relation: "directed by", Object: "Ridley Scott"},
				node:     &llm.NodeRef{ID: "/en/ridley_scott", Name: "Ridley Scott"},
				previous: "NeighbourCheck[/en/blade_runner, directed by]"},
		}
		for i, w := range wants {
			task := calls[i].Task
			switch {
			case w.fact != nil && !slices.Contains(task.Facts, *w.fact):
				t.Errorf("action %d facts lack %+v: %+v", i+1, *w.fact, task.Facts)
			case w.node != nil && !slices.Contains(task.Nodes, *w.node):
				t.Errorf("action %d nodes lack %+v: %+v", i+1, *w.node, task.Nodes)
			case w.edgeType != "" && !slices.Contains(task.EdgeTypes, w.edgeType):
				t.Errorf("action %d edge types lack %q: %q", i+1, w.edgeType, task.EdgeTypes)
			case w.previous != "" && !slices.Contains(task.PreviousActions, w.previous):
				t.Errorf("action %d previous actions lack %q: %q", i+1, w.previous, task.PreviousActions)
			}
		}
	})

	t.Run("lexical agent follows two hops", func(t *testing.T) {
		// The question names directing twice: the agent checks Blade
		// Runner's director, then the director's films, and finishes with
		// them, each grounded in its directed-by edge to Ridley Scott.
		q2 := reasoner.Query{Question: "Which films did the director of Blade Runner direct?"}
		tr := answer(t, db, lexical.Policy{}, nil, DefaultConfig(Agent, CoT), q2)
		a := tr.Answer
		if !a.Found || len(a.Entities) < 2 || len(stepNodes(tr)) != 4 {
			t.Fatalf("answer %+v after %d steps\n%s", a, len(stepNodes(tr)), tracetest.Warnings(tr))
		}
		for _, id := range a.Entities {
			if id == "/en/blade_runner" || !slices.ContainsFunc(a.Support, func(e store.Edge) bool {
				return e.Subject.ID == id && e.Relation == "/film/film/directed_by" && e.Object.ID == "/en/ridley_scott"
			}) {
				t.Errorf("answer entity %s is not another film directed by Ridley Scott", id)
			}
		}
	})

	t.Run("agent retrieves, checks neighbours and degree", func(t *testing.T) {
		m := agentModel([]string{"I need the film, then its director, then its cast size."}, []string{
			"RetrieveNode[Blade Runner]", "NeighbourCheck[/en/blade_runner, directed by]",
			"NodeDegree[Blade Runner, starring]", "Finish[Ridley Scott]"}, nil)
		tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), q)
		if tr.Answer.Text != "Ridley Scott" || tr.Answer.Node != 5 || len(tr.Answer.Support) != 1 {
			t.Fatalf("answer = %+v\n%s", tr.Answer, tracetest.Warnings(tr))
		}
		steps := stepNodes(tr)
		wants := []struct{ op, obs string }{
			{"search:Blade Runner", "/en/blade_runner (Blade Runner, exact match; relations: starring (12)"},
			{"edges:/en/blade_runner//film/film/directed_by", "The directed by neighbours of Blade Runner (/en/blade_runner) are (1 in all): Ridley Scott (/en/ridley_scott)"},
			{"degree:/en/blade_runner//film/film/starring", "Blade Runner (/en/blade_runner) has "},
		}
		for i, w := range wants {
			if !hasOp(kgOps(tr, steps[i].ID), w.op) || !strings.Contains(steps[i].Extra["observation"], w.obs) {
				t.Errorf("step %d: KG %v, observation %q", i+1, kgOps(tr, steps[i].ID), steps[i].Extra["observation"])
			}
		}
		n, err := db.Degree(context.Background(), "/en/blade_runner", "/film/film/starring", store.Out)
		if err != nil || !strings.Contains(steps[2].Extra["observation"], " "+itoa(n)+" starring neighbours") {
			t.Errorf("degree observation %q, store says %d (%v)", steps[2].Extra["observation"], n, err)
		}
	})

	t.Run("tot select keeps the director branch", func(t *testing.T) {
		m := agentModel(nil, nil, map[string]func(fcall) string{
			TaskAgentThought: func(c fcall) string {
				if c.Steps() == 0 {
					return []string{"A: list the actors of the film.", "B: check who directed the film."}[c.Sample%2]
				}
				return "B2: the director is Ridley Scott."
			},
			TaskAgentAction: byThought("Finish[Harrison Ford]", "A:", "NeighbourCheck[/en/blade_runner, starring]",
				"B:", "NeighbourCheck[/en/blade_runner, directed by]", "B2:", "Finish[Ridley Scott]"),
		})
		ev := newFake(map[string]func(fcall) string{TaskSelect: voteFor("directed by")})
		cfg := cfgWith(Agent, ToT, func(c *Config) { c.K, c.T = 2, 1 })
		tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: q.Question, TopicEntities: []string{"/en/blade_runner"}})
		if tr.Answer.Text != "Ridley Scott" || node(t, tr, 2).Order != 0 || node(t, tr, 3).Order == 0 {
			t.Fatalf("answer %+v; A expanded %d, B expanded %d", tr.Answer, node(t, tr, 2).Order, node(t, tr, 3).Order)
		}
		if !strings.Contains(ev.calls(TaskSelect)[0].Prompt(), "Ridley Scott (/en/ridley_scott)") {
			t.Errorf("the vote does not see the observations:\n%s", ev.calls(TaskSelect)[0].Prompt())
		}
	})

	t.Run("got merges two chains", func(t *testing.T) {
		m := agentModel(nil, nil, map[string]func(fcall) string{
			TaskAgentThought: func(c fcall) string {
				if c.Steps() == 0 {
					return []string{"A: who directed the film?", "B: who starred in the film?"}[c.Sample%2]
				}
				return "Z: nothing new."
			},
			TaskAgentAction: byThought("RetrieveNode[Blade Runner]", "A:", "NeighbourCheck[/en/blade_runner, directed by]",
				"B:", "NodeDegree[/en/blade_runner, starring]", "M:", "Finish[Ridley Scott]"),
			TaskMerge: always("M: chain 1 found the director, chain 2 the cast size."),
		})
		ev := newFake(map[string]func(fcall) string{TaskScore: scoreBy("Finish[Ridley Scott]", 0.95, "directed by", 0.8, "starring", 0.7)})
		cfg := cfgWith(Agent, GoT, func(c *Config) { c.K, c.T, c.Evaluator = 2, 2, Score })
		tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: q.Question, TopicEntities: []string{"/en/blade_runner"}})
		a := node(t, tr, tr.Answer.Node)
		if tr.Answer.Text != "Ridley Scott" || len(a.Parents) != 2 || a.Action != actionMerge {
			t.Fatalf("answer %+v at %+v", tr.Answer, a)
		}
		if a.Extra["triples"] != "1" || a.Extra["attributes"] != "1" {
			t.Errorf("the merged state lacks a chain's knowledge: %v", a.Extra)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
