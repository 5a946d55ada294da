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

// TestMalformedActions: no reply of the default state is usable, so the
// root is a dead end and the run ends without an answer and without
// error. "ANSWER" inside a sentence does not make an answer.
func TestMalformedActions(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{{Name: TaskAction, Replies: []string{
		"", "I think we should ANSWER: Bob Dylan", "ANSWER:", "DANCE: now", "THINK:",
	}}}}
	cfg := cfgWith(func(c *Config) { c.K = 5 })
	tr := answerAll(t, family(t), policy, scores(1, nil), cfg,
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
	if tr.Answer.Found || len(tr.Nodes) != 1 || !strings.Contains(tr.Answer.Reason, "exhausted") {
		t.Fatalf("answer %+v, %d nodes\n%s", tr.Answer, len(tr.Nodes), tracetest.Render(t, tr))
	}
	for i, want := range []string{"empty reply", "does not start with", "ANSWER without text", "does not start with", "THINK without text"} {
		if !tracetest.HasWarning(tr, "action sample "+string(rune('1'+i)), want) {
			t.Errorf("no warning %q for sample %d:\n%s", want, i+1, tracetest.Warnings(tr))
		}
	}
	if !tracetest.HasWarning(tr, "dead end") {
		t.Errorf("no dead-end warning:\n%s", tracetest.Warnings(tr))
	}
}

// TestMalformedSelections feeds bad entity and relation selections; each
// is dropped with a warning (never mapped to some other option) and the
// run ends without an answer.
func TestMalformedSelections(t *testing.T) {
	for _, tc := range []struct {
		name, task, reply, warning string
	}{
		{"entity number zero", TaskSelectEntities, "0", "out of range"},
		{"entity number too large", TaskSelectEntities, "2", "out of range"},
		{"entity id prefix", TaskSelectEntities, "Q39", "no offered option"},
		{"entity id in longer id", TaskSelectEntities, "Q3920", "no offered option"},
		{"entity empty", TaskSelectEntities, "", "no offered option"},
		{"entity none", TaskSelectEntities, "None of them.", `"None of them."`},
		{"relation unknown id", TaskSelectRelation, "R0", "no offered option"},
		{"relation number zero", TaskSelectRelation, "0", "out of range"},
		{"relation number too large", TaskSelectRelation, "99", "out of range"},
		{"relation prose", TaskSelectRelation, "I would follow the spouse", "no offered option"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := []llm.Rule{
				{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan"}},
				{Name: TaskSelectEntities, Replies: []string{"Q392"}},
				{Name: TaskSelectRelation, Replies: []string{"mother"}},
			}
			for i := range rules {
				if rules[i].Name == tc.task {
					rules[i].Replies = []string{tc.reply}
				}
			}
			cfg := cfgWith(func(c *Config) { c.K = 1 })
			tr := answerAll(t, family(t), &llm.Scripted{Rules: rules}, scores(0.5, nil), cfg,
				reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
			if tr.Answer.Found || !tracetest.HasWarning(tr, "selects nothing", tc.warning) || !tracetest.HasWarning(tr, "dead end") {
				t.Fatalf("answer %+v\nwarnings:\n%s", tr.Answer, tracetest.Warnings(tr))
			}
			for _, n := range tr.Nodes {
				if n.Action == "SELECT_ENTITIES" && tc.task == TaskSelectEntities ||
					n.Action == "SELECT_RELATION" {
					t.Errorf("a malformed selection produced node %+v", n)
				}
			}
		})
	}
}

// TestUnofferedSelections: a selection that names offered options and ids
// that were not offered keeps the offered ones and warns of the others;
// one that names only offered options warns of nothing.
func TestUnofferedSelections(t *testing.T) {
	for _, tc := range []struct {
		name, task, reply, warning string
	}{
		{"entity ids", TaskSelectEntities, "Q999, Q392", "entity selection sample 1 names Q999, not offered: ignored (selected Q392)"},
		{"entity ids, labelled", TaskSelectEntities, "I pick Q7 and Q8.\nSelection: Q392, Q999", "names Q999, not offered"},
		{"entity name", TaskSelectEntities, "Bob Dylan (Q392)", ""},
		{"relation ids", TaskSelectRelation, "R99, R1", "relation selection sample 1 names R99, not offered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := []llm.Rule{
				{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan"}},
				{Name: TaskSelectEntities, Replies: []string{"Q392"}},
				{Name: TaskSelectRelation, Replies: []string{"R1"}},
			}
			for i := range rules {
				if rules[i].Name == tc.task {
					rules[i].Replies = []string{tc.reply}
				}
			}
			cfg := cfgWith(func(c *Config) { c.K = 1; c.MaxExpansions = 3 })
			tr := answerAll(t, family(t), &llm.Scripted{Rules: rules}, scores(0.5, nil), cfg,
				reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
			selected := slices.ContainsFunc(tr.Nodes, func(n trace.Node) bool {
				return n.Action == "SELECT_ENTITIES" && n.Text == "Q392" || n.Action == "SELECT_RELATION"
			})
			warned := tracetest.HasWarning(tr, "not offered")
			if !selected || tc.warning == "" && warned || tc.warning != "" && !tracetest.HasWarning(tr, tc.warning) {
				t.Fatalf("selected %v; warnings:\n%s", selected, tracetest.Warnings(tr))
			}
		})
	}
}

// TestMalformedScores: an evaluation without a readable "Score:" line
// gives FailedEvalValue, is recorded on the node, and is never read from
// a number elsewhere in the reply.
func TestMalformedScores(t *testing.T) {
	for _, reply := range []string{"", "garbage", "0.9 looks right to me", "Score: high", "Score:"} {
		t.Run(reply, func(t *testing.T) {
			policy := &llm.Scripted{Rules: []llm.Rule{{Name: TaskAction, Replies: []string{"ANSWER: Beatrice Stone"}}}}
			cfg := cfgWith(func(c *Config) { c.K = 1 })
			eval := &scorer{byNode: map[int]string{2: reply}, def: "Score: 1"}
			tr := answerAll(t, family(t), policy, eval, cfg,
				reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
			n := tnode(t, tr, 2)
			if n.Evaluated || n.Value != FailedEvalValue || !strings.Contains(n.Error, "evaluation failed") || !n.Answer {
				t.Fatalf("node = %+v", n)
			}
			a := tr.Answer
			if !a.Found || a.Confident || a.Value != FailedEvalValue || a.Text != "Beatrice Stone" {
				t.Fatalf("answer = %+v", a)
			}
			if !tracetest.HasWarning(tr, "evaluation failed") {
				t.Errorf("warnings:\n%s", tracetest.Warnings(tr))
			}
		})
	}
}

// TestMalformedInitialisation: an empty extraction or an out-of-range
// link leaves the local graph empty; EXPAND_KG is then not offered.
func TestMalformedInitialisation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rules   []llm.Rule
		warning string
	}{
		{"empty extraction", []llm.Rule{{Name: TaskExtract, Replies: []string{""}}}, "no entity mention"},
		{"none extracted", []llm.Rule{{Name: TaskExtract, Replies: []string{"none"}}}, "no entity mention"},
		{"unknown mention", []llm.Rule{{Name: TaskExtract, Replies: []string{"Zzyzx Qwerty"}}}, "no candidate"},
		{"link out of range", []llm.Rule{{Name: TaskExtract, Replies: []string{"Bob Dylan"}},
			{Name: TaskLink, Replies: []string{"7"}}}, "out of range"},
		{"link none", []llm.Rule{{Name: TaskExtract, Replies: []string{"Bob Dylan"}},
			{Name: TaskLink, Replies: []string{"none"}}}, "matched no candidate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := append(tc.rules, llm.Rule{Name: TaskAction, Replies: []string{"EXPAND_KG: look around"}})
			policy := &llm.Scripted{Rules: rules}
			cfg := cfgWith(func(c *Config) { c.K = 1 })
			tr := answerAll(t, family(t), policy, scores(0.5, nil), cfg, reasoner.Query{Question: grandmother})
			if !tracetest.HasWarning(tr, tc.warning) {
				t.Fatalf("warnings:\n%s", tracetest.Warnings(tr))
			}
			act := policy.CallsFor(TaskAction)
			if len(act) != 1 || slices.ContainsFunc(act[0].Task.Options, func(o llm.Option) bool { return o.ID == "EXPAND_KG" }) {
				t.Fatalf("action requests = %+v", act)
			}
			if tr.Answer.Found || len(tr.Nodes) != 1 {
				t.Errorf("answer %+v nodes %d", tr.Answer, len(tr.Nodes))
			}
		})
	}
}

// TestNothingNew: following a relation whose edges are all in the local
// graph already yields an invalid child, recorded but never expanded.
func TestNothingNew(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskAction, Replies: []string{"EXPAND_KG: find the mother of Bob Dylan", "EXPAND_KG: the mother again"}},
		{Name: TaskSelectEntities, Repeat: true, Replies: []string{"Q392"}},
		{Name: TaskSelectRelation, Repeat: true, Replies: []string{"mother"}},
	}}
	cfg := cfgWith(func(c *Config) { c.K = 1 })
	tr := answerAll(t, family(t), policy, scores(0.5, nil), cfg,
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
	n := tnode(t, tr, 7)
	if n.Action != "SELECT_RELATION" || !n.Terminal || !strings.Contains(n.Error, "added nothing new") || n.Evaluated {
		t.Fatalf("node 7 = %+v\n%s", n, tracetest.Render(t, tr))
	}
	if tr.Answer.Found || !strings.Contains(tr.Answer.Reason, "exhausted") || !tracetest.HasWarning(tr, "added nothing new") {
		t.Errorf("answer = %+v", tr.Answer)
	}
	if got := tr.ExpansionOrder(); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("expansion order %v", got)
	}
}
