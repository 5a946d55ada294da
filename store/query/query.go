// Package query runs Cayley's query languages (Gizmo, GraphQL, MQL) over a
// Grove database. The engine is a Cayley graph.QuadStore, so the languages
// run unchanged; this package registers them, collects results and makes
// sure no query can crash the process: Run recovers panics on the caller's
// goroutine and runs the query over a Guard, which recovers them inside the
// goroutine Gizmo evaluates queries in (see Guard).
package query

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cayleygraph/cayley/graph"
	cquery "github.com/cayleygraph/cayley/query"
	"github.com/dop251/goja"

	// The query languages register themselves with Cayley.
	_ "github.com/cayleygraph/cayley/query/gizmo"
	_ "github.com/cayleygraph/cayley/query/graphql"
	_ "github.com/cayleygraph/cayley/query/mql"
)

// Languages are the supported query languages.
var Languages = []string{"gizmo", "graphql", "mql"}

// Run executes q in lang and returns up to limit results (limit <= 0: 100)
// collated as JSON-ready values. A panic anywhere in the run is returned as
// a *PanicError (wrapped) instead of crashing the process.
func Run(ctx context.Context, qs graph.QuadStore, lang, q string, limit int) (out []any, err error) {
	if !slices.Contains(Languages, lang) {
		return nil, fmt.Errorf("unsupported query language %q (want one of %v)", lang, Languages)
	}
	if limit <= 0 {
		limit = 100
	}
	g := NewGuard(qs)
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%s query: %w", lang, g.recovered(v))
		} else if p := g.Panic(); p != nil {
			out, err = nil, fmt.Errorf("%s query: %w", lang, p)
		}
	}()
	return run(ctx, g, lang, q, limit)
}

func run(ctx context.Context, qs graph.QuadStore, lang, q string, limit int) ([]any, error) {
	it, err := cquery.Execute(ctx, qs, lang, q, cquery.Options{Limit: limit, Collation: cquery.JSON})
	if err != nil {
		return nil, fmt.Errorf("%s query: %w", lang, err)
	}
	defer it.Close()
	var out []any
	for it.Next(ctx) {
		out = append(out, it.Result())
		if len(out) >= limit {
			break
		}
	}
	if err := it.Err(); err != nil {
		var so *goja.StackOverflowError
		if errors.As(err, &so) {
			return out, fmt.Errorf("%s query: call stack deeper than %d frames: %w", lang, maxCallStack, err)
		}
		return out, fmt.Errorf("%s query: %w", lang, err)
	}
	return out, nil
}
