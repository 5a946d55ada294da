package rdf

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/grove-kg/grove/ingest/source"
)

// TurtleReader reads Turtle documents (W3C Turtle 1.1: @prefix/@base and
// SPARQL-style PREFIX/BASE, prefixed names, "a", ';' and ',' lists, blank
// node property lists, collections, long strings, numbers and booleans,
// relative IRIs resolved against the base). It implements source.Reader.
//
// The document is parsed statement by statement from a small window and
// each triple is written as soon as it is complete, so memory is bounded by
// the longest term (Options.MaxLineBytes) whatever the document's size.
// Blank node labels are scoped by Options.Graph as in the N-Triples reader;
// nodes the syntax creates ([...], collections) are named
// "<graph>/<document>#<n>" (see Options.Document). Dialect and Transform
// apply as for N-Triples.
//
// A syntax error is a *source.Error naming the file and line ("people.ttl:12:
// column 7: undefined prefix \"foaf\""), passed through Options.Skip. With
// SkipInvalid the parser skips to the next line ending in '.' and goes on;
// triples of the bad statement that were complete before the error have
// already been written. A Reader may serve several streams, one at a time
// per goroutine.
type TurtleReader struct {
	opts Options
	dropCount
}

var _ source.Reader = (*TurtleReader)(nil)

// NewTurtle returns a Turtle reader. KeepLabels does not apply (Turtle
// has no graph names).
func NewTurtle(opts Options) *TurtleReader { return &TurtleReader{opts: opts} }

// Read parses r and writes its triples to w.
func (rd *TurtleReader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	emit, finish := newEmitter(rd.opts, w, &rd.dropCount)
	t := &turtle{
		s:        newScanner(r, rd.opts.MaxLineBytes),
		blanks:   newBlankNamer(rd.opts.Graph, rd.opts.document(name)),
		prefixes: make(map[string]string),
		emit:     emit,
		strict:   rd.opts.Strict,
	}
	if t.s.at(0) == 0xEF && t.s.at(1) == 0xBB && t.s.at(2) == 0xBF {
		t.s.skip(3)
	}
	for n := 0; ; n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s:%d: %w", name, t.s.line, err)
			}
		}
		done, err := t.statement()
		var te *turtleError
		switch {
		case errors.As(err, &te):
			if err := rd.opts.Skip(&source.Error{File: name, Line: te.line, Err: te}); err != nil {
				return err
			}
			t.resync()
			continue
		case err != nil:
			return fmt.Errorf("%s:%d: %w", name, t.s.line, err)
		case done:
			if err := finish(); err != nil {
				return fmt.Errorf("%s: end of input: %w", name, err)
			}
			return nil
		}
	}
}

// resync skips to the end of the next line that ends with '.', after a
// syntax error.
func (t *turtle) resync() {
	t.depth = 0
	lastDot := false
	for c := t.s.peek(); c >= 0; c = t.s.peek() {
		t.s.skip(1)
		switch c {
		case '\n':
			if lastDot {
				return
			}
		case '.':
			lastDot = true
		case ' ', '\t', '\r':
		default:
			lastDot = false
		}
	}
}
