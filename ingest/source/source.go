// Package source defines what every dump reader in ingest/ implements: a
// streaming reader that turns one input (already decompressed) into quads
// pushed to a Writer, and the positioned error it reports for bad input.
//
// Readers never touch the database. The loader in ingest/ collects every quad
// of a run before it writes anything, so a reader that fails half way leaves
// the stored data exactly as it was.
package source

import (
	"context"
	"io"

	"github.com/cayleygraph/quad"
	"github.com/grove-kg/grove/store/inputerr"
)

// Writer receives quads. WriteQuad is called from one goroutine at a time.
// The quad's Label is the graph name; readers leave it nil and the loader
// sets it.
type Writer interface {
	WriteQuad(q quad.Quad) error
}

// WriterFunc adapts a function to Writer.
type WriterFunc func(q quad.Quad) error

// WriteQuad calls f(q).
func (f WriterFunc) WriteQuad(q quad.Quad) error { return f(q) }

// BatchWriter is a Writer that also takes runs of quads, for writers that
// do per-run work once per run (the ingest command's counting writer
// counts a run with one atomic add; the engine's loader takes quads one at
// a time). Readers that build quads in batches hand them over with
// WriteAll. WriteQuads has WriteQuad's contract for every quad, in order;
// it stops at the first error. The slice stays the caller's: the writer
// copies what it keeps, and the caller may reuse it once WriteQuads returns.
type BatchWriter interface {
	Writer
	WriteQuads(qs []quad.Quad) error
}

// WriteAll writes qs to w in order: in one WriteQuads call when w is a
// BatchWriter, one WriteQuad call per quad otherwise.
func WriteAll(w Writer, qs []quad.Quad) error {
	if bw, ok := w.(BatchWriter); ok {
		return bw.WriteQuads(qs)
	}
	for _, q := range qs {
		if err := w.WriteQuad(q); err != nil {
			return err
		}
	}
	return nil
}

// Reader reads one input stream. name is the file name used in errors.
type Reader interface {
	Read(ctx context.Context, name string, r io.Reader, w Writer) error
}

// Options are the settings shared by readers. Each reader documents which it
// honours.
type Options struct {
	// SkipInvalid makes readers count and skip bad records instead of failing.
	SkipInvalid bool
	// OnSkip, if set, is called for every skipped record.
	OnSkip func(err *Error)
	// Languages for labels, descriptions and aliases (default: en).
	Languages []string
	// Graph is the name of the graph being loaded; readers use it to scope
	// blank nodes so that loads into two graphs never share one (the
	// quads of one N-Quads document read with its labels kept share its
	// blank nodes whatever their label).
	Graph string
}

// Skip reports a bad record: with SkipInvalid it calls OnSkip and returns nil,
// otherwise it returns err.
func (o Options) Skip(err *Error) error {
	if !o.SkipInvalid {
		return err
	}
	if o.OnSkip != nil {
		o.OnSkip(err)
	}
	return nil
}

// Error is a bad-input error positioned at a file, line and (optionally)
// field, e.g. "dump.json:12: claims.P31[0].mainsnak: unknown datatype".
// It is the same type as store/inputerr.Error, which the question-set
// readers return too.
type Error = inputerr.Error

// Errorf builds a positioned error.
func Errorf(file string, line int64, field, format string, args ...any) *Error {
	return inputerr.Errorf(file, line, field, format, args...)
}
