package query

import (
	"context"
	"testing"

	cquery "github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"
)

// BenchmarkGizmoSandbox is the cost of the sandbox per query: a short
// Gizmo query on the film sample through Run (a fresh sandboxed runtime
// with its builtin limits and argument checks) against a plain Gizmo
// session over the same Guard, in one run.
func BenchmarkGizmoSandbox(b *testing.B) {
	db := film(b)
	const q = `g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`
	ctx := context.Background()
	b.Run("baseline=plain-gizmo", func(b *testing.B) {
		for b.Loop() {
			it, err := gizmo.NewSession(NewGuard(db)).Execute(ctx, q, cquery.Options{Limit: 100, Collation: cquery.JSON})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for it.Next(ctx) {
				n++
			}
			if it.Err() != nil || n != 1 {
				b.Fatalf("%d results, %v", n, it.Err())
			}
			it.Close()
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		for b.Loop() {
			res, err := Run(ctx, db, "gizmo", q, 100)
			if err != nil || len(res) != 1 {
				b.Fatalf("%v, %v", res, err)
			}
		}
	})
}
