package engine

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/cayleygraph/quad"
)

// quadFeed moves the work of WriteQuad — encoding the terms, interning
// them into the batch vocabulary, spilling full batches — off the
// caller's goroutine, which is usually the parser's: WriteQuad only
// checks a quad and appends it to a block, and full blocks go to one feed
// goroutine, so parsing and interning use both cores. The feed goroutine
// adds a block at a time (Loader.addBlock: encode and hash the block's
// objects, prefetch their vocabulary slots, intern in order). It
// owns the Loader's batch state until stop returns. Its first error is
// kept: later blocks are dropped, and WriteQuad and stop return it.
type quadFeed struct {
	pending []quad.Quad
	fed     int64 // quads accepted by WriteQuad
	blocks  chan []quad.Quad
	free    chan []quad.Quad
	done    chan struct{}
	err     error       // written by the feed goroutine before failed is set
	failed  atomic.Bool // err is set
	stopped bool
}

// feedBlock is the number of quads handed over at a time.
const feedBlock = 2048

// put queues q for l's feed goroutine, starting it on first use.
func (f *quadFeed) put(l *Loader, q quad.Quad) error {
	if f.failed.Load() {
		return f.err
	}
	if f.stopped {
		return errors.New("bulk load: already committed or closed")
	}
	if f.pending == nil {
		f.pending = make([]quad.Quad, 0, feedBlock)
	}
	f.pending = append(f.pending, q)
	f.fed++
	if len(f.pending) < feedBlock {
		return nil
	}
	if f.blocks == nil {
		f.start(l)
	}
	f.blocks <- f.pending
	select {
	case f.pending = <-f.free:
	default:
		f.pending = make([]quad.Quad, 0, feedBlock)
	}
	return nil
}

// start runs the feed goroutine.
func (f *quadFeed) start(l *Loader) {
	f.blocks = make(chan []quad.Quad, 2)
	f.free = make(chan []quad.Quad, 3)
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		for blk := range f.blocks {
			f.add(l, blk)
			clear(blk) // drop the values before reuse
			select {
			case f.free <- blk[:0]:
			default:
			}
		}
	}()
}

// add adds one block of quads to the batch; after an error it does nothing.
func (f *quadFeed) add(l *Loader, blk []quad.Quad) {
	if f.err != nil {
		return
	}
	if err := l.addBlock(blk); err != nil {
		f.err = err
		f.failed.Store(true)
	}
}

// stop adds the quads still pending, waits for the feed goroutine and
// returns its first error. After stop the caller owns l's batch state.
func (f *quadFeed) stop(l *Loader) error {
	if f.stopped {
		return f.err
	}
	f.stopped = true
	if f.blocks == nil { // never started: add the few pending quads here
		f.add(l, f.pending)
	} else {
		if len(f.pending) > 0 {
			f.blocks <- f.pending
		}
		close(f.blocks)
		<-f.done
	}
	f.pending = nil
	return f.err
}

// checkEncodable reports whether encodeTerm can encode v, without
// encoding it (WriteQuad checks every value; the feed goroutine encodes).
func checkEncodable(v quad.Value) error {
	switch v.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.LangString, quad.TypedString, quad.Time:
		return nil
	case nil:
		return errors.New("nil value")
	}
	if _, ok := v.(quad.TypedStringer); ok {
		return nil
	}
	return fmt.Errorf("unsupported value type %T", v)
}
