package fanout

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunBoundsConcurrency(t *testing.T) {
	var cur, peak atomic.Int32
	err := Run(context.Background(), 50, 3, func(ctx context.Context, i int) error {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		cur.Add(-1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 3 || p < 1 {
		t.Fatalf("peak concurrency %d, want 1..3", p)
	}
}

func TestRunCancelsOnFirstError(t *testing.T) {
	boom := errors.New("boom")
	var cancelled atomic.Int32
	var started atomic.Int32
	err := Run(context.Background(), 20, 2, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 0 {
			return boom
		}
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if started.Load() == 20 {
		t.Fatalf("every call started after the first error")
	}
}

func TestRunParentCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err := Run(ctx, 5, 1, func(ctx context.Context, i int) error { calls++; return nil })
	if !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("err = %v, calls = %d; want context.Canceled and no call", err, calls)
	}
}

func TestMapKeepsOrder(t *testing.T) {
	tests := []struct {
		name  string
		items []int
		limit int
	}{
		{"empty", nil, 2}, {"one", []int{7}, 0}, {"many", []int{5, 4, 3, 2, 1, 0}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Map(context.Background(), tc.items, tc.limit, func(_ context.Context, v int) (int, error) {
				time.Sleep(time.Duration(v) * time.Millisecond)
				return v * 10, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range tc.items {
				if out[i] != v*10 {
					t.Fatalf("out[%d] = %d, want %d", i, out[i], v*10)
				}
			}
		})
	}
}
