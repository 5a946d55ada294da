package grounded

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/grounded/schema"
	"github.com/grove-kg/grove/reasoner/llm"
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
			tr := answer(t, db, llm.Lexical{}, nil, DefaultConfig(Explore, s), q)
			if tr.Answer.Text != "Ridley Scott" || len(tr.Answer.Support) != 1 ||
				tr.Answer.Support[0].Relation != "/film/film/directed_by" {
				t.Errorf("explore-%s: answer %+v\n%s", s, tr.Answer, warnings(tr))
			}
		}
	})

	t.Run("lexical agent cannot write actions", func(t *testing.T) {
		// llm.Lexical's KindAction rule knows ANSWER, EXPAND* and THINK
		// only: for the Graph-CoT actions it replies the first option id
		// without an argument, so every step is an invalid action and the
		// budget runs out (see the report).
		cfg := cfgWith(Agent, CoT, func(c *Config) { c.Steps = 3 })
		tr := answer(t, db, llm.Lexical{}, nil, cfg, q)
		steps := stepNodes(tr)
		if len(steps) != 3 || tr.Answer.Found {
			t.Fatalf("%d steps, answer %+v", len(steps), tr.Answer)
		}
		for _, n := range steps {
			if n.Action != actionInvalid || !strings.Contains(n.Extra["observation"], "RetrieveNode needs a keyword") {
				t.Errorf("step %+v", n)
			}
		}
	})

	t.Run("agent retrieves, checks neighbours and degree", func(t *testing.T) {
		m := agentModel([]string{"I need the film, then its director, then its cast size."}, []string{
			"RetrieveNode[Blade Runner]", "NeighbourCheck[/en/blade_runner, directed by]",
			"NodeDegree[Blade Runner, starring]", "Finish[Ridley Scott]"}, nil)
		tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), q)
		if tr.Answer.Text != "Ridley Scott" || tr.Answer.Node != 5 || len(tr.Answer.Support) != 1 {
			t.Fatalf("answer = %+v\n%s", tr.Answer, warnings(tr))
		}
		steps := stepNodes(tr)
		wants := []struct{ op, obs string }{
			{"search:Blade Runner", "/en/blade_runner (Blade Runner, exact match)"},
			{"edges:/en/blade_runner//film/film/directed_by", "The directed by neighbours of Blade Runner (/en/blade_runner) are: Ridley Scott (/en/ridley_scott)"},
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
