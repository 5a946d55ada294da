package trace

import (
	"context"
	"time"

	"github.com/grove-kg/grove/store"
)

// KGRecorder receives the KG calls a TracingKG observes.
type KGRecorder interface {
	RecordKGCall(ctx context.Context, c KGCall)
}

// TracingKG is a store.KG decorator that records every call (operation,
// arguments, result count, latency, error) to a KGRecorder, tagged with
// the node carried by the call's context.
type TracingKG struct {
	inner store.KG
	rec   KGRecorder
}

var _ store.KG = (*TracingKG)(nil)

// NewTracingKG wraps kg.
func NewTracingKG(kg store.KG, rec KGRecorder) *TracingKG {
	return &TracingKG{inner: kg, rec: rec}
}

// Unwrap returns the wrapped KG.
func (k *TracingKG) Unwrap() store.KG { return k.inner }

func (k *TracingKG) record(ctx context.Context, op string, args KGArgs, start time.Time, n int, err error) {
	c := KGCall{Op: op, Args: args, Results: n, Start: start, Latency: time.Since(start)}
	if err != nil {
		c.Error = err.Error()
	}
	k.rec.RecordKGCall(ctx, c)
}

// Graphs records and forwards the call.
func (k *TracingKG) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	start := time.Now()
	out, err := k.inner.Graphs(ctx)
	k.record(ctx, "graphs", KGArgs{}, start, len(out), err)
	return out, err
}

// Search records and forwards the call.
func (k *TracingKG) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	start := time.Now()
	out, err := k.inner.Search(ctx, graph, text, limit)
	k.record(ctx, "search", KGArgs{Graph: graph, Text: text, Limit: limit}, start, len(out), err)
	return out, err
}

// Entity records and forwards the call.
func (k *TracingKG) Entity(ctx context.Context, id string) (store.Entity, error) {
	start := time.Now()
	out, err := k.inner.Entity(ctx, id)
	n := 1
	if err != nil {
		n = 0
	}
	k.record(ctx, "entity", KGArgs{ID: id}, start, n, err)
	return out, err
}

// Relations records and forwards the call.
func (k *TracingKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	start := time.Now()
	out, err := k.inner.Relations(ctx, ids, dir)
	k.record(ctx, "relations", KGArgs{IDs: ids, Dir: dir.String()}, start, len(out), err)
	return out, err
}

// Edges records and forwards the call.
func (k *TracingKG) Edges(ctx context.Context, ids []string, relation string, dir store.Direction, limit int) ([]store.Edge, error) {
	start := time.Now()
	out, err := k.inner.Edges(ctx, ids, relation, dir, limit)
	k.record(ctx, "edges", KGArgs{IDs: ids, Relation: relation, Dir: dir.String(), Limit: limit}, start, len(out), err)
	return out, err
}

// Neighbors records and forwards the call.
func (k *TracingKG) Neighbors(ctx context.Context, id, relation string, dir store.Direction, limit int) ([]store.Entity, error) {
	start := time.Now()
	out, err := k.inner.Neighbors(ctx, id, relation, dir, limit)
	k.record(ctx, "neighbors", KGArgs{ID: id, Relation: relation, Dir: dir.String(), Limit: limit}, start, len(out), err)
	return out, err
}

// Degree records and forwards the call; Results is the degree.
func (k *TracingKG) Degree(ctx context.Context, id, relation string, dir store.Direction) (int64, error) {
	start := time.Now()
	out, err := k.inner.Degree(ctx, id, relation, dir)
	k.record(ctx, "degree", KGArgs{ID: id, Relation: relation, Dir: dir.String()}, start, int(out), err)
	return out, err
}

// Features records and forwards the call.
func (k *TracingKG) Features(ctx context.Context, id string) ([]store.Feature, error) {
	start := time.Now()
	out, err := k.inner.Features(ctx, id)
	k.record(ctx, "features", KGArgs{ID: id}, start, len(out), err)
	return out, err
}

// SameAs records and forwards the call.
func (k *TracingKG) SameAs(ctx context.Context, id, graph string) ([]store.Link, error) {
	start := time.Now()
	out, err := k.inner.SameAs(ctx, id, graph)
	k.record(ctx, "same_as", KGArgs{ID: id, Graph: graph}, start, len(out), err)
	return out, err
}
