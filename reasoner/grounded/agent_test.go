package grounded

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store/storetest"
)

// agentModel scripts an agent chain: thoughts and actions by step.
func agentModel(thoughts, actions []string, extra map[string]func(fcall) string) *fake {
	h := map[string]func(fcall) string{
		TaskAgentThought: script(thoughts...),
		TaskAgentAction:  script(actions...),
		TaskAnswer:       always("Answer: unknown"),
	}
	for k, v := range extra {
		h[k] = v
	}
	return newFake(h)
}

func TestAgentActions(t *testing.T) {
	db := goodreads(t)
	tests := []struct {
		name     string
		question string
		actions  []string
		answer   string
		// obs are fragments of each step's observation, in order.
		obs []string
		// ops are KG call prefixes the steps make, one per step.
		ops []string
	}{
		{"feature (GRBench goodreads qid 60)", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"RetrieveNode[Inu Yasha, Volume 1]", "NodeFeature[book/2284, num_pages]", "Finish[184]"}, "184",
			[]string{`Nodes matching "Inu Yasha, Volume 1": book/2284 (Inu Yasha, Volume 1, exact match; relations: `,
				"The num pages of Inu Yasha, Volume 1 (book/2284) is: 184", ""},
			[]string{"search:Inu Yasha, Volume 1", "features:book/2284", ""}},
		{"neighbours by node name (qid 40)", "Which series includes the book Demelza (Poldark, #2)?",
			[]string{"RetrieveNode[Demelza]", "NeighbourCheck[Demelza (Poldark, #2), series]", "Finish[The Poldark Saga]"},
			"The Poldark Saga",
			[]string{"book/6186 (Demelza (Poldark, #2), prefix match; relations: ",
				"The series neighbours of Demelza (Poldark, #2) (book/6186) are (1 in all): The Poldark Saga (series/146427)", ""},
			[]string{"search:Demelza", "edges:book/6186/series", ""}},
		{"degree (qid 140)", "Can you tell me the number of books similar to The Heartbreakers (The Heartbreakers Chronicles, #1)?",
			[]string{"NodeDegree[book/15, similar_books]", "Finish[18]"}, "18",
			[]string{"The Heartbreakers (The Heartbreakers Chronicles, #1) (book/15) has 18 similar books neighbours.", ""},
			[]string{"degree:book/15/similar_books", ""}},
		{"name of a node (a label, not a feature)", "Who wrote Demelza?",
			[]string{"NeighbourCheck[book/6186, author]", "NodeFeature[author/49853, name]", "Finish[Winston Graham]"}, "Winston Graham",
			[]string{"author/49853", "The name of Winston Graham (author/49853) is: Winston Graham", ""},
			[]string{"edges:book/6186/author", "features:author/49853", ""}},
		{"incoming edge type by inverse label", "Which books did Winston Graham write?",
			[]string{"NeighbourCheck[author/49853, author (inverse)]", "Finish[Demelza, Ross Poldark]"}, "Demelza, Ross Poldark",
			[]string{"The author (inverse) neighbours of Winston Graham (author/49853) are (2 in all): Ross Poldark (Poldark, #1) (book/6185); Demelza (Poldark, #2) (book/6186)", ""},
			[]string{"edges:author/49853/author", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := agentModel([]string{"I look at the graph."}, tc.actions, nil)
			tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: tc.question})
			if !tr.Answer.Found || tr.Answer.Text != tc.answer || !tr.Answer.Confident {
				t.Fatalf("answer = %+v\n%s", tr.Answer, tracetest.Warnings(tr))
			}
			steps := stepNodes(tr)
			if len(steps) != len(tc.actions) || len(tr.Warnings) != 0 {
				t.Fatalf("%d steps for %d actions; warnings:\n%s", len(steps), len(tc.actions), tracetest.Warnings(tr))
			}
			for i, n := range steps {
				if !strings.Contains(n.Extra["observation"], tc.obs[i]) {
					t.Errorf("step %d observation %q lacks %q", i+1, n.Extra["observation"], tc.obs[i])
				}
				if tc.ops[i] != "" && !hasOp(kgOps(tr, n.ID), tc.ops[i]) {
					t.Errorf("step %d KG calls %v lack %s", i+1, kgOps(tr, n.ID), tc.ops[i])
				}
			}
			last := steps[len(steps)-1]
			if last.Action != "Finish" || !last.Answer || !last.Chosen || tr.Answer.Node != last.ID {
				t.Errorf("last step = %+v", last)
			}
		})
	}
}

func TestAgentInvalidActions(t *testing.T) {
	db := goodreads(t)
	actions := []string{
		"Search[Demelza]",                      // not an action
		"NodeFeature[book/6186]",               // one argument for two
		"NeighbourCheck[book/999, series]",     // no such node
		"NeighbourCheck[book/6186, genre]",     // no such edge type
		"NodeFeature[book/6186, series]",       // an edge type, not a feature
		"NodeFeature[book/6186, shelves]",      // no such feature
		"RetrieveNode[Qqqqqqqqqqq Zzzzzzzzzz]", // valid, finds nothing
	}
	wantObs := []string{
		"Invalid action: parse action: first line \"Search[Demelza]\" does not start with one of",
		"Invalid action: NodeFeature takes 2 arguments separated by a comma, got \"book/6186\": write NodeFeature[node, feature]",
		`Invalid action: there is no node "book/999"`,
		`Invalid action: Demelza (Poldark, #2) (book/6186) has no edge type "genre"; its edge types are: `,
		"Invalid action: series is an edge type of Demelza (Poldark, #2) (book/6186), not a feature: use NeighbourCheck[book/6186, series]",
		`has no feature "shelves"; its features are: `,
		`No node matches "Qqqqqqqqqqq Zzzzzzzzzz".`,
	}
	cfg := cfgWith(Agent, CoT, func(c *Config) { c.Steps = len(actions) })
	m := agentModel([]string{"Let me try."}, actions, map[string]func(fcall) string{TaskAnswer: always("Answer: The Poldark Saga")})
	tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Which series includes the book Demelza (Poldark, #2)?"})
	steps := stepNodes(tr)
	if len(steps) != len(actions) {
		t.Fatalf("%d steps, want the budget %d", len(steps), len(actions))
	}
	for i, n := range steps {
		if !strings.Contains(n.Extra["observation"], wantObs[i]) {
			t.Errorf("step %d observation\n  %q\nlacks\n  %q", i+1, n.Extra["observation"], wantObs[i])
		}
		if (n.Error != "") != (i < len(actions)-1) {
			t.Errorf("step %d error = %q", i+1, n.Error)
		}
	}
	if steps[0].Action != actionInvalid || steps[1].Action != actionInvalid || steps[2].Action != "NeighbourCheck" {
		t.Errorf("actions = %s, %s, %s", steps[0].Action, steps[1].Action, steps[2].Action)
	}
	if !strings.Contains(steps[3].Extra["observation"], "series") || !strings.Contains(steps[5].Extra["observation"], "num pages") {
		t.Errorf("listings miss the real names: %q / %q", steps[3].Extra["observation"], steps[5].Extra["observation"])
	}
	// The model sees each observation in the next prompt.
	thoughtCalls := m.calls(TaskAgentThought)
	if p := thoughtCalls[len(thoughtCalls)-1].Prompt(); !strings.Contains(p, "Observation 1: Invalid action") ||
		!strings.Contains(p, "Observation 6: ") {
		t.Errorf("last thought prompt lacks the observations:\n%s", p)
	}
	// After the budget, the answer is asked from the chain.
	if len(tracetest.Calls(tr, TaskAnswer)) != 1 || tr.Answer.Text != "The Poldark Saga" || !tr.Answer.Found || tr.Answer.Confident {
		t.Errorf("final answer = %+v", tr.Answer)
	}
	final := tr.Nodes[len(tr.Nodes)-1]
	if final.State != "answer" || final.Parents[0] != steps[len(steps)-1].ID || !strings.Contains(tr.Answer.Reason, "step budget (7 steps)") {
		t.Errorf("final node %+v, reason %q", final, tr.Answer.Reason)
	}
	if len(tr.Warnings) != len(actions)-1 {
		t.Errorf("%d warnings, want one per invalid action:\n%s", len(tr.Warnings), tracetest.Warnings(tr))
	}
}

func TestAgentStepBudget(t *testing.T) {
	db := goodreads(t)
	for _, steps := range []int{1, 2, 4} {
		cfg := cfgWith(Agent, CoT, func(c *Config) { c.Steps = steps })
		m := agentModel([]string{"Looking."}, []string{"RetrieveNode[Demelza]"}, nil)
		tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Which series includes Demelza?"})
		if n := len(stepNodes(tr)); n != steps || len(m.calls(TaskAgentAction)) != steps {
			t.Errorf("steps=%d: %d step nodes, %d action calls", steps, n, len(m.calls(TaskAgentAction)))
		}
		if tr.Answer.Found {
			t.Errorf("steps=%d: an unknown final answer counts as found: %+v", steps, tr.Answer)
		}
	}
}

func TestAgentPrompt(t *testing.T) {
	db := goodreads(t)
	m := agentModel([]string{"Thought 1: I need the book.\nAction 1: RetrieveNode[x]", "Done."},
		[]string{"Action 1: RetrieveNode[Demelza]", "Finish[The Poldark Saga]"}, nil)
	tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: "Which series includes Demelza?",
		TopicEntities: []string{"book/6186", "book/0"}})
	if tr.Answer.Text != "The Poldark Saga" {
		t.Fatalf("answer = %+v", tr.Answer)
	}
	if got := stepNodes(tr)[0].Extra["thought"]; got != "I need the book." {
		t.Errorf("thought = %q: label and trailing action not removed", got)
	}
	p := m.calls(TaskAgentAction)[0]
	for _, want := range []string{"NeighbourCheck[node, edge type], which lists the neighbours",
		"Definition of the graph:\nGraph goodreads: 4 node types", "series -> series nodes",
		"Topic nodes: Demelza (Poldark, #2) (book/6186)", "Question: Which series includes Demelza?",
		"Thought 1: I need the book.\nAction 1:"} {
		if !strings.Contains(p.Prompt(), want) {
			t.Errorf("action prompt lacks %q:\n%s", want, p.Prompt())
		}
	}
	if p.Req.Task.Kind != llm.KindAction || len(p.Req.Task.Options) != 5 || p.Req.Task.Options[4].ID != "Finish" {
		t.Errorf("action task = %+v", p.Req.Task)
	}
	if !slices.ContainsFunc(tr.Warnings, func(w trace.Warning) bool { return strings.Contains(w.Message, `"book/0" is not in the store`) }) {
		t.Errorf("unknown topic entity not warned:\n%s", tracetest.Warnings(tr))
	}
}

// TestAgentNonAnswer: a chain that finishes with a non-answer
// (reasoner.IsNonAnswer) is neither found nor confident; an answer given
// without any KG evidence is found but not confident.
func TestAgentNonAnswer(t *testing.T) {
	db := goodreads(t)
	for _, tc := range []struct {
		finish string
		found  bool
	}{
		{"184", true},
		{"unknown", false},
		{"I am unable to tell", false},
	} {
		t.Run(tc.finish, func(t *testing.T) {
			m := agentModel([]string{"I look at the graph."}, []string{"Finish[" + tc.finish + "]"}, nil)
			tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT),
				reasoner.Query{Question: "How many pages are contained in the book Inu Yasha, Volume 1?"})
			a := tr.Answer
			if a.Found != tc.found || a.Confident || a.Text != tc.finish {
				t.Fatalf("answer = %+v", a)
			}
		})
	}
}

// TestConfidentNeedsKGSupport: an answer is confident only when the
// chain's triples or attributes hold it (every item of a list).
func TestConfidentNeedsKGSupport(t *testing.T) {
	db := goodreads(t)
	for _, tc := range []struct {
		name      string
		question  string
		actions   []string
		confident bool
	}{
		{"finish before any KG action", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"Finish[184]"}, false},
		{"the feature read", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"NodeFeature[book/2284, num_pages]", "Finish[184]"}, true},
		{"a value the KG did not give", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"NodeFeature[book/2284, num_pages]", "Finish[200]"}, false},
		{"only a search result's name", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"RetrieveNode[Inu Yasha, Volume 1]", "Finish[Inu Yasha, Volume 1]"}, false},
		{"every item of a list among the neighbours", "Which books did Winston Graham write?",
			[]string{"NeighbourCheck[author/49853, author (inverse)]", "Finish[Demelza and Ross Poldark]"}, true},
		{"one item of a list not retrieved", "Which books did Winston Graham write?",
			[]string{"NeighbourCheck[author/49853, author (inverse)]", "Finish[Demelza, Warleggan]"}, false},
		// An answer given as an id is held by the triple it is an end of
		// (and then named: NameAnswer runs after this check).
		{"the id of a neighbour", "Which books did Winston Graham write?",
			[]string{"NeighbourCheck[author/49853, author (inverse)]", "Finish[book/6186]"}, true},
		{"a list of neighbours' ids", "Which books did Winston Graham write?",
			[]string{"NeighbourCheck[author/49853, author (inverse)]", "Finish[book/6186, book/6185]"}, true},
		{"only a search result's id", "How many pages are contained in the book Inu Yasha, Volume 1?",
			[]string{"RetrieveNode[Inu Yasha, Volume 1]", "Finish[book/2284]"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := agentModel([]string{"I look at the graph."}, tc.actions, nil)
			tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: tc.question})
			if a := tr.Answer; !a.Found || a.Confident != tc.confident {
				t.Fatalf("answer = %+v, want confident %v\n%s", a, tc.confident, tracetest.Warnings(tr))
			}
		})
	}
}

// TestAgentNoEdgeTypeListsFeaturesApart: a NeighbourCheck of an edge type
// the node lacks lists the edge types that can be followed, and apart the
// literal-valued relations as features NodeFeature reads ("length ms" is
// not an edge type); a relation with both literal and node values is in
// both lists.
func TestAgentNoEdgeTypeListsFeaturesApart(t *testing.T) {
	const label = "<http://www.w3.org/2000/01/rdf-schema#label>"
	db := storetest.Open(t, map[string]string{"music": strings.NewReplacer("LABEL", label).Replace(`
<length_ms> LABEL "length ms" .
<first_release_date> LABEL "first release date" .
<produced_by> LABEL "produced by" .
<note> LABEL "note" .
<rec/1> <grove:nodeType> "recording" .
<rec/1> LABEL "Come Together" .
<rec/1> <length_ms> "259000" .
<rec/1> <first_release_date> "1969-09-26" .
<rec/1> <produced_by> <artist/1> .
<rec/1> <note> "remastered" .
<rec/1> <note> <artist/1> .
<artist/1> <grove:nodeType> "artist" .
<artist/1> LABEL "George Martin" .
<rec/2> <grove:nodeType> "recording" .
<rec/2> LABEL "Something" .
<rec/2> <length_ms> "182000" .
`)})
	for _, tc := range []struct {
		name, action string
		want         []string
		not          []string
	}{
		{"edge types and features", "NeighbourCheck[rec/1, performer]",
			[]string{`Come Together (rec/1) has no edge type "performer"; its edge types are: note, produced by; ` +
				"its features, read with NodeFeature[rec/1, feature] and not followed, are: first release date, length ms, note"},
			[]string{"are: first release date, length ms, note, produced by"}},
		{"features only", "NeighbourCheck[rec/2, performer]",
			[]string{"Something (rec/2) has no edge types to follow; its features, read with NodeFeature[rec/2, feature] " +
				"and not followed, are: length ms"},
			[]string{"its edge types are"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cfgWith(Agent, CoT, func(c *Config) { c.Steps = 1 })
			m := agentModel([]string{"Let me look."}, []string{tc.action}, nil)
			tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Who produced Come Together?"})
			steps := stepNodes(tr)
			if len(steps) != 1 {
				t.Fatalf("%d steps, want 1", len(steps))
			}
			obs := steps[0].Extra["observation"]
			for _, w := range tc.want {
				if !strings.Contains(obs, w) {
					t.Errorf("observation\n  %q\nlacks\n  %q", obs, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(obs, n) {
					t.Errorf("observation\n  %q\nhas\n  %q", obs, n)
				}
			}
		})
	}
}
