package rtsog

import (
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
)

// TestPathQualifiers: a reasoning path, its facts, the alternative tails
// and the answer prompt give each hop's entity with the qualifiers of the
// hop's edge, each statement's apart, and the total line reads as the
// other lines do ("George Washington -> position held: 2 in all").
func TestPathQualifiers(t *testing.T) {
	gw := store.Entity{ID: "Q23", Label: "George Washington"}
	pres := store.Entity{ID: "Q11696", Label: "President of the United States"}
	gen := store.Entity{ID: "Q1115127", Label: "Commanding General"}
	rel := store.Relation{ID: "P39", Label: "position held", InverseLabel: "is position held of", Dir: store.Out, Count: 2}
	q := func(stmt, name, value string) store.Feature {
		return store.Feature{Relation: "pq:" + name, Name: name, Value: value, Statement: stmt}
	}
	root := &node{}
	topic := &node{parent: root, depth: 1, entity: gw}
	leaf := &node{parent: topic, depth: 2, entity: pres, total: 2,
		hop: &hop{rel: rel, edge: store.Edge{Subject: gw, Relation: "P39", RelationLabel: "position held", Object: pres,
			Qualifiers: []store.Feature{q("s1", "start time", "1789"), q("s1", "end time", "1797")}}},
		alts: []candidate{{entity: gen, edge: store.Edge{Subject: gw, Relation: "P39", Object: gen,
			Qualifiers: []store.Feature{q("s2", "start time", "1775"), q("s3", "start time", "1798")}}}}}
	presQ := "President of the United States (start time: 1789; end time: 1797)"
	genQ := "Commanding General (statement 1 of 2: start time: 1775) (statement 2 of 2: start time: 1798)"
	facts := pathFacts(leaf)
	for _, tc := range []struct {
		name, got, want string
	}{
		{"path", pathText(leaf), "George Washington -> position held -> " + presQ},
		{"extended", extendedText(topic, rel, &leaf.alts[0]), "George Washington -> position held -> " + genQ},
		{"hop fact", facts[0].Object, presQ},
		{"alternative fact", facts[len(facts)-1].Object, genQ},
		{"answer prompt: other tails", answerPrompt("q", nil, []weighted{{leaf, 1}}, false), "other position held: " + genQ},
		{"tails shown beside more", strings.Join(shownTails(leaf.alts), "\n"), genQ},
		{"answer prompt: total", answerPrompt("q", nil, []weighted{{leaf, 1}}, false), "George Washington -> position held: 2 in all\n"},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, tc.got, tc.want)
		}
	}
}
