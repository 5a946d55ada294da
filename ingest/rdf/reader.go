package rdf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/internal/lineread"
	"github.com/grove-kg/grove/ingest/source"
)

const (
	// readBufSize is the line buffer; longer lines are assembled in a
	// separate growing buffer.
	readBufSize = 1 << 20
	// DefaultMaxLineBytes bounds one statement unless Options.MaxLineBytes
	// says otherwise; longer lines are reported as bad.
	DefaultMaxLineBytes = 64 << 20
	// ctxCheckEvery is how many lines are read between context checks.
	ctxCheckEvery = 4096
	// utf8BOM is skipped at the start of the input.
	utf8BOM = "\ufeff"
)

// Transform rewrites one quad, or drops it by returning false. It runs after
// the dialect and sees every quad the reader is about to write.
type Transform func(q quad.Quad) (quad.Quad, bool)

// Mapper adapts the quads of one input stream: Map receives each parsed quad
// and emits zero or more quads. A Mapper is used by one goroutine and may
// keep per-stream state.
type Mapper interface {
	Map(q quad.Quad, emit func(quad.Quad) error) error
}

// Finisher is implemented by mappers that emit quads once the whole stream
// has been read (facts that need data from anywhere in the dump).
type Finisher interface {
	Finish(emit func(quad.Quad) error) error
}

// Dialect is a kind of dump with its own conventions (Freebase, Wikidata
// truthy). NewMapper is called once per Read with the configured label
// languages (lower case; "*" keeps every language).
type Dialect interface {
	NewMapper(languages []string) Mapper
}

// Options configure a Reader.
type Options struct {
	// Options are the shared reader options. Graph scopes blank nodes,
	// SkipInvalid/OnSkip handle bad lines, Languages (default en) selects
	// the labels kept by dialects.
	source.Options
	// KeepLabels keeps the fourth term (graph label) of N-Quads lines on the
	// emitted quads. By default the label is dropped and the loader puts
	// every quad into the target graph; set it when the file's own graph
	// names must be kept (each label then becomes a graph of its own).
	// It also keeps the file's scoped blank node names (labels holding
	// '/', as Grove's dumps write them) whatever graph they are scoped to
	// (Parser.SetKeepScoped); without it only those scoped to Graph are kept.
	KeepLabels bool
	// Strict rejects relative IRIs, as the W3C grammar does. Off by default
	// because real dumps (the Freebase film sample) use them.
	Strict bool
	// Dialect, if set, adapts the quads of a particular dump.
	Dialect Dialect
	// Transform, if set, runs on every quad after the dialect.
	Transform Transform
	// MaxLineBytes bounds the length of a line (default
	// DefaultMaxLineBytes); longer lines are bad lines.
	MaxLineBytes int
	// Document identifies the document being read, for the blank nodes
	// that Turtle and RDF/XML syntax creates without a label ([...],
	// collections, node elements without rdf:nodeID): they are named
	// "<Graph>/<Document>#<n>". It must be the same every time the same
	// document is read and differ between documents; the ingest package
	// sets it to the file's name and a hash of its absolute, cleaned path
	// (and to a name unique to the run for standard input). Empty: the name passed to Read,
	// which is only as stable as the caller's spelling of it.
	Document string
}

// document is the name the anonymous blank nodes of a read of name are
// scoped by (see Options.Document).
func (o Options) document(name string) string {
	if o.Document != "" {
		return o.Document
	}
	return name
}

// Reader reads N-Triples and N-Quads. It implements source.Reader.
type Reader struct {
	opts Options
	dropCount
}

var _ source.Reader = (*Reader)(nil)

// New returns a Reader.
func New(opts Options) *Reader {
	return &Reader{opts: opts}
}

// Read parses r line by line and writes one quad per statement (as adapted by
// the dialect and transform). Bad lines are reported as *source.Error
// (wrapping a *SyntaxError) through Options.Skip. Errors from w stop the read.
func (rd *Reader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	p := NewParser(rd.opts.Graph, rd.opts.Strict)
	p.SetKeepScoped(rd.opts.KeepLabels)
	emit, finish := newEmitter(rd.opts, w, &rd.dropCount)
	lr := newLineReader(ctx, r, rd.opts.MaxLineBytes)
	for lineNo := int64(1); ; lineNo++ {
		if lineNo%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s:%d: %w", name, lineNo, err)
			}
		}
		line, rerr := lr.next()
		if errors.Is(rerr, errLineTooLong) {
			err := fmt.Errorf("%w (limit %d bytes)", rerr, lr.max)
			if err := rd.opts.Skip(&source.Error{File: name, Line: lineNo, Err: err}); err != nil {
				return err
			}
			continue
		}
		if rerr != nil && rerr != io.EOF {
			// A line cut by a read error (a truncated gzip stream) is
			// not parsed: the read error is the one to report.
			return fmt.Errorf("%s:%d: %w", name, lineNo, rerr)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte(utf8BOM))
		}
		if len(line) > 0 {
			if err := rd.statement(p, line, name, lineNo, emit); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			if err := finish(); err != nil {
				return fmt.Errorf("%s: end of input: %w", name, err)
			}
			return nil
		}
	}
}

// dropCount counts the statements of a reader's last Read that its
// dialect mapped to nothing (Dropped); every reader of this package
// embeds one.
type dropCount struct{ n atomic.Int64 }

// Dropped is how many statements of the last Read the dialect dropped
// (Freebase bookkeeping predicates and key namespaces, names in other
// languages, ...): 0 without a dialect. Safe to call during a Read.
func (d *dropCount) Dropped() int64 { return d.n.Load() }

// newEmitter chains the dialect's mapper, the transform and w, counting
// in dropped (reset here) the statements the mapper emits nothing for.
// finish runs the mapper's Finish, if it has one. Every reader of this
// package uses it.
func newEmitter(opts Options, w source.Writer, dropped *dropCount) (emit func(quad.Quad) error, finish func() error) {
	dropped.n.Store(0)
	out := w.WriteQuad
	if t := opts.Transform; t != nil {
		out = func(q quad.Quad) error {
			q, ok := t(q)
			if !ok {
				return nil
			}
			return w.WriteQuad(q)
		}
	}
	finish = func() error { return nil }
	if opts.Dialect == nil {
		return out, finish
	}
	m := opts.Dialect.NewMapper(languages(opts.Languages))
	if f, ok := m.(Finisher); ok {
		finish = func() error { return f.Finish(out) }
	}
	emitted := 0
	counted := func(q quad.Quad) error {
		emitted++
		return out(q)
	}
	return func(q quad.Quad) error {
		before := emitted
		err := m.Map(q, counted)
		if err == nil && emitted == before {
			dropped.n.Add(1)
		}
		return err
	}, finish
}

// statement parses and emits one line.
func (rd *Reader) statement(p *Parser, line []byte, name string, lineNo int64, emit func(quad.Quad) error) error {
	q, ok, err := p.Parse(line)
	if err != nil {
		return rd.opts.Skip(&source.Error{File: name, Line: lineNo, Err: err})
	}
	if !ok {
		return nil
	}
	if !rd.opts.KeepLabels {
		q.Label = nil
	} else if iri, ok := q.Label.(quad.IRI); ok && iri == "" {
		// It would make a graph named "" that no command can name.
		return rd.opts.Skip(&source.Error{File: name, Line: lineNo, Err: errEmptyGraphLabel})
	}
	if err := emit(q); err != nil {
		return fmt.Errorf("%s:%d: %w", name, lineNo, err)
	}
	return nil
}

// errEmptyGraphLabel reports an N-Quads graph label <> kept as a graph.
var errEmptyGraphLabel = errors.New("graph label <> is empty: a graph kept from a label needs a name")

// errLineTooLong reports a line over the line length limit.
var errLineTooLong = errors.New("line too long")

// lineReader reads lines from a 1 MiB buffer; lines longer than the buffer
// are assembled in long.
type lineReader struct {
	ctx  context.Context
	br   *bufio.Reader
	long []byte
	max  int
	// rest is set when the last line was cut at the limit: the next call
	// discards the rest of it first.
	rest bool
}

func newLineReader(ctx context.Context, r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &lineReader{ctx: ctx, br: bufio.NewReaderSize(r, readBufSize), max: max}
}

// next returns the next line including its "\n", valid until the next
// call. A line over the limit is reported as errLineTooLong as soon as the
// limit is passed, so that input without a line end (a stream of zeros)
// fails at the limit instead of being read for ever; a following call
// discards the rest of that line (watching lr.ctx) before reading on.
func (lr *lineReader) next() ([]byte, error) {
	if lr.rest {
		if err := lr.discardRest(); err != nil {
			return nil, err
		}
	}
	line, err := lr.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > lr.max {
			return nil, errLineTooLong
		}
		return line, err
	}
	buf := append(lr.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) && len(buf) <= lr.max {
		line, err = lr.br.ReadSlice('\n')
		buf = append(buf, line...)
	}
	lr.long = buf[:0]
	if len(buf) > lr.max {
		lr.rest = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && err != io.EOF && !lr.rest {
			return nil, err
		}
		return nil, errLineTooLong // a following call reports any EOF
	}
	return buf, err
}

// discardRest reads past the end of a line cut at the limit.
func (lr *lineReader) discardRest() error {
	err := lineread.DiscardLine(lr.ctx, lr.br)
	if err == nil || err == io.EOF {
		lr.rest = false
		return nil // the next read reports any EOF
	}
	return err
}

// languages lower-cases the configured languages, defaulting to English.
func languages(langs []string) []string {
	if len(langs) == 0 {
		return []string{"en"}
	}
	out := make([]string, 0, len(langs))
	for _, l := range langs {
		if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// langFilter keeps literals in the configured languages.
type langFilter struct {
	all   bool
	langs []string
}

func newLangFilter(langs []string) langFilter {
	f := langFilter{langs: langs}
	for _, l := range langs {
		if l == "*" {
			f.all = true
		}
	}
	return f
}

// keep reports whether v should be kept: language-tagged strings only in a
// configured language (tags compare case-insensitively), everything else
// always.
func (f langFilter) keep(v quad.Value) bool {
	ls, ok := v.(quad.LangString)
	if !ok || f.all {
		return true
	}
	for _, l := range f.langs {
		if strings.EqualFold(ls.Lang, l) {
			return true
		}
	}
	return false
}
