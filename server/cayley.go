package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	_ "github.com/cayleygraph/cayley/query/gizmo"   // Gizmo (JavaScript) queries
	_ "github.com/cayleygraph/cayley/query/graphql" // GraphQL queries
	_ "github.com/cayleygraph/cayley/query/mql"     // MQL queries
	cayleyhttp "github.com/cayleygraph/cayley/server/http"

	"github.com/grove-kg/grove/store/query"
)

// cayleyWritePaths are the Cayley API v2 routes that modify the store.
var cayleyWritePaths = []string{"/api/v2/write", "/api/v2/delete", "/api/v2/node/delete"}

// newCayley mounts Cayley's own HTTP API v2 over qs. Queries get the
// server's result cap and request timeout. Writes are allowed only when the
// server is not read-only and has a token (so every write is authenticated).
//
// Queries run over a per-request query.Guard: Gizmo evaluates a query in a
// goroutine of its own, out of reach of the recovery middleware, so a panic
// in the store there would end the process. The guard recovers it, the
// answer (buffered; it is bounded by the result cap) is replaced by a 500
// naming the request id, and the panic and its stack go to the server log.
// GraphQL and MQL run on the request goroutine, where the middleware
// recovers as for every route.
func (s *Server) newCayley(qs graph.QuadStore) (http.Handler, error) {
	writable := !s.cfg.ReadOnly && s.hasToken
	newAPI := func(qs graph.QuadStore) (http.Handler, error) {
		qw, err := graph.NewQuadWriter("single", qs, nil)
		if err != nil {
			return nil, fmt.Errorf("cayley writer: %w", err)
		}
		api := cayleyhttp.NewAPIv2(&graph.Handle{QuadStore: qs, QuadWriter: qw})
		api.SetReadOnly(!writable)
		api.SetQueryLimit(s.cfg.MaxResults)
		api.SetQueryTimeout(s.cfg.RequestTimeout)
		return http.StripPrefix("/cayley", api), nil
	}
	inner, err := newAPI(qs)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/cayley")
		if isCayleyWrite(path) && !writable {
			s.writeError(w, r, &apiError{http.StatusForbidden, s.writeRefusal()})
			return
		}
		switch path {
		case "/api/v2/read":
			// Uncompressed, so the cap counts quad text.
			r.Header.Del("Accept-Encoding")
			w = &cappedWriter{ResponseWriter: w, left: s.cfg.MaxCayleyReadBytes}
		case "/api/v2/query":
			g := query.NewGuard(qs)
			api, err := newAPI(g)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			s.serveGuardedQuery(w, r, api, g)
			return
		}
		inner.ServeHTTP(w, r)
	}), nil
}

// serveGuardedQuery runs a Cayley query request into a buffer and sends it
// unless the guard recovered a panic, which is answered as a 500.
func (s *Server) serveGuardedQuery(w http.ResponseWriter, r *http.Request, api http.Handler, g *query.Guard) {
	buf := &bufferedResponse{header: http.Header{}}
	// Cayley's error answers set no content type.
	buf.header.Set("Content-Type", "application/json")
	api.ServeHTTP(buf, r)
	if p := g.Panic(); p != nil {
		s.logPanic(r, p.Value, p.Stack)
		s.writeError(w, r, &apiError{http.StatusInternalServerError,
			"internal error; see the server log for request " + requestID(r.Context())})
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

// bufferedResponse collects a response in memory.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
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

// cappedWriter cuts a response after a byte budget, at the last line break
// within it, so a line-based quad format keeps only whole quads; the
// streaming writer then stops with an error.
type cappedWriter struct {
	http.ResponseWriter
	left int64
}

func (w *cappedWriter) Write(b []byte) (int, error) {
	if int64(len(b)) <= w.left {
		w.left -= int64(len(b))
		return w.ResponseWriter.Write(b)
	}
	cut := b[:w.left]
	if i := bytes.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	}
	w.left = 0
	n, _ := w.ResponseWriter.Write(cut)
	return n, errReadCapped
}

func (w *cappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
