package query

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/cayley/query/shape"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// PanicError is a panic recovered while a query ran: the query fails with
// it instead of taking the process down. Value and Stack are for the
// operator's log; Error names neither.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("the query crashed and was stopped: %v", e.Value)
}

// Origin names the function that raised the panic (the frame under the
// innermost panic call of Stack), or "" when the stack does not show it.
func (e *PanicError) Origin() string {
	lines := strings.Split(string(e.Stack), "\n")
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			last = i
		}
	}
	// A frame is a function line followed by a file:line line.
	if last < 0 || last+2 >= len(lines) {
		return ""
	}
	fn := lines[last+2]
	if i := strings.LastIndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	return fn
}

// Guard is a quad store wrapper that recovers panics raised by the store
// while a query runs, turning them into errors of type *PanicError.
//
// It exists because Gizmo evaluates a query in a goroutine of its own
// (query/gizmo results.Next), where no recover of the caller's can reach:
// a panic there ends the process. That goroutine calls into the store
// only through the quad store's methods and the iterators it hands out, so
// the guard recovers in each of those (Next, Contains, NextPath, Result,
// TagResults, Stats, Optimize, Close, ValueOf, NameOf, ...); the failing
// iterator reports the panic through Err and answers false from then on,
// which ends the query with that error. Panic reports the first panic
// recovered, for callers that must tell a crash from a bad query (the
// server answers 500 for one, 400 for the other).
//
// The guard also records the first error the store returns (StoreErr):
// Gizmo's results drop a failed NameOf's error until the query's end and
// MQL drops it altogether, so without it a query over a store that stopped
// answering went on, one failing lookup per result, and its runner could
// not tell a store failure from a bad query.
//
// A Guard is safe for concurrent use if the wrapped store is; use one per
// query run so that Panic belongs to that run.
type Guard struct {
	graph.QuadStore
	// plainSQL keeps Cayley's SQL optimiser out (see NewGuardFor).
	plainSQL bool

	mu    sync.Mutex
	first *PanicError
	// storeErr is the first error the store returned (see StoreErr).
	storeErr error
	stats    map[string]iterator.Costs // Stats of quad iterators, by direction and node (plainSQL)
}

// NewGuard wraps qs.
func NewGuard(qs graph.QuadStore) *Guard { return &Guard{QuadStore: qs} }

// NewGuardFor wraps qs for a query in lang. A GraphQL query on Cayley's
// SQL store runs without the store's SQL optimiser: nested objects came
// back empty through it (the SQL iterator's tags on a node's further
// paths are nil, and a level below that the optimiser was handed a nil
// filter), while the generic iterators over the same store answer as
// every other store does, more slowly.
func NewGuardFor(qs graph.QuadStore, lang string) *Guard {
	return &Guard{QuadStore: qs, plainSQL: lang == "graphql"}
}

// sql reports whether the wrapped store is (or wraps) Cayley's SQL store.
func (g *Guard) sql() bool { return sqlStore(g.QuadStore) != nil }

// Panic returns the first panic recovered, or nil.
func (g *Guard) Panic() *PanicError {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.first
}

// StoreErr returns the first error the wrapped store returned from a
// lookup (NameOf, ValueOf, Quad, QuadDirection) or an iterator's Err, or
// nil. Query runners stop at it: the query cannot be answered whole. Once
// one is recorded, the lookups fail with it at once instead of asking the
// store again (a language that builds many results in one step, MQL, would
// otherwise ask once per result).
func (g *Guard) StoreErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.storeErr
}

// errorExplainer is a store that can restore the error chain of its own
// errors (sqlkg's quad store: Cayley's SQL iterator formats its error
// with %v).
type errorExplainer interface {
	ExplainError(err error) error
}

// failed records err, when not nil, as a store error (the first is kept)
// and returns it, explained by the store when it can. The end of the
// run's own context (a cancelled or timed-out query, Gizmo's goroutine
// stopped after the last result wanted) is not a store failure and is
// not recorded.
func (g *Guard) failed(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if ex, ok := g.QuadStore.(errorExplainer); ok {
		err = ex.ExplainError(err)
	}
	g.mu.Lock()
	if g.storeErr == nil {
		g.storeErr = err
	}
	g.mu.Unlock()
	return err
}

// recovered records a recovered panic value and returns it as an error.
func (g *Guard) recovered(v any) *PanicError {
	p := &PanicError{Value: v, Stack: debug.Stack()}
	g.mu.Lock()
	if g.first == nil {
		g.first = p
	}
	g.mu.Unlock()
	return p
}

// catch is deferred by every guarded method: it recovers a panic into *err.
func (g *Guard) catch(err *error) {
	if v := recover(); v != nil {
		*err = g.recovered(v)
	}
}

// ValueOf looks v up. A blank node that is not stored under its own name
// is looked up under the name ingest gives it when the database holds a
// single graph G: "_:b1" of the source file is stored as "_:G/b1" (blank
// nodes are scoped per graph), so Cayley queries naming the file's blank
// nodes keep working on a one-graph database. Results name the stored,
// scoped form.
//
// On Cayley's SQL store, whose ValueOf hashes any value without looking
// it up, a value no quad holds has no ref (as on every other store), so
// g.V("unknown") finds nothing instead of one node without a name.
func (g *Guard) ValueOf(v quad.Value) (r graph.Ref, err error) {
	defer g.catch(&err)
	if err := g.StoreErr(); err != nil {
		return nil, err
	}
	r, err = g.QuadStore.ValueOf(v)
	if err != nil {
		return nil, g.failed(err)
	}
	if r != nil && g.sql() {
		name, nerr := g.QuadStore.NameOf(r)
		if nerr != nil {
			return nil, g.failed(nerr)
		}
		if name == nil {
			r = nil
		}
	}
	b, isBNode := v.(quad.BNode)
	if r != nil || err != nil || !isBNode {
		return r, err
	}
	if scope := g.blankScope(); scope != "" {
		r, err = g.QuadStore.ValueOf(quad.BNode(scope + "/" + string(b)))
		return r, g.failed(err)
	}
	return nil, nil
}

// graphLister is the part of store.KG the blank-node lookup needs.
type graphLister interface {
	Graphs(ctx context.Context) ([]store.GraphInfo, error)
}

// blankScope is the name of the database's only graph, or "" when it has
// none, several, or cannot list them.
func (g *Guard) blankScope() string {
	gl, ok := g.QuadStore.(graphLister)
	if !ok {
		return ""
	}
	gs, err := gl.Graphs(context.Background())
	if err != nil || len(gs) != 1 {
		return ""
	}
	return gs[0].Name
}

// NameOf names r; a store error is recorded (StoreErr).
func (g *Guard) NameOf(r graph.Ref) (v quad.Value, err error) {
	defer g.catch(&err)
	if err := g.StoreErr(); err != nil {
		return nil, err
	}
	v, err = g.QuadStore.NameOf(r)
	return v, g.failed(err)
}

// Quad is the quad r; a store error is recorded (StoreErr).
func (g *Guard) Quad(r graph.Ref) (q quad.Quad, err error) {
	defer g.catch(&err)
	if err := g.StoreErr(); err != nil {
		return quad.Quad{}, err
	}
	q, err = g.QuadStore.Quad(r)
	return q, g.failed(err)
}

// QuadDirection is r's node in direction d; a store error is recorded
// (StoreErr).
func (g *Guard) QuadDirection(r graph.Ref, d quad.Direction) (out graph.Ref, err error) {
	defer g.catch(&err)
	if err := g.StoreErr(); err != nil {
		return nil, err
	}
	out, err = g.QuadStore.QuadDirection(r, d)
	return out, g.failed(err)
}

func (g *Guard) QuadIteratorSize(ctx context.Context, d quad.Direction, r graph.Ref) (sz refs.Size, err error) {
	defer g.catch(&err)
	return g.QuadStore.QuadIteratorSize(ctx, d, r)
}

func (g *Guard) Stats(ctx context.Context, exact bool) (st graph.Stats, err error) {
	defer g.catch(&err)
	return g.QuadStore.Stats(ctx, exact)
}

func (g *Guard) QuadIterator(d quad.Direction, r graph.Ref) iterator.Shape {
	s := g.shape(func() iterator.Shape { return g.QuadStore.QuadIterator(d, r) })
	if gs, ok := s.(*guardShape); ok && g.plainSQL {
		// Without the SQL optimiser every quad iterator's size is a
		// COUNT(*); a query asks the same ones again and again (each
		// nested GraphQL object, the same predicate), so they are kept.
		gs.statsKey = d.String() + "\x00" + fmt.Sprint(r)
	}
	return s
}

func (g *Guard) NodesAllIterator() iterator.Shape {
	return g.shape(g.QuadStore.NodesAllIterator)
}

func (g *Guard) QuadsAllIterator() iterator.Shape {
	return g.shape(g.QuadStore.QuadsAllIterator)
}

// OptimizeShape passes the store's own shape optimisations through.
func (g *Guard) OptimizeShape(ctx context.Context, s shape.Shape) (out shape.Shape, ok bool) {
	sq := sqlStore(g.QuadStore)
	o, isOpt := g.QuadStore.(shape.Optimizer)
	if !isOpt && sq == nil {
		return s, false
	}
	defer func() {
		if v := recover(); v != nil {
			g.recovered(v)
			out, ok = s, false
		}
	}()
	if sq != nil {
		if g.plainSQL {
			return s, false
		}
		return g.optimizeStoreShape(ctx, sq, s)
	}
	return o.OptimizeShape(ctx, s)
}

// sqlWrapper is a quad store that wraps Cayley's SQL quad store (the SQL
// backend's, whose writes are its own) and hands it out for its shape
// optimiser.
type sqlWrapper interface {
	SQLQuadStore() *csql.QuadStore
}

// sqlStore is Cayley's SQL quad store that qs is or wraps, or nil.
func sqlStore(qs graph.QuadStore) *csql.QuadStore {
	switch qs := qs.(type) {
	case *csql.QuadStore:
		return qs
	case sqlWrapper:
		return qs.SQLQuadStore()
	}
	return nil
}

// shape builds an iterator shape through build and guards it; a panic
// while building yields an iterator that fails with it. Cayley's Null is
// passed through as is, since optimisers recognise it by type.
func (g *Guard) shape(build func() iterator.Shape) (s iterator.Shape) {
	defer func() {
		if v := recover(); v != nil {
			s = &guardShape{g: g, err: g.recovered(v)}
		}
	}()
	s = build()
	if _, null := s.(*iterator.Null); null || s == nil {
		return s
	}
	return &guardShape{g: g, in: s}
}

// guardShape guards an iterator shape of the store (in), or stands for
// one whose construction panicked (err).
type guardShape struct {
	g   *Guard
	in  iterator.Shape
	err error
	// statsKey, when set, keeps the shape's Stats in the Guard (see
	// Guard.QuadIterator).
	statsKey string
}

func (s *guardShape) String() string {
	if s.in == nil {
		return "Guard(failed)"
	}
	return "Guard(" + s.in.String() + ")"
}

func (s *guardShape) Iterate() (sc iterator.Scanner) {
	if s.err != nil {
		return &guardIter{g: s.g, err: s.err}
	}
	defer func() {
		if v := recover(); v != nil {
			sc = &guardIter{g: s.g, err: s.g.recovered(v)}
		}
	}()
	return &guardIter{g: s.g, sc: s.in.Iterate()}
}

func (s *guardShape) Lookup() (ix iterator.Index) {
	if s.err != nil {
		return &guardIter{g: s.g, err: s.err}
	}
	defer func() {
		if v := recover(); v != nil {
			ix = &guardIter{g: s.g, err: s.g.recovered(v)}
		}
	}()
	return &guardIter{g: s.g, ix: s.in.Lookup()}
}

func (s *guardShape) Stats(ctx context.Context) (c iterator.Costs, err error) {
	if s.err != nil {
		return iterator.Costs{}, s.err
	}
	defer s.g.catch(&err)
	if s.statsKey == "" {
		return s.in.Stats(ctx)
	}
	s.g.mu.Lock()
	c, ok := s.g.stats[s.statsKey]
	s.g.mu.Unlock()
	if ok {
		return c, nil
	}
	if c, err = s.in.Stats(ctx); err == nil {
		s.g.mu.Lock()
		if s.g.stats == nil {
			s.g.stats = map[string]iterator.Costs{}
		}
		s.g.stats[s.statsKey] = c
		s.g.mu.Unlock()
	}
	return c, err
}

func (s *guardShape) Optimize(ctx context.Context) (out iterator.Shape, ok bool) {
	if s.err != nil {
		return s, false
	}
	defer func() {
		if v := recover(); v != nil {
			out, ok = &guardShape{g: s.g, err: s.g.recovered(v)}, true
		}
	}()
	in, ok := s.in.Optimize(ctx)
	if !ok {
		return s, false
	}
	if _, null := in.(*iterator.Null); null {
		return in, true
	}
	return &guardShape{g: s.g, in: in}, true
}

func (s *guardShape) SubIterators() []iterator.Shape {
	if s.in == nil {
		return nil
	}
	return s.in.SubIterators()
}

// guardIter guards a scanner (sc) or an index (ix) of the store. Once a
// panic is recovered (or the shape failed to build), err is set and every
// call answers false / nil.
type guardIter struct {
	g   *Guard
	sc  iterator.Scanner
	ix  iterator.Index
	err error
}

func (it *guardIter) base() iterator.Base {
	if it.sc != nil {
		return it.sc
	}
	if it.ix != nil {
		return it.ix
	}
	return nil
}

// stopped reports whether the iterator must answer no more: a panic was
// recovered, its shape failed to build, or the store failed in this run
// (Guard.StoreErr), which it takes as its error: a language that steps
// on through a failed store (MQL tries path after path) would otherwise
// wait out the store's timeout at each step.
func (it *guardIter) stopped() bool {
	if it.err != nil {
		return true
	}
	if err := it.g.StoreErr(); err != nil {
		it.err = err
		return true
	}
	return false
}

// fail records a recovered panic as the iterator's error.
func (it *guardIter) fail(v any) {
	it.err = it.g.recovered(v)
}

func (it *guardIter) Next(ctx context.Context) (ok bool) {
	if it.stopped() || it.sc == nil {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			it.fail(v)
			ok = false
		}
	}()
	return it.sc.Next(ctx)
}

func (it *guardIter) Contains(ctx context.Context, r refs.Ref) (ok bool) {
	if it.stopped() || it.ix == nil {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			it.fail(v)
			ok = false
		}
	}()
	return it.ix.Contains(ctx, r)
}

func (it *guardIter) NextPath(ctx context.Context) (ok bool) {
	if it.stopped() || it.base() == nil {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			it.fail(v)
			ok = false
		}
	}()
	return it.base().NextPath(ctx)
}

func (it *guardIter) Result() (r refs.Ref) {
	if it.err != nil || it.base() == nil {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			it.fail(v)
			r = nil
		}
	}()
	return it.base().Result()
}

func (it *guardIter) TagResults(dst map[string]refs.Ref) {
	if it.err != nil || it.base() == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			it.fail(v)
		}
	}()
	it.base().TagResults(dst)
}

func (it *guardIter) Err() (err error) {
	if it.err != nil || it.base() == nil {
		return it.err
	}
	defer it.g.catch(&err)
	return it.g.failed(it.base().Err())
}

func (it *guardIter) Close() (err error) {
	if it.base() == nil {
		return nil
	}
	defer it.g.catch(&err)
	return it.base().Close()
}

func (it *guardIter) String() string {
	if it.base() == nil {
		return "Guard(failed)"
	}
	return "Guard(" + it.base().String() + ")"
}
