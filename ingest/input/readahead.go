package input

import (
	"errors"
	"io"
	"sync"
)

// errClosed is returned by Read after Close.
var errClosed = errors.New("read after close")

// chunk is one buffer filled by the read-ahead goroutine.
type chunk struct {
	buf []byte
	n   int
	err error
}

// readAhead reads its source on a goroutine into a small ring of buffers,
// so that a slow decoder runs concurrently with the consumer.
type readAhead struct {
	full  chan chunk
	free  chan []byte
	done  chan struct{}
	once  sync.Once
	cur   []byte // unread part of the current buffer
	owned []byte // the current buffer, returned to free when drained
	err   error
}

func newReadAhead(src io.Reader, buffers, size int) *readAhead {
	ra := &readAhead{
		full: make(chan chunk, buffers),
		free: make(chan []byte, buffers),
		done: make(chan struct{}),
	}
	for range buffers {
		ra.free <- make([]byte, size)
	}
	go ra.fill(src)
	return ra
}

// fill runs on its own goroutine until src ends, fails or Close is called.
func (ra *readAhead) fill(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		n, err := readFull(src, buf)
		select {
		case ra.full <- chunk{buf: buf, n: n, err: err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements io.Reader.
func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.owned != nil {
			ra.free <- ra.owned
			ra.owned = nil
		}
		select {
		case c := <-ra.full:
			ra.cur, ra.owned, ra.err = c.buf[:c.n], c.buf, c.err
		case <-ra.done:
			return 0, errClosed
		}
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the goroutine. It does not wait: a goroutine blocked in its
// source's Read exits when that Read returns (the File closes the source
// right after).
func (ra *readAhead) Close() error {
	ra.once.Do(func() { close(ra.done) })
	return nil
}

// readFull reads until buf is full or src ends. Unlike io.ReadFull it
// keeps an io.ErrUnexpectedEOF from src — a decoder's word for a
// truncated gzip, bzip2 or xz stream — as the error it is, and reports a
// plain end of src after some bytes as io.EOF.
func readFull(src io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := src.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
