package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// Two small graphs: a film graph and a Wikidata-like graph linked to it by
// grove:sameAs.
const (
	rdfsLabel  = "<http://www.w3.org/2000/01/rdf-schema#label>"
	schemaDesc = "<http://schema.org/description>"
)

var testGraphs = map[string]string{
	"movies": strings.Join([]string{
		`<m1> ` + rdfsLabel + ` "Blade Runner" .`,
		`<m1> ` + schemaDesc + ` "1982 science fiction film" .`,
		`<m1> <directed_by> <p1> .`,
		`<m1> <starring> <p2> .`,
		`<m1> <release_year> "1982" .`,
		`<m1> <grove:sameAs> <Q184843> .`,
		`<m2> ` + rdfsLabel + ` "Alien" .`,
		`<m2> <directed_by> <p1> .`,
		`<m2> <release_year> "1979" .`,
		`<m3> ` + rdfsLabel + ` "Gladiator" .`,
		`<m3> <directed_by> <p1> .`,
		`<p1> ` + rdfsLabel + ` "Ridley Scott" .`,
		`<p2> ` + rdfsLabel + ` "Harrison Ford" .`,
		`<directed_by> ` + rdfsLabel + ` "directed by" .`,
		`<directed_by> <grove:inverseLabel> "directed" .`,
	}, "\n") + "\n",
	"wiki": strings.Join([]string{
		`<Q184843> ` + rdfsLabel + ` "Blade Runner" .`,
		`<Q184843> <P57> <Q56005> .`,
		`<Q56005> ` + rdfsLabel + ` "Ridley Scott" .`,
		`<P57> ` + rdfsLabel + ` "director" .`,
	}, "\n") + "\n",
}

// testDB is an in-memory engine holding testGraphs. Both graphs go in
// through one load that keeps quad labels: an in-memory engine loses the
// label index of earlier loads when a later load commits (see the report),
// while one load indexes every graph it touches.
func testDB(t testing.TB) *engine.DB {
	t.Helper()
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var all []quad.Quad
	for _, g := range slices.Sorted(maps.Keys(testGraphs)) {
		qs, err := storetest.Parse(g, strings.NewReader(testGraphs[g]))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			q.Label = quad.IRI(g)
			all = append(all, q)
		}
	}
	l, err := db.NewLoader(engine.LoadOptions{Graph: "movies", KeepLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, q := range all {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// testServer is a real Server listening on a random loopback port.
type testServer struct {
	t      testing.TB
	s      *Server
	url    string
	token  string
	client *http.Client
	cancel context.CancelFunc
	done   chan error
	logs   *logBuffer
}

// startServer starts a Server over kg; it is shut down at test cleanup.
func startServer(t testing.TB, cfg Config, kg store.KG, deps Deps) *testServer {
	t.Helper()
	logs := &logBuffer{}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg, kg, deps)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{t: t, s: s, url: "http://" + ln.Addr().String(), token: cfg.Token,
		client: &http.Client{Timeout: 30 * time.Second}, cancel: cancel, done: make(chan error, 1), logs: logs}
	go func() { ts.done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { ts.stop() })
	return ts
}

// stop shuts the server down and returns Serve's result.
func (ts *testServer) stop() error {
	ts.cancel()
	select {
	case err := <-ts.done:
		ts.done <- err
		return err
	case <-time.After(30 * time.Second):
		ts.t.Error("server did not shut down")
		return errors.New("timeout")
	}
}

// do sends a request with the server's token (if any) unless hdr sets
// Authorization, and returns status, headers and body.
func (ts *testServer) do(method, path, body string, hdr map[string]string) (int, http.Header, []byte) {
	ts.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, resp.Header, b
}

// get is do("GET", path, "", nil).
func (ts *testServer) get(path string) (int, []byte) {
	ts.t.Helper()
	st, _, b := ts.do(http.MethodGet, path, "", nil)
	return st, b
}

// decode unmarshals a JSON body or fails the test.
func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %T from %q: %v", v, b, err)
	}
	return v
}

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
