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
)

// cayleyWritePaths are the Cayley API v2 routes that modify the store.
var cayleyWritePaths = []string{"/api/v2/write", "/api/v2/delete", "/api/v2/node/delete"}

// newCayley mounts Cayley's own HTTP API v2 over qs. Queries get the
// server's result cap and request timeout. Writes are allowed only when the
// server is not read-only and has a token (so every write is authenticated).
func (s *Server) newCayley(qs graph.QuadStore) (http.Handler, error) {
	qw, err := graph.NewQuadWriter("single", qs, nil)
	if err != nil {
		return nil, fmt.Errorf("cayley writer: %w", err)
	}
	api := cayleyhttp.NewAPIv2(&graph.Handle{QuadStore: qs, QuadWriter: qw})
	writable := !s.cfg.ReadOnly && s.hasToken
	api.SetReadOnly(!writable)
	api.SetQueryLimit(s.cfg.MaxResults)
	api.SetQueryTimeout(s.cfg.RequestTimeout)
	inner := http.StripPrefix("/cayley", api)
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
			// Cayley's error answers set no content type.
			w.Header().Set("Content-Type", "application/json")
		}
		inner.ServeHTTP(w, r)
	}), nil
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
