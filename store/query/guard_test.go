package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/storetest"
)

// TestRunRecoversPanics checks that a store panic during a query run, in
// any language and wherever it happens (including Gizmo's own goroutine),
// ends the run with a *PanicError instead of the process.
func TestRunRecoversPanics(t *testing.T) {
	db := storetest.Open(t, nil)
	storetest.Load(t, db, "g", []quad.Quad{
		quad.MakeIRI("a", "knows", "b", ""),
		quad.MakeIRI("b", "knows", "c", ""),
	})
	queries := map[string]string{
		"gizmo":   `g.V("<a>").Out("<knows>").All()`,
		"graphql": `{ nodes(id: "<a>") { id, knows: <knows> { id } } }`,
		"mql":     `[{"id": "<a>", "<knows>": null}]`,
	}
	ctx := context.Background()
	for lang, q := range queries {
		res, err := Run(ctx, db, lang, q, 10)
		if err != nil || len(res) == 0 {
			t.Fatalf("%s without panics = %v, %v", lang, res, err)
		}
		for _, where := range []string{storetest.PanicIterate, storetest.PanicNameOf, storetest.PanicValueOf} {
			t.Run(lang+"/"+where, func(t *testing.T) {
				qs := &storetest.Panicking{QuadStore: db, In: where}
				res, err := Run(ctx, qs, lang, q, 10)
				var pe *PanicError
				if !errors.As(err, &pe) {
					t.Fatalf("Run = %v, %v; want a PanicError", res, err)
				}
				if pe.Value != storetest.PanicValue || len(pe.Stack) == 0 ||
					!strings.Contains(err.Error(), lang+" query") {
					t.Fatalf("panic error %q value %v", err, pe.Value)
				}
			})
		}
	}
}

// TestBlankNodeNames checks that Cayley's "_:" names of the source file
// find the graph-scoped blank nodes ingest stores on a one-graph database,
// and that the scoped names always work.
func TestBlankNodeNames(t *testing.T) {
	knows := func(s, o quad.Value) quad.Quad { return quad.Quad{Subject: s, Predicate: quad.IRI("knows"), Object: o} }
	db := storetest.Open(t, nil)
	// Ingest stores the file's _:b1 of graph "g" as _:g/b1.
	storetest.Load(t, db, "g", []quad.Quad{knows(quad.IRI("a"), quad.BNode("g/b1"))})
	ctx := context.Background()
	tests := []struct {
		name, query, want string
	}{
		{"scoped name", `g.V("_:g/b1").In("<knows>").All()`, "map[id:<a>]"},
		{"file name on a one-graph database", `g.V("_:b1").In("<knows>").All()`, "map[id:<a>]"},
		{"results name the scoped form", `g.V("<a>").Out("<knows>").All()`, "map[id:_:g/b1]"},
		{"unknown blank node", `g.V("_:b2").In("<knows>").All()`, "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(ctx, db, "gizmo", tc.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(res)
			if tc.want == "[]" {
				if len(res) != 0 {
					t.Fatalf("got %s, want nothing", got)
				}
				return
			}
			if len(res) != 1 || fmt.Sprint(res[0]) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	// With a second graph the file's names are ambiguous: only scoped names work.
	storetest.Load(t, db, "h", []quad.Quad{knows(quad.IRI("c"), quad.BNode("h/b1"))})
	if res, err := Run(ctx, db, "gizmo", `g.V("_:b1").In("<knows>").All()`, 10); err != nil || len(res) != 0 {
		t.Fatalf("two graphs: _:b1 = %v, %v; want nothing", res, err)
	}
	if res, err := Run(ctx, db, "gizmo", `g.V("_:h/b1").In("<knows>").All()`, 10); err != nil || len(res) != 1 {
		t.Fatalf("two graphs: _:h/b1 = %v, %v", res, err)
	}
}

// failingNames is a quad store whose NameOf fails, counting its calls.
type failingNames struct {
	graph.QuadStore
	calls atomic.Int64
}

// errNames is the error of failingNames.NameOf.
var errNames = errors.New("name lookup failed: the database did not answer")

func (f *failingNames) NameOf(graph.Ref) (quad.Value, error) {
	f.calls.Add(1)
	return nil, errNames
}

// TestRunStopsAtStoreError checks that a query run ends at the store's
// first failed name lookup, with that error, in every language: Gizmo
// kept going (one failing lookup per result, each a timeout on a stalled
// database) and MQL dropped the error.
func TestRunStopsAtStoreError(t *testing.T) {
	db := storetest.Open(t, nil)
	var quads []quad.Quad
	for i := range 50 {
		quads = append(quads, quad.MakeIRI(fmt.Sprint("n", i), "knows", fmt.Sprint("m", i), ""))
	}
	storetest.Load(t, db, "g", quads)
	tests := []struct{ lang, query string }{
		{"gizmo", `g.V().Out("<knows>").All()`},
		{"gizmo", `g.V().Tag("x").Out("<knows>").All()`},
		{"mql", `[{"id": null, "<knows>": null}]`},
		{"graphql", `{ nodes { id, knows: <knows> { id } } }`},
	}
	for _, tc := range tests {
		t.Run(tc.lang+"/"+tc.query, func(t *testing.T) {
			qs := &failingNames{QuadStore: db}
			res, err := Run(context.Background(), qs, tc.lang, tc.query, 1000)
			if !errors.Is(err, errNames) {
				t.Fatalf("Run = %d results, %v; want an error wrapping %v", len(res), err, errNames)
			}
			if n := qs.calls.Load(); n != 1 {
				t.Fatalf("NameOf called %d times; the run must stop at the first failure", n)
			}
		})
	}
}
