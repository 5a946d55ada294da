package query

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"
)

// DefaultMaxHeapGrowth is the heap growth a query may cause before Run
// stops it (see WatchHeap).
const DefaultMaxHeapGrowth = 1 << 30

// heapPoll is how often WatchHeap reads the heap's size. Reading it is a
// few hundred nanoseconds (runtime/metrics, no stop of the world); at a
// few GB/s of allocation a program gains at most some tens of MB between
// two reads.
const heapPoll = 10 * time.Millisecond

// heapObjects is the runtime metric WatchHeap polls: the bytes of live
// objects and of dead ones the collector has not freed yet. Right after a
// collection (runtime.GC sweeps before it returns) it is the live heap.
const heapObjects = "/memory/classes/heap/objects:bytes"

// HeapLimitError is the cause of a context that WatchHeap cancelled.
type HeapLimitError struct {
	// Limit is the growth the watch allowed, Grew the growth it found.
	Limit, Grew uint64
}

func (e *HeapLimitError) Error() string {
	return fmt.Sprintf("the query was stopped: the live heap grew by %s while it ran, over the %s a query may use "+
		"(the growth of the whole process, so work running beside the query counts too)",
		byteSize(e.Grew), byteSize(e.Limit))
}

// WatchHeap returns a context derived from parent that is cancelled, with
// a *HeapLimitError as its cause (context.Cause), once the process's live
// heap has grown by more than limit bytes since the call; the returned
// function ends the watch and cancels the context (call it when the work
// is done). It exists because the query languages have no memory limit of
// their own: a Gizmo program may keep a thousand strings of a megabyte
// each, each allowed alone, and a GraphQL answer is built whole before it
// can be measured, so without a watch one query can take the heap until
// the process is killed. Gizmo, GraphQL and MQL stop when their context is
// cancelled (Gizmo interrupts the program), which releases what they held.
//
// The heap is polled every 10 ms; when the heap holds more than the limit
// beyond its live size at the call, a collection is forced, so that
// garbage alone never stops a query, and the context is cancelled only if
// the live heap is still over. The growth is the process's: concurrent
// queries and requests count against each other, so a limit should leave
// room for them (the server's default is 1 GiB per query). A limit of 0
// watches nothing: the context is only cancelled with parent or the
// returned function. WatchHeap is safe to call from any goroutine; each
// watch runs one goroutine until its context ends.
func WatchHeap(parent context.Context, limit uint64) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := func() { cancel(context.Canceled) }
	if limit == 0 {
		return ctx, stop
	}
	w := &heapWatch{sample: []metrics.Sample{{Name: heapObjects}}, limit: limit}
	w.base = w.startBase()
	go w.run(ctx, cancel)
	return ctx, stop
}

// heapWatch is the state of one WatchHeap goroutine.
type heapWatch struct {
	sample []metrics.Sample
	limit  uint64
	// base is the live heap when the watch began (see startBase).
	base uint64
}

// startBase is the live heap at the watch's start, or a bound below it.
// The live heap is known only at a collection: /gc/heap/live:bytes is the
// last one's, and the heap's objects now hold garbage too. Taking the
// objects as the base would let a query grow by the limit plus all the
// garbage before it (and the next query by more, the first's garbage
// included); taking the last collection's live heap could stop a query
// for what other work kept alive since. So the base is the last
// collection's live heap, unless more than half the limit was allocated
// since, in which case a collection is forced and the base measured: a
// query is then only ever stopped after growing by half the limit
// itself, and a forced collection at the start costs no more often than
// once per half-limit of allocation.
func (w *heapWatch) startBase() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		if last := s[0].Value.Uint64(); w.read() <= last+w.limit/2 {
			return last
		}
	}
	runtime.GC()
	return w.read()
}

// read is the heap's objects now (live and not yet freed).
func (w *heapWatch) read() uint64 {
	metrics.Read(w.sample)
	if w.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return w.sample[0].Value.Uint64()
}

// run polls the heap until ctx ends or the live heap passes the limit.
func (w *heapWatch) run(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(heapPoll)
	defer t.Stop()
	// next is the size past which the heap is collected and measured.
	next := w.base + w.limit
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if w.read() <= next {
			continue
		}
		runtime.GC()
		live := w.read()
		if live > w.base+w.limit {
			cancel(&HeapLimitError{Limit: w.limit, Grew: live - w.base})
			return
		}
		// Garbage filled the room: collect again only after as much
		// allocation as the limit's half, so a program that allocates and
		// drops fast forces a collection at most every limit/2 bytes.
		next = max(w.base+w.limit, live+w.limit/2)
	}
}

// HeapLimited is the *HeapLimitError that ended ctx, a context of
// WatchHeap or one derived from it, or nil when ctx is live or ended
// otherwise.
func HeapLimited(ctx context.Context) *HeapLimitError {
	var h *HeapLimitError
	if errors.As(context.Cause(ctx), &h) {
		return h
	}
	return nil
}

// byteSize formats n bytes in MiB.
func byteSize(n uint64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
