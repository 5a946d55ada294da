package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/query/shape"
	"github.com/cayleygraph/quad"
)

// readRequest is a parsed /read: its quad filter, format and IRI form.
type readRequest struct {
	filter shape.Shape
	format *quad.Format
	iri    string
}

// parseRead parses the filters of a read as Cayley's ServeRead does: each
// of sub, pred, obj and label is a comma-separated list of values in
// Cayley's string form (quad.StringToValue).
func parseRead(r *http.Request, format *quad.Format) readRequest {
	return readRequest{
		filter: shape.FilterQuads(
			valuesFromString(r.Form.Get("sub")),
			valuesFromString(r.Form.Get("pred")),
			valuesFromString(r.Form.Get("obj")),
			valuesFromString(r.Form.Get("label")),
		),
		format: format,
		iri:    r.Form.Get("iri"),
	}
}

// valuesFromString is Cayley's valuesFromString: the values of a
// comma-separated filter, nil for an empty one (no filter).
func valuesFromString(s string) []quad.Value {
	if s == "" {
		return nil
	}
	var out []quad.Value
	for _, v := range strings.Split(s, ",") {
		out = append(out, quad.StringToValue(v))
	}
	return out
}

// readPanic is a panic of the store recovered while a read ran.
type readPanic struct {
	value any
	stack []byte
}

func (p *readPanic) Error() string { return fmt.Sprintf("panic reading quads: %v", p.value) }

// feedItem is one quad of a quadFeed, or the error that ends it.
type feedItem struct {
	q   quad.Quad
	err error
}

// quadFeed reads the quads a filter selects in a goroutine of its own and
// hands them to ReadQuad, which returns as soon as ctx ends: Cayley's quad
// stores take no context when they build the iterator (ValueOf) and
// resolve a quad's values (Quad, NameOf), so a database that stops
// answering held the request until the store's idle bound (2 minutes for
// SQL). The goroutine stops after its current store call once ctx ends;
// it owns the iterator and closes it.
type quadFeed struct {
	ctx context.Context
	ch  <-chan feedItem
	// first is called before the first quad is returned.
	first func()
}

// startQuadFeed starts reading the quads of rq.filter from qs.
func startQuadFeed(ctx context.Context, qs graph.QuadStore, filter shape.Shape, first func()) *quadFeed {
	ch := make(chan feedItem, 64)
	go feedQuads(ctx, qs, filter, ch)
	return &quadFeed{ctx: ctx, ch: ch, first: first}
}

// feedQuads sends the quads of filter over ch until they end, an error or
// ctx ends; a panic of the store is sent as a *readPanic.
func feedQuads(ctx context.Context, qs graph.QuadStore, filter shape.Shape, ch chan<- feedItem) {
	defer close(ch)
	send := func(it feedItem) bool {
		select {
		case ch <- it:
			return it.err == nil
		case <-ctx.Done():
			return false
		}
	}
	defer func() {
		if v := recover(); v != nil {
			send(feedItem{err: &readPanic{value: v, stack: debug.Stack()}})
		}
	}()
	it := filter.BuildIterator(qs).Iterate()
	defer it.Close()
	for it.Next(ctx) {
		q, err := qs.Quad(it.Result())
		if !send(feedItem{q: q, err: err}) {
			return
		}
	}
	if err := it.Err(); err != nil {
		send(feedItem{err: err})
	}
}

// ReadQuad returns the next quad, io.EOF after the last, or the error that
// ended the read (ctx's once it ended).
func (f *quadFeed) ReadQuad() (quad.Quad, error) {
	select {
	case <-f.ctx.Done():
		return quad.Quad{}, f.ctx.Err()
	case it, ok := <-f.ch:
		switch {
		case !ok && f.ctx.Err() != nil:
			return quad.Quad{}, f.ctx.Err()
		case !ok:
			return quad.Quad{}, io.EOF
		case it.err != nil:
			return quad.Quad{}, it.err
		}
		if f.first != nil {
			f.first()
			f.first = nil
		}
		return it.q, nil
	}
}

// heldWriter holds what a quad format writes before the first quad (a
// header: pquads writes one as it is opened, json its "["), so that a read
// failing before its first quad sends nothing and is answered as an error.
// release sends the held writes, each as one write (cappedWriter cuts json
// at write boundaries), and lets later writes through.
type heldWriter struct {
	w        io.Writer
	held     [][]byte
	released bool
	err      error
}

func (h *heldWriter) Write(b []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	if !h.released {
		h.held = append(h.held, append([]byte(nil), b...))
		return len(b), nil
	}
	return h.w.Write(b)
}

// release sends what was held; a failed write (the byte cap) fails the
// writes that follow.
func (h *heldWriter) release() {
	if h.released {
		return
	}
	h.released = true
	for _, b := range h.held {
		if _, err := h.w.Write(b); err != nil {
			h.err = err
			break
		}
	}
	h.held = nil
}

// copyQuads writes the quads of src in rq's format to out as Cayley's
// ServeRead does (a batch writer in batches of quad.DefaultBatch, the IRI
// form of ?iri=), closing the writer (which flushes it) only on success.
func copyQuads(ctx context.Context, out io.Writer, src quad.Reader, rq readRequest) error {
	if rq.format.Name == "jsonld" {
		return copyJSONLD(ctx, out, &jsonldLimit{src: src, left: maxJSONLDQuads}, rq)
	}
	qwc := rq.format.Writer(out)
	if err := copyTo(qwc, src, rq); err != nil {
		return err
	}
	return qwc.Close()
}

// copyTo copies src into qwc through the IRI form of ?iri= (Cayley's
// ServeRead: a batch writer in batches of quad.DefaultBatch).
func copyTo(qwc quad.WriteCloser, src quad.Reader, rq readRequest) error {
	var qw quad.Writer = qwc
	if rq.iri != "" {
		opts := quad.IRIOptions{Format: quad.IRIDefault}
		switch rq.iri {
		case "short":
			opts.Format = quad.IRIShort
		case "full":
			opts.Format = quad.IRIFull
		}
		qw = quad.IRIWriter(qw, opts)
	}
	var err error
	if bw, ok := qw.(quad.BatchWriter); ok {
		_, err = quad.CopyBatch(bw, src, 0)
	} else {
		_, err = quad.Copy(qw, src)
	}
	return err
}

// copyJSONLD is copyQuads for JSON-LD, whose writer holds every quad and
// converts them all when closed, in time growing with the square of a
// node's values and out of reach of ctx: the conversion runs in a
// goroutine of its own into a buffer, and the read ends with ctx's error
// when ctx ends first (the conversion, bounded by maxJSONLDQuads, then
// finishes unseen).
func copyJSONLD(ctx context.Context, out io.Writer, src quad.Reader, rq readRequest) error {
	var buf bytes.Buffer
	qwc := rq.format.Writer(&buf)
	if err := copyTo(qwc, src, rq); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- &readPanic{value: v, stack: debug.Stack()}
			}
		}()
		done <- qwc.Close()
	}()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		_, err = out.Write(buf.Bytes())
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxJSONLDQuads bounds a JSON-LD read. Cayley's JSON-LD writer holds the
// whole answer and converts it when closed, in time growing with the
// square of one node's values (40,000 values of one node: two minutes),
// out of reach of the request's time limit and of shutdown.
const maxJSONLDQuads = 10000

// jsonldLimit fails a read once it would pass maxJSONLDQuads quads.
type jsonldLimit struct {
	src  quad.Reader
	left int
}

func (l *jsonldLimit) ReadQuad() (quad.Quad, error) {
	q, err := l.src.ReadQuad()
	if err != nil {
		return q, err
	}
	if l.left == 0 {
		return quad.Quad{}, &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("a JSON-LD read holds at most "+
			"%d quads (its conversion takes time growing with the square of a node's values): narrow it with sub, "+
			"pred, obj or label, or read N-Quads or JSON", maxJSONLDQuads)}
	}
	l.left--
	return q, nil
}

// runRead reads the quads of rq from qs into cw within ctx. The format's
// writes are held until the first quad arrives (heldWriter), so that an
// error before it leaves cw unsent.
func runRead(ctx context.Context, cw *cappedWriter, qs graph.QuadStore, rq readRequest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the feed's goroutine
	hw := &heldWriter{w: cw}
	feed := startQuadFeed(ctx, qs, rq.filter, hw.release)
	if err := copyQuads(ctx, hw, feed, rq); err != nil {
		return err
	}
	hw.release()
	return hw.err
}

// explainStoreError restores the store's own error kind hidden by
// Cayley's iterators (store/sqlkg's ExplainError), when qs offers it.
func explainStoreError(qs graph.QuadStore, err error) error {
	if e, ok := graph.Unwrap(qs).(interface{ ExplainError(error) error }); ok {
		return e.ExplainError(err)
	}
	if e, ok := qs.(interface{ ExplainError(error) error }); ok {
		return e.ExplainError(err)
	}
	return err
}

// readFailure is the error a failed read is answered with: a recovered
// panic is logged with its stack and answered as an internal error; the
// client's own cancellation and the request's deadline as every route
// answers them.
func (s *Server) readFailure(r *http.Request, qs graph.QuadStore, err error) error {
	var p *readPanic
	if errors.As(err, &p) {
		s.logPanic(r, p.value, p.stack)
		return &apiError{http.StatusInternalServerError,
			"internal error; see the server log for request " + requestID(r.Context())}
	}
	if gone := r.Context().Err(); gone != nil && errors.Is(err, gone) {
		return gone
	}
	return fmt.Errorf("cayley read: %w", explainStoreError(qs, err))
}
