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

// TestSandboxRefusesBadPathArgs checks that objects other than paths
// passed where Gizmo expects a path (which Gizmo turns into an empty path
// that crashes it later, in its own goroutine) are refused with a
// TypeError naming the method.
func TestSandboxRefusesBadPathArgs(t *testing.T) {
	db := storetest.Open(t, nil)
	storetest.Load(t, db, "g", []quad.Quad{quad.MakeIRI("a", "knows", "b", "")})
	for _, tc := range []struct{ query, want string }{
		{`g.V("<a>").Except(g).All()`, "Except: argument 1 must be a path or morphism (g.V(...), g.M(...)), not the graph object g"},
		{`g.V("<a>").intersect(graph).All()`, "intersect: argument 1 must be a path"},
		{`g.V("<a>").Union({}).Out("<knows>").All()`, "Union: argument 1 must be a path or morphism (g.V(...), g.M(...)), not a Object"},
		{`g.V("<a>").ForEach(function(d) { g.V("<a>").Follow(g).All() })`, "Follow: argument 1"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, err := Run(context.Background(), db, "gizmo", tc.query, 10)
			var pe *PanicError
			if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want an error with %q", err, tc.want)
			}
		})
	}
	// Paths and morphisms are accepted, and the query runs.
	res, err := Run(context.Background(), db, "gizmo",
		`var m = g.M().Out("<knows>"); g.V("<a>").Follow(m).Union(g.V("<a>")).Except(g.V("<b>")).All()`, 10)
	if err != nil || len(res) != 1 || fmt.Sprint(res[0]) != "map[id:<a>]" {
		t.Fatalf("paths as arguments: %v, %v", res, err)
	}
}

// boomer is a native object whose method panics, standing for a Gizmo
// native function with a bug.
type boomer struct{}

func (*boomer) Boom() string { panic("boom") }

// TestSandboxContainsNativePanics checks the boundary itself: a panic in a
// native method called from JavaScript through the sandbox (as Gizmo's are,
// in Gizmo's own goroutine) becomes a JavaScript exception, ending the
// program with an error, and is recorded on the Guard.
func TestSandboxContainsNativePanics(t *testing.T) {
	vm := goja.New()
	g := NewGuard(nil)
	sb := &sandboxVM{vm: vm, g: g, orig: map[*goja.Object]*goja.Object{}}
	if err := vm.Set("b", sb.wrap(vm.ToValue(&boomer{}), nil, "b")); err != nil {
		t.Fatal(err)
	}
	_, err := vm.RunString(`var caught = ""; try { b.Boom() } catch (e) { caught = String(e) }; b.Boom()`)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("RunString = %v, want the panic as an exception", err)
	}
	if c := vm.Get("caught").String(); !strings.Contains(c, "boom") {
		t.Fatalf("the exception was not catchable in JavaScript: %q", c)
	}
	if p := g.Panic(); p == nil || p.Value != "boom" || !strings.Contains(p.Origin(), "boomer") {
		t.Fatalf("guard panic = %+v", p)
	}
}

// TestSandboxBoundsRecursion checks that unbounded recursion in a program
// ends it with an error.
func TestSandboxBoundsRecursion(t *testing.T) {
	db := storetest.Open(t, nil)
	_, err := Run(context.Background(), db, "gizmo", `function f(n) { return f(n + 1) + 1 }; f(0)`, 10)
	var so *goja.StackOverflowError
	if !errors.As(err, &so) || !strings.Contains(err.Error(), "stack overflow: the call stack is deeper than 10000 frames") {
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
