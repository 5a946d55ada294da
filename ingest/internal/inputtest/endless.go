// Package inputtest holds test inputs shared by the ingest readers' tests.
package inputtest

import "errors"

// ErrExhausted is what Endless returns once more than Limit bytes were
// read from it.
var ErrExhausted = errors.New("endless input read past the test's limit")

// Endless is input without a line end, as a stream of zeros would be:
// Prefix, then 'x' for ever. Past Limit bytes it fails with ErrExhausted,
// so that a reader that would read it for ever fails its test instead of
// hanging it; Cancel, when set, runs once more than After bytes were read.
// N counts the bytes handed out.
type Endless struct {
	Prefix       string
	N, Limit     int
	After        int
	Cancel       func()
	prefixHanded bool
}

func (e *Endless) Read(p []byte) (int, error) {
	if e.N > e.Limit {
		return 0, ErrExhausted
	}
	for i := range p {
		p[i] = 'x'
	}
	n := len(p)
	if !e.prefixHanded {
		e.prefixHanded = true
		n = max(copy(p, e.Prefix), n)
	}
	e.N += n
	if e.Cancel != nil && e.N > e.After {
		e.Cancel()
	}
	return n, nil
}
