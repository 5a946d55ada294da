package query

import (
	"context"
	"errors"
	"strings"
	"testing"

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
