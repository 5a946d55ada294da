package tot

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

const grandmother = "Who is Bob Dylan's maternal grandmother?"

// TestBacktracking follows Figure 3's question with k=3: the search first
// follows the higher-valued "father" branch, backtracks out of it when its
// expansion scores low, finds the mother and then her mother, and stops
// as soon as an answer scores above tau, leaving other nodes unexpanded.
func TestBacktracking(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{
			// expansion 1 (root) -> #2, #3, #4
			"EXPAND_KG: find the father of Bob Dylan",
			"EXPAND_KG: find the mother of Bob Dylan",
			"THINK: The maternal grandmother is the mother of Bob Dylan's mother.",
			// expansion 6 (#8) -> #9, #10 (the second ANSWER is a duplicate)
			"EXPAND_KG: find the mother of Beatrice Stone",
			"ANSWER: Beatrice Stone",
			"ANSWER: Beatrice Stone",
			// expansion 9 (#12) -> #13
			"ANSWER: Florence Stone", "ANSWER: Florence Stone", "ANSWER: Florence Stone",
		}},
		{Name: TaskSelectEntities, Replies: slices.Concat(
			repeat("Q392", 6),        // expansion 2 (#2) -> #5
			repeat("Q392", 6),        // expansion 4 (#3) -> #7
			repeat("Q62519478", 6))}, // expansion 7 (#9) -> #11
		{Name: TaskSelectRelation, Func: pickByGoal}, // #6 father, #8 mother, #12 mother
	}}
	eval := scores(0.5, map[int]float64{
		2: 0.9, 3: 0.6, 4: 0.3, // father looks best at first
		5: 0.9, 6: 0.2, // ...but the father's edges do not help: backtrack
		7: 0.7, 8: 0.8,
		9: 0.8, 10: 0.3, // "Beatrice Stone" is a poor answer
		11: 0.9, 12: 0.9, 13: 1.0,
	})
	tr := answerAll(t, family(t), policy, eval, DefaultConfig(),
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})

	if got, want := tr.ExpansionOrder(), []int{1, 2, 5, 3, 7, 8, 9, 11, 12}; !slices.Equal(got, want) {
		t.Errorf("expansion order = %v, want %v\n%s", got, want, tracetest.Render(t, tr))
	}
	a := tr.Answer
	if !a.Found || a.Text != "Florence Stone" || a.Node != 13 || a.Value != 1 || !a.Confident {
		t.Fatalf("answer = %+v", a)
	}
	if !slices.Equal(a.Entities, []string{"Q99000001"}) || len(a.Support) != 1 ||
		a.Support[0].Subject.ID != "Q62519478" || a.Support[0].Relation != "P25" {
		t.Errorf("answer entities %v, support %+v", a.Entities, a.Support)
	}
	if !strings.Contains(a.Reason, "above tau") {
		t.Errorf("reason = %q", a.Reason)
	}
	checkNode(t, tr, 6, trace.Node{Depth: 3, State: "default", Action: "SELECT_RELATION", Text: "father", Value: 0.2, Evaluated: true})
	checkNode(t, tr, 4, trace.Node{Depth: 1, State: "default", Action: "THINK", Value: 0.3, Evaluated: true,
		Text: "The maternal grandmother is the mother of Bob Dylan's mother."})
	checkNode(t, tr, 10, trace.Node{Depth: 4, State: "done", Action: "ANSWER", Text: "Beatrice Stone", Value: 0.3,
		Evaluated: true, Terminal: true, Answer: true})
	var chosen []int
	for _, n := range tr.Nodes {
		if n.Chosen {
			chosen = append(chosen, n.ID)
		}
	}
	if want := []int{1, 3, 7, 8, 9, 11, 12, 13}; !slices.Equal(chosen, want) {
		t.Errorf("chosen path = %v, want %v", chosen, want)
	}
	checkCalls(t, policy, TaskAction, 3, 3, 1.0)
	checkCalls(t, policy, TaskSelectEntities, 3, 6, 1.0)
	checkCalls(t, policy, TaskSelectRelation, 3, 6, 1.0)
	if got := eval.evaluated(); !slices.Equal(got, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) {
		t.Errorf("evaluated nodes = %v", got)
	}
	for _, c := range tr.ModelCalls {
		if strings.HasPrefix(c.Task, "tot/evaluate") && c.Temperature != 0 {
			t.Errorf("evaluation %d at temperature %g", c.Seq, c.Temperature)
		}
	}
}

// checkNode compares the fields of a trace node that a test controls.
func checkNode(t *testing.T, tr *trace.Trace, id int, want trace.Node) {
	t.Helper()
	n := tnode(t, tr, id)
	if n.Depth != want.Depth || n.State != want.State || n.Action != want.Action || n.Text != want.Text ||
		n.Value != want.Value || n.Evaluated != want.Evaluated || n.Terminal != want.Terminal ||
		n.Answer != want.Answer || n.Order != want.Order {
		t.Errorf("node %d = %+v\nwant %+v", id, n, want)
	}
}

// checkCalls checks the number of requests of a step, their sample count
// and temperature.
func checkCalls(t *testing.T, m *llm.Scripted, task string, calls, n int, temp float64) {
	t.Helper()
	reqs := m.CallsFor(task)
	if len(reqs) != calls {
		t.Errorf("%s: %d calls, want %d", task, len(reqs), calls)
	}
	for i, r := range reqs {
		if r.N != n || r.Temperature != temp {
			t.Errorf("%s call %d: n=%d temperature=%g, want n=%d temperature=%g", task, i, r.N, r.Temperature, n, temp)
		}
	}
}

// TestTauAndForcedAnswer uses a chain with max depth 3: the node reached
// after one expansion (depth 3) may only answer, through the forced-answer
// prompt; the answer stops the search only when its value is strictly
// above tau, otherwise the exhausted tree returns it as a low-confidence
// answer.
func TestTauAndForcedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		score     float64
		confident bool
		reason    string
	}{
		{"above tau stops", 0.9, true, "above tau"},
		{"equal to tau does not", 0.8, false, "exhausted"},
		{"below tau", 0.3, false, "exhausted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := &llm.Scripted{Rules: []llm.Rule{
				{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan"}},
				{Name: TaskSelectEntities, Replies: []string{"Q392"}},
				{Name: TaskSelectRelation, Func: pickByGoal},
				{Name: TaskForceAnswer, Replies: []string{"ANSWER: Beatrice Stone"}},
			}}
			cfg := cfgWith(func(c *Config) { c.K, c.MaxDepth = 1, 3 })
			tr := answerAll(t, family(t), policy, scores(0.5, map[int]float64{5: tc.score}), cfg,
				reasoner.Query{Question: "Who is the mother of Bob Dylan?", TopicEntities: []string{"Q392"}})
			a := tr.Answer
			if !a.Found || a.Text != "Beatrice Stone" || a.Node != 5 || a.Confident != tc.confident ||
				!strings.Contains(a.Reason, tc.reason) {
				t.Fatalf("answer = %+v\n%s", a, tracetest.Render(t, tr))
			}
			forced := policy.CallsFor(TaskForceAnswer)
			if len(forced) != 1 || len(forced[0].Task.Options) != 1 || forced[0].Task.Options[0].ID != "ANSWER" {
				t.Fatalf("forced-answer requests = %+v", forced)
			}
			if !strings.Contains(forced[0].Messages[1].Content, "depth limit") {
				t.Errorf("forced prompt lacks the depth-limit instruction:\n%s", forced[0].Messages[1].Content)
			}
			checkNode(t, tr, 4, trace.Node{Depth: 3, State: "default", Action: "SELECT_RELATION", Text: "mother",
				Value: 0.5, Evaluated: true, Order: 4})
		})
	}
}

// TestMaxExpansionsNoAnswer stops a search that never answers after the
// expansion budget, with a "no answer" result.
func TestMaxExpansionsNoAnswer(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Repeat: true, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan"}},
		{Name: TaskSelectEntities, Repeat: true, Replies: []string{"Q392"}},
		{Name: TaskSelectRelation, Func: pickByGoal},
	}}
	cfg := cfgWith(func(c *Config) { c.K, c.MaxExpansions = 1, 3 })
	tr := answerAll(t, family(t), policy, scores(0.5, nil), cfg,
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
	a := tr.Answer
	if a.Found || a.Text != "" || a.Node != 0 || !strings.Contains(a.Reason, "no answer") ||
		!strings.Contains(a.Reason, "max expansions (3)") {
		t.Fatalf("answer = %+v", a)
	}
	if tr.Totals.Expansions != 3 || len(tr.Nodes) != 4 {
		t.Errorf("expansions %d, nodes %d", tr.Totals.Expansions, len(tr.Nodes))
	}
	if out := tracetest.Render(t, tr); !strings.Contains(out, "answer: none") {
		t.Errorf("render:\n%s", out)
	}
}

// TestOversampling samples 2k selections and keeps the first k distinct
// ones: selections equal as sets merge, "none" and ids that are not
// offered ("Q3" is only a prefix of Q392) are dropped with a warning.
func TestOversampling(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mothers", "EXPAND_KG: find the mothers",
			"EXPAND_KG:  Find the   MOTHERS"}},
		{Name: TaskSelectEntities, Replies: []string{"Q392, Q62519478", "Q62519478, Q392", "Q392", "none", "Q3", "Q392"}},
		{Name: TaskSelectRelation, Replies: []string{"mother", "mother", "instance of", "R5", "is mother of", "place of birth"}},
	}}
	cfg := cfgWith(func(c *Config) { c.MaxExpansions = 3 })
	tr := answerAll(t, family(t), policy, scores(0.5, map[int]float64{3: 0.9}), cfg,
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392", "Q62519478"}})
	if got := tr.Children(1); !slices.Equal(got, []int{2}) {
		t.Fatalf("identical EXPAND_KG samples gave children %v", got)
	}
	if got := texts(tr, tr.Children(2)); !slices.Equal(got, []string{"Q392, Q62519478", "Q392"}) {
		t.Errorf("entity selections = %q", got)
	}
	if !tracetest.HasWarning(tr, "sample 4", `"none"`) || !tracetest.HasWarning(tr, "sample 5", "no offered option") {
		t.Errorf("warnings:\n%s", tracetest.Warnings(tr))
	}
	// R5 is "mother" (outgoing relations are listed by label: child,
	// date of birth, father, instance of, mother, ...), a duplicate.
	if got := texts(tr, tr.Children(3)); !slices.Equal(got, []string{"mother", "instance of", "is mother of"}) {
		t.Errorf("relation selections = %q\n%s", got, tracetest.Render(t, tr))
	}
	checkCalls(t, policy, TaskSelectEntities, 1, 6, 1.0)
	checkCalls(t, policy, TaskSelectRelation, 1, 6, 1.0)
	// "mother" from both selected entities: Bob -> Beatrice -> Florence.
	if n := tnode(t, tr, 5); n.Extra["edges"] != "2" {
		t.Errorf("mother expansion: %+v", n)
	}
	// "is mother of" from Beatrice finds Bob Dylan (fetched backwards).
	if n := tnode(t, tr, 7); n.Extra["edges"] != "1" {
		t.Errorf("inverse expansion: %+v", n)
	}
}

func texts(tr *trace.Trace, ids []int) []string {
	var out []string
	for _, id := range ids {
		n, _ := tr.Node(id)
		out = append(out, n.Text)
	}
	return out
}

// TestNonAnswerIsNotFound: an answer whose text is a non-answer
// (reasoner.IsNonAnswer) is neither found nor confident, whatever its
// value; a real answer with the same value is both.
func TestNonAnswerIsNotFound(t *testing.T) {
	for _, tc := range []struct {
		answer           string
		found, confident bool
	}{
		{"Beatrice Stone", true, true},
		{"unknown", false, false},
		{"I cannot determine the mother", false, false},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			policy := &llm.Scripted{Rules: []llm.Rule{
				{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan"}},
				{Name: TaskSelectEntities, Replies: []string{"Q392"}},
				{Name: TaskSelectRelation, Func: pickByGoal},
				{Name: TaskForceAnswer, Replies: []string{"ANSWER: " + tc.answer}},
			}}
			cfg := cfgWith(func(c *Config) { c.K, c.MaxDepth = 1, 3 })
			tr := answerAll(t, family(t), policy, scores(0.5, map[int]float64{5: 0.9}), cfg,
				reasoner.Query{Question: "Who is the mother of Bob Dylan?", TopicEntities: []string{"Q392"}})
			a := tr.Answer
			if a.Found != tc.found || a.Confident != tc.confident || a.Text != tc.answer || a.Node != 5 {
				t.Fatalf("answer = %+v", a)
			}
			if !tc.found && !strings.Contains(a.Reason, "no answer") {
				t.Errorf("reason %q does not say there is no answer", a.Reason)
			}
		})
	}
}

// TestChooseDepthFirstTies: the highest value wins; among equal values
// the deeper node, and among equally deep ones the later (a stack's
// order: the paper breaks ties depth first); expanded and done nodes are
// never chosen.
func TestChooseDepthFirstTies(t *testing.T) {
	n := func(id int, value float64, depth int) *node {
		return &node{id: id, value: value, depth: depth, state: StateDefault}
	}
	for _, tc := range []struct {
		name  string
		nodes []*node
		want  int
	}{
		{"highest value", []*node{n(1, 0.9, 1), n(2, 0.5, 3)}, 1},
		{"deeper on a tie", []*node{n(1, 0.5, 3), n(2, 0.5, 1)}, 1},
		{"later on a tie", []*node{n(1, 0.5, 2), n(2, 0.5, 2), n(3, 0.5, 2)}, 3},
		{"expanded skipped", []*node{n(1, 0.5, 2), {id: 2, value: 0.9, depth: 2, expanded: true}}, 1},
		{"done skipped", []*node{n(1, 0.5, 2), {id: 2, value: 0.9, depth: 2, state: StateDone}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{nodes: tc.nodes}
			if got := r.choose(); got == nil || got.id != tc.want {
				t.Errorf("chose %+v, want node %d", got, tc.want)
			}
		})
	}
}
