package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/cayleygraph/cayley/graph"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
)

// apiError is an error whose message is safe to show to clients.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// badRequest is a 400 with a formatted message.
func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// oneLine joins the lines of a multi-line error text (errors.Join) with
// "; ", so every error message is one line.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
}

// mergeUnfinishedMsg answers a write refused because a grove optimize run
// on the database was interrupted (engine.ErrMergeUnfinished): reads go
// on, writes wait for the operator.
const mergeUnfinishedMsg = "writes are refused: an earlier grove optimize run on this database did not finish " +
	"(reads are correct); stop the server, run grove optimize (it needs the database alone and completes the " +
	"interrupted run), then start the server again"

// unavailableMsg answers a request the store's database did not answer
// (store.ErrUnavailable).
const unavailableMsg = "store unavailable: the database did not answer (stopped, unreachable, or silent past the idle bound)"

// errorBody is the JSON body of every error answer.
type errorBody struct {
	Error     string `json:"error"`
	RequestID string `json:"request_id,omitempty"`
}

// classify maps err to a status code and a client-safe message. Only
// apiError messages, store.ErrNotFound messages (which name the missing id
// or graph), a delete's missing quad or node, a quad the store cannot hold
// (store.ErrUnstorable, 400), and fixed messages for the
// store's resource errors and for a database that does not answer
// (store.ErrUnavailable, 503; a request whose own deadline passed first is
// a 504) reach clients; anything else is logged and answered with a
// generic message, so no internal path or stack ever leaks.
// withQuadLabel is err's message with the quad of a *graph.DeltaError in
// it written as the N-Quads line it came from: Cayley's message leaves out
// the graph label, so a delete's missing quad could read as one that
// exists in another graph.
func withQuadLabel(err error) string {
	var de *graph.DeltaError
	if !errors.As(err, &de) || de.Delta.Quad.Label == nil || !de.Delta.Quad.IsValid() {
		return err.Error()
	}
	line := strings.TrimSuffix(de.Delta.Quad.NQuad(), " .")
	return strings.Replace(err.Error(), de.Error(), de.Delta.Action.String()+" "+line+": "+de.Err.Error(), 1)
}

func classify(err error) (int, string, bool) {
	var ae *apiError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae.status, ae.msg, false
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge,
			"request body too large (limit " + strconv.FormatInt(mbe.Limit, 10) + " bytes)", false
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, err.Error(), false
	case errors.Is(err, graph.ErrQuadNotExist), errors.Is(err, graph.ErrNodeNotExists):
		// A delete's missing quad or node: the message names the client's own data.
		return http.StatusNotFound, withQuadLabel(err), false
	case errors.Is(err, store.ErrUnstorable):
		// A value the store cannot hold (a NUL in PostgreSQL text): the
		// message names the client's quad and says why.
		return http.StatusBadRequest, oneLine(err.Error()), false
	case errors.Is(err, store.ErrDiskFull):
		return http.StatusInsufficientStorage, "the server's disk is full", false
	case errors.Is(err, store.ErrTooManyFiles):
		return http.StatusServiceUnavailable, "the server is out of open files", false
	case errors.Is(err, engine.ErrMergeUnfinished):
		return http.StatusServiceUnavailable, mergeUnfinishedMsg, false
	case errors.Is(err, store.ErrTooBig):
		return http.StatusRequestEntityTooLarge, "a quad is too large for one transaction", false
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "request timed out", false
	case errors.Is(err, store.ErrUnavailable):
		// The database did not answer (a stopped PostgreSQL): the full
		// error names SQL and addresses, so it goes to the log only.
		return http.StatusServiceUnavailable, unavailableMsg, false
	case errors.Is(err, context.Canceled):
		return 499, "request cancelled", false
	}
	return http.StatusInternalServerError, "internal error", true
}

// bodyError is the answer to a failed read of the request body: the error
// itself when it already answers the client (a body not received in time
// is a 408, a body over the limit a 413), else a 400 saying what was being
// read. Handlers that parse a body pass its errors through here.
func bodyError(err error, what string) error {
	var ae *apiError
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &ae) || errors.As(err, &mbe):
		return err
	case errors.As(err, &ne):
		// Its text names the connection's addresses; say what happened.
		return badRequest("%s: the connection failed before the whole body was received", what)
	}
	return badRequest("%s: %v", what, oneLine(err.Error()))
}

// mustLog reports whether the server log needs the full error: the client
// was shown a generic message, or the server is out of disk or files (the
// full error names the directory and what to free).
func mustLog(status int, internal bool) bool {
	return internal || status == http.StatusInsufficientStorage || status == http.StatusServiceUnavailable
}

// writeError answers err as JSON and logs unexpected errors.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, internal := classify(err)
	id := requestID(r.Context())
	if mustLog(status, internal) {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", id, "path", r.URL.Path, "err", err)
	}
	if internal {
		msg = "internal error; see the server log for request " + id
	}
	if status == 499 {
		// The client is gone; there is nobody to answer.
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, errorBody{Error: msg, RequestID: id})
}

// logPanic records a recovered panic with its stack in the server log only.
func (s *Server) logPanic(r *http.Request, v any, stack []byte) {
	s.log.ErrorContext(r.Context(), "panic serving request", "request_id", requestID(r.Context()),
		"path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(stack))
}

// fallback answers requests no route matched: 405 with an Allow header
// when the path exists for other methods, else 404, both as JSON.
func (s *Server) fallback(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.writeError(w, r, &apiError{http.StatusMethodNotAllowed,
				"method " + r.Method + " not allowed on " + r.URL.Path + " (allowed: " + strings.Join(allow, ", ") + ")"})
			return
		}
		s.writeError(w, r, &apiError{http.StatusNotFound, "no route for " + r.Method + " " + r.URL.Path})
	}
}
