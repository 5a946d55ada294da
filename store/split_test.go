package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestApplyInParts: batches over a transaction size limit are halved until
// they fit, in order; other errors stop at once with the count written.
func TestApplyInParts(t *testing.T) {
	other := errors.New("disk on fire")
	for _, tc := range []struct {
		name      string
		n         int
		limit     int // the largest batch apply takes
		failAt    int // item whose batch fails with other; -1: none
		wantN     int
		wantErr   error
		wantCalls []int // batch sizes apply was called with
		hint      bool  // the store says how many fit (TooBigError)
	}{
		{name: "fits", n: 8, limit: 8, failAt: -1, wantN: 8, wantCalls: []int{8}},
		{name: "halved once", n: 8, limit: 4, failAt: -1, wantN: 8, wantCalls: []int{8, 4, 4}},
		{name: "odd sizes", n: 5, limit: 2, failAt: -1, wantN: 5, wantCalls: []int{5, 2, 3, 1, 2}},
		{name: "one item too big", n: 4, limit: 0, failAt: -1, wantN: 0, wantErr: ErrTooBig, wantCalls: []int{4, 2, 1}},
		{name: "other error after a part", n: 8, limit: 4, failAt: 5, wantN: 4, wantErr: other, wantCalls: []int{8, 4, 4}},
		{name: "empty", n: 0, limit: 4, failAt: -1},
		// Told how many fit, it cuts there: no failed halves.
		{name: "cut where the store says", n: 10, limit: 3, failAt: -1, wantN: 10, hint: true, wantCalls: []int{10, 3, 7, 3, 4, 3, 1}},
		{name: "a hint of all is halved", n: 4, limit: 0, failAt: -1, wantN: 0, wantErr: ErrTooBig, hint: true, wantCalls: []int{4, 2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]int, tc.n)
			for i := range items {
				items[i] = i
			}
			var calls, written []int
			n, err := ApplyInParts(items, func(b []int) error {
				calls = append(calls, len(b))
				if len(b) > tc.limit && tc.hint {
					fit := tc.limit
					if fit == 0 {
						fit = len(b) // a hint that helps nothing
					}
					return fmt.Errorf("batch of %d: %w", len(b), &TooBigError{Fit: fit})
				}
				if len(b) > tc.limit {
					return fmt.Errorf("batch of %d: %w", len(b), ErrTooBig)
				}
				if tc.failAt >= 0 && slices.Contains(b, tc.failAt) {
					return other
				}
				written = append(written, b...)
				return nil
			})
			if n != tc.wantN || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("ApplyInParts = %d, %v; want %d, %v", n, err, tc.wantN, tc.wantErr)
			}
			if !slices.Equal(calls, tc.wantCalls) {
				t.Errorf("batches %v, want %v", calls, tc.wantCalls)
			}
			if !slices.Equal(written, items[:n]) {
				t.Errorf("written %v, want the first %d in order", written, n)
			}
		})
	}
}
