package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// TestRelationsOrder: Relations sorts on integer keys built from label
// prefixes; the answer must still be in store.CompareRelations order, with
// the counts summed over the ids, for labels that tie in their first 7, 8
// or 15 bytes, equal labels, several graphs and both directions.
func TestRelationsOrder(t *testing.T) {
	labels := map[string]string{
		"p1": "same fifteen by A", "p2": "same fifteen by B", "p3": "abcdefg", "p4": "abcdefgh",
		"p5": "abcdefg h", "p6": "Zeta", "p7": "zeta", "p8": "é accent", "p9": "dup", "p0": "dup",
		"pa": "", // no label: derived from the id
	}
	var qs []quad.Quad
	add := func(s, p, o, g string) {
		qs = append(qs, quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(p), Object: quad.IRI(o), Label: quad.IRI(g)})
	}
	i := 0
	for p := range labels {
		for j, g := range []string{"g1", "g2", "a-graph"} {
			if (i+j)%3 == 2 {
				continue
			}
			add("x", p, fmt.Sprintf("o%d", i), g)
			add(fmt.Sprintf("s%d", i), p, "x", g)
			add("y", p, "x", g)
			i++
		}
	}
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, g := range []string{"g1", "g2", "a-graph"} {
		var gqs []quad.Quad
		for _, q := range qs {
			if q.Label == quad.IRI(g) {
				gqs = append(gqs, q)
			}
		}
		for p, l := range labels {
			if l != "" {
				gqs = append(gqs, quad.Quad{Subject: quad.IRI(p), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String(l), Label: quad.IRI(g)})
			}
		}
		loadQuads(t, db, g, gqs)
	}
	for _, c := range []struct {
		ids []string
		dir store.Direction
	}{{[]string{"x"}, store.Both}, {[]string{"x", "y"}, store.Both}, {[]string{"y", "x", "y"}, store.In},
		{[]string{"x"}, store.Out}, {[]string{"nobody"}, store.Both}} {
		got, err := db.Relations(context.Background(), c.ids, c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(got, store.CompareRelations) {
			t.Errorf("%v %v: not in CompareRelations order: %+v", c.ids, c.dir, got)
		}
		if want := naiveCounts(qs, c.ids, c.dir); !slices.Equal(countsOf(got), want) {
			t.Errorf("%v %v: counts\n%v\nwant\n%v", c.ids, c.dir, countsOf(got), want)
		}
	}
}

// naiveCounts counts the edges of ids by (graph, direction, relation),
// sorted.
func naiveCounts(qs []quad.Quad, ids []string, dir store.Direction) []string {
	n := map[string]int{}
	for _, id := range ids {
		for _, q := range qs {
			g, p := string(q.Label.(quad.IRI)), string(q.Predicate.(quad.IRI))
			if q.Subject == quad.IRI(id) && dir != store.In {
				n[fmt.Sprintf("%s %v %s", g, store.Out, p)]++
			}
			if q.Object == quad.IRI(id) && dir != store.Out {
				n[fmt.Sprintf("%s %v %s", g, store.In, p)]++
			}
		}
	}
	var out []string
	for k, c := range n {
		out = append(out, fmt.Sprintf("%s %d", k, c))
	}
	slices.Sort(out)
	return out
}

func countsOf(rels []store.Relation) []string {
	var out []string
	for _, r := range rels {
		out = append(out, fmt.Sprintf("%s %v %s %d", r.Graph, r.Dir, r.ID, r.Count))
	}
	slices.Sort(out)
	return out
}
