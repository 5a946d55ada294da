package engine

import (
	"context"
	"testing"

	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/quad"
)

// TestScannerSafety drives every scanner the engine hands to Cayley past
// its end and after Close: Next must keep answering false (Badger's
// iterator must not be advanced past its end, which dereferences nil).
func TestScannerSafety(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQuads(t, db, "g", []quad.Quad{
		quad.MakeIRI("a", "knows", "b", ""),
		quad.MakeIRI("a", "knows", "c", ""),
		quad.MakeIRI("b", "knows", "c", ""),
	})
	ctx := context.Background()
	ref := func(v string) *quadShape {
		r, err := db.ValueOf(quad.IRI(v))
		if err != nil || r == nil {
			t.Fatalf("ValueOf(%s) = %v, %v", v, r, err)
		}
		return &quadShape{db: db, id: uint64(r.(nodeRef))}
	}
	shape := func(v string, d quad.Direction) iterator.Shape {
		s := ref(v)
		s.d = d
		return s
	}
	g, err := db.ValueOf(quad.IRI("g"))
	if err != nil || g == nil {
		t.Fatalf("graph label: %v, %v", g, err)
	}
	tests := []struct {
		name  string
		shape iterator.Shape
		want  int
	}{
		{"subject", shape("a", quad.Subject), 2},
		{"object", shape("c", quad.Object), 2},
		{"predicate", shape("knows", quad.Predicate), 3},
		{"label", db.QuadIterator(quad.Label, g), 3},
		{"all quads", db.QuadsAllIterator(), 3},
		{"all nodes", db.NodesAllIterator(), 5},
		{"missing", db.QuadIterator(quad.Subject, nodeRef(1<<40)), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.shape.Iterate()
			n := 0
			for sc.Next(ctx) {
				n++
			}
			if n != tc.want {
				t.Errorf("%d results, want %d", n, tc.want)
			}
			for i := 0; i < 3; i++ {
				if sc.Next(ctx) || sc.Result() != nil {
					t.Fatalf("Next after exhaustion (call %d) = true", i)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("Err after exhaustion: %v", err)
			}
			for i := 0; i < 2; i++ {
				if err := sc.Close(); err != nil {
					t.Fatalf("Close %d: %v", i, err)
				}
			}
			if sc.Next(ctx) || sc.Result() != nil {
				t.Fatal("Next after Close = true")
			}

			// Closed before the end, and before the first Next.
			sc = tc.shape.Iterate()
			if tc.want > 0 && !sc.Next(ctx) {
				t.Fatal("no first result")
			}
			sc.Close()
			if sc.Next(ctx) {
				t.Fatal("Next after an early Close = true")
			}
			sc = tc.shape.Iterate()
			sc.Close()
			if sc.Next(ctx) {
				t.Fatal("Next after Close without Next = true")
			}
		})
	}
}
