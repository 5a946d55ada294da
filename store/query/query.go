// Package query runs Cayley's query languages (Gizmo, GraphQL, MQL) over a
// Grove database. The engine is a Cayley graph.QuadStore, so the languages
// run unchanged; this package registers them, collects results and makes
// sure no query can crash the process: Run recovers panics on the caller's
// goroutine and runs the query over a Guard, which recovers them inside the
// goroutine Gizmo evaluates queries in (see Guard).
//
// Gizmo programs also run in a sandbox (sandbox.go) that calls Gizmo's
// native functions behind a recover boundary and refuses, as JavaScript
// errors, what would kill the process in one step, which no recover can
// catch (a fatal stack overflow or out-of-memory):
//
//   - a value passed to a Gizmo function (g.Emit, g.V, path methods, the
//     value helpers) or left as the program's last value nested deeper than
//     maxArgDepth (1000) levels, holding more than maxArgValues (1,048,576)
//     values, a cycle, a Map or Set, or the graph object g (args.go);
//   - an Array method, Array.from, Function.prototype.apply, Reflect.apply
//     or Reflect.construct on an array(-like) longer than maxArrayLength
//     (10,000,000) elements; String.prototype.repeat, padStart, padEnd,
//     concat, Array.prototype.join and JSON.stringify making a string over
//     maxStringLength (64 Mi UTF-16 units); an ArrayBuffer or typed array
//     over maxBufferBytes (64 MiB) (limits.go);
//   - a call stack deeper than maxCallStack (10,000) frames, reported as a
//     stack overflow;
//   - one regular-expression match on regexp2, goja's backtracking engine,
//     running over maxRegexpMatch (5 s), which no interrupt reaches
//     (limits.go, limitRegexps);
//   - a replacement string expanding past maxStringLength, measured match
//     by match before the builtin makes it;
//   - a program's source over maxProgramBytes (1 MiB) or with more than
//     maxProgramNesting (50,000) brackets and arrows, which goja's
//     recursive parser could overflow its stack on (source.go), and the
//     same for source given to eval and the Function constructors at run
//     time, and JSON.parse text nested deeper than 10,000 levels.
//
// Array, string, Map and Set iterators step through a JavaScript function,
// so a spread, which goja runs in one Go loop, stops with the program.
//
// These bound single allocations. The total memory of a query, in any
// language, is bounded by WatchHeap (heap.go): Run stops a query once the
// live heap has grown by DefaultMaxHeapGrowth (1 GiB) while it ran, since
// goja has no memory limit and many allocations within the limits add up.
package query

import (
	"context"
	"fmt"
	"slices"

	"github.com/cayleygraph/cayley/graph"
	cquery "github.com/cayleygraph/cayley/query"

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
	g := NewGuardFor(qs, lang)
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%s query: %w", lang, g.recovered(v))
		} else if p := g.Panic(); p != nil {
			out, err = nil, fmt.Errorf("%s query: %w", lang, p)
		}
	}()
	return run(ctx, g, lang, q, limit)
}

// run executes q over g. It stops at the first error the store returns
// (g.StoreErr), which the languages do not all report: Gizmo keeps a
// failed name lookup's error until the query ends, so a store that stopped
// answering cost every further result a lookup's timeout, and MQL drops it.
func run(ctx context.Context, g *Guard, lang, q string, limit int) ([]any, error) {
	ctx, stop := WatchHeap(ctx, DefaultMaxHeapGrowth)
	defer stop()
	it, err := cquery.Execute(ctx, g, lang, q, cquery.Options{Limit: limit, Collation: cquery.JSON})
	if err != nil {
		return nil, fmt.Errorf("%s query: %w", lang, err)
	}
	defer it.Close()
	var out []any
	for it.Next(ctx) {
		res := it.Result() // names its values: a failed lookup is a store error
		if g.StoreErr() != nil {
			break
		}
		out = append(out, res)
		if len(out) >= limit {
			break
		}
	}
	if h := HeapLimited(ctx); h != nil {
		return nil, fmt.Errorf("%s query: %w", lang, h)
	}
	if err := g.StoreErr(); err != nil {
		return nil, fmt.Errorf("%s query: %w", lang, err)
	}
	if err := it.Err(); err != nil {
		return out, fmt.Errorf("%s query: %w", lang, err)
	}
	return out, nil
}
