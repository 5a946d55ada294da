package engine

import (
	"context"
	"sync"
)

// predFeed feeds the P sorter (the (p, g, s) of every new S group) from a
// goroutine of its own: the S side's writer hands it blocks of entries
// and goes on, so sorting and spilling them overlaps the S and O lists
// instead of lengthening the S side, the longer of the two.
//
// add and finish are called from one goroutine (the S writer's); stop may
// be called from any, any number of times, and must be called once the
// feed is no longer used (it ends the goroutine).
type predFeed struct {
	s     *quadSorter
	block []qids
	ch    chan []qids
	free  chan []qids
	done  chan struct{}
	err   error // the sorter's first error, read after done is closed
	close sync.Once
}

const predBlock = 4096

// newPredFeed starts a feed into s.
func newPredFeed(s *quadSorter) *predFeed {
	f := &predFeed{s: s, ch: make(chan []qids, 4), free: make(chan []qids, 5), done: make(chan struct{})}
	go f.run()
	return f
}

func (f *predFeed) run() {
	defer close(f.done)
	for b := range f.ch {
		for _, q := range b {
			if f.err != nil {
				break // keep draining so that add never blocks for good
			}
			f.err = f.s.add(q)
		}
		select {
		case f.free <- b[:0]:
		default: // enough spare blocks
		}
	}
}

// add queues one entry.
func (f *predFeed) add(q qids) error {
	if f.block == nil {
		select {
		case f.block = <-f.free:
		default:
			f.block = make([]qids, 0, predBlock)
		}
	}
	f.block = append(f.block, q)
	if len(f.block) == predBlock {
		f.send()
	}
	return nil
}

func (f *predFeed) send() {
	if len(f.block) > 0 {
		f.ch <- f.block
	}
	f.block = nil
}

// finish hands over the last entries, waits for the sorter and returns
// the merge of its runs (see quadSorter.finish).
func (f *predFeed) finish(ctx context.Context) (*quadMerger, error) {
	f.send()
	f.stop()
	if f.err != nil {
		return nil, f.err
	}
	return f.s.finish(ctx)
}

// stop ends the feed's goroutine after the queued blocks.
func (f *predFeed) stop() {
	f.close.Do(func() { close(f.ch) })
	<-f.done
}
