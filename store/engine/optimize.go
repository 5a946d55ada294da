package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/cayley/query/shape"
)

// pathPkg is the package of Cayley's path builders whose shapes are opaque
// to optimisers: they build their iterator directly (FollowRecursive).
const pathPkg = "github.com/cayleygraph/cayley/query/path"

// OptimizeShape implements Cayley's shape.Optimizer. It changes one thing:
// an opaque path shape (a FollowRecursive) inside an intersection gets a
// membership check that scans it and remembers the tags of every value it
// yields. Cayley's own recursive Contains answers with the tags of its
// latest discovery when the value asked about was found by scanning after
// an earlier check hit its cache (a stale tag map), so which tags a query
// returns would depend on the order the store yields quads in. Memstore
// happens to yield them in an order that hides it; this engine yields ids
// in sorted order, which exposed it in Cayley's "follows recursive loop"
// path test.
func (db *DB) OptimizeShape(_ context.Context, s shape.Shape) (shape.Shape, bool) {
	in, ok := s.(shape.Intersect)
	if !ok {
		return s, false
	}
	var out shape.Intersect
	for i, c := range in {
		if w, ok := wrapOpaque(c); ok {
			if out == nil {
				out = slices.Clone(in)
			}
			out[i] = w
		}
	}
	if out == nil {
		return s, false
	}
	return out, true
}

var _ shape.Optimizer = (*DB)(nil)

// wrapOpaque wraps an opaque path shape, directly or under a Save, in a
// scanLookupShape.
func wrapOpaque(s shape.Shape) (shape.Shape, bool) {
	switch s := s.(type) {
	case nil, scanLookupShape:
		return s, false
	case shape.Save:
		f, ok := wrapOpaque(s.From)
		s.From = f
		return s, ok
	}
	t := reflect.TypeOf(s)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != pathPkg {
		return s, false
	}
	return scanLookupShape{s}, true
}

// scanLookupShape builds its inner shape's iterator with a scanning Lookup.
type scanLookupShape struct{ inner shape.Shape }

func (s scanLookupShape) BuildIterator(qs graph.QuadStore) iterator.Shape {
	return &scanLookup{Shape: s.inner.BuildIterator(qs)}
}

func (s scanLookupShape) Optimize(context.Context, shape.Optimizer) (shape.Shape, bool) {
	return s, false
}

// scanLookup is an iterator whose membership checks scan it (see
// scanIndex); iteration is the inner iterator's own.
type scanLookup struct{ iterator.Shape }

func (s *scanLookup) Optimize(ctx context.Context) (iterator.Shape, bool) {
	inner, ok := s.Shape.Optimize(ctx)
	return &scanLookup{Shape: inner}, ok
}

func (s *scanLookup) Lookup() iterator.Index { return &scanIndex{shape: s.Shape} }

func (s *scanLookup) String() string { return "ScanLookup(" + s.Shape.String() + ")" }

// scanIndex answers Contains by scanning its shape once, lazily, keeping
// every path's tags of each value seen; a value's tags are those recorded
// when the scan yielded it.
type scanIndex struct {
	shape iterator.Shape
	sc    iterator.Scanner
	seen  map[any][]map[string]refs.Ref
	done  bool
	err   error

	cur   refs.Ref
	paths []map[string]refs.Ref
	pi    int
}

func (x *scanIndex) Contains(ctx context.Context, v refs.Ref) bool {
	x.cur, x.paths, x.pi = nil, nil, 0
	key := refs.ToKey(v)
	if p, ok := x.seen[key]; ok {
		x.cur, x.paths = v, p
		return true
	}
	if x.sc == nil {
		x.sc, x.seen = x.shape.Iterate(), map[any][]map[string]refs.Ref{}
	}
	for !x.done {
		if !x.sc.Next(ctx) {
			x.done, x.err = true, x.sc.Err()
			break
		}
		k := refs.ToKey(x.sc.Result())
		paths := x.seen[k]
		for more := true; more; more = x.sc.NextPath(ctx) {
			tags := map[string]refs.Ref{}
			x.sc.TagResults(tags)
			paths = append(paths, tags)
		}
		x.seen[k] = paths
		if k == key {
			x.cur, x.paths = v, paths
			return true
		}
	}
	return false
}

func (x *scanIndex) TagResults(dst map[string]refs.Ref) {
	if x.pi < len(x.paths) {
		for k, v := range x.paths[x.pi] {
			dst[k] = v
		}
	}
}

func (x *scanIndex) NextPath(context.Context) bool {
	if x.pi+1 < len(x.paths) {
		x.pi++
		return true
	}
	return false
}

func (x *scanIndex) Result() refs.Ref { return x.cur }
func (x *scanIndex) Err() error       { return x.err }
func (x *scanIndex) String() string   { return fmt.Sprintf("ScanIndex(%v)", x.shape) }

func (x *scanIndex) Close() error {
	x.seen, x.paths = nil, nil
	if x.sc != nil {
		return x.sc.Close()
	}
	return nil
}
