package rtsog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/storetest"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// cwqID is the CWQ question "Which of JFK's brother held the latest
// governmental position?" (topic entities m.0d3k14 John F. Kennedy and
// m.05zppz Male; answer Robert F. Kennedy).
const cwqID = "WebQTest-743_0a8cdba29cf260283b7c890b3609c0b9"

// kennedyGraph is a hand-built fixture in the Freebase format of the
// question's SPARQL: MIDs as ids, dotted relations, labels through
// type.object.name, sibling relationships and positions held as unlabelled
// CVT nodes. The two topic entities carry their real MIDs; the other ids
// are made up for the fixture.
const kennedyGraph = `
<m.0d3k14> <type.object.name> "John F. Kennedy"@en .
<m.0d3k14> <common.topic.alias> "JFK"@en .
<m.0d3k14> <people.person.gender> <m.05zppz> .
<m.05zppz> <type.object.name> "Male"@en .
<m.0fx_female> <type.object.name> "Female"@en .
<m.0d3k14> <people.person.sibling_s> <m.0fx_sib1> .
<m.0fx_sib1> <people.sibling_relationship.sibling> <m.0d3k14> .
<m.0fx_sib1> <people.sibling_relationship.sibling> <m.0fx_rfk> .
<m.0d3k14> <people.person.sibling_s> <m.0fx_sib2> .
<m.0fx_sib2> <people.sibling_relationship.sibling> <m.0d3k14> .
<m.0fx_sib2> <people.sibling_relationship.sibling> <m.0fx_ted> .
<m.0d3k14> <people.person.sibling_s> <m.0fx_sib3> .
<m.0fx_sib3> <people.sibling_relationship.sibling> <m.0d3k14> .
<m.0fx_sib3> <people.sibling_relationship.sibling> <m.0fx_eunice> .
<m.0fx_rfk> <type.object.name> "Robert F. Kennedy"@en .
<m.0fx_rfk> <people.person.gender> <m.05zppz> .
<m.0fx_rfk> <government.politician.government_positions_held> <m.0fx_pos1> .
<m.0fx_pos1> <government.government_position_held.office_position_or_title> <m.0fx_senator> .
<m.0fx_pos1> <government.government_position_held.from> "1965-01-03"^^<http://www.w3.org/2001/XMLSchema#date> .
<m.0fx_rfk> <government.politician.government_positions_held> <m.0fx_pos2> .
<m.0fx_pos2> <government.government_position_held.office_position_or_title> <m.0fx_ag> .
<m.0fx_pos2> <government.government_position_held.from> "1961-01-20"^^<http://www.w3.org/2001/XMLSchema#date> .
<m.0fx_ted> <type.object.name> "Ted Kennedy"@en .
<m.0fx_ted> <people.person.gender> <m.05zppz> .
<m.0fx_ted> <government.politician.government_positions_held> <m.0fx_pos3> .
<m.0fx_pos3> <government.government_position_held.office_position_or_title> <m.0fx_senator> .
<m.0fx_pos3> <government.government_position_held.from> "1962-11-07"^^<http://www.w3.org/2001/XMLSchema#date> .
<m.0fx_eunice> <type.object.name> "Eunice Kennedy Shriver"@en .
<m.0fx_eunice> <people.person.gender> <m.0fx_female> .
<m.0d3k14> <government.politician.government_positions_held> <m.0fx_pos4> .
<m.0fx_pos4> <government.government_position_held.office_position_or_title> <m.0fx_president> .
<m.0fx_pos4> <government.government_position_held.from> "1961-01-20"^^<http://www.w3.org/2001/XMLSchema#date> .
<m.0fx_senator> <type.object.name> "United States Senator"@en .
<m.0fx_ag> <type.object.name> "United States Attorney General"@en .
<m.0fx_president> <type.object.name> "President of the United States"@en .
`

// kennedyPolicy is a scripted keyword policy and value model: it follows
// sibling and position relations, prefers the siblings named in the
// description of their sibling-relationship node, stops at positions held,
// keeps the paths through siblings, and answers Robert F. Kennedy only when
// the retrieved paths show his positions.
func kennedyPolicy() *llm.Scripted {
	score := func(s float64) (string, error) { return fmt.Sprintf("Score: %g", s), nil }
	return &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskDecompose, Replies: []string{"Who are JFK's brothers?\nWhich governmental positions did each hold, " +
			"and from when?\nWhich of those positions is the latest?"}},
		{Name: TaskSelectRelation, Func: func(req llm.Request, _ int) (string, error) {
			var ids []string
			for _, o := range req.Task.Options {
				if o.Text == "sibling s" || o.Text == "sibling" || o.Text == "government positions held" {
					ids = append(ids, o.ID)
				}
			}
			if len(ids) == 0 {
				return "none", nil
			}
			return strings.Join(ids, ", "), nil
		}},
		{Name: TaskScoreRelation, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Contains(req.Task.Candidate, "sibling") {
				return score(0.8)
			}
			return score(0.7)
		}},
		{Name: TaskScorePath, Func: func(req llm.Request, _ int) (string, error) {
			c := req.Task.Candidate
			switch {
			case strings.HasSuffix(c, "(sibling: Robert F. Kennedy)") || strings.HasSuffix(c, "-> Robert F. Kennedy"):
				return score(0.9)
			case strings.HasSuffix(c, "(sibling: Ted Kennedy)"):
				return score(0.8)
			case strings.Contains(c, "Eunice"):
				return score(0.2)
			}
			return score(0.5)
		}},
		{Name: TaskEndOfSearch, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Contains(req.Task.Candidate, "government positions held") {
				return "Yes, the positions and their dates are on the path.", nil
			}
			return "No", nil
		}},
		{Name: TaskStack, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Contains(req.Task.Candidate, "sibling") {
				return "Yes", nil
			}
			return "No", nil
		}},
		{Name: TaskAnswer, Func: func(req llm.Request, _ int) (string, error) {
			if strings.Contains(req.Task.Context, "\nRobert F. Kennedy -> government positions held -> ") {
				return "Robert F. Kennedy became a senator in 1965, after Ted.\nAnswer: Robert F. Kennedy", nil
			}
			return "Answer: unknown", nil
		}},
	}}
}

// TestCWQ runs a real CWQ question, with its topic entities as the
// dataset gives them, against the Freebase-format fixture.
func TestCWQ(t *testing.T) {
	qs, err := dataset.Load(datadir.Shared(t, "freebase-questions/cwq.json"), dataset.FormatCWQ)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(qs, func(q dataset.Question) bool { return q.ID == cwqID })
	if i < 0 {
		t.Fatalf("question %s not in cwq.json", cwqID)
	}
	dq := qs[i]
	// The dataset gives the Wikidata ids too, apart; passed along, they
	// are not in the store.
	mids, qids := slices.Sorted(maps.Keys(dq.TopicEntities)), slices.Sorted(maps.Keys(dq.WikidataTopicEntities))
	if !slices.Equal(mids, []string{"m.05zppz", "m.0d3k14"}) || !slices.Equal(qids, []string{"Q44148", "Q9696"}) {
		t.Fatalf("topic entities %v and %v", mids, qids)
	}
	topics := slices.Sorted(slices.Values(append(qids, mids...)))
	db := storetest.Open(t, map[string]string{"freebase": kennedyGraph})
	m := kennedyPolicy()
	tr := answerWith(t, db, m, m, DefaultConfig(), reasoner.Query{Question: dq.Question, TopicEntities: topics})

	for _, q := range []string{"Q44148", "Q9696"} {
		if !tracetest.HasWarning(tr, `topic entity "`+q+`" is not in the store`) {
			t.Errorf("no warning about %s: %+v", q, tr.Warnings)
		}
	}
	a := tr.Answer
	if !a.Found || !a.Confident || !slices.Contains(dq.Answers, a.Text) || !slices.Equal(a.Entities, []string{"m.0fx_rfk"}) {
		t.Fatalf("answer %+v, gold %v\n%s", a, dq.Answers, tracetest.Render(t, tr))
	}
	var rels []string
	for _, e := range a.Support {
		rels = append(rels, e.Relation)
	}
	if !slices.Equal(rels, []string{"people.person.sibling_s", "people.sibling_relationship.sibling"}) {
		t.Errorf("support relations %v", rels)
	}
	// Male has only incoming gender edges, which the policy refuses: a
	// dead end; the search then runs down JFK's sibling and position
	// relations and is exhausted after four expansions.
	var expanded []string
	for _, id := range tr.ExpansionOrder() {
		expanded = append(expanded, tnode(t, tr, id).Text)
	}
	want := []string{"Male", "John F. Kennedy", "m.0fx_sib1 (sibling: Robert F. Kennedy)", "Robert F. Kennedy"}
	if !slices.Equal(expanded, want) {
		t.Errorf("expanded %q, want %q\n%s", expanded, want, tracetest.Render(t, tr))
	}
	sib := tnode(t, tr, tr.ExpansionOrder()[2])
	if sib.Extra["alternatives"] != "m.0fx_sib2, m.0fx_sib3" || sib.Extra["tails"] != "3 of 3" {
		t.Errorf("sibling node extra %v", sib.Extra)
	}
	prompt := tracetest.Calls(tr, TaskAnswer)[0].Messages[1].Content
	for _, s := range []string{"other sibling s: m.0fx_sib2 (sibling: Ted Kennedy); m.0fx_sib3 (sibling: Eunice Kennedy Shriver)",
		"(from: 3 January 1965; office position or title: United States Senator)"} {
		if !strings.Contains(prompt, s) {
			t.Errorf("answer prompt lacks %q:\n%s", s, prompt)
		}
	}
}
