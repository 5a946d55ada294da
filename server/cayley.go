package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	cquery "github.com/cayleygraph/cayley/query"
	_ "github.com/cayleygraph/cayley/query/gizmo" // Gizmo (JavaScript) queries
	"github.com/cayleygraph/cayley/query/graphql" // GraphQL queries
	_ "github.com/cayleygraph/cayley/query/mql"   // MQL queries
	cayleyhttp "github.com/cayleygraph/cayley/server/http"
	"github.com/cayleygraph/quad"
	_ "github.com/cayleygraph/quad/json"   // Cayley's JSON quad format (reads and writes)
	_ "github.com/cayleygraph/quad/nquads" // N-Quads and N-Triples
	_ "github.com/cayleygraph/quad/pquads" // Cayley's protobuf quads (the store links it; named here so the server's formats do not depend on the store)
	"github.com/julienschmidt/httprouter"

	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/query"
)

// cayleyWritePaths are the Cayley API v2 routes that modify the store.
var cayleyWritePaths = []string{"/api/v2/write", "/api/v2/delete", "/api/v2/node/delete"}

// newCayley mounts Cayley's own HTTP API v2 over qs. Queries get the
// server's result cap and request timeout. Writes are allowed only when the
// server is not read-only and has a token (so every write is authenticated);
// they are served by serveQuadChange and serveNodeDelete (cayley_write.go).
//
// Queries run over a per-request query.Guard: Gizmo evaluates a query in a
// goroutine of its own, out of reach of the recovery middleware, so a panic
// in the store there would end the process. The guard recovers it, the
// answer (buffered, up to MaxCayleyQueryBytes: the result cap bounds the
// number of results, not their size) is replaced by a 500 naming the
// request id, and the panic and its stack go to the server log.
// GraphQL and MQL run on the request goroutine, where the middleware
// recovers as for every route.
func (s *Server) newCayley(qs graph.QuadStore) (http.Handler, error) {
	writable := !s.cfg.ReadOnly && s.hasToken
	newHandle := func(qs graph.QuadStore) (*graph.Handle, error) {
		qw, err := graph.NewQuadWriter("single", qs, nil)
		if err != nil {
			return nil, fmt.Errorf("cayley writer: %w", err)
		}
		return &graph.Handle{QuadStore: qs, QuadWriter: qw}, nil
	}
	newAPI := func(h *graph.Handle) http.Handler {
		// A router of our own, so that Cayley's 404 and 405 answers are
		// JSON like every error, and no redirect drops the /cayley prefix
		// (a trailing slash is removed before routing instead).
		router := httprouter.New()
		router.RedirectTrailingSlash = false
		router.RedirectFixedPath = false
		router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, &apiError{http.StatusNotFound, "no route for " + r.Method + " /cayley" + r.URL.Path})
		})
		router.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, &apiError{http.StatusMethodNotAllowed, "method " + r.Method + " not allowed on /cayley" +
				r.URL.Path + " (allowed: " + w.Header().Get("Allow") + ")"})
		})
		api := cayleyhttp.NewBoundAPIv2(h, router)
		api.SetReadOnly(!writable)
		api.SetQueryLimit(s.cfg.MaxResults)
		// No query timeout of Cayley's own: serveGuardedQuery sets the
		// request's deadline, so that it can tell a timeout from a bad query.
		return http.StripPrefix("/cayley", api)
	}
	h, err := newHandle(qs)
	if err != nil {
		return nil, err
	}
	inner := newAPI(h)
	read := rdfReadStore{qs}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/cayley")
		if trimmed := strings.TrimRight(path, "/"); trimmed != path && trimmed != "" {
			// Cayley's router would redirect to the path without the
			// slash, and without /cayley; serve that path directly.
			u := *r.URL
			u.Path, u.RawPath = "/cayley"+trimmed, ""
			r = r.WithContext(r.Context())
			r.URL = &u
			path = trimmed
		}
		if allowed, ok := cayleyMethods[path]; ok && !slices.Contains(allowed, r.Method) {
			s.refuseMethod(w, r, allowed)
			return
		}
		if isCayleyWrite(path) && !writable {
			s.writeError(w, r, &apiError{http.StatusForbidden, s.writeRefusal()})
			return
		}
		switch path {
		case "/api/v2/write":
			s.serveQuadChange(w, r, h, false)
			return
		case "/api/v2/delete":
			s.serveQuadChange(w, r, h, true)
			return
		case "/api/v2/node/delete":
			s.serveNodeDelete(w, r, h)
			return
		case "/api/v2/read":
			s.serveCappedRead(w, r, read)
			return
		case "/api/v2/query":
			g := query.NewGuardFor(qs, r.URL.Query().Get("lang"))
			gh, err := newHandle(g)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			s.serveGuardedQuery(w, r, newAPI(gh), g)
			return
		}
		inner.ServeHTTP(w, r)
	}), nil
}

// cayleyMethods are the methods of the Cayley routes served here rather
// than by Cayley's router (which answers the others' wrong methods itself):
// the routes and methods Cayley's API v2 registers. Without this check
// /query ran a query for any method (a PUT or DELETE answered 200).
var cayleyMethods = map[string][]string{
	"/api/v2/write":       {http.MethodPost},
	"/api/v2/delete":      {http.MethodPost},
	"/api/v2/node/delete": {http.MethodPost},
	"/api/v2/read":        {http.MethodGet, http.MethodPost},
	"/api/v2/query":       {http.MethodGet, http.MethodPost},
}

// refuseMethod answers a request whose method its route does not serve:
// 405 with the Allow header listing the methods that it does.
func (s *Server) refuseMethod(w http.ResponseWriter, r *http.Request, allowed []string) {
	list := strings.Join(allowed, ", ")
	w.Header().Set("Allow", list)
	s.writeError(w, r, &apiError{http.StatusMethodNotAllowed,
		"method " + r.Method + " not allowed on " + r.URL.Path + " (allowed: " + list + ")"})
}

// checkQueryLanguage answers a query request whose lang parameter is
// missing, repeated or names no registered language in the server's error
// shape (Cayley's answers lack the request id), naming the languages.
func checkQueryLanguage(langs []string) error {
	known := cquery.Languages()
	slices.Sort(known)
	use := strings.Join(known, ", ")
	switch {
	case len(langs) == 0 || langs[0] == "":
		return badRequest("missing query parameter \"lang\" (use %s)", use)
	case len(langs) > 1:
		return badRequest("query parameter \"lang\" given %d times", len(langs))
	case cquery.GetLanguage(langs[0]) == nil:
		return badRequest("unknown query language %q (use %s)", clip(langs[0]), use)
	}
	return nil
}

// readParams are the parameters of a Cayley read: the quad filters, the
// format and Cayley's IRI form (iri=short|full).
var readParams = []string{"sub", "pred", "obj", "label", "format", "iri"}

// checkReadParams rejects a read parameter Cayley would ignore (a
// mistyped filter read the whole store).
func checkReadParams(form url.Values) error {
	for name := range form {
		if !slices.Contains(readParams, name) {
			return badRequest("unknown read parameter %q (allowed: %s)", clip(name), strings.Join(readParams, ", "))
		}
	}
	if iri := form.Get("iri"); iri != "" && iri != "short" && iri != "full" {
		return badRequest("iri %q: use short or full (or leave it out for the IRIs as stored)", clip(iri))
	}
	return nil
}

// parseReadForm parses a read's parameters from the query and a form
// body, multipart too (Cayley's ServeRead reads them with FormValue, which
// parses both; a multipart body's filters were dropped, reading the whole
// store). The request body is already bounded by the body limit.
func parseReadForm(r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return r.ParseMultipartForm(1 << 20)
	}
	return r.ParseForm()
}

// cayleyMaxQuery is the largest query body Cayley reads: its reader stops
// there silently (io.LimitReader), so a longer query would run cut.
const cayleyMaxQuery = 1 << 20

// serveGuardedQuery runs a Cayley query request into a buffer and sends it
// unless the guard recovered a panic, which is answered as a 500.
func (s *Server) serveGuardedQuery(w http.ResponseWriter, r *http.Request, api http.Handler, g *query.Guard) {
	if err := checkQueryLanguage(r.URL.Query()["lang"]); err != nil {
		s.writeError(w, r, err)
		return
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		// Read the body here, under the server's body limit, so a query
		// over it is a 413 rather than cut short by Cayley's own reader.
		data, err := io.ReadAll(r.Body)
		if err != nil {
			s.writeError(w, r, bodyError(err, "query body"))
			return
		}
		if len(data) > cayleyMaxQuery {
			s.writeError(w, r, &apiError{http.StatusRequestEntityTooLarge,
				fmt.Sprintf("query too large (limit %d bytes)", cayleyMaxQuery)})
			return
		}
		r.Body, body = io.NopCloser(bytes.NewReader(data)), data
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	buf := &bufferedResponse{header: http.Header{}, limit: s.cfg.MaxCayleyQueryBytes}
	// Cayley's error answers set no content type.
	buf.header.Set("Content-Type", "application/json")
	var qerr error
	if l := cquery.GetLanguage(r.URL.Query().Get("lang")); l != nil && l.Session != nil &&
		(l.HTTPQuery == nil || l.Name == graphql.Name) {
		qu := r.URL.Query().Get("qu")
		if r.Method != http.MethodGet {
			qu = string(body)
		}
		// A query's memory is watched (the languages have no limit of their
		// own); reads and writes are bounded by their byte and batch caps.
		qctx, stopWatch := query.WatchHeap(ctx, uint64(s.cfg.MaxQueryHeapBytes))
		defer stopWatch()
		ctx = qctx
		if l.Name == graphql.Name {
			qerr = s.runGraphQL(buf, r.WithContext(ctx), qu, l, g)
		} else {
			qerr = s.runSessionQuery(buf, r.WithContext(ctx), qu, l, g)
		}
	} else {
		api.ServeHTTP(buf, r.WithContext(ctx))
	}
	if p := g.Panic(); p != nil {
		s.logPanic(r, p.Value, p.Stack)
		s.writeError(w, r, &apiError{http.StatusInternalServerError,
			"internal error; see the server log for request " + requestID(r.Context())})
		return
	}
	if h := query.HeapLimited(ctx); h != nil {
		s.writeError(w, r, &apiError{http.StatusRequestEntityTooLarge, h.Error()})
		return
	}
	if err := ctx.Err(); err != nil {
		// Cayley answers a cancelled or timed-out query as a 400 with the
		// context's error text; answer it as every route does (504, or 499
		// when the client is gone).
		if gone := r.Context().Err(); gone != nil {
			err = gone
		}
		s.writeError(w, r, err)
		return
	}
	if serr := g.StoreErr(); serr != nil {
		// A store failure, not a bad query: Gizmo reports it as a
		// GoError whose text names SQL and addresses, MQL drops it.
		s.writeError(w, r, fmt.Errorf("cayley query: %w", serr))
		return
	}
	if qerr != nil {
		s.writeError(w, r, qerr)
		return
	}
	if buf.over {
		s.writeError(w, r, answerTooLarge(buf.limit))
		return
	}
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	if buf.status == 0 {
		buf.status = http.StatusOK
	}
	w.WriteHeader(buf.status)
	_, _ = w.Write(buf.body.Bytes())
}

// answerTooLarge is the error of a query answer over limit bytes.
func answerTooLarge(limit int64) error {
	return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"the answer exceeded this server's limit of %d bytes; narrow the query or use Limit", limit)}
}

// runSessionQuery runs query qu of a session language (Gizmo, MQL) as
// Cayley's ServeQuery does, but counts the size of each result as it comes:
// Cayley's collects every result and encodes them all before writing, so
// an answer of a few huge results (a Gizmo program emitting megabyte
// strings) was held whole, several times over, before any byte cap could
// see it. Past buf.limit bytes the query stops and the answer is a 413.
// Errors of the query itself are 400s, as Cayley's.
func (s *Server) runSessionQuery(buf *bufferedResponse, r *http.Request, qu string, l *cquery.Language, qs graph.QuadStore) error {
	ctx := r.Context()
	if qu == "" {
		return badRequest("query is empty")
	}
	opt := cquery.Options{Collation: cquery.JSON, Limit: s.cfg.MaxResults}
	contentType := "application/json"
	if specs := cayleyhttp.ParseAccept(r.Header, "Accept"); len(specs) > 0 && specs[0].Value == "application/ld+json" {
		opt.Collation, contentType = cquery.JSONLD, "application/ld+json"
	}
	it, err := l.Session(qs).Execute(ctx, qu, opt)
	if err != nil {
		return badRequest("%s", oneLine(err.Error()))
	}
	defer it.Close()
	var out bytes.Buffer
	out.WriteString(`{"result":[`)
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	n := 0
	for it.Next(ctx) {
		if n > 0 {
			out.WriteByte(',')
		}
		if err := enc.Encode(it.Result()); err != nil {
			return fmt.Errorf("cayley query: encode result: %w", err)
		}
		out.Truncate(out.Len() - 1) // the encoder's newline
		n++
		if int64(out.Len()) > buf.limit {
			return answerTooLarge(buf.limit)
		}
	}
	if err := it.Err(); err != nil {
		return badRequest("%s", oneLine(err.Error()))
	}
	if n == 0 {
		out.Reset()
		out.WriteString(`{"result":null`)
	} else {
		out.WriteByte(']')
	}
	out.WriteString("}\n")
	return buf.answer(contentType, out.Bytes())
}

// runGraphQL runs a GraphQL query through its session instead of Cayley's
// handler, which took no query from GET's qu, answered errors (a syntax
// error, an empty query) with a 200 and a multi-line message, and applied
// no result cap. The answer keeps Cayley's shape, {"data": ...}; an error is
// a 400 in the server's shape; a list in the answer longer than the result
// cap is refused naming GraphQL's first: (a cut list would read as the
// whole), and the answer is bounded in bytes like every query's.
func (s *Server) runGraphQL(buf *bufferedResponse, r *http.Request, qu string, l *cquery.Language, qs graph.QuadStore) error {
	ctx := r.Context()
	if strings.TrimSpace(qu) == "" {
		return badRequest("query is empty")
	}
	it, err := l.Session(qs).Execute(ctx, qu, cquery.Options{Collation: cquery.JSON})
	if err != nil {
		return badRequest("graphql: %s", oneLine(err.Error()))
	}
	defer it.Close()
	var data any
	if it.Next(ctx) {
		data = it.Result()
	}
	if err := it.Err(); err != nil {
		return badRequest("graphql: %s", oneLine(err.Error()))
	}
	if n := query.LongestList(data); n > s.cfg.MaxResults {
		return badRequest("graphql: a list in the answer holds %d results, over this server's cap of %d; "+
			"ask for fewer with first: (and offset:)", n, s.cfg.MaxResults)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"data": data}); err != nil {
		return fmt.Errorf("graphql: encode the answer: %w", err)
	}
	return buf.answer("application/json", out.Bytes())
}

// errAnswerCapped stops a Cayley query answer over the byte cap.
var errAnswerCapped = errors.New("cayley answer exceeds the server's size limit")

// bufferedResponse collects a response in memory, up to limit bytes; a
// larger response is dropped and marked over.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
	limit  int64
	over   bool
}

func (b *bufferedResponse) Header() http.Header { return b.header }

// answer buffers a query's whole answer of the given content type, or
// returns the over-the-limit error the client gets.
func (b *bufferedResponse) answer(contentType string, body []byte) error {
	b.header.Set("Content-Type", contentType)
	_, err := b.Write(body)
	if errors.Is(err, errAnswerCapped) {
		return answerTooLarge(b.limit)
	}
	return err
}

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if b.over || int64(b.body.Len())+int64(len(p)) > b.limit {
		b.over = true
		b.body = bytes.Buffer{}
		return 0, errAnswerCapped
	}
	return b.body.Write(p)
}

// formatAliases are names accepted in ?format= besides Cayley's own
// format names; N-Triples is read by the N-Quads reader.
var formatAliases = map[string]string{
	"ntriples": "nquads", "n-triples": "nquads", "nt": "nquads",
	"n-quads": "nquads", "nq": "nquads",
}

// genericContentTypes say nothing about the quad format (curl sends the
// first for --data); a write with one of them, or none, is read as N-Quads.
// application/octet-stream is not one: it is a pquads type (/formats lists
// it so), and Cayley reads such a body as pquads.
var genericContentTypes = []string{"", "application/x-www-form-urlencoded", "text/plain"}

// quadBody is a write or delete request's body, read and checked.
type quadBody struct {
	format *quad.Format
	raw    []byte // as sent, bounded by the server's body limit
	quads  int    // the quads it holds (readQuadBody counts them)
	gzip   bool
	// blankScope names a jsonld body's blank nodes, the same on every
	// pass over the body (see newBlankScope).
	blankScope string
	// inflated bounds a gzip body once decompressed.
	inflated *inflateLimit
}

// inflateFactor bounds a gzip body decompressed: at most this many times
// the body limit (32 MiB with the default 1 MiB). A body within the limit
// could otherwise inflate a thousandfold (repetitive N-Quads do) into
// minutes of parsing and millions of quads written.
const inflateFactor = 32

// inflateLimit fails a read past its budget (and remembers it did), where
// io.LimitReader would end the body silently, cut.
type inflateLimit struct {
	r    io.Reader
	left int64
	max  int64
	hit  bool
}

// Read reads on while at most max bytes came out; left counts down from
// max+1, so a body of exactly max bytes reaches its end (EOF) without hit.
func (l *inflateLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p[:min(int64(len(p)), l.left)])
	l.left -= int64(n)
	if l.left <= 0 {
		l.hit = true
		return 0, errInflated
	}
	return n, err
}

var errInflated = errors.New("gzip body inflates past the limit")

// tooLarge is the answer to a gzip body that inflated past its limit.
func (l *inflateLimit) tooLarge() error {
	return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the gzip body inflates to more than %d bytes "+
		"(%d times the body limit); send it in smaller parts", l.max, inflateFactor)}
}

// reader returns the body's quads. A gzip body is decompressed again on
// each pass instead of being held decompressed, so a small body that
// inflates to gigabytes costs no memory.
func (b *quadBody) reader() (quad.ReadCloser, error) {
	var rd io.Reader = bytes.NewReader(b.raw)
	if b.gzip {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("gzip body: %v", err)}
		}
		b.inflated.r, b.inflated.left, b.inflated.hit = zr, b.inflated.max+1, false
		rd = b.inflated
	}
	switch b.format.Name {
	case "nquads":
		return newNQuadsReader(rd), nil
	case "jsonld":
		// Never Cayley's reader, which loads remote contexts (jsonld.go).
		return newJSONLDReader(&utf8Reader{r: rd, format: "jsonld"}, b.blankScope), nil
	case "json", "json-stream":
		rd = &utf8Reader{r: rd, format: b.format.Name}
	}
	return safeReader(b.format.Name, b.format.Reader, rd)
}

// safeReader opens a reader of a Cayley quad format (pquads, json) and
// wraps it so that a panic of the format's decoder on malformed input
// (pquads panics on an empty value) is an error of the body.
func safeReader(name string, open func(io.Reader) quad.ReadCloser, rd io.Reader) (qr quad.ReadCloser, err error) {
	defer func() {
		if v := recover(); v != nil {
			qr, err = nil, malformedBody(name, v)
		}
	}()
	return recoveringReader{name: name, ReadCloser: open(rd)}, nil
}

// recoveringReader turns a panic of ReadQuad into an error.
type recoveringReader struct {
	name string
	quad.ReadCloser
}

func (r recoveringReader) ReadQuad() (q quad.Quad, err error) {
	defer func() {
		if v := recover(); v != nil {
			q, err = quad.Quad{}, malformedBody(r.name, v)
		}
	}()
	return r.ReadCloser.ReadQuad()
}

// malformedBody describes a body its format's decoder panicked on.
func malformedBody(format string, v any) error {
	return fmt.Errorf("malformed %s data: the decoder failed (%s)", format, clip(oneLine(fmt.Sprint(v))))
}

// nquadsReader reads N-Quads and N-Triples with the parser grove ingest
// uses (ingest/rdf), so a quad written over HTTP is stored exactly as the
// same line loaded from a file: Cayley's reader turns "07"^^xsd:integer
// into the integer 7, so a write stored "7" and a delete of the "07" quad
// removed the "7" one. Blank nodes keep their labels as sent (the
// parser has no scope), scoped ones as /read writes them ("_:film/1")
// included; relative IRIs are accepted, as Cayley does. So are the
// generalized quads Cayley's reader accepts and its JSON format and quad
// writers store (a literal subject, predicate or label, a blank node
// predicate: rdf.Parser.SetGeneralized), so that every line /read writes
// can be deleted and written back; grove ingest reads standard RDF.
type nquadsReader struct {
	br   *bufio.Reader
	p    *rdf.Parser
	line int
}

// newNQuadsReader reads an N-Quads or N-Triples body (see nquadsReader).
func newNQuadsReader(rd io.Reader) *nquadsReader {
	p := rdf.NewParser("", false)
	p.SetGeneralized(true)
	return &nquadsReader{br: bufio.NewReader(rd), p: p}
}

func (r *nquadsReader) ReadQuad() (quad.Quad, error) {
	for {
		b, err := r.br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			return quad.Quad{}, err // io.EOF at the end
		}
		r.line++
		q, ok, perr := r.p.Parse(b)
		if perr != nil {
			return quad.Quad{}, fmt.Errorf("line %d: %w", r.line, perr)
		}
		if ok {
			return q, nil
		}
		if err != nil {
			return quad.Quad{}, err
		}
	}
}

func (r *nquadsReader) Close() error { return nil }

// readQuadBody chooses the body's quad format (see setQuadFormat), reads
// the body and parses it once before anything is written, so that bad
// input is answered as a 400 naming the quad and writes nothing. A gzip
// body inflates to at most inflateFactor times maxBody bytes, and the
// parse stops when the request's context ends.
func readQuadBody(r *http.Request, maxBody int64) (*quadBody, error) {
	f, err := setQuadFormat(r)
	if err != nil {
		return nil, err
	}
	b := &quadBody{format: f, inflated: &inflateLimit{max: inflateFactor * maxBody}}
	if f.Name == "jsonld" {
		b.blankScope = newBlankScope()
	}
	switch enc := strings.ToLower(r.Header.Get("Content-Encoding")); enc {
	case "", "identity":
	case "gzip":
		b.gzip = true
	default:
		return nil, &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q is not supported (use gzip or none)", enc)}
	}
	if b.raw, err = io.ReadAll(r.Body); err != nil {
		return nil, bodyError(err, "request body")
	}
	qr, err := b.reader()
	if err != nil {
		return nil, err
	}
	defer qr.Close()
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := r.Context().Err(); err != nil {
				return nil, err
			}
		}
		q, err := qr.ReadQuad()
		if b.inflated.hit {
			return nil, b.inflated.tooLarge()
		}
		if errors.Is(err, io.EOF) {
			b.quads = n - 1
			return b, nil
		}
		var ae *apiError
		switch {
		case errors.As(err, &ae):
			return nil, err // already names the body and what was wrong
		case err != nil:
			return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("%s body, quad %d: %v", f.Name, n, err)}
		}
		if !q.IsValid() {
			// Cayley's JSON readers accept objects that lack a term.
			return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("%s body, quad %d: subject, predicate and object "+
				"are required (got %v)", f.Name, n, q)}
		}
	}
}

// setQuadFormat chooses the format of a write or delete body from
// ?format= (a format name) or else the Content-Type, and sets the
// Content-Type Cayley's handler reads it from. Cayley itself ignores
// ?format= on writes and silently reads an unknown Content-Type as N-Quads;
// here both are errors naming the formats that work.
func setQuadFormat(r *http.Request) (*quad.Format, error) {
	if name := r.URL.Query().Get("format"); name != "" {
		key := strings.ToLower(name)
		if a, ok := formatAliases[key]; ok {
			key = a
		}
		f := quad.FormatByName(key)
		if f == nil || f.Reader == nil || len(f.Mime) == 0 {
			return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("format %q cannot be written; use %s", name, writableFormats())}
		}
		r.Header.Set("Content-Type", f.Mime[0])
		return f, nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct != "" && err != nil {
		return nil, &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf("bad Content-Type %q: %v", ct, err)}
	}
	if slices.Contains(genericContentTypes, mt) {
		mt = "application/n-quads"
	}
	f := quad.FormatByMime(mt)
	if f == nil || f.Reader == nil {
		return nil, &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q cannot be written; use %s", mt, writableFormats())}
	}
	r.Header.Set("Content-Type", mt)
	return f, nil
}

// writableFormats lists the formats a write can use, for error messages.
func writableFormats() string {
	var out []string
	for _, f := range quad.Formats() {
		if f.Reader != nil && len(f.Mime) > 0 {
			out = append(out, fmt.Sprintf("%s (?format=%s or Content-Type: %s)", f.Name, f.Name, strings.Join(f.Mime, ", ")))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func isCayleyWrite(path string) bool {
	for _, p := range cayleyWritePaths {
		if path == p {
			return true
		}
	}
	return false
}

func (s *Server) writeRefusal() string {
	if s.cfg.ReadOnly {
		return "the server is read-only: writes are rejected"
	}
	return "writes need authentication: start the server with --token-file and send the bearer token"
}

// errReadCapped stops a Cayley read that exceeds the byte cap.
var errReadCapped = errors.New("cayley read exceeds the server's response size limit")

// readTruncatedTrailer is the HTTP trailer that carries the truncation
// message of a read cut at the byte cap.
const readTruncatedTrailer = "Grove-Truncated"

// serveCappedRead serves a Cayley read (/api/v2/read) from qs as
// Cayley's ServeRead does, with the same output, but within the request's
// time limit (Config.RequestTimeout) and cut at MaxCayleyReadBytes in a
// way the client can tell (see cappedWriter). The format (?format= or
// Accept, N-Quads by default) must be one Cayley can write; an unknown
// name is a 400 naming the usable ones rather than a silent N-Quads
// answer. A read that fails before its first quad is answered as every
// route answers the error (503 when the store does not answer, 504 past
// the time limit); one that fails later is cut like a read over the byte
// cap, its marker and trailer naming the reason (readCut).
func (s *Server) serveCappedRead(w http.ResponseWriter, r *http.Request, qs graph.QuadStore) {
	format, err := readFormat(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rq := parseRead(r, format)
	if len(format.Mime) != 0 {
		w.Header().Set("Content-Type", format.Mime[0])
	}
	cw := &cappedWriter{ResponseWriter: w, left: s.cfg.MaxCayleyReadBytes, format: format.Name}
	w.Header().Set("Trailer", readTruncatedTrailer)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	err = runRead(ctx, cw, qs, rq)
	switch {
	case cw.truncated:
		s.readOverCap(w, r, cw)
	case err != nil && !cw.sent:
		w.Header().Del("Trailer")
		w.Header().Del("Content-Type")
		s.writeError(w, r, s.readError(r, qs, err))
	case err != nil:
		s.readCut(w, r, cw, s.readError(r, qs, err))
	default:
		cw.finish()
	}
}

// readFormat checks a read's parameters and chooses its format as
// Cayley's ServeRead does: ?format= (a name or alias), else the first
// Accept type, else N-Quads. A format that cannot be written is a 400.
func readFormat(r *http.Request) (*quad.Format, error) {
	if err := parseReadForm(r); err != nil {
		return nil, bodyError(err, "read parameters")
	}
	if err := checkReadParams(r.Form); err != nil {
		return nil, err
	}
	if n := r.Form.Get("format"); n != "" {
		key := strings.ToLower(n)
		if a, ok := formatAliases[key]; ok {
			key = a
		}
		f := quad.FormatByName(key)
		if f == nil || f.Writer == nil {
			return nil, badRequest("format %q cannot be read; use %s", clip(n), readableFormats())
		}
		return f, nil
	}
	if specs := cayleyhttp.ParseAccept(r.Header, "Accept"); len(specs) > 0 {
		if f := quad.FormatByMime(specs[0].Value); f != nil {
			if f.Writer == nil {
				return nil, badRequest("format %q cannot be read; use %s", f.Name, readableFormats())
			}
			return f, nil
		}
	}
	return quad.FormatByName("nquads"), nil
}

// readOverCap ends a read cut at the byte cap: a 413 when nothing was
// sent, else the marker and trailer.
func (s *Server) readOverCap(w http.ResponseWriter, r *http.Request, cw *cappedWriter) {
	msg := fmt.Sprintf("the read exceeded this server's limit of %d bytes; narrow it with sub, pred, obj or label",
		s.cfg.MaxCayleyReadBytes)
	if !cw.sent {
		// Nothing went out yet: a plain error answer.
		w.Header().Del("Trailer")
		w.Header().Del("Content-Type")
		s.writeError(w, r, &apiError{http.StatusRequestEntityTooLarge, msg})
		return
	}
	msg = "truncated: " + msg
	_, _ = w.Write(cw.tail(msg))
	w.Header().Set(readTruncatedTrailer, msg)
}

// readCut ends a read that failed after some of it was sent: the
// status is gone, so the answer is cut as at the byte cap, with the
// marker and trailer saying why ("truncated: the read failed: " and the
// message the error would have been answered with). The full error goes
// to the server log when the message does not show it.
func (s *Server) readCut(w http.ResponseWriter, r *http.Request, cw *cappedWriter, err error) {
	status, msg, internal := classify(err)
	id := requestID(r.Context())
	if mustLog(status, internal) || status == http.StatusGatewayTimeout {
		s.log.ErrorContext(r.Context(), "cayley read failed after sending quads", "request_id", id, "err", err)
	}
	if internal {
		msg = "internal error; see the server log for request " + id
	}
	msg = "truncated: the read failed: " + msg
	_, _ = w.Write(cw.tail(msg))
	w.Header().Set(readTruncatedTrailer, msg)
}

// readError is the error a failed read is answered with (readFailure).
// A store error of no known kind (Cayley's SQL iterator hides what the
// driver returned) is answered as the store's own state: the store is
// probed, and a store that does not answer is a 503 as on every route,
// else the error is an internal one (500 naming the request id, the raw
// error, which may name the database's internals, in the log only).
func (s *Server) readError(r *http.Request, qs graph.QuadStore, err error) error {
	err = s.readFailure(r, qs, err)
	if _, _, internal := classify(err); !internal {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if _, perr := s.kg.Graphs(ctx); perr != nil && errors.Is(perr, store.ErrUnavailable) {
		s.log.ErrorContext(r.Context(), "cayley read failed", "request_id", requestID(r.Context()), "err", err)
		return perr
	}
	return err
}

// readableFormats lists the formats a read can use, for error messages.
func readableFormats() string {
	var out []string
	for _, f := range quad.Formats() {
		if f.Writer != nil {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// cappedWriter cuts a read (serveCappedRead) after a byte budget so that what was
// sent stays valid in its format, and lets serveCappedRead end it with an
// explicit marker (tail):
//
//   - nquads and json-stream (one quad per line) are cut at the last line
//     break within the budget, so only whole quads are sent (a line goes
//     out once its line break was written);
//   - json (Cayley writes "[", then each quad object and separator with
//     one Write each, then "]") is cut after the last whole write;
//   - any other format, and a first write that already exceeds the
//     budget, sends nothing of the cut write.
//
// Once cut, every further write fails with errReadCapped, which stops
// the copy.
type cappedWriter struct {
	http.ResponseWriter
	left      int64
	format    string
	sent      bool // bytes or a status went to the client
	truncated bool
	// afterElem: the last json write was a quad object (not "[" or ",").
	afterElem bool
	// pending is the end of a line-based answer that awaits its line break.
	pending []byte
	// pqWrites counts a pquads answer's writes; pqLength holds a record's
	// length until its message comes.
	pqWrites int
	pqLength []byte
}

func (w *cappedWriter) Write(b []byte) (int, error) {
	if w.truncated {
		return 0, errReadCapped
	}
	if w.lines() {
		// Cayley's N-Quads writer flushes buffers that end anywhere: only
		// whole lines go out, the rest waits for its line break.
		w.pending = append(w.pending, b...)
		whole := w.pending[:bytes.LastIndexByte(w.pending, '\n')+1]
		if int64(len(w.pending)) <= w.left {
			w.forward(whole)
			w.pending = append([]byte(nil), w.pending[len(whole):]...)
			return len(b), nil
		}
		if int64(len(whole)) > w.left {
			whole = whole[:bytes.LastIndexByte(whole[:w.left], '\n')+1]
		}
		w.forward(whole)
		w.truncated, w.pending, w.left = true, nil, 0
		return 0, errReadCapped
	}
	n := len(b)
	if w.format == "pquads" {
		// Cayley's pquads writer writes its 8-byte magic, then each
		// record's length and its message as two writes: a cut between
		// them left a lone length, so a length waits for its message.
		if w.pqWrites++; w.pqWrites%2 == 0 {
			w.pqLength = append(w.pqLength[:0], b...)
			return n, nil
		}
		if len(w.pqLength) > 0 {
			b = append(w.pqLength, b...)
			w.pqLength = nil
		}
	}
	if int64(len(b)) <= w.left {
		w.afterElem = !bytes.HasSuffix(b, []byte("\t"))
		w.forward(b)
		return n, nil
	}
	w.truncated, w.left = true, 0
	return 0, errReadCapped
}

// lines reports whether the format is one quad per line.
func (w *cappedWriter) lines() bool { return w.format == "nquads" || w.format == "json-stream" }

// forward sends b and counts it against the budget.
func (w *cappedWriter) forward(b []byte) {
	if len(b) == 0 {
		return
	}
	w.left -= int64(len(b))
	w.sent = true
	_, _ = w.ResponseWriter.Write(b)
}

// finish sends a last line that had no line break.
func (w *cappedWriter) finish() {
	if !w.truncated {
		w.forward(w.pending)
		w.pending = nil
	}
}

// tail is the marker that ends a cut read: an N-Quads comment line, a
// json-stream line {"error": msg}, or for json a last array element
// {"error": msg} and the closing bracket, so the answer stays valid.
func (w *cappedWriter) tail(msg string) []byte {
	obj, _ := json.Marshal(errorBody{Error: msg})
	switch w.format {
	case "nquads":
		return []byte("# " + strings.ReplaceAll(msg, "\n", " ") + "\n")
	case "json-stream":
		return append(obj, '\n')
	case "json":
		sep := ""
		if w.afterElem {
			sep = ",\n\t"
		}
		return []byte(sep + string(obj) + "\n]\n")
	}
	return nil
}

func (w *cappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
