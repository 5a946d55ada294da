package server

import (
	"context"
	_ "embed"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/grove-kg/grove/server/web"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the OpenAPI 3 description of the HTTP API.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// routeTable lists every endpoint. The OpenAPI document must describe each
// one (a test checks it).
func (s *Server) routeTable() []route {
	rts := []route{
		{pattern: "GET /{$}", handler: web.Index, public: true},
		{pattern: "GET /static/", handler: s.jsonErrors(web.Static()), public: true},
		{pattern: "GET /healthz", handler: s.handleHealth, public: true},
		{pattern: "GET /readyz", handler: s.handleReady, public: true},
		{pattern: "GET /metrics", handler: s.handleMetrics()},
		{pattern: "GET /v1/openapi.json", handler: handleOpenAPI, public: true},
		{pattern: "GET /v1/graphs", handler: s.kgHandler(querySpec{}, s.handleGraphs)},
		{pattern: "GET /v1/graphs/{name}", handler: s.handleGraph},
		{pattern: "GET /v1/stats", handler: s.kgHandler(querySpec{}, s.handleStats)},
		{pattern: "GET /v1/search", handler: s.kgHandler(searchSpec, s.handleSearch)},
		{pattern: "GET /v1/entity", handler: s.kgHandler(entitySpec, s.handleEntity)},
		{pattern: "GET /v1/relations", handler: s.kgHandler(relationsSpec, s.handleRelations)},
		{pattern: "GET /v1/edges", handler: s.kgHandler(edgesSpec, s.handleEdges)},
		{pattern: "GET /v1/neighbors", handler: s.kgHandler(neighborsSpec, s.handleNeighbors)},
		{pattern: "GET /v1/degree", handler: s.kgHandler(degreeSpec, s.handleDegree)},
		{pattern: "GET /v1/features", handler: s.kgHandler(featuresSpec, s.handleFeatures)},
		{pattern: "GET /v1/sameas", handler: s.kgHandler(sameAsSpec, s.handleSameAs)},
		{pattern: "GET /v1/methods", handler: s.handleMethods},
		{pattern: "POST /v1/ask", handler: s.handleAsk, long: true},
		{pattern: "POST /v1/ask/stream", handler: s.handleAskStream, long: true},
		{pattern: "/cayley/", handler: s.cayley.ServeHTTP},
	}
	return rts
}

// buildMux registers every route, wrapped, on a new ServeMux.
func (s *Server) buildMux() http.Handler {
	mux := http.NewServeMux()
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		mux.Handle(rt.pattern, s.wrap(rt))
	}
	mux.Handle("/", s.wrap(route{pattern: "/", handler: s.fallback(mux), public: true}))
	return mux
}

// Routes lists the registered route patterns ("GET /v1/graphs", ...).
func (s *Server) Routes() []string {
	out := make([]string, len(s.routes))
	for i, rt := range s.routes {
		out[i] = rt.pattern
	}
	return out
}

func handleOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}

type healthBody struct {
	Status string `json:"status"`
	Graphs int    `json:"graphs,omitempty"`
}

// handleHealth is liveness: the process answers.
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, healthBody{Status: "ok"})
}

// readyTimeout bounds the store check of a readiness probe: probes
// commonly give up after 1 to 10 s, and a store that does not answer in
// this long is not ready.
const readyTimeout = 3 * time.Second

// handleReady is readiness: not shutting down and the store answers
// (lists its graphs) within readyTimeout.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "shutting down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	gs, err := s.kg.Graphs(ctx)
	if err != nil {
		s.log.Warn("readiness check failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "store unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, healthBody{Status: "ready", Graphs: len(gs)})
}

func (s *Server) handleMetrics() http.HandlerFunc {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}})
	return h.ServeHTTP
}

// slogPrinter adapts the server log to promhttp's error logger.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) { p.s.log.Warn("metrics", "err", v) }

// jsonErrors serves h, answering its error statuses (the file server's
// text/plain "404 page not found") as JSON like every other error.
func (s *Server) jsonErrors(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ew := &errorCatcher{ResponseWriter: w}
		h.ServeHTTP(ew, r)
		if ew.status == 0 {
			return
		}
		msg := http.StatusText(ew.status)
		if ew.status == http.StatusNotFound {
			msg = "no file " + r.URL.Path
		}
		s.writeError(w, r, &apiError{ew.status, msg})
	}
}

// errorCatcher holds back an error status (>= 400) and its body.
type errorCatcher struct {
	http.ResponseWriter
	status int // the held-back error status
	wrote  bool
}

func (w *errorCatcher) WriteHeader(code int) {
	if code >= 400 && !w.wrote {
		w.status = code
		return
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorCatcher) Write(b []byte) (int, error) {
	if w.status != 0 {
		return len(b), nil
	}
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *errorCatcher) Unwrap() http.ResponseWriter { return w.ResponseWriter }
