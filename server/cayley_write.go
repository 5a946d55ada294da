package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
)

// Cayley's write routes are served here rather than by Cayley's handler,
// which answers every store error as a 500 carrying the error text (the
// database directory included) and does not say how much of the body was
// applied. These handlers keep Cayley's request and response shapes, but
// not its batching of quad.DefaultBatch quads per transaction, which made a
// body of more quads half-applied when a later batch failed (a delete's
// missing quad at line 10,001 left the first 10,000 deleted): a body of up
// to writeTxnQuads quads is one transaction, whole or not at all (the
// default body limit, 1 MiB, holds fewer), split further only while the
// store finds it too large; a longer one is applied in transactions of
// writeTxnQuads, and the handlers stop between them when the request is
// cancelled. Errors are answered through the server's classify
// (errors.go):
//
//   - the store's disk is full (store.ErrDiskFull): 507, nothing of the
//     failing batch written;
//   - the process is out of files (store.ErrTooManyFiles): 503;
//   - a single quad is too large for one transaction (store.ErrTooBig): 413;
//   - a deleted quad or node does not exist: 404 naming it (the client's own
//     data);
//   - the request's time limit (Config.RequestTimeout) ends first: 504
//     "request timed out", the failing batch rolled back. A store whose
//     writes take a context (the engine's and sqlkg's ApplyDeltasContext:
//     Cayley's ApplyDeltas takes none) gets the request's (requestWriter),
//     so neither a database that stops answering nor a large part of a
//     body can hold the answer past it;
//   - anything else: 500 with the request id, the error in the server log.
//
// Every error answer of a write or delete carries "count", the quads
// applied before the failing batch. A node delete is served by the
// engine's DeleteNode where the store is the engine (one transaction for a
// node of up to 65,536 quads; a larger node's delete, if stopped part-way,
// is recorded and reported until it is run again) and otherwise the same
// way as a delete (removeNode), where Cayley's deletes a node's quads one
// transaction each.

// writeTxnQuads is the most quads of a write or delete body, or of a node
// delete by a store other than the engine, applied in one transaction.
const writeTxnQuads = 1 << 16

// nodeDeleter is a store that deletes a node's quads itself, atomically
// where it can (engine.DB.DeleteNode).
type nodeDeleter interface {
	DeleteNode(ctx context.Context, v quad.Value) (int, error)
}

// changeResult is the answer to a successful write or delete, as
// Cayley's; a node delete adds the quads it deleted.
type changeResult struct {
	Result string `json:"result"`
	Count  int    `json:"count"`
	Quads  int    `json:"quads,omitempty"`
}

// changeErrorBody is the answer to a failed write or delete; Count is the
// quads applied before the error.
type changeErrorBody struct {
	Error     string `json:"error"`
	Count     int    `json:"count"`
	RequestID string `json:"request_id,omitempty"`
}

// serveQuadChange applies a write (remove false) or delete body through h.
func (s *Server) serveQuadChange(w http.ResponseWriter, r *http.Request, h *graph.Handle, remove bool) {
	body, err := readQuadBody(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	qr, err := body.reader()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer qr.Close()
	qw, err := requestWriter(r.Context(), h)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var dst graph.BatchWriter = graph.NewWriter(qw)
	verb, done := "wrote", "written"
	if remove {
		dst, verb, done = graph.NewRemover(qw), "deleted", "deleted"
	}
	// dst is written by WriteQuads only, so it buffers nothing and needs
	// no Close (Cayley's writer would flush an empty batch: a transaction
	// that writes nothing and empties the store's caches).
	n, err := quad.CopyBatch(&ctxBatchWriter{ctx: r.Context(), w: dst}, qr, min(writeTxnQuads, max(body.quads, 1)))
	if err != nil {
		s.writeChangeError(w, r, err, n, done)
		return
	}
	writeJSON(w, http.StatusOK, changeResult{Result: fmt.Sprintf("Successfully %s %d quads.", verb, n), Count: n})
}

// serveNodeDelete deletes every quad of the node named by the body (one
// value in the body's format, N-Quads by default), as Cayley's handler.
func (s *Server) serveNodeDelete(w http.ResponseWriter, r *http.Request, h *graph.Handle) {
	f, err := setQuadFormat(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.UnmarshalValue == nil {
		s.writeError(w, r, &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf("format %s cannot name a node; use %s", f.Name, nodeFormats())})
		return
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		s.writeError(w, r, bodyError(err, "request body"))
		return
	}
	v, err := parseNode(f, bytes.TrimSpace(data))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := removeNode(r.Context(), h, v)
	if err != nil {
		s.writeChangeError(w, r, err, n, "deleted")
		return
	}
	writeJSON(w, http.StatusOK, changeResult{Result: "Successfully deleted 1 nodes.", Count: 1, Quads: n})
}

// nodeFormats lists the formats that can name the node of a node delete
// (those with a value decoder: nquads, json, pquads), for error messages.
func nodeFormats() string {
	var out []string
	for _, f := range quad.Formats() {
		if f.UnmarshalValue != nil && f.Reader != nil && len(f.Mime) > 0 {
			out = append(out, fmt.Sprintf("%s (?format=%s or Content-Type: %s)", f.Name, f.Name, strings.Join(f.Mime, ", ")))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// errNoNode answers a node delete whose body is empty or blank: without
// this check, Cayley's N-Quads value parser reads an empty body as the
// node <l> of its own template and the delete removes that node.
var errNoNode = badRequest("the body names no node")

// parseNode reads the one node a node delete names. An N-Quads body must
// be exactly one term: an IRI (<iri>), a blank node (_:name) or a quoted
// literal ("text", "text"@en, "1"^^<type>). Cayley's own value parser wraps
// the body in a quad template ("<s> <p> BODY <l> .") and so reads an empty
// body as <l>, two terms as an object and a label, and bare words as
// strings, and names the template in its errors; here each of those is a
// 400 saying what was wrong with the client's body.
func parseNode(f *quad.Format, b []byte) (quad.Value, error) {
	if len(b) == 0 {
		return nil, errNoNode
	}
	if f.Name != "nquads" {
		v, err := unmarshalValue(f, b)
		switch {
		case err != nil:
			return nil, badRequest("node: the body is not one %s value: %v", f.Name, err)
		case v == nil || strings.TrimSpace(quad.ToString(v)) == "":
			return nil, errNoNode
		}
		return v, nil
	}
	body := string(b)
	const terms = "write an IRI as <iri>, a blank node as _:name or a literal as \"text\""
	if strings.ContainsAny(body, "\r\n") {
		return nil, badRequest("node: the body spans several lines; it must be one N-Quads term (%s)", terms)
	}
	var want func(quad.Value) bool
	switch {
	case strings.HasPrefix(body, "<"):
		want = func(v quad.Value) bool { _, ok := v.(quad.IRI); return ok }
	case strings.HasPrefix(body, "_:"):
		want = func(v quad.Value) bool { _, ok := v.(quad.BNode); return ok }
	case strings.HasPrefix(body, `"`):
		want = func(v quad.Value) bool {
			switch v.(type) {
			case quad.IRI, quad.BNode:
				return false
			}
			return true
		}
	default:
		return nil, badRequest("node: %q is not an N-Quads term (%s)", clip(body), terms)
	}
	// A subject and predicate of our own make the body the object of one
	// statement; the client's text is never shown inside them.
	q, _, err := rdf.NewParser("", false).Parse([]byte("<s> <p> " + body + " ."))
	switch {
	case err != nil || q.Object == nil:
		return nil, badRequest("node: %q is not one N-Quads term (%s)", clip(body), terms)
	case q.Label != nil:
		return nil, badRequest("node: %q holds more than one term; a node delete names exactly one node", clip(body))
	case !want(q.Object):
		return nil, badRequest("node: %q is not one N-Quads term (%s; an IRI has no spaces or angle brackets inside)",
			clip(body), terms)
	}
	return q.Object, nil
}

// unmarshalValue decodes one value with the format's decoder, whose panic
// on malformed input (pquads panics on an empty value) is an error.
func unmarshalValue(f *quad.Format, b []byte) (v quad.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, malformedBody(f.Name, p)
		}
	}()
	return f.UnmarshalValue(b)
}

// removeNode deletes every quad with v in any position and returns how
// many it deleted: through the store's own DeleteNode if it has one, else
// in transactions of up to writeTxnQuads quads (split further while the
// store finds one too large). Cayley's own RemoveNode deletes them one
// transaction per quad and cannot say how far it got.
func removeNode(ctx context.Context, h *graph.Handle, v quad.Value) (int, error) {
	if nd, ok := h.QuadStore.(nodeDeleter); ok {
		return nd.DeleteNode(ctx, v)
	}
	ref, err := h.QuadStore.ValueOf(v)
	if err != nil {
		return 0, err
	}
	if ref == nil {
		return 0, fmt.Errorf("node %s: %w", v, graph.ErrNodeNotExists)
	}
	qw, err := requestWriter(ctx, h)
	if err != nil {
		return 0, err
	}
	del := &ctxBatchWriter{ctx: ctx, w: graph.NewRemover(qw)}
	total := 0
	var last quad.Quad
	for {
		batch, err := nodeQuads(ctx, h.QuadStore, ref)
		if err != nil {
			return total, err
		}
		if len(batch) == 0 {
			break
		}
		if batch[0] == last {
			// A store that reports a delete it did not make would loop.
			return total, fmt.Errorf("node %s: quad %v still stored after its delete", v, last)
		}
		last = batch[0]
		n, err := del.WriteQuads(batch)
		total += n
		if err != nil {
			return total, err
		}
	}
	if total == 0 {
		return 0, fmt.Errorf("node %s: %w", v, graph.ErrNodeNotExists)
	}
	return total, nil
}

// nodeQuads reads up to writeTxnQuads distinct quads with ref in any
// direction (a quad with the node in two positions is listed once), so
// that a node's quads go into as few transactions as fit.
func nodeQuads(ctx context.Context, qs graph.QuadStore, ref graph.Ref) ([]quad.Quad, error) {
	seen := map[quad.Quad]bool{}
	var out []quad.Quad
	for _, d := range quad.Directions {
		it := qs.QuadIterator(d, ref).Iterate()
		for len(out) < writeTxnQuads && it.Next(ctx) {
			q, err := qs.Quad(it.Result())
			if err != nil {
				it.Close()
				return nil, err
			}
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	// An iterator may end early on a cancelled context without an error.
	return out, ctx.Err()
}

// writeChangeError answers a write or delete that failed after done quads
// were applied; verb is "written" or "deleted".
func (s *Server) writeChangeError(w http.ResponseWriter, r *http.Request, err error, done int, verb string) {
	status, msg, internal := classify(err)
	id := requestID(r.Context())
	if status == 499 {
		// The client is gone; there is nobody to answer.
		w.WriteHeader(status)
		return
	}
	if mustLog(status, internal) {
		s.log.ErrorContext(r.Context(), "write failed", "request_id", id, "path", r.URL.Path, "quads_applied", done, "err", err)
	}
	if internal {
		msg = "internal error; see the server log for request " + id
	}
	body := changeErrorBody{Error: msg, Count: done, RequestID: id}
	switch {
	case errors.Is(err, store.ErrOutcomeUnknown):
		body.Error += fmt.Sprintf("; %d quads were %s before the last batch, which may or may not have been "+
			"applied (the time ran out while the database committed it): read its quads back to know", done, verb)
	case done == 0:
		body.Error += "; nothing was " + verb
	case errors.Is(err, engine.ErrNodeDeleteUnfinished):
		body.Error += fmt.Sprintf("; %d of the node's quads were deleted before it (it has too many for one "+
			"transaction; each was whole or not at all); the rest are stored and the unfinished delete is "+
			"recorded: delete the node again to finish", done)
	default:
		body.Error += fmt.Sprintf("; %d quads were %s before it (in transactions of up to %d quads, "+
			"each whole or not at all)", done, verb, writeTxnQuads)
	}
	writeJSON(w, status, body)
}

// ctxBatchWriter stops a batch copy once the request is cancelled or past
// its deadline; batches already applied stay.
type ctxBatchWriter struct {
	ctx  context.Context
	w    quad.BatchWriter
	seen map[quad.Quad]struct{} // the body's quads so far
}

// A batch the store finds too large for one transaction is written in
// parts (store.ApplyInParts), the body's repeated quads left out first:
// Cayley's writer drops a repeat within one transaction, but across two
// parts (or two batches of a body over 65,536 quads) the second delete of
// a quad found it gone. The count is of the batch's quads (lines), as
// Cayley's: all of them when all are applied, else those before the first
// that was not (a repeat of an applied quad counts as applied).
func (c *ctxBatchWriter) WriteQuads(qs []quad.Quad) (int, error) {
	if c.seen == nil {
		c.seen = make(map[quad.Quad]struct{}, len(qs))
	}
	distinct := make([]quad.Quad, 0, len(qs))
	first := make([]int, 0, len(qs)) // the line of each distinct quad
	for i, q := range qs {
		if _, ok := c.seen[q]; !ok {
			c.seen[q] = struct{}{}
			distinct = append(distinct, q)
			first = append(first, i)
		}
	}
	n, err := store.ApplyInParts(distinct, func(b []quad.Quad) error {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		_, err := c.w.WriteQuads(b)
		return err
	})
	if err != nil {
		return first[n], err
	}
	return len(qs), nil
}

// ctxDeltaApplier is a quad store whose writes a context bounds (the
// engine's and sqlkg's: Cayley's QuadStore.ApplyDeltas takes none, so a
// write to a silent database, or a large batch, would outlive the
// request's deadline and its answer).
type ctxDeltaApplier interface {
	ApplyDeltasContext(ctx context.Context, in []graph.Delta, opts graph.IgnoreOpts) error
}

// ctxQuadStore is a quad store whose ApplyDeltas runs under ctx.
type ctxQuadStore struct {
	graph.QuadStore
	ctx context.Context
	a   ctxDeltaApplier
}

func (c ctxQuadStore) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	return c.a.ApplyDeltasContext(c.ctx, in, opts)
}

// requestWriter is the quad writer of one request: h's, or, for a store
// whose writes take a context, Cayley's same "single" writer over the
// store bound to ctx (the request's, with its deadline), so a write to a
// silent database fails when the request's time is up, its transaction
// rolled back.
func requestWriter(ctx context.Context, h *graph.Handle) (graph.QuadWriter, error) {
	a, ok := h.QuadStore.(ctxDeltaApplier)
	if !ok {
		return h.QuadWriter, nil
	}
	qw, err := graph.NewQuadWriter("single", ctxQuadStore{QuadStore: h.QuadStore, ctx: ctx, a: a}, nil)
	if err != nil {
		return nil, fmt.Errorf("cayley writer: %w", err)
	}
	return qw, nil
}
