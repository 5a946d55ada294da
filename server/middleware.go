package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// route is one registered endpoint. Every endpoint goes through wrap, which
// applies (in order) request ids, panic recovery, authentication, the body
// limit, the per-request timeout, latency metrics and the access log.
type route struct {
	// pattern is a Go 1.22 ServeMux pattern, "GET /v1/graphs".
	pattern string
	handler http.HandlerFunc
	// public routes need no bearer token (health checks, the web page and
	// the API description).
	public bool
	// long routes (reasoning runs) get AskTimeout instead of RequestTimeout.
	long bool
	// raw routes manage their own timeout (the Cayley mount, which sets
	// its own query timeout).
	raw bool
}

type requestIDKey struct{}

// requestID returns the id wrap gave the request ("" outside wrap).
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// statusWriter records the status code and body size of a response. It
// unwraps for http.ResponseController, so flushing and deadlines still work.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush lets handlers that type-assert http.Flusher stream through us.
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap builds the handler of one route.
func (s *Server) wrap(rt route) http.Handler {
	name := rt.pattern
	latency := s.metrics.requestLatency.MustCurryWith(prometheus.Labels{"route": name})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.requests.enter() {
			// Not writeError: a refusal while shutting down is expected,
			// not worth a log line each.
			w.Header().Set("Connection", "close")
			writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "the server is shutting down"})
			return
		}
		defer s.requests.leave()
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		id := s.nextRequestID()
		sw.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		if !rt.raw {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.timeoutFor(rt))
			defer cancel()
			_ = http.NewResponseController(w).SetWriteDeadline(start.Add(s.timeoutFor(rt) + 5*time.Second))
		}
		r = r.WithContext(ctx)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logPanic(r, v, debug.Stack())
				if sw.status == 0 {
					s.writeError(sw, r, &apiError{http.StatusInternalServerError,
						"internal error; see the server log for request " + id})
				}
			}
			s.finish(latency, sw, r, name, start)
		}()
		if !rt.public && !s.authorised(sw, r) {
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = timedBody{ReadCloser: http.MaxBytesReader(sw, r.Body, s.cfg.MaxBodyBytes), limit: s.cfg.RequestTimeout}
		}
		rt.handler(sw, r)
	})
}

// timedBody is a request body whose reads past the server's read
// deadline (http.Server.ReadTimeout, which is RequestTimeout) fail with a
// 408 naming that limit, on every route alike, rather than a network error
// each handler would answer differently.
type timedBody struct {
	io.ReadCloser
	limit time.Duration
}

func (b timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && isTimeout(err) {
		err = &apiError{http.StatusRequestTimeout, fmt.Sprintf("the request body was not received within %s s",
			strconv.FormatFloat(b.limit.Seconds(), 'f', -1, 64))}
	}
	return n, err
}

// isTimeout reports whether err is a network read that hit its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func (s *Server) timeoutFor(rt route) time.Duration {
	if rt.long {
		return s.cfg.AskTimeout
	}
	return s.cfg.RequestTimeout
}

// finish records latency and writes the access log line.
func (s *Server) finish(latency prometheus.ObserverVec, sw *statusWriter, r *http.Request, name string, start time.Time) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	d := time.Since(start)
	latency.WithLabelValues(methodLabel(r.Method), codeLabel(status)).Observe(d.Seconds())
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "http request",
		slog.String("request_id", requestID(r.Context())),
		slog.String("method", r.Method),
		slog.String("route", name),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Int64("bytes", sw.bytes),
		slog.Duration("duration", d),
		slog.String("remote", r.RemoteAddr))
}

// knownMethods are the methods the latency histogram names; any other
// method a client sends is counted as "other", so clients cannot grow
// /metrics by sending made-up methods (the route label is the registered
// pattern and the code label is set by the server, both bounded too).
var knownMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodDelete, http.MethodPatch, http.MethodOptions}

// methodLabel is the method label of a request: the method when it is a
// known one, else "other".
func methodLabel(m string) string {
	if slices.Contains(knownMethods, m) {
		return m
	}
	return "other"
}

// codeLabel is the code label of a status: the code, or "other" outside
// 100-599.
func codeLabel(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status)
}

// nextRequestID returns a process-unique request id.
func (s *Server) nextRequestID() string {
	return s.idPrefix + strconv.FormatUint(s.reqSeq.Add(1), 36)
}

// authorised checks the bearer token (when one is configured), answering
// 401 itself when it is missing or wrong.
func (s *Server) authorised(w http.ResponseWriter, r *http.Request) bool {
	if !s.hasToken {
		return true
	}
	tok, ok := bearerToken(r)
	if ok && s.tokenMatches(tok) {
		return true
	}
	msg := "missing bearer token (send Authorization: Bearer <token>)"
	if ok {
		msg = "invalid bearer token"
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="grove"`)
	s.writeError(w, r, &apiError{http.StatusUnauthorized, msg})
	return false
}

// bearerToken extracts the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// tokenMatches compares tok with the configured token in constant time:
// both are hashed first, so neither content nor length leaks.
func (s *Server) tokenMatches(tok string) bool {
	sum := sha256.Sum256([]byte(tok))
	return s.hasToken && subtle.ConstantTimeCompare(sum[:], s.tokenHash[:]) == 1
}
