package query

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/storetest"
)

// TestWatchHeapStopsQueries checks that a query keeping more than the
// watch allows is stopped with a *HeapLimitError, in Gizmo (a program
// keeping many strings, each within the builtin limits) and GraphQL (an
// answer built whole), while a program that allocates as much but keeps
// none of it, or keeps little, runs to its end.
func TestWatchHeapStopsQueries(t *testing.T) {
	db := storetest.Open(t, nil)
	var qs []quad.Quad
	for i := range 20000 {
		qs = append(qs, quad.MakeIRI("n"+strings.Repeat("x", 200)+strconv.Itoa(i), "p", "o"+strconv.Itoa(i%100), ""))
	}
	storetest.Load(t, db, "g", qs)
	const limit = 96 << 20
	settled := liveHeap()
	for _, tc := range []struct {
		name, lang, query string
		stopped           bool
	}{
		// 1 GiB allocated (two strings of 1 MiB each time round), 1 MiB kept at a time.
		{"gizmo garbage", "gizmo", `var n = 0; for (var i = 0; i < 512; i++) n += ("x".repeat(1 << 20) + i).length; n`, false},
		{"gizmo small", "gizmo", `g.V("<o1>").In("<p>").Count()`, false},
		// 600 strings of 1 MiB kept: 600 MiB.
		{"gizmo keeps", "gizmo", `var a = []; for (var i = 0; i < 600; i++) a.push("x".repeat(1 << 20) + i); a.length`, true},
		// s += s keeps doubling (no builtin is called), then the program
		// runs on for 3 s, which a stop ends (the watch may see the heap
		// only after the last doubling, and a program that has ended is
		// not stopped).
		{"gizmo doubles", "gizmo", `var s = "xy"; for (var i = 0; i < 29; i++) s += s;
			var t = Date.now(); while (Date.now() - t < 3000) {}; s.length`, true},
		// Every node with its id and each node's neighbours, many times
		// over: far past the limit while GraphQL builds the answer.
		{"graphql whole answer", "graphql", `{ nodes { id, in: <p> @rev { id, out: <p> { id, back: <p> @rev { id } } } } }`, true},
	} {
		// The stopped cases come last, and each case waits for the heap to
		// settle (waitHeap).
		t.Run(tc.name, func(t *testing.T) {
			waitHeap(t, settled+limit/4)
			ctx, stop := WatchHeap(context.Background(), limit)
			defer stop()
			start := time.Now()
			_, err := Run(ctx, db, tc.lang, tc.query, 10)
			var h *HeapLimitError
			if stopped := errors.As(err, &h); stopped != tc.stopped {
				t.Fatalf("Run = %v (after %s), want stopped by the heap watch: %v", err, time.Since(start), tc.stopped)
			}
			if tc.stopped {
				if h.Limit != limit || h.Grew <= limit || !strings.Contains(err.Error(), "the live heap grew by") {
					t.Fatalf("error %v: %+v", err, h)
				}
			} else if err != nil {
				t.Fatalf("Run = %v", err)
			}
		})
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitHeap waits until the live heap is at most n bytes: a stopped
// program ends at its next JavaScript step, and until then what it holds
// counts against the next query (on a loaded machine a GraphQL case once
// ran whole while the previous case's strings were being freed).
func waitHeap(t *testing.T, n uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for liveHeap() > n {
		if time.Now().After(deadline) {
			t.Fatalf("the live heap stayed at %d bytes, over %d, for a minute", liveHeap(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWatchHeapZeroAndStop checks that a zero limit watches nothing and
// that the returned function cancels the context without a heap cause.
func TestWatchHeapZeroAndStop(t *testing.T) {
	for _, limit := range []uint64{0, 1 << 40} {
		ctx, stop := WatchHeap(context.Background(), limit)
		if ctx.Err() != nil {
			t.Fatalf("limit %d: context ended at once: %v", limit, context.Cause(ctx))
		}
		stop()
		if !errors.Is(ctx.Err(), context.Canceled) || HeapLimited(ctx) != nil {
			t.Fatalf("limit %d: after stop: %v, %v", limit, ctx.Err(), HeapLimited(ctx))
		}
	}
}
