package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	cquery "github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"
	"github.com/cayleygraph/quad"
	"github.com/dop251/goja"

	"github.com/grove-kg/grove/store/internal/cayleysrc"
	"github.com/grove-kg/grove/store/storetest"
)

// TestSandboxContainsGizmoPanics runs programs that make Cayley's own
// Gizmo code panic in the goroutine it evaluates programs in (which would
// end the process): each run ends with a *PanicError raised in Cayley.
func TestSandboxContainsGizmoPanics(t *testing.T) {
	db := storetest.Open(t, nil)
	storetest.Load(t, db, "g", []quad.Quad{quad.MakeIRI("a", "knows", "b", "")})
	for _, q := range []string{
		`g.V("<a>").Except(g).All()`,
		`g.V("<a>").Intersect(graph).All()`,
		`g.V("<a>").Union({}).Out("<knows>").All()`,
		`g.V().ForEach(function(d) { g.V("<a>").Except(g).All() })`,
	} {
		t.Run(q, func(t *testing.T) {
			_, err := Run(context.Background(), db, "gizmo", q, 10)
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("Run = %v, want a contained panic", err)
			}
			if o := pe.Origin(); !strings.HasPrefix(o, "github.com/cayleygraph/cayley/") {
				t.Fatalf("panic origin %q", o)
			}
		})
	}
}

// TestSandboxBoundsRecursion checks that unbounded recursion in a program
// ends it with an error.
func TestSandboxBoundsRecursion(t *testing.T) {
	db := storetest.Open(t, nil)
	_, err := Run(context.Background(), db, "gizmo", `function f(n) { return f(n + 1) + 1 }; f(0)`, 10)
	var so *goja.StackOverflowError
	if !errors.As(err, &so) || !strings.Contains(err.Error(), "call stack deeper than") {
		t.Fatalf("Run = %v, want a stack overflow error", err)
	}
}

// TestSandboxKeepsResults runs Cayley's integration queries on the film
// store through the sandboxed Gizmo language and through a plain Gizmo
// session: the results must be the same.
func TestSandboxKeepsResults(t *testing.T) {
	queries, err := cayleysrc.IntegrationQueries()
	if err != nil {
		t.Fatal(err)
	}
	queries = append(queries,
		`g.V("</en/blade_runner>").Out("</film/film/directed_by>").ForEach(function(d) { g.Emit(g.V(d.id).Out("<name>").ToArray()) })`,
		`g.Emit(g.V("</en/blade_runner>").Out(["</film/film/directed_by>", "</film/film/produced_by>"]).Count())`,
		`var m = g.M().Out("</film/film/directed_by>"); g.V("</en/blade_runner>", "</en/alien>").Follow(m).Or(g.V("</en/ridley_scott>")).Unique().All()`,
		`g.V().Has("<name>", regex("^Blade Run")).Tag("x").Out("<name>").GetLimit(3)`,
	)
	db := film(t)
	for i, q := range queries {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := Run(context.Background(), db, "gizmo", q, 1000)
			if err != nil {
				t.Fatalf("sandboxed: %v\n%s", err, q)
			}
			want := plainGizmo(t, q)
			if !slices.Equal(canonical(got), canonical(want)) {
				t.Fatalf("sandboxed %v\nplain %v\nquery %s", got, want, q)
			}
		})
	}
}

// plainGizmo runs q on a Gizmo session without the sandbox, over the
// Guard (which resolves the file's blank node names, as Run does).
func plainGizmo(t *testing.T, q string) []any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	it, err := gizmo.NewSession(NewGuard(film(t))).Execute(ctx, q, cquery.Options{Limit: 1000, Collation: cquery.JSON})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []any
	for it.Next(ctx) {
		out = append(out, it.Result())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func canonical(rs []any) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprint(r)
	}
	slices.Sort(out)
	return out
}
