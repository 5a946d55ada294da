package query

import (
	"context"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/cayley/query/shape"
	"github.com/cayleygraph/quad"
)

// countingSQL stands for the SQL backend's quad store: its quad
// iterators count the Stats (a COUNT(*) each on PostgreSQL) asked of them.
type countingSQL struct {
	graph.QuadStore
	stats int
}

func (c *countingSQL) SQLQuadStore() *csql.QuadStore { return &csql.QuadStore{} }

func (c *countingSQL) QuadIterator(quad.Direction, graph.Ref) iterator.Shape {
	return countedShape{Shape: iterator.NewNull(), n: &c.stats}
}

type countedShape struct {
	iterator.Shape
	n *int
}

func (s countedShape) Stats(context.Context) (iterator.Costs, error) {
	*s.n++
	return iterator.Costs{Size: refs.Size{Value: 7, Exact: true}}, nil
}

// TestGraphQLOnSQLKeepsSizes: a GraphQL query on the SQL store (no SQL
// optimiser) asks each quad iterator's size once per direction and node,
// where every nested object asked the same COUNT(*) again; other
// languages are left alone.
func TestGraphQLOnSQLKeepsSizes(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		lang string
		want int
	}{{"graphql", 2}, {"gizmo", 4}} {
		qs := &countingSQL{}
		g := NewGuardFor(qs, c.lang)
		ref := csql.NodeHash{}
		for range 3 {
			if _, err := g.QuadIterator(quad.Predicate, ref).Stats(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := g.QuadIterator(quad.Subject, ref).Stats(ctx); err != nil {
			t.Fatal(err)
		}
		if qs.stats != c.want {
			t.Errorf("%s: %d sizes asked of the store, want %d", c.lang, qs.stats, c.want)
		}
	}
}

// TestSQLOptimiserNeverGetsNilFilter: a QuadsAction filtered by a nil ref
// stays with the generic iterators; Cayley's SQL optimiser would panic on
// it (it asserts every filter is a SQL value), failing the query.
func TestSQLOptimiserNeverGetsNilFilter(t *testing.T) {
	g := NewGuardFor(&countingSQL{}, "gizmo")
	in := shape.QuadsAction{Result: quad.Object, Filter: map[quad.Direction]refs.Ref{quad.Subject: nil}}
	out, ok := g.OptimizeShape(context.Background(), in)
	if ok || g.Panic() != nil {
		t.Fatalf("OptimizeShape = %v, %v; panic %v", out, ok, g.Panic())
	}
}
