package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
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

// TestScannersAfterStoreClose drives every scanner after the database
// was closed, made before and after the Close: Next answers false and
// Err says the store is closed, where Badger would panic ("DB Closed").
func TestScannersAfterStoreClose(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadQuads(t, db, "g", []quad.Quad{
		quad.MakeIRI("a", "knows", "b", ""),
		quad.MakeIRI("b", "knows", "c", ""),
	})
	ctx := context.Background()
	node := func(v string) nodeRef {
		r, err := db.ValueOf(quad.IRI(v))
		if err != nil || r == nil {
			t.Fatalf("ValueOf(%s) = %v, %v", v, r, err)
		}
		return r.(nodeRef)
	}
	shapes := []struct {
		name  string
		shape iterator.Shape
	}{
		{"subject", db.QuadIterator(quad.Subject, node("a"))},
		{"object", db.QuadIterator(quad.Object, node("c"))},
		{"predicate", db.QuadIterator(quad.Predicate, node("knows"))},
		{"label", db.QuadIterator(quad.Label, node("g"))},
		{"all quads", db.QuadsAllIterator()},
		{"all nodes", db.NodesAllIterator()},
	}
	before := make([]iterator.Scanner, len(shapes))
	for i, s := range shapes {
		before[i] = s.shape.Iterate()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for i, s := range shapes {
		for _, when := range []string{"made before Close", "made after Close"} {
			t.Run(s.name+"/"+when, func(t *testing.T) {
				sc := before[i]
				if when == "made after Close" {
					sc = s.shape.Iterate()
				}
				defer sc.Close()
				if sc.Next(ctx) {
					t.Fatal("Next on a closed store = true")
				}
				if err := sc.Err(); !errors.Is(err, store.ErrClosed) {
					t.Fatalf("Err = %v, want store.ErrClosed", err)
				}
			})
		}
	}
}
