package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// Backend is the name the engine registers under with Cayley.
const Backend = "grove"

var registerOnce sync.Once

// Register registers the engine as Cayley backend "grove". Call it
// explicitly (it is idempotent): registration at init time is avoided on
// purpose, because Cayley's own kv registry has an init-order bug.
func Register() {
	registerOnce.Do(func() {
		graph.RegisterQuadStore(Backend, graph.QuadStoreRegistration{
			NewFunc: func(path string, opts graph.Options) (graph.QuadStore, error) {
				ro, err := opts.BoolKey("read_only", false)
				if err != nil {
					return nil, err
				}
				return Open(path, Options{ReadOnly: ro})
			},
			InitFunc: func(path string, _ graph.Options) error {
				db, err := Open(path, Options{})
				if err != nil {
					return err
				}
				return db.Close()
			},
			IsPersistent: true,
		})
	})
}

var _ graph.QuadStore = (*DB)(nil)

// nodeRef is a Cayley reference to a term.
type nodeRef uint64

// Key implements refs.Ref.
func (n nodeRef) Key() any { return n }

// quadRef is a Cayley reference to a quad: its four term ids (g = 0 when
// the quad has no label).
type quadRef qids

// Key implements refs.Ref.
func (q quadRef) Key() any { return q }

func (q quadRef) dir(d quad.Direction) uint64 {
	switch d {
	case quad.Subject:
		return q.s
	case quad.Predicate:
		return q.p
	case quad.Object:
		return q.o
	case quad.Label:
		return q.g
	}
	return 0
}

// ValueOf returns the reference of a value, or nil if it is not stored.
func (db *DB) ValueOf(v quad.Value) (graph.Ref, error) {
	if v == nil {
		return nil, nil
	}
	var ref graph.Ref
	err := db.bdb.View(func(txn *badger.Txn) error {
		id, ok, err := db.visibleTermID(txn, v)
		if ok {
			ref = nodeRef(id)
		}
		return err
	})
	return ref, err
}

// NameOf returns the value of a node reference.
func (db *DB) NameOf(r graph.Ref) (quad.Value, error) {
	switch r := r.(type) {
	case nil:
		return nil, nil
	case refs.PreFetchedValue:
		return r.NameOf(), nil
	case nodeRef:
		var v quad.Value
		err := db.bdb.View(func(txn *badger.Txn) (err error) {
			v, err = db.term(txn, uint64(r))
			return err
		})
		return v, err
	}
	return nil, fmt.Errorf("not a node reference: %T", r)
}

// Quad returns the quad of a quad reference.
func (db *DB) Quad(r graph.Ref) (quad.Quad, error) {
	q, ok := r.(quadRef)
	if !ok {
		return quad.Quad{}, fmt.Errorf("not a quad reference: %T", r)
	}
	var out quad.Quad
	err := db.bdb.View(func(txn *badger.Txn) error {
		for _, d := range quad.Directions {
			id := q.dir(d)
			if id == 0 {
				continue
			}
			v, err := db.term(txn, id)
			if err != nil {
				return err
			}
			out.Set(d, v)
		}
		return nil
	})
	return out, err
}

// QuadDirection returns the node in direction d of a quad reference.
func (db *DB) QuadDirection(r graph.Ref, d quad.Direction) (graph.Ref, error) {
	q, ok := r.(quadRef)
	if !ok {
		return nil, fmt.Errorf("not a quad reference: %T", r)
	}
	id := q.dir(d)
	if id == 0 {
		return nil, nil
	}
	return nodeRef(id), nil
}

// Stats returns exact node and quad counts (Cayley).
func (db *DB) Stats(ctx context.Context, exact bool) (graph.Stats, error) {
	st := db.Counts()
	return graph.Stats{Nodes: refs.Size{Value: st.Nodes, Exact: true},
		Quads: refs.Size{Value: st.Quads, Exact: true}}, nil
}

// QuadIterator iterates the quads that have node r in direction d.
func (db *DB) QuadIterator(d quad.Direction, r graph.Ref) iterator.Shape {
	n, ok := r.(nodeRef)
	if !ok {
		return iterator.NewNull()
	}
	return &quadShape{db: db, d: d, id: uint64(n)}
}

// QuadIteratorSize returns the number of quads with node r in direction d.
func (db *DB) QuadIteratorSize(ctx context.Context, d quad.Direction, r graph.Ref) (refs.Size, error) {
	n, ok := r.(nodeRef)
	if !ok {
		return refs.Size{Value: 0, Exact: true}, nil
	}
	return (&quadShape{db: db, d: d, id: uint64(n)}).size()
}

// NodesAllIterator iterates every term.
func (db *DB) NodesAllIterator() iterator.Shape { return &allShape{db: db, nodes: true} }

// QuadsAllIterator iterates every quad.
func (db *DB) QuadsAllIterator() iterator.Shape { return &allShape{db: db} }
