package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"

	"github.com/grove-kg/grove/store"
)

func TestAuth(t *testing.T) {
	const token = "s3cret-token-value"
	ts := startServer(t, Config{Token: token}, testDB(t), Deps{})
	cases := []struct {
		name, path, auth string
		status           int
		want             string
	}{
		{"missing", "/v1/graphs", "", 401, "missing bearer token"},
		{"wrong", "/v1/graphs", "Bearer nope", 401, "invalid bearer token"},
		{"wrong prefix of right", "/v1/graphs", "Bearer s3cret", 401, "invalid bearer token"},
		{"wrong scheme", "/v1/graphs", "Basic " + token, 401, "missing bearer token"},
		{"right", "/v1/graphs", "Bearer " + token, 200, `"graphs"`},
		{"right lower-case scheme", "/v1/graphs", "bearer " + token, 200, `"graphs"`},
		{"metrics missing", "/metrics", "", 401, "missing bearer token"},
		{"metrics right", "/metrics", "Bearer " + token, 200, "grove_http_request_duration_seconds"},
		{"ask missing", "/v1/methods", "", 401, "missing bearer token"},
		{"healthz public", "/healthz", "", 200, "ok"},
		{"readyz public", "/readyz", "", 200, "ready"},
		{"page public", "/", "", 200, "<title>Grove</title>"},
		{"assets public", "/static/app.css", "", 200, "--accent"},
		{"openapi public", "/v1/openapi.json", "", 200, "openapi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// An empty value removes the header do() would add.
			st, hdr, body := ts.do("GET", c.path, "", map[string]string{"Authorization": c.auth})
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("status %d body %.200s; want %d and %q", st, body, c.status, c.want)
			}
			if st == 401 && hdr.Get("WWW-Authenticate") != `Bearer realm="grove"` {
				t.Errorf("WWW-Authenticate = %q", hdr.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(body), token) && c.path != "/" {
				t.Errorf("body echoes the token")
			}
		})
	}
}

func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, path, want, err string
	}{
		{"trimmed", write("ok", "  abc123\n"), "abc123", ""},
		{"empty", write("empty", " \n"), "", "empty"},
		{"spaces", write("sp", "a b"), "", "one line"},
		{"missing", filepath.Join(dir, "none"), "", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadTokenFile(c.path)
			if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("ReadTokenFile = %q, %v; want %q, error containing %q", got, err, c.want, c.err)
			}
		})
	}
	s, err := New(Config{TokenFile: filepath.Join(dir, "ok"), Addr: "0.0.0.0:7777"}, testDB(t), Deps{})
	if err != nil || !s.hasToken || !s.tokenMatches("abc123") || s.tokenMatches("abc12") {
		t.Fatalf("server with token file: %v", err)
	}
	if s.Config().Token != "" {
		t.Error("Config() exposes the token")
	}
}

func TestIsLoopback(t *testing.T) {
	cases := []struct {
		addr string
		want bool
		err  bool
	}{
		{"127.0.0.1:7777", true, false},
		{"127.8.9.10:1", true, false},
		{"localhost:7777", true, false},
		{"[::1]:7777", true, false},
		{":7777", false, false},
		{"0.0.0.0:7777", false, false},
		{"[::]:7777", false, false},
		{"192.168.1.4:80", false, false},
		{"example.com:80", false, false},
		{"no-port", false, true},
	}
	for _, c := range cases {
		got, err := IsLoopback(c.addr)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("IsLoopback(%q) = %v, %v", c.addr, got, err)
		}
	}
}

func TestNonLoopbackNeedsToken(t *testing.T) {
	db := testDB(t)
	if _, err := New(Config{Addr: "0.0.0.0:7777"}, db, Deps{}); err == nil || !strings.Contains(err.Error(), "bearer token is required") {
		t.Fatalf("New on 0.0.0.0 without token: %v", err)
	}
	if _, err := New(Config{Addr: "0.0.0.0:7777", Token: "t0k3n"}, db, Deps{}); err != nil {
		t.Fatalf("New on 0.0.0.0 with token: %v", err)
	}
	// Serve checks the listener it is actually given.
	s, err := New(Config{}, db, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on all interfaces: %v", err)
	}
	err = s.Serve(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "bearer token is required") {
		t.Fatalf("Serve on %s without token: %v", ln.Addr(), err)
	}
}

func TestRequestLimits(t *testing.T) {
	ts := startServer(t, Config{MaxBodyBytes: 64, MaxIDs: 2, MaxResults: 5}, testDB(t), Deps{})
	runAPICases(t, ts, []apiCase{
		{name: "too many ids", path: "/v1/relations?id=m1&id=m2&id=m3", status: 400, contains: []string{"too many ids: 3 (at most 2"}},
		{name: "limit over cap", path: "/v1/edges?id=p1&relation=directed_by&dir=in&limit=6", status: 400, contains: []string{"from 1 to 5"}},
		{name: "default limit capped", path: "/v1/neighbors?id=p1&dir=in", status: 200},
		{name: "long id", path: "/v1/entity?id=" + strings.Repeat("x", maxIDBytes+1), status: 400, contains: []string{"bytes long"}},
		{name: "body too large", method: "POST", path: "/v1/ask", body: `{"question":"` + strings.Repeat("x", 100) + `"}`,
			status: 503}, // reasoning is checked first: no model here
	})
	// With a configured asker the body limit answers 413 (see TestAsk*).
}

func TestRequestTimeout(t *testing.T) {
	ts := startServer(t, Config{RequestTimeout: time.Nanosecond}, testDB(t), Deps{})
	st, body := ts.get("/v1/entity?id=m1")
	if st != http.StatusGatewayTimeout || !strings.Contains(string(body), "request timed out") {
		t.Fatalf("status %d body %s", st, body)
	}
}

// faultKG injects failures into a real KG.
type faultKG struct {
	store.KG
	entityErr error
	panicMsg  string
}

func (f faultKG) Entity(ctx context.Context, id string) (store.Entity, error) {
	if f.panicMsg != "" {
		panic(f.panicMsg)
	}
	if f.entityErr != nil {
		return store.Entity{}, f.entityErr
	}
	return f.KG.Entity(ctx, id)
}

func TestErrorBodiesLeakNothing(t *testing.T) {
	const secretPath = "/var/lib/grove/db/000042.vlog"
	cases := []struct {
		name string
		kg   faultKG
	}{
		{"internal error", faultKG{entityErr: fmt.Errorf("read %s: %w", secretPath, io.ErrUnexpectedEOF)}},
		{"panic", faultKG{panicMsg: "boom at " + secretPath}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.kg.KG = testDB(t)
			ts := startServer(t, Config{}, c.kg, Deps{})
			st, hdr, body := ts.do("GET", "/v1/entity?id=m1", "", nil)
			if st != 500 {
				t.Fatalf("status %d", st)
			}
			b := decode[errorBody](t, body)
			if strings.Contains(string(body), "/var/lib") || strings.Contains(string(body), "goroutine") ||
				strings.Contains(string(body), ".go:") || b.RequestID == "" || b.RequestID != hdr.Get("X-Request-Id") ||
				!strings.Contains(b.Error, b.RequestID) {
				t.Fatalf("error body %s", body)
			}
			// The server log has the details, tied to the request id.
			if logs := ts.logs.String(); !strings.Contains(logs, secretPath) || !strings.Contains(logs, b.RequestID) {
				t.Errorf("log lacks the error details: %s", logs)
			}
			// The server keeps serving.
			if st, _ := ts.get("/v1/graphs"); st != 200 {
				t.Errorf("after failure: status %d", st)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err      error
		status   int
		internal bool
	}{
		{badRequest("x"), 400, false},
		{fmt.Errorf("entity %q: %w", "q", store.ErrNotFound), 404, false},
		{fmt.Errorf("run: %w", context.DeadlineExceeded), 504, false},
		{context.Canceled, 499, false},
		{&http.MaxBytesError{Limit: 10}, 413, false},
		{errors.New("disk on fire"), 500, true},
		{fmt.Errorf("apply deltas: %w: 2 MiB left on /srv/db", store.ErrDiskFull), 507, false},
		{fmt.Errorf("open /srv/db/1.sst: %w", store.ErrTooManyFiles), 503, false},
		{fmt.Errorf("apply deltas: 1 deltas are %w", store.ErrTooBig), 413, false},
		{fmt.Errorf("entity: %w (5s): read tcp 127.0.0.1:1->127.0.0.1:2", store.ErrUnavailable), 503, false},
		{&graph.DeltaError{Err: graph.ErrQuadNotExist}, 404, false},
		{fmt.Errorf("sql write: quad 2 (subject </s>, predicate </p>): %w: its object holds a NUL character", store.ErrUnstorable), 400, false},
	}
	for _, c := range cases {
		st, msg, internal := classify(c.err)
		if st != c.status || internal != c.internal || msg == "" {
			t.Errorf("classify(%v) = %d %q %v", c.err, st, msg, internal)
		}
		if strings.Contains(msg, "/srv/db") {
			t.Errorf("classify(%v) shows the directory: %q", c.err, msg)
		}
	}
}

func TestAccessLog(t *testing.T) {
	ts := startServer(t, Config{}, testDB(t), Deps{})
	ts.get("/v1/entity?id=m1")
	logs := ts.logs.String()
	for _, want := range []string{`"msg":"http request"`, `"route":"GET /v1/entity"`, `"status":200`, `"path":"/v1/entity"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("access log lacks %s: %s", want, logs)
		}
	}
}

// TestMetricsLabelsBounded: clients cannot add series to /metrics by
// sending made-up methods (with or without a token, on any path): every
// method outside the known ones is counted as "other".
func TestMetricsLabelsBounded(t *testing.T) {
	const token = "metrics-token"
	ts := startServer(t, Config{Token: token}, testDB(t), Deps{})
	series := func() (int, string) {
		st, _, body := ts.do("GET", "/metrics", "", nil)
		if st != 200 {
			t.Fatalf("metrics: %d %s", st, body)
		}
		n := 0
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "grove_http_request_duration_seconds_count{") {
				n++
			}
		}
		return n, string(body)
	}
	paths := []string{"/v1/graphs", "/healthz", "/cayley/api/v2/read", "/nosuch"}
	send := func(method string, auth bool) {
		for _, p := range paths {
			hdr := map[string]string{}
			if !auth {
				hdr["Authorization"] = "Bearer wrong"
			}
			ts.do(method, p, "", hdr)
		}
	}
	for i := range 20 {
		send(fmt.Sprintf("XMETHOD%d", i), i%2 == 0)
	}
	series() // the scrape itself is a series
	before, _ := series()
	for i := 20; i < 60; i++ {
		send(fmt.Sprintf("XMETHOD%d", i), i%2 == 0)
	}
	after, body := series()
	if after != before {
		t.Errorf("40 more made-up methods added %d series", after-before)
	}
	if strings.Contains(body, "XMETHOD") {
		t.Errorf("metrics name a client's method")
	}
	if !strings.Contains(body, `method="other"`) || !strings.Contains(body, `method="GET"`) {
		t.Errorf("metrics lack the other and GET methods")
	}
}

func TestMetricLabels(t *testing.T) {
	for _, c := range []struct {
		method, want string
	}{{"GET", "GET"}, {"HEAD", "HEAD"}, {"OPTIONS", "OPTIONS"}, {"get", "other"}, {"PROPFIND", "other"}, {"", "other"}} {
		if got := methodLabel(c.method); got != c.want {
			t.Errorf("methodLabel(%q) = %q, want %q", c.method, got, c.want)
		}
	}
	for _, c := range []struct {
		code int
		want string
	}{{200, "200"}, {499, "499"}, {599, "599"}, {600, "other"}, {99, "other"}, {-1, "other"}} {
		if got := codeLabel(c.code); got != c.want {
			t.Errorf("codeLabel(%d) = %q, want %q", c.code, got, c.want)
		}
	}
}

// TestSlowBodyIs408: a request body that does not arrive within the read
// timeout (RequestTimeout) is a 408 saying so on every route that reads a
// body, where it was a 500, or a 400 quoting the network error.
func TestSlowBodyIs408(t *testing.T) {
	const token = "slow-token"
	db := testDB(t)
	ts := startServer(t, Config{Token: token, RequestTimeout: 300 * time.Millisecond}, db,
		Deps{QuadStore: db, Model: newLexicalModel(0), Reasoners: registry()})
	cases := []struct{ path, ctype string }{
		{"/cayley/api/v2/write", "application/n-quads"},
		{"/cayley/api/v2/delete", "application/n-quads"},
		{"/cayley/api/v2/node/delete", "application/n-quads"},
		{"/cayley/api/v2/query?lang=gizmo", "text/plain"},
		{"/cayley/api/v2/query?lang=graphql", "text/plain"},
		{"/cayley/api/v2/read", "application/x-www-form-urlencoded"},
		{"/v1/ask", "application/json"},
		{"/v1/ask/stream", "application/json"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// The headers announce 100 bytes; 4 come, then nothing.
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\n"+
				"Content-Length: 100\r\n\r\n{\"qu", c.path, token, c.ctype)
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout ||
				!strings.Contains(string(body), "the request body was not received within 0.3 s") {
				t.Fatalf("status %d body %s", resp.StatusCode, body)
			}
		})
	}
}
