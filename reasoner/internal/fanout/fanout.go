// Package fanout is the one bounded fan-out every Grove reasoner uses for
// its concurrent model and KG calls (samples, evaluations, relation
// explorations, entity links).
//
// Each reasoner used to carry its own hand-written loop of goroutines with
// its own cancellation rule; Run replaces them with one rule, built on
// golang.org/x/sync/errgroup:
//
//   - at most Limit calls run at once (the OpenAI client bounds requests
//     globally too; this bounds the goroutines and KG reads of one step);
//   - the first error cancels the context the other calls receive, and
//     Run returns that first error once every started call has returned;
//   - no call is started after the context is cancelled.
//
// Results are written by index into a slice the caller owns, so their
// order never depends on scheduling.
package fanout

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Limit is the default number of calls of one fan-out that run at once.
const Limit = 8

// Run calls f(ctx, i) for i in [0, n) with at most limit calls at once
// (limit <= 0 means Limit). The first error cancels the context of the
// other calls and is returned after all started calls have returned; a
// cancelled parent context is returned as its error when it prevented a
// call from starting.
func Run(ctx context.Context, n, limit int, f func(ctx context.Context, i int) error) error {
	if n <= 0 {
		return nil
	}
	if limit <= 0 {
		limit = Limit
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return f(gctx, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// Map calls f for every item with Run's rules and returns the results in
// item order.
func Map[T, R any](ctx context.Context, items []T, limit int, f func(ctx context.Context, item T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	err := Run(ctx, len(items), limit, func(ctx context.Context, i int) error {
		var err error
		out[i], err = f(ctx, items[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
