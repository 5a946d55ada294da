package query

import (
	"context"
	"maps"
	"slices"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/cayley/query/shape"
)

// Cayley's SQL quad store (behind the SQL backend's QuadStore, a wrapper
// that hands it out through SQLQuadStore) optimises shapes into
// csql.Select, a query it runs itself, and a Select builds only on the
// concrete *csql.QuadStore: built on a Guard or on the wrapper it fails
// with "not a SQL quadstore". The Guard therefore hands every Select its
// optimiser makes to the parent wrapped in a storeShape, built on
// Cayley's store and guarded; and since the optimiser merges a parent with its Select
// children (a Filter over nodes, an Intersect of Selects, Quads whose
// values are a Select, NodesFrom, Save and Page over one), it unwraps the
// children of those shapes before passing a parent on, and wraps what
// comes back. A Select with a LIMIT or an OFFSET reports an estimated
// size (see pagedShape). Shapes of other types never see a Select unwrapped, so
// building them on the Guard reaches each Select through its storeShape.

// storeShape is a shape of the wrapped store's own optimiser, built on
// that store and guarded.
type storeShape struct {
	g *Guard
	s shape.Shape
}

func (s storeShape) BuildIterator(graph.QuadStore) iterator.Shape {
	return s.g.shape(func() iterator.Shape {
		it := s.s.BuildIterator(sqlStore(s.g.QuadStore))
		if sel, ok := s.s.(csql.Select); ok && (sel.Limit > 0 || sel.Offset > 0) {
			return pagedShape{Shape: it, limit: sel.Limit}
		}
		return it
	})
}

// pagedShape is the iterator of a Select with a LIMIT or an OFFSET, whose
// size Cayley computes as the COUNT(*) of the query with that LIMIT and
// OFFSET appended: the count of every row, or no row at all (an error)
// past an OFFSET. Its size is therefore an estimate, and a count
// iterates the rows.
type pagedShape struct {
	iterator.Shape
	limit int64
}

func (s pagedShape) Stats(context.Context) (iterator.Costs, error) {
	size := s.limit
	if size <= 0 {
		size = 1 << 20
	}
	return iterator.Costs{ContainsCost: 1, NextCost: 1, Size: refs.Size{Value: size, Exact: false}}, nil
}

func (s pagedShape) Optimize(ctx context.Context) (iterator.Shape, bool) {
	in, ok := s.Shape.Optimize(ctx)
	if !ok {
		return s, false
	}
	return pagedShape{Shape: in, limit: s.limit}, true
}

// Optimize leaves the shape alone: it is the store optimiser's output.
func (s storeShape) Optimize(context.Context, shape.Optimizer) (shape.Shape, bool) { return s, false }

// optimizeStoreShape runs the wrapped store's optimiser o on s with s's
// children unwrapped, and wraps the Selects of the result.
func (g *Guard) optimizeStoreShape(ctx context.Context, o shape.Optimizer, s shape.Shape) (shape.Shape, bool) {
	if qa, ok := s.(shape.QuadsAction); ok && slices.Contains(slices.Collect(maps.Values(qa.Filter)), nil) {
		return s, false // the optimiser asserts every filter is a SQL value
	}
	out, ok := o.OptimizeShape(ctx, mapChildren(s, unwrapStoreShape))
	if !ok {
		return s, false
	}
	if _, sel := out.(csql.Select); sel {
		return storeShape{g: g, s: out}, true
	}
	return mapChildren(out, g.wrapSelect), true
}

// wrapSelect wraps a Select in a storeShape.
func (g *Guard) wrapSelect(s shape.Shape) shape.Shape {
	if _, sel := s.(csql.Select); sel {
		return storeShape{g: g, s: s}
	}
	return s
}

// unwrapStoreShape returns the shape a storeShape holds.
func unwrapStoreShape(s shape.Shape) shape.Shape {
	if w, ok := s.(storeShape); ok {
		return w.s
	}
	return s
}

// mapChildren returns s with f applied to the children that Cayley's SQL
// optimiser looks into (graph/sql/optimizer.go OptimizeShape); other
// shapes are returned as they are.
func mapChildren(s shape.Shape, f func(shape.Shape) shape.Shape) shape.Shape {
	switch s := s.(type) {
	case shape.Filter:
		s.From = f(s.From)
		return s
	case shape.Intersect:
		out := make(shape.Intersect, len(s))
		for i, c := range s {
			out[i] = f(c)
		}
		return out
	case shape.Quads:
		out := make(shape.Quads, len(s))
		for i, q := range s {
			q.Values = f(q.Values)
			out[i] = q
		}
		return out
	case shape.NodesFrom:
		s.Quads = f(s.Quads)
		return s
	case shape.Save:
		s.From = f(s.From)
		return s
	case shape.Page:
		s.From = f(s.From)
		return s
	}
	return s
}
