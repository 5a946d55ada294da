package sqlkg

import (
	"context"
	"fmt"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// QuadSource hands its quads to fn, a slice at a time, in order, stopping
// at fn's first error (which it returns). fn does not keep the slices. A
// source may be called more than once (a write PostgreSQL made a
// deadlock's victim is run again) and must give the same quads each time.
type QuadSource func(fn func([]quad.Quad) error) error

// StreamOptions say where the quads of WriteFrom go.
type StreamOptions struct {
	// Graph is the graph of every quad, or with KeepLabels of the quads
	// without a label.
	Graph string
	// KeepLabels puts a quad with a label into the graph it names.
	KeepLabels bool
	// Delete deletes the quads (those not stored are skipped) instead of
	// adding them (those stored already are skipped).
	Delete bool
}

// maxCopiedNodes bounds the node hashes WriteFrom remembers so as not to
// copy a node again in a later chunk (about 40 MiB); past it they are
// forgotten, and a node may be copied again.
const maxCopiedNodes = 500_000

// WriteFrom adds (or with o.Delete removes) the quads of src in one
// transaction, as Load (Delete) does, holding no more than a chunk of
// them in memory: they are copied into temporary tables chunk by chunk,
// then written by set-based statements. It returns the number of quads
// added (deleted). Readers see the whole write or none of it; an error of
// src rolls everything back. A delete from a graph that holds no quads is
// store.ErrNotFound (unless o.KeepLabels).
func (k *KG) WriteFrom(ctx context.Context, o StreamOptions, src QuadSource) (int64, error) {
	if o.Graph == "" {
		return 0, fmt.Errorf("sql write: empty graph name")
	}
	if err := k.writable(ctx); err != nil {
		return 0, err
	}
	if o.Delete && !o.KeepLabels {
		if err := k.mustHaveGraph(ctx, o.Graph); err != nil {
			return 0, err
		}
	}
	var n int
	r, err := k.retryDeadlocks(ctx, func() (writeResult, error) {
		r, quads, err := k.streamOnce(ctx, o, src)
		n = quads
		return r, err
	})
	if err != nil {
		return 0, err
	}
	if o.Delete {
		return r.deleted, nil
	}
	k.analyzeAfterLoad(ctx, n)
	return r.added, nil
}

// mustHaveGraph is store.ErrNotFound, naming graph, unless graph holds
// quads.
func (k *KG) mustHaveGraph(ctx context.Context, graph string) error {
	names, err := k.graphNames(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(names, graph) {
		return fmt.Errorf("sql delete: graph %q: %w: nothing to delete from", graph, store.ErrNotFound)
	}
	return nil
}

// streamOnce is one transaction of WriteFrom; it also returns the number
// of quads src gave.
func (k *KG) streamOnce(ctx context.Context, o StreamOptions, src QuadSource) (writeResult, int, error) {
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return writeResult{}, 0, k.wrap(ctx, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	s := staged{k}
	if err := s.createTables(ctx, tx); err != nil {
		return writeResult{}, 0, err
	}
	all := &batch{w: &writeSet{opts: ignoreAll}, labels: map[string]string{}}
	acc := newPairSet(all)
	n := 0
	copied := nodeSet{}
	var relabelled []quad.Quad
	err = src(func(qs []quad.Quad) error {
		w := &writeSet{opts: ignoreAll, label: quad.IRI(o.Graph)}
		if o.KeepLabels {
			relabelled = withGraph(relabelled[:0], qs, w.label)
			qs, w.label = relabelled, nil
		}
		if o.Delete {
			w.dels = qs
		} else {
			w.adds = qs
		}
		b, err := newBatch(w)
		if err != nil {
			return fmt.Errorf("quads %d-%d: %w", n+1, n+len(qs), err)
		}
		if len(copied) > maxCopiedNodes {
			clear(copied)
		}
		if err := s.copy(ctx, tx, b, n, copied); err != nil {
			return err
		}
		acc.add(b)
		n += len(qs)
		return ctx.Err()
	})
	if err != nil {
		return writeResult{}, n, err
	}
	if n == 0 {
		return writeResult{}, 0, nil
	}
	r, err := k.finish(ctx, tx, all, s, !o.Delete, o.Delete)
	if err != nil {
		return writeResult{}, n, err
	}
	if err := k.commit(ctx, tx); err != nil {
		return writeResult{}, n, err
	}
	k.forgetCounts()
	return r, n, nil
}

// withGraph appends qs to dst, each with label def when it has none.
func withGraph(dst, qs []quad.Quad, def quad.Value) []quad.Quad {
	for _, q := range qs {
		if q.Label == nil {
			q.Label = def
		}
		dst = append(dst, q)
	}
	return dst
}

// pairSet gathers the labels and (label, predicate) pairs of a write's
// chunks into one batch.
type pairSet struct {
	b    *batch
	seen map[string]*pair
}

func newPairSet(b *batch) *pairSet { return &pairSet{b: b, seen: map[string]*pair{}} }

// add merges chunk's labels and pairs.
func (s *pairSet) add(chunk *batch) {
	for h, name := range chunk.labels {
		s.b.labels[h] = name
	}
	for _, p := range chunk.pairs {
		k := string(p.l) + string(p.p)
		q := s.seen[k]
		if q == nil {
			q = &pair{l: p.l, p: p.p}
			s.seen[k] = q
			s.b.pairs = append(s.b.pairs, q)
		}
		q.adds, q.dels = q.adds || p.adds, q.dels || p.dels
	}
}
