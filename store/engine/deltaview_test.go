package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// TestLabelChoiceIgnoresHistory: the label, description and aliases of an
// entity depend on its quads alone. Loaded at once, in two loads, or
// through deltas in either order, the same label quads give the same
// entity (the label was the one whose term got the smallest id, so a
// label added later lost to one loaded first, and a fresh load of the same
// quads chose another).
func TestLabelChoiceIgnoresHistory(t *testing.T) {
	label := func(o quad.Value) quad.Quad {
		return quad.Quad{Subject: quad.IRI("x"), Predicate: quad.IRI(store.RDFSLabel), Object: o, Label: quad.IRI("g")}
	}
	desc := func(o quad.Value) quad.Quad {
		return quad.Quad{Subject: quad.IRI("x"), Predicate: quad.IRI(store.SchemaDesc), Object: o, Label: quad.IRI("g")}
	}
	cases := []struct {
		name string
		qs   []quad.Quad
	}{
		{"two untagged labels", []quad.Quad{label(quad.String("Zeta")), label(quad.String("Alpha"))}},
		{"three English labels", []quad.Quad{label(quad.LangString{Value: "Mid", Lang: "en"}),
			label(quad.LangString{Value: "Zed", Lang: "en"}), label(quad.LangString{Value: "Able", Lang: "en"})}},
		{"English over untagged", []quad.Quad{label(quad.String("Aaa")), label(quad.LangString{Value: "Zzz", Lang: "en"})}},
		{"two descriptions", []quad.Quad{label(quad.String("X")), desc(quad.String("the second")), desc(quad.String("a first"))}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			histories := map[string]func(db *DB){
				"one load": func(db *DB) { loadQuads(t, db, "g", c.qs) },
				"two loads": func(db *DB) {
					loadQuads(t, db, "g", c.qs[:1])
					loadQuads(t, db, "g", c.qs[1:])
				},
				"load then deltas": func(db *DB) {
					loadQuads(t, db, "g", c.qs[:1])
					applyOne(t, db, graph.Add, c.qs[1:]...)
				},
				"deltas in reverse": func(db *DB) {
					for _, q := range slices.Backward(c.qs) {
						applyOne(t, db, graph.Add, q)
					}
				},
			}
			var want string
			for _, name := range []string{"one load", "two loads", "load then deltas", "deltas in reverse"} {
				db, err := Open(t.TempDir(), Options{})
				if err != nil {
					t.Fatal(err)
				}
				histories[name](db)
				e, err := db.Entity(ctx, "x")
				db.Close()
				if err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprintf("%q %q %q", e.Label, e.Description, e.Aliases)
				if want == "" {
					want = got
				} else if got != want {
					t.Errorf("%s: %s; one load: %s", name, got, want)
				}
			}
		})
	}
}

// TestEmptiedGraphNotListed: a graph whose quads were all deleted is not
// listed (a fresh load of the remaining quads has no such graph), and
// quads added to it again list it with its counts.
func TestEmptiedGraphNotListed(t *testing.T) {
	ctx := context.Background()
	g1 := []quad.Quad{{Subject: quad.IRI("a"), Predicate: quad.IRI("p"), Object: quad.IRI("b"), Label: quad.IRI("g1")}}
	g2 := []quad.Quad{
		{Subject: quad.IRI("a"), Predicate: quad.IRI("q"), Object: quad.IRI("c"), Label: quad.IRI("g2")},
		{Subject: quad.IRI("c"), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String("C"), Label: quad.IRI("g2")},
	}
	graphs := func(db *DB) string {
		gs, err := db.Graphs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+v", gs)
	}
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadOpts(t, db, LoadOptions{Graph: "g1", KeepLabels: true}, append(slices.Clone(g1), g2...))
	full := graphs(db)
	applyOne(t, db, graph.Delete, g2...)
	if got, want := graphs(db), bulkGraphs(t, g1); got != want {
		t.Errorf("after emptying g2: %s; a fresh load: %s", got, want)
	}
	applyOne(t, db, graph.Add, g2...)
	if got := graphs(db); got != full {
		t.Errorf("after refilling g2: %s; before: %s", got, full)
	}
}

// bulkGraphs bulk-loads qs (keeping their labels) into a fresh database
// and returns its Graphs, formatted.
func bulkGraphs(t *testing.T, qs []quad.Quad) string {
	t.Helper()
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadOpts(t, db, LoadOptions{Graph: "g1", KeepLabels: true}, qs)
	gs, err := db.Graphs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%+v", gs)
}
