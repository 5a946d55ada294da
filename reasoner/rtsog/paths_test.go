package rtsog

import (
	"slices"
	"testing"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/store"
)

// part is an outgoing content edge of a mediator.
func part(e store.Edge) hood.Part {
	return hood.Part{Label: e.RelationLabel, Value: e.Object, Edge: e, Dir: store.Out}
}

// kennedyTree builds by hand: topic JFK -sibling s-> sib1 (described:
// sibling RFK) with the alternative sib2 (described: sibling Ted), and
// sib1 -sibling-> RFK.
func kennedyTree() (paths []weighted, sib1, rfk *node) {
	ent := func(id, label string) store.Entity { return store.Entity{ID: id, Label: label} }
	jfk, s1, s2 := ent("jfk", "John F. Kennedy"), ent("s1", ""), ent("s2", "")
	robert, ted := ent("rfk", "Robert F. Kennedy"), ent("ted", "Ted Kennedy")
	edge := func(s, o store.Entity, rel string) store.Edge {
		return store.Edge{Subject: s, Relation: rel, RelationLabel: rel, Object: o, Graph: "fb"}
	}
	siblingS := store.Relation{ID: "sibling_s", Label: "sibling s", Dir: store.Out, Graph: "fb"}
	sibling := store.Relation{ID: "sibling", Label: "sibling", Dir: store.Out, Graph: "fb"}
	root := &node{}
	topic := &node{parent: root, depth: 1, entity: jfk, graph: "fb"}
	sib1 = &node{id: 3, parent: topic, depth: 2, entity: s1, hop: &hop{rel: siblingS, edge: edge(jfk, s1, "sibling_s")},
		described: []hood.Part{part(edge(s1, robert, "sibling"))}, q: 0.6,
		alts: []candidate{{entity: s2, edge: edge(jfk, s2, "sibling_s"), described: []hood.Part{part(edge(s2, ted, "sibling"))}}}}
	rfk = &node{id: 4, parent: sib1, depth: 3, entity: robert, hop: &hop{rel: sibling, edge: edge(s1, robert, "sibling")}, q: 0.5}
	return []weighted{{sib1, 0.6}, {rfk, 0.5}}, sib1, rfk
}

func TestGround(t *testing.T) {
	const idSib1, idRFK = 3, 4
	tests := []struct {
		name     string
		text     string
		only     bool // ground on the path to RFK only, without sib1's description
		entities []string
		node     int
		value    float64
		support  []string
	}{
		{"member of a described node on the best path", "Robert F. Kennedy", false, []string{"rfk"}, idSib1, 0.6,
			[]string{"jfk sibling_s s1", "s1 sibling rfk"}},
		{"member of a described alternative", "Ted Kennedy", false, []string{"ted"}, idSib1, 0.6,
			[]string{"jfk sibling_s s2", "s2 sibling ted"}},
		{"an alternative itself", "s2", false, []string{"s2"}, idSib1, 0.6, []string{"jfk sibling_s s2"}},
		{"a list", "Ted Kennedy and Robert F. Kennedy", false, []string{"ted", "rfk"}, idSib1, 0.6,
			[]string{"jfk sibling_s s2", "s2 sibling ted", "jfk sibling_s s1", "s1 sibling rfk"}},
		{"a path node", "Robert F. Kennedy", true, []string{"rfk"}, idRFK, 0.5,
			[]string{"jfk sibling_s s1", "s1 sibling rfk"}},
		{"nothing named", "Joseph Kennedy", false, nil, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, sib1, rfk := kennedyTree()
			if tt.only {
				sib1.described = nil
				ps = []weighted{{rfk, 0.5}}
			}
			a := ground(tt.text, ps)
			var sup []string
			for _, e := range a.Support {
				sup = append(sup, e.Subject.ID+" "+e.Relation+" "+e.Object.ID)
			}
			if !slices.Equal(a.Entities, tt.entities) || a.Node != tt.node || !near(a.Value, tt.value) || !slices.Equal(sup, tt.support) {
				t.Errorf("ground(%q) = entities %v node %d value %g support %v; want %v %d %g %v",
					tt.text, a.Entities, a.Node, a.Value, sup, tt.entities, tt.node, tt.value, tt.support)
			}
		})
	}
}

func TestRankPaths(t *testing.T) {
	mk := func(id int, q float64, hasHop bool) *node {
		n := &node{id: id, q: q}
		if hasHop {
			n.hop = &hop{}
		}
		return n
	}
	nodes := []*node{mk(1, 0.95, false), mk(2, 0.2, true), mk(3, 0.9, true), mk(4, 0.9, true), mk(5, 0.5, true)}
	tests := []struct {
		k    int
		want []int
	}{
		{1, []int{3}},
		{3, []int{3, 4, 5}},
		{10, []int{3, 4, 5, 2}},
	}
	for _, tt := range tests {
		var got []int
		for _, p := range rankPaths(nodes, tt.k) {
			got = append(got, p.node.id)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("rankPaths(k=%d) = %v, want %v", tt.k, got, tt.want)
		}
	}
}
