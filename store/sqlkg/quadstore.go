package sqlkg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// quadStore is Cayley's SQL quad store with Grove's writes: ApplyDeltas
// (and the quad writer Cayley's bulk loaders use) go through the KG's
// transactional write, which keeps grove_graphs exact, instead of
// Cayley's, which knows nothing of it. Reads are Cayley's.
//
// It does not offer Cayley's shape optimiser: the optimiser's SQL shapes
// build only on the concrete *csql.QuadStore, which SQLQuadStore returns
// for query wrappers that hand them to it (store/query's Guard).
type quadStore struct {
	graph.QuadStore // Cayley's *csql.QuadStore
	k               *KG
}

var _ graph.QuadStore = (*quadStore)(nil)

// SQLQuadStore is Cayley's quad store, for its shape optimiser; writing
// through it would bypass the graph counts.
func (s *quadStore) SQLQuadStore() *csql.QuadStore { return s.k.cayley }

// ExplainError restores what Cayley's SQL iterator hides: it reports a
// failed query as fmt.Errorf("sql query failed: %v ...") (%v, not %w), so
// an error that wrapped ErrIdleTimeout no longer matches it (nor
// store.ErrUnavailable). An error whose text holds ErrIdleTimeout's is
// returned wrapping ErrIdleTimeout, one whose text holds a failed dial's
// (unreachableError: the database refused or could not be reached)
// wrapping store.ErrUnavailable; any other is returned as is. Query
// wrappers (store/query's Guard) pass the store errors they record
// through it.
func (s *quadStore) ExplainError(err error) error {
	switch {
	case err == nil || errors.Is(err, store.ErrUnavailable):
		return err
	case strings.Contains(err.Error(), ErrIdleTimeout.Error()):
		return fmt.Errorf("%w: %v", ErrIdleTimeout, err)
	case strings.Contains(err.Error(), unreachablePrefix):
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	return err
}

// ApplyDeltas applies the deltas in one transaction, adds before deletes
// as Cayley does, honouring opts. A duplicate add (IgnoreDup false) or a
// missing delete (IgnoreMissing false) fails the whole batch with a
// *graph.DeltaError naming the quad (graph.ErrQuadExists,
// graph.ErrQuadNotExist); so does an action other than add or delete
// (graph.ErrInvalidAction).
//
// Cayley's interface passes no context; the connector's idle timeout
// bounds the calls (see Config.IdleTimeout). ApplyDeltasContext takes one.
func (s *quadStore) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	return s.ApplyDeltasContext(context.Background(), in, opts)
}

// ApplyDeltasContext is ApplyDeltas bounded by ctx (the server's Cayley
// write routes pass the request's): once ctx ends, the error wraps
// ctx.Err(); the transaction is rolled back, nothing of the batch
// written, unless ctx ended while PostgreSQL ran its COMMIT: then the
// error also wraps ErrCommitUnknown (the batch may have been applied).
func (s *quadStore) ApplyDeltasContext(ctx context.Context, in []graph.Delta, opts graph.IgnoreOpts) error {
	w, err := deltaSet(in, opts)
	if err != nil {
		return err
	}
	if len(in) == 0 {
		return s.k.usable(ctx)
	}
	_, err = s.k.write(ctx, w)
	return err
}

// deltaSet is the write of deltas in with opts, or a *graph.DeltaError
// for an action other than add or delete.
func deltaSet(in []graph.Delta, opts graph.IgnoreOpts) (*writeSet, error) {
	w := &writeSet{opts: opts}
	for _, d := range in {
		switch d.Action {
		case graph.Add:
			w.adds = append(w.adds, d.Quad)
		case graph.Delete:
			w.dels = append(w.dels, d.Quad)
		default:
			return nil, &graph.DeltaError{Delta: d, Err: graph.ErrInvalidAction}
		}
	}
	return w, nil
}

// NewQuadWriter returns a writer that adds quads (duplicates skipped)
// through ApplyDeltas, one transaction per WriteQuads.
func (s *quadStore) NewQuadWriter() (quad.WriteCloser, error) {
	return &quadWriter{qs: s}, nil
}

// quadWriter adds quads through a quadStore.
type quadWriter struct {
	qs *quadStore
}

func (w *quadWriter) WriteQuad(q quad.Quad) error {
	_, err := w.WriteQuads([]quad.Quad{q})
	return err
}

func (w *quadWriter) WriteQuads(qs []quad.Quad) (int, error) {
	_, err := w.qs.k.write(context.Background(), &writeSet{adds: qs, opts: graph.IgnoreOpts{IgnoreDup: true}})
	if err != nil {
		return 0, err
	}
	return len(qs), nil
}

func (w *quadWriter) Close() error { return nil }
