package wikidata

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/internal/lineread"
	"github.com/grove-kg/grove/ingest/source"
)

// Reader reads Wikidata JSON dumps. It is immutable after New and safe for
// concurrent use; every Read has its own state.
type Reader struct {
	opts  Options
	langs *langSet
}

var _ source.Reader = (*Reader)(nil)

// New returns a Reader with opts (zero fields take their defaults).
func New(opts Options) *Reader {
	o := opts.withDefaults()
	ls := newLangSet(o.Languages, !o.SkipSitelinks)
	return &Reader{opts: o, langs: ls}
}

// Stats counts what one Read saw.
type Stats struct {
	Lines      int64 // input lines
	Entities   int64 // entities emitted
	Items      int64
	Properties int64
	Lexemes    int64
	Filtered   int64 // entities dropped by the filters or KeepLexemes
	Invalid    int64 // bad lines skipped under SkipInvalid
	Statements int64 // kept statements (direct edges before deduplication)
	Quads      int64 // quads written
}

// Read implements source.Reader.
func (rd *Reader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	_, err := rd.ReadStats(ctx, name, r, w)
	return err
}

// ReadStats reads one dump stream, writes its quads to w in input order and
// returns what it counted. Property metadata (inverse labels, hidden
// external-id properties) is written after the last entity.
func (rd *Reader) ReadStats(ctx context.Context, name string, r io.Reader, w source.Writer) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pipeline{rd: rd, name: name,
		order: make(chan *batch, 2*rd.opts.Workers),
		jobs:  make(chan *batch, rd.opts.Workers),
		free:  make(chan *batch, 2*rd.opts.Workers+3)}
	var wg sync.WaitGroup
	wg.Add(1 + rd.opts.Workers)
	go func() { defer wg.Done(); p.produce(ctx, r) }()
	for i := 0; i < rd.opts.Workers; i++ {
		go func() { defer wg.Done(); p.work() }()
	}
	e := newEmitter(rd, name, w, p.recycle)
	err := e.consume(ctx, p.order)
	cancel()
	wg.Wait()
	if err == nil {
		err = e.finish()
	}
	rd.opts.Logger.Debug("wikidata: read done", "file", name, "entities", e.stats.Entities,
		"quads", e.stats.Quads, "invalid", e.stats.Invalid, "filtered", e.stats.Filtered)
	return e.stats, err
}

// batch is a run of input lines decoded together. The producer fills
// lines; a worker fills results and closes done.
type batch struct {
	arena   []byte
	ends    []int   // end offset of each line in arena
	lineNos []int64 // 1-based line number of each line
	tooLong []bool  // line exceeded MaxLineBytes (content dropped)
	readErr error   // I/O error after the last line

	results []lineResult
	quads   []quad.Quad
	done    chan struct{}
}

func (b *batch) line(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.arena[start:b.ends[i]]
}

// lineResult is the outcome of one line: quads[start:end] or an error.
type lineResult struct {
	start, end int
	err        *source.Error
	info       lineInfo
	filtered   bool
	empty      bool
}

// pipeline connects the producer, the workers and the emitter.
type pipeline struct {
	rd    *Reader
	name  string
	order chan *batch // batches in input order, to the emitter
	jobs  chan *batch // the same batches, to the workers
	free  chan *batch // written batches, for reuse of their buffers
}

// newBatch returns an empty batch, reusing a written one when possible.
func (p *pipeline) newBatch() *batch {
	select {
	case b := <-p.free:
		b.done = make(chan struct{})
		return b
	default:
		return &batch{done: make(chan struct{}), arena: make([]byte, 0, p.rd.opts.BatchBytes)}
	}
}

// recycle offers a written batch for reuse.
func (p *pipeline) recycle(b *batch) {
	b.arena, b.ends, b.lineNos, b.tooLong = b.arena[:0], b.ends[:0], b.lineNos[:0], b.tooLong[:0]
	b.results, b.quads, b.readErr = b.results[:0], b.quads[:0], nil
	if cap(b.arena) > 4*p.rd.opts.BatchBytes {
		return // grown by a huge line: let it go
	}
	select {
	case p.free <- b:
	default:
	}
}

// produce reads lines into batches and hands each to both channels.
func (p *pipeline) produce(ctx context.Context, r io.Reader) {
	defer close(p.jobs)
	defer close(p.order)
	br := bufio.NewReaderSize(r, 256<<10)
	var lineNo int64
	rest := false
	for {
		b := p.fill(ctx, br, &lineNo, &rest)
		last := b.readErr != nil || len(b.ends) == 0 // b belongs to others once sent
		if !p.send(ctx, b) || last {
			return
		}
	}
}

// fill reads lines until the batch is full or the input ends. A line over
// the limit ends the batch, so that it is reported (or skipped) without
// waiting for its end, which input without line ends never reaches; *rest
// then says the next fill must first discard the rest of it.
func (p *pipeline) fill(ctx context.Context, br *bufio.Reader, lineNo *int64, rest *bool) *batch {
	opts := &p.rd.opts
	b := p.newBatch()
	if *rest {
		*rest = false
		if err := lineread.DiscardLine(ctx, br); err != nil && !errors.Is(err, io.EOF) {
			b.readErr = fmt.Errorf("%s:%d: read: %w", p.name, *lineNo, err)
			return b
		}
	}
	for len(b.arena) < opts.BatchBytes && len(b.ends) < maxBatchLines {
		*lineNo++
		start := len(b.arena)
		n, tooLong, err := readLine(br, &b.arena, opts.MaxLineBytes)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			// A line cut by a read error (a truncated gzip stream) is
			// not decoded: the read error is the one to report.
			b.arena = b.arena[:start]
			b.readErr = fmt.Errorf("%s:%d: read: %w", p.name, *lineNo, err)
			return b
		}
		// err is now nil, io.EOF, or bufio.ErrBufferFull for a line cut
		// at the limit.
		if n == 0 && err != nil { // the input ended at a line start
			if len(b.ends) == 0 {
				b.readErr = io.EOF
			}
			return b
		}
		b.ends = append(b.ends, len(b.arena))
		b.lineNos = append(b.lineNos, *lineNo)
		b.tooLong = append(b.tooLong, tooLong)
		if errors.Is(err, bufio.ErrBufferFull) {
			*rest = true // the next fill discards the rest of the line
		}
		if err != nil {
			return b
		}
	}
	return b
}

// readLine appends one line (without "\n") to arena and returns its
// length. A line over max is dropped (tooLong) as soon as it passes max:
// with bufio.ErrBufferFull its rest is left unread, for
// lineread.DiscardLine (input without line ends is never read for ever);
// with nil or io.EOF it ended.
func readLine(br *bufio.Reader, arena *[]byte, max int) (n int, tooLong bool, err error) {
	start := len(*arena)
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if len(*arena)-start+len(chunk) > max+1 {
			*arena = (*arena)[:start]
			return n, true, err
		}
		*arena = append(*arena, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return n, false, err
		}
		*arena = (*arena)[:len(*arena)-1]
		return n, false, nil
	}
}

// send hands b to the emitter (in order) and to the workers.
func (p *pipeline) send(ctx context.Context, b *batch) bool {
	if b.readErr == io.EOF && len(b.ends) == 0 {
		return false
	}
	select {
	case p.order <- b:
	case <-ctx.Done():
		return false
	}
	select {
	case p.jobs <- b:
		return true
	case <-ctx.Done():
		close(b.done) // never decoded; the emitter has stopped
		return false
	}
}

// work decodes batches until the producer stops.
func (p *pipeline) work() {
	c := &converter{opts: &p.rd.opts, logger: p.rd.opts.Logger.Debug, dec: decoder{ls: p.rd.langs}}
	for b := range p.jobs {
		p.decode(c, b)
		close(b.done)
	}
}

// decode converts every line of b.
func (p *pipeline) decode(c *converter, b *batch) {
	b.results = slices.Grow(b.results[:0], len(b.ends))[:len(b.ends)]
	clear(b.results)
	c.out = b.quads[:0]
	for i := range b.ends {
		res := &b.results[i]
		res.start = len(c.out)
		p.decodeLine(c, b, i, res)
		res.end = len(c.out)
	}
	b.quads = c.out
	c.out = nil
}

// decodeLine converts line i of b into res.
func (p *pipeline) decodeLine(c *converter, b *batch, i int, res *lineResult) {
	lineNo := b.lineNos[i]
	if b.tooLong[i] {
		res.err = source.Errorf(p.name, lineNo, "", "line longer than %d bytes", p.rd.opts.MaxLineBytes)
		return
	}
	line := entityBytes(b.line(i))
	if line == nil {
		res.empty = true
		return
	}
	if p.skipEarly(line) {
		res.filtered = true
		return
	}
	e, err := parseEntity(&c.dec, line)
	if err != nil {
		res.err = p.positioned(lineNo, err)
		return
	}
	if !p.keep(e) {
		res.filtered = true
		return
	}
	mark := len(c.out)
	if err := c.convert(e); err != nil {
		c.out = c.out[:mark]
		res.err = p.positioned(lineNo, err)
		return
	}
	res.info = c.info
}

// positioned turns a decoding error into a source.Error.
func (p *pipeline) positioned(lineNo int64, err error) *source.Error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &source.Error{File: p.name, Line: lineNo, Field: fe.Field, Err: fe.Err}
	}
	return &source.Error{File: p.name, Line: lineNo, Err: err}
}

// entityBytes strips the array syntax around one entity: space, a
// byte-order mark, a leading "[", trailing "," and "]" (an entity always
// ends with "}"). It returns nil for lines without an entity.
func entityBytes(line []byte) []byte {
	line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\ufeff"))
	for len(line) > 0 && (line[0] == '[' || isSpace(line[0])) {
		line = line[1:]
	}
	for n := len(line); n > 0 && (line[n-1] == ',' || line[n-1] == ']' || isSpace(line[n-1])); n = len(line) {
		line = line[:n-1]
	}
	if len(line) == 0 {
		return nil
	}
	return line
}

// skipEarly drops lexemes and filtered-out entities from their id alone,
// before decoding. Lines whose id cannot be read are decoded normally (and
// report their error).
func (p *pipeline) skipEarly(line []byte) bool {
	id, ok := topLevelID(line)
	if !ok || id == "" {
		return false
	}
	o := &p.rd.opts
	switch {
	case isEntityID(id, 'P'):
		return false
	case isEntityID(id, 'L') && !o.KeepLexemes:
		return true
	}
	return len(o.IDs) > 0 && len(o.ClaimFilter) == 0 && !o.IDs[id]
}

// keep applies KeepLexemes and the entity filters to a decoded entity.
func (p *pipeline) keep(e *entity) bool {
	o := &p.rd.opts
	switch {
	case e.Type == typeProperty:
		return true
	case e.Type == typeLexeme && !o.KeepLexemes:
		return false
	case !o.filtering():
		return true
	}
	return o.IDs[e.ID] || (len(o.ClaimFilter) > 0 && o.ClaimFilter.match(e.Claims))
}
