package sqlkg_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/query"
	"github.com/grove-kg/grove/store/sqlkg"
)

// stallOnName is a quad store that makes the proxy in front of
// PostgreSQL stop answering at its first name lookup: the query's rows
// have come back, and every result's name is still to be looked up.
type stallOnName struct {
	graph.QuadStore
	p    *stallProxy
	once sync.Once
}

// SQLQuadStore hands the backend's SQL store to the query Guard, whose
// optimiser then fetches a query's rows in one statement, as for the
// backend itself.
func (s *stallOnName) SQLQuadStore() *csql.QuadStore {
	return s.QuadStore.(interface{ SQLQuadStore() *csql.QuadStore }).SQLQuadStore()
}

// ExplainError is the backend's.
func (s *stallOnName) ExplainError(err error) error {
	return s.QuadStore.(interface{ ExplainError(error) error }).ExplainError(err)
}

func (s *stallOnName) NameOf(r graph.Ref) (quad.Value, error) {
	s.once.Do(func() { s.p.stall.Store(true) })
	return s.QuadStore.NameOf(r)
}

// TestStalledQueryStops: a query whose database stops answering while
// its results are named fails after about the idle bound and its probe,
// with an error matching store.ErrUnavailable, in every language; Gizmo
// went on to the next result, each one costing the bound again.
func TestStalledQueryStops(t *testing.T) {
	const idle = time.Second
	const n = 30
	var quads []quad.Quad
	for i := range n {
		quads = append(quads, quad.MakeIRI(fmt.Sprint("s", i), "p", fmt.Sprint("o", i), ""))
	}
	queries := []struct{ lang, query string }{
		{"gizmo", `g.V().Out("<p>").All()`},
		{"mql", `[{"id": null, "<p>": null}]`},
		{"graphql", `{ nodes { id, p: <p> { id } } }`},
	}
	for _, tc := range queries {
		t.Run(tc.lang, func(t *testing.T) {
			kg, p := openStalled(t, sqlkg.Config{IdleTimeout: idle})
			ctx := context.Background()
			if _, err := kg.Load(ctx, "g", quads); err != nil {
				t.Fatal(err)
			}
			qs := &stallOnName{QuadStore: kg.QuadStore(), p: p}
			start := time.Now()
			err := within(t, n*idle, tc.lang+" query", func() error {
				_, err := query.Run(ctx, qs, tc.lang, tc.query, 1000)
				return err
			})
			took := time.Since(start)
			if !errors.Is(err, store.ErrUnavailable) {
				t.Errorf("query on a stalled server: %v, want an error matching store.ErrUnavailable", err)
			}
			if took > 8*idle {
				t.Errorf("query on a stalled server failed after %v, want about the idle bound and its probe (%v)", took, 2*idle)
			}
		})
	}
}
