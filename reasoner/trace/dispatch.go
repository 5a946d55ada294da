package trace

import (
	"context"
	"sync"
	"time"
)

// MaxFlushWait bounds how long Flush waits for a stuck observer.
const MaxFlushWait = time.Second

// dispatcher delivers a Recorder's events to its Observer from a goroutine
// of its own, in the order the Recorder applied them, never under the
// Recorder's lock. A slow or blocked observer therefore never holds up the
// run: its events wait in an in-memory queue (bounded by the trace itself,
// which the Recorder keeps anyway) until it returns.
type dispatcher struct {
	obs Observer

	mu     sync.Mutex
	queue  []func(Observer)
	closed bool
	wake   chan struct{}
	// done is closed once every event queued before close was delivered.
	done chan struct{}
}

func newDispatcher(obs Observer) *dispatcher {
	d := &dispatcher{obs: obs, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go d.loop()
	return d
}

// push queues one event; events pushed after close are dropped.
func (d *dispatcher) push(ev func(Observer)) {
	d.mu.Lock()
	if !d.closed {
		d.queue = append(d.queue, ev)
	}
	d.mu.Unlock()
	d.signal()
}

// close ends the stream: the loop delivers what is queued, then tells a
// Finisher observer and exits.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.signal()
}

func (d *dispatcher) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *dispatcher) loop() {
	defer close(d.done)
	for range d.wake {
		for {
			d.mu.Lock()
			batch, closed := d.queue, d.closed
			d.queue = nil
			d.mu.Unlock()
			for _, ev := range batch {
				ev(d.obs)
			}
			if len(batch) > 0 {
				continue
			}
			if closed {
				if f, ok := d.obs.(Finisher); ok {
					f.OnFinish()
				}
				return
			}
			break
		}
	}
}

// Flush waits until every event recorded before Finish has reached the
// observer, ctx ends, or MaxFlushWait passes (a stuck observer then misses
// nothing: it gets the rest of its events when it returns, but the run does
// not wait for it). It reports whether everything was delivered. A
// Recorder without an observer is always flushed.
func (r *Recorder) Flush(ctx context.Context) bool {
	if r.out == nil {
		return true
	}
	t := time.NewTimer(MaxFlushWait)
	defer t.Stop()
	select {
	case <-r.out.done:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}
