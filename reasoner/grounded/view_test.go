package grounded

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

// The tests of what the model sees (issue 13) on the kgfixture film graph,
// whose lists are longer than the caps.

func filmFixture(t *testing.T) store.KG {
	t.Helper()
	return kgfixture.Open(t)
}

func filmQuery(question string, topics ...string) reasoner.Query {
	return reasoner.Query{Question: question, Graphs: []string{kgfixture.Graph}, TopicEntities: topics}
}

// TestAgentWrongLinkAndCVT: the topic entity is the video game (a wrong
// link); RetrieveNode tells the two "Blade Runner"s apart by their
// relations, NeighbourCheck ranks the needed performance (the last of
// 133) first and shows it by its contents, with the true total.
func TestAgentWrongLinkAndCVT(t *testing.T) {
	m := agentModel([]string{"The topic node may be the wrong Blade Runner."}, []string{
		"RetrieveNode[Blade Runner]", "NeighbourCheck[" + kgfixture.BladeRunner + ", starring]", "Finish[Harrison Ford]"}, nil)
	tr := answer(t, filmFixture(t), m, nil, DefaultConfig(Agent, CoT),
		filmQuery("Who played Rick Deckard in the film Blade Runner?", kgfixture.BladeRunnerGame))
	if tr.Answer.Text != "Harrison Ford" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.HarrisonFord}) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	steps := stepNodes(tr)
	for i, want := range []string{
		kgfixture.BladeRunner + " (Blade Runner, exact match; relations: starring (133)",
		"The starring neighbours of Blade Runner (" + kgfixture.BladeRunner + ") are (1-30 of 133, ranked by " +
			"relevance to the question; repeat NeighbourCheck[" + kgfixture.BladeRunner + ", starring] for the next " +
			"ones): (actor: Harrison Ford; character: Rick Deckard) (_:film/perf132); ",
	} {
		if obs := steps[i].Extra["observation"]; !strings.Contains(obs, want) {
			t.Errorf("step %d observation lacks %q:\n%s", i+1, want, obs)
		}
	}
}

// TestAgentPagesEveryNeighbour: repeating NeighbourCheck lists the next
// ranked page until all 61 films were listed, then says so.
func TestAgentPagesEveryNeighbour(t *testing.T) {
	check := "NeighbourCheck[" + kgfixture.RidleyScott + ", directed]"
	m := agentModel([]string{"I list his films."}, []string{check, check, check, check, "Finish[done]"}, nil)
	tr := answer(t, filmFixture(t), m, nil, DefaultConfig(Agent, CoT),
		filmQuery("List the films of Ridley Scott.", kgfixture.RidleyScott))
	steps := stepNodes(tr)
	for i, want := range []string{"(1-30 of 61,", "(31-60 of 61,", "(61-61 of 61,", "All 61 directed neighbours"} {
		if obs := steps[i].Extra["observation"]; !strings.Contains(obs, want) {
			t.Errorf("step %d observation lacks %q:\n%.300s", i+1, want, obs)
		}
	}
}

// TestExploreCVTHopAndCount: one exploration depth reaches the actor
// through a performance CVT (shown by its contents), and a cut list keeps
// its true count.
func TestExploreCVTHopAndCount(t *testing.T) {
	pickDeckard := func(c fcall) string {
		for _, o := range c.Req.Task.Options {
			if strings.Contains(o.Text, "Rick Deckard") {
				return o.ID
			}
		}
		return "none"
	}
	m := exploreModel(map[string]func(fcall) string{
		TaskPruneRelations: always("starring"),
		TaskPruneEntities:  pickDeckard,
		TaskDecide:         always("ANSWER: Harrison Ford"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.Depth = 1 })
	tr := answer(t, filmFixture(t), m, nil, cfg, filmQuery("Who played Rick Deckard in Blade Runner?", kgfixture.BladeRunner))
	if tr.Answer.Text != "Harrison Ford" || !slices.Equal(tr.Answer.Entities, []string{kgfixture.HarrisonFord}) {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	obs := stepNodes(tr)[0].Extra["observation"]
	for _, want := range []string{
		"Blade Runner -> starring -> (actor: Harrison Ford; character: Rick Deckard)",
		"(is starring of: Blade Runner; character: Rick Deckard) -> actor -> Harrison Ford",
		"Blade Runner -> number of starring -> 133",
	} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation lacks %q:\n%s", want, obs)
		}
	}
	ents := m.calls(TaskPruneEntities)
	if len(ents) != 1 || !strings.Contains(ents[0].Prompt(), "Tail Entities (1-30 of 133, ranked by relevance") {
		t.Errorf("entity pruning does not state the total: %d calls", len(ents))
	}
}

// TestExploreOptionFormat: a model that reads only the prompt picks the
// performance of Rick Deckard by what the prompt shows in brackets before
// it (the tail's number), however it writes the choice; no tail is shown
// by its blank node id, whose colon would read as the separator.
func TestExploreOptionFormat(t *testing.T) {
	bracketed := regexp.MustCompile(`(?m)^\s+\[([^\]]+)\] (.*)$`)
	for _, tc := range []struct {
		name  string
		reply func(token string) string
	}{
		{"the number", func(tok string) string { return tok }},
		{"the number in brackets", func(tok string) string { return "[" + tok + "]" }},
		{"with a reason", func(tok string) string { return "The performance of Rick Deckard.\nRelevant Entities: " + tok }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pick := func(c fcall) string {
				for _, m := range bracketed.FindAllStringSubmatch(c.Prompt(), -1) {
					if strings.Contains(m[2], "Rick Deckard") {
						return tc.reply(m[1])
					}
				}
				return "none"
			}
			m := exploreModel(map[string]func(fcall) string{
				TaskPruneRelations: always("starring"),
				TaskPruneEntities:  pick,
				TaskDecide:         always("ANSWER: Harrison Ford"),
			})
			cfg := cfgWith(Explore, CoT, func(c *Config) { c.Depth = 1 })
			tr := answer(t, filmFixture(t), m, nil, cfg, filmQuery("Who played Rick Deckard in Blade Runner?", kgfixture.BladeRunner))
			obs := stepNodes(tr)[0].Extra["observation"]
			if !strings.Contains(obs, "Blade Runner -> starring -> (actor: Harrison Ford; character: Rick Deckard)") {
				t.Errorf("the performance was not kept:\n%s", obs)
			}
			for _, c := range m.calls(TaskPruneEntities) {
				if strings.Contains(c.Prompt(), "_:") {
					t.Errorf("a tail is shown by its blank node id:\n%s", c.Prompt())
				}
			}
		})
	}
}

// TestExploreBudget: with a budget of one model call the exploration
// stops and says so, instead of exploring on.
func TestExploreBudget(t *testing.T) {
	m := exploreModel(map[string]func(fcall) string{
		TaskPruneRelations: always("directed"),
		TaskPruneEntities:  always("none"),
		TaskDecide:         always("ANSWER: unknown"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.ExploreCalls = 1 })
	tr := answer(t, filmFixture(t), m, nil, cfg, filmQuery("Which films did Ridley Scott direct?", kgfixture.RidleyScott))
	s := stepNodes(tr)[0]
	if !strings.Contains(s.Extra["observation"], "exploration stopped at depth 1 of 3: its budget of 1 model calls was spent") {
		t.Errorf("observation %q", s.Extra["observation"])
	}
	if n := len(m.calls(TaskPruneRelations)) + len(m.calls(TaskPruneEntities)) + len(m.calls(TaskEnd)); n > 1 {
		t.Errorf("%d exploration calls with a budget of 1", n)
	}
}

// TestExploreNextPage: Jerry Lewis directed 13 films named so that no word
// is shared with the question: ranking keeps the store's order and the
// needed film, the last, is on page 2 of 10 tails. The model picks NEXT on
// page 1 and the film on page 2, within the same depth; the observation
// says which page was read and the total. A model that never picks NEXT
// cannot reach the film.
func TestExploreNextPage(t *testing.T) {
	const want = "Lewis Comedy 12"
	tests := []struct {
		name   string
		next   bool
		answer string
		calls  int
	}{
		{"next page", true, want, 2},
		{"no next page", false, "unknown", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pick := func(c fcall) string {
				for _, o := range c.Req.Task.Options {
					if o.Text == want {
						return o.ID
					}
				}
				if tt.next && slices.ContainsFunc(c.Req.Task.Options, func(o llm.Option) bool { return o.ID == nextPage }) {
					return nextPage
				}
				return "none"
			}
			decide := func(c fcall) string {
				if strings.Contains(c.Req.Task.Context, want) {
					return "ANSWER: " + want
				}
				return "ANSWER: unknown"
			}
			m := exploreModel(map[string]func(fcall) string{
				TaskPruneRelations: always("directed"),
				TaskPruneEntities:  pick,
				TaskDecide:         decide,
			})
			cfg := cfgWith(Explore, CoT, func(c *Config) { c.Depth, c.NeighborLimit, c.EntityWidth = 1, 10, 1 })
			tr := answer(t, filmFixture(t), m, nil, cfg,
				filmQuery("Which was the last picture of the man behind The Bellboy?", kgfixture.JerryLewis))
			if tr.Answer.Text != tt.answer {
				t.Fatalf("answer %q, want %q\n%s", tr.Answer.Text, tt.answer, tracetest.Render(t, tr))
			}
			ents := m.calls(TaskPruneEntities)
			if len(ents) != tt.calls {
				t.Fatalf("%d entity pruning calls, want %d", len(ents), tt.calls)
			}
			if p := ents[0].Prompt(); !strings.Contains(p, "Tail Entities (1-10 of 13, ranked by relevance") ||
				!strings.Contains(p, "[NEXT] next page: show the next 3 of the 13 tail entities") {
				t.Errorf("page 1 prompt:\n%s", p)
			}
			if !tt.next {
				return
			}
			if !slices.Equal(tr.Answer.Entities, []string{"/m/lewis_film_12"}) {
				t.Errorf("answer entities %v", tr.Answer.Entities)
			}
			if p := ents[1].Prompt(); !strings.Contains(p, "Tail Entities (page 2: 11-13 of 13, ranked by relevance") ||
				strings.Contains(p, "NEXT") {
				t.Errorf("page 2 prompt:\n%s", p)
			}
			obs := stepNodes(tr)[0].Extra["observation"]
			for _, s := range []string{want + " -> directed by -> Jerry Lewis",
				"pages: Jerry Lewis -> directed: read page 2 of the tails (11-13 of 13, ranked by relevance to the question)"} {
				if !strings.Contains(obs, s) {
					t.Errorf("observation lacks %q:\n%s", s, obs)
				}
			}
		})
	}
}

// TestExploreNextPageBudget: the next page is asked for with the budget
// spent; it is not chosen from, and the observation says so.
func TestExploreNextPageBudget(t *testing.T) {
	m := exploreModel(map[string]func(fcall) string{
		TaskPruneRelations: always("directed"),
		TaskPruneEntities:  always(nextPage),
		TaskDecide:         always("ANSWER: unknown"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.Depth, c.NeighborLimit, c.EntityWidth, c.ExploreCalls = 1, 10, 1, 1 })
	tr := answer(t, filmFixture(t), m, nil, cfg,
		filmQuery("Which was the last picture of the man behind The Bellboy?", kgfixture.JerryLewis))
	if n := len(m.calls(TaskPruneEntities)); n != 1 {
		t.Errorf("%d entity pruning calls with a budget of 1", n)
	}
	obs := stepNodes(tr)[0].Extra["observation"]
	if !strings.Contains(obs, "Jerry Lewis -> directed: page 2 was not chosen from: the budget of 1 model calls was spent") {
		t.Errorf("observation:\n%s", obs)
	}
}
