package server

import (
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner/trace"
)

// TestStreamBufferNeverBlocks feeds a stream whose client reads nothing:
// every observer call returns at once, the buffer stays bounded, node
// events coalesce into each node's latest state, and the dropped calls are
// counted in a "dropped" event sent first.
func TestStreamBufferNeverBlocks(t *testing.T) {
	b := newStreamBuffer(&redactor{})
	const nodes, updates, calls = 5, 400, 5000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for id := 1; id <= nodes; id++ {
			b.OnNode(trace.Node{ID: id})
		}
		for i := range updates {
			b.OnNodeUpdate(trace.Node{ID: 1 + i%nodes, Value: float64(i)})
		}
		for range calls {
			b.OnModelCall(trace.ModelCall{Task: "t"})
			b.OnKGCall(trace.KGCall{Op: "edges"})
		}
		b.OnFinish()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("observer calls blocked on a client that reads nothing")
	}
	evs, finished := b.take()
	if !finished {
		t.Error("stream not finished")
	}
	if len(evs) > 1+2*nodes+maxPendingCalls {
		t.Fatalf("%d events buffered, bound is %d", len(evs), 1+2*nodes+maxPendingCalls)
	}
	d, ok := evs[0].data.(droppedEvent)
	if evs[0].name != "dropped" || !ok || d.ModelCalls+d.KGCalls != 2*calls-maxPendingCalls {
		t.Fatalf("first event %+v, want the dropped counts (%d in all)", evs[0], 2*calls-maxPendingCalls)
	}
	latest := map[int]float64{}
	for _, ev := range evs[1:] {
		if n, ok := ev.data.(trace.Node); ok {
			if _, created := latest[n.ID]; created == (ev.name == "node") {
				t.Errorf("node %d: %q event out of order", n.ID, ev.name)
			}
			latest[n.ID] = n.Value
		}
	}
	for id := 1; id <= nodes; id++ {
		want := float64(updates - nodes + id - 1)
		if latest[id] != want {
			t.Errorf("node %d value %g, want its latest %g", id, latest[id], want)
		}
	}
	if evs, _ := b.take(); len(evs) != 0 {
		t.Errorf("second take returned %d events", len(evs))
	}
}

// TestModelCallEventCachedTokens: a model call event says what its
// samples from the cache cost when produced.
func TestModelCallEventCachedTokens(t *testing.T) {
	b := newStreamBuffer(&redactor{})
	b.OnModelCall(trace.ModelCall{Task: "t", CacheHits: 2, CachedPromptTokens: 40, CachedCompletionTokens: 6})
	evs, _ := b.take()
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	e, ok := evs[0].data.(modelCallEvent)
	if !ok || e.CacheHits != 2 || e.CachedPromptTokens != 40 || e.CachedCompletionTokens != 6 {
		t.Errorf("event %+v", evs[0].data)
	}
}
