package tot

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

func TestTransitions(t *testing.T) {
	for _, tc := range []struct {
		from State
		a    Action
		to   State
	}{
		{StateDefault, ActionThink, StateDefault},
		{StateDefault, ActionExpand, StateSelectingEntities},
		{StateDefault, ActionAnswer, StateDone},
		{StateSelectingEntities, ActionSelectEntities, StateSelectingRelation},
		{StateSelectingRelation, ActionSelectRelation, StateDefault},
	} {
		if got := next(tc.from, tc.a); got != tc.to {
			t.Errorf("next(%s, %s) = %s, want %s", tc.from, tc.a, got, tc.to)
		}
	}
}

func TestDefaultActions(t *testing.T) {
	full := subgraph.New()
	full.AddEntity(store.Entity{ID: "Q1", Label: "x"}, "g")
	literalOnly := subgraph.New()
	literalOnly.AddEntity(store.Entity{ID: `"1"`, Literal: true}, "g")
	for _, tc := range []struct {
		name string
		n    *node
		want []Action
	}{
		{"root", &node{sub: full}, []Action{ActionThink, ActionExpand, ActionSearch, ActionAnswer}},
		{"after THINK", &node{sub: full, action: ActionThink, depth: 1}, []Action{ActionExpand, ActionSearch, ActionAnswer}},
		{"nothing to expand", &node{sub: literalOnly}, []Action{ActionThink, ActionSearch, ActionAnswer}},
		{"max depth", &node{sub: full, depth: 7}, []Action{ActionAnswer}},
		{"beyond max depth", &node{sub: full, depth: 9, action: ActionThink}, []Action{ActionAnswer}},
	} {
		if got := defaultActions(tc.n, 7); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseDefault(t *testing.T) {
	allowed := allActions
	for _, tc := range []struct {
		reply  string
		action Action
		text   string
		err    string
	}{
		{"ANSWER: Ridley Scott", ActionAnswer, "Ridley Scott", ""},
		{"**Action:** ANSWER: Ridley Scott\nBecause the graph says so.", ActionAnswer, "Ridley Scott", ""},
		{": : ANSWER: : Ridley Scott", "", "", "does not start with"},
		{"ANSWER: : Ridley Scott", ActionAnswer, "Ridley Scott", ""},
		{"EXPAND_KG", ActionExpand, "", ""},
		{"Expand KG: find the director", ActionExpand, "find the director", ""},
		{"THINK: first the film,\nthen its director.\nANSWER: x", ActionThink, "first the film, then its director.", ""},
		{"THINK:", "", "", "THINK without text"},
		{"ANSWER", "", "", "ANSWER without text"},
		{"The ANSWER is Ridley Scott", "", "", "does not start with"},
		{"ANSWERS: x", "", "", "does not start with"},
		{"", "", "", "empty reply"},
	} {
		p, err := parseDefault(tc.reply, allowed)
		if !errContains(err, tc.err) || p.action != tc.action || p.text != tc.text {
			t.Errorf("parseDefault(%q) = %+v, %v; want %s %q %q", tc.reply, p, err, tc.action, tc.text, tc.err)
		}
	}
	if _, err := parseDefault("THINK: x", []string{"ANSWER"}); err == nil {
		t.Error("an action not offered was accepted")
	}
}

func errContains(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

// FuzzParseDefault: parseDefault never panics, only returns offered
// actions, and THINK/ANSWER always carry single-line text.
func FuzzParseDefault(f *testing.F) {
	for _, s := range []string{"ANSWER: x", "THINK: a\nb\nEXPAND_KG", "**EXPAND_KG**: y", "", "\n\n", "think:think:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseDefault(s, allActions)
		if err != nil {
			return
		}
		if !slices.Contains(allActions, string(p.action)) {
			t.Fatalf("action %q not offered", p.action)
		}
		if strings.ContainsAny(p.text, "\n\r") || (p.action != ActionExpand && p.text == "") {
			t.Fatalf("parseDefault(%q) text %q", s, p.text)
		}
	})
}

func TestPrompts(t *testing.T) {
	g := subgraph.New()
	g.AddEntity(store.Entity{ID: "Q392", Label: "Bob Dylan", Description: "American singer-songwriter"}, "wikidata")
	n := &node{sub: g, history: []string{"EXPAND_KG: find the mother of Bob Dylan", "SELECT_ENTITIES: Q392 (Bob Dylan)"},
		state: StateSelectingRelation, selected: []string{"Q392"}}
	rels0 := store.Relation{ID: "P25", Label: "mother", InverseLabel: "is mother of", Dir: store.In, Graph: "wikidata", Count: 3}
	n.shown = n.shown.With(n.selected, rels0, 2)
	rels := []relOption{{ID: "R1", Rel: store.Relation{ID: "P25", Label: "mother", Dir: store.Out, Graph: "wikidata", Count: 1}},
		{ID: "R2", Rel: store.Relation{ID: "P25", Label: "mother", InverseLabel: "is mother of", Dir: store.In, Graph: "wikidata", Count: 3}}}
	got := statePrompt(grandmother, n, selectRelationTask(n, rels, false))
	want := `Question:
  Who is Bob Dylan's maternal grandmother?

Local knowledge graph:
  Entities:
    Q392: Bob Dylan - American singer-songwriter
  Edges:
    (none)

Previous actions:
  EXPAND_KG: find the mother of Bob Dylan
  SELECT_ENTITIES: Q392 (Bob Dylan)

Current task: choose the relation to follow from the selected entities [Bob Dylan].
The relations they have in the knowledge graph:
  R1 - mother (P25, 1 edge)
  R2 - is mother of (P25, 3 edges, 2 in the graph already; choose it again for the next ones)
Edges are fetched most relevant to the question first. Reply with exactly one relation id from the list (e.g. R1), or "none".
Selected relation:`
	if got != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
	}
	def := defaultTask([]string{"EXPAND_KG", "ANSWER"})
	if strings.Contains(def, "THINK -") || !strings.Contains(def, "EXPAND_KG - fetch") || !strings.HasSuffix(def, "Next action:") {
		t.Errorf("default task:\n%s", def)
	}
	opts := []llm.Option{{ID: "Q392", Text: "Bob Dylan"}}
	if s := selectEntitiesTask("find the mother", opts); !strings.Contains(s, "  Q392 - Bob Dylan\n") || !strings.Contains(s, "find the mother") {
		t.Errorf("select entities task:\n%s", s)
	}
	if s := answerPrompt(grandmother, &node{sub: g, text: "Florence\nStone"}); !strings.Contains(s, "Proposed answer: Florence Stone\n") ||
		!strings.HasSuffix(s, "Score: X") {
		t.Errorf("answer prompt:\n%s", s)
	}
}

func TestObservation(t *testing.T) {
	page := func(offset, n int, total int64, ranked int) hood.Page {
		return hood.Page{Offset: offset, Edges: make([]hood.Edge, n), Total: total, Ranked: ranked}
	}
	for _, tc := range []struct {
		edges, ents, values int
		page                hood.Page
		want                string
	}{
		{36, 24, 12, page(0, 12, 12, 12), "OBSERVATION: 36 new edges, 24 new entities, 12 new values; edges shown: 12 in all"},
		{1, 0, 1, page(0, 1, 1, 1), "OBSERVATION: 1 new edge, 0 new entities, 1 new value; edges shown: 1 in all"},
		{1, 1, 0, page(0, 1, 1, 1), "OBSERVATION: 1 new edge, 1 new entity; edges shown: 1 in all"},
		{0, 2, 0, page(0, 2, 2, 2), "OBSERVATION: 0 new edges, 2 new entities; edges shown: 2 in all"},
		{50, 50, 0, page(0, 50, 133, 133), "OBSERVATION: 50 new edges, 50 new entities; edges shown: 1-50 of 133, ranked by " +
			"relevance to the question; choose the same relation again to see the next ones"},
		{33, 33, 0, page(100, 33, 133, 133), "OBSERVATION: 33 new edges, 33 new entities; edges shown: 101-133 of 133, ranked " +
			"by relevance to the question"},
		{50, 50, 0, page(0, 50, 30000, 1000), "OBSERVATION: 50 new edges, 50 new entities; edges shown: 1-50 of 30000; only the " +
			"first 1000 in the store's order were read and ranked by relevance to the question, the other 29000 cannot " +
			"be listed; choose the same relation again to see the next ones"},
	} {
		if got := observation(tc.edges, tc.ents, tc.values, tc.page); got != tc.want {
			t.Errorf("observation = %q, want %q", got, tc.want)
		}
	}
}
