package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// diskDB writes testGraphs to a database directory and closes it.
func diskDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range slices.Sorted(maps.Keys(testGraphs)) {
		qs, err := storetest.Parse(g, strings.NewReader(testGraphs[g]))
		if err != nil {
			t.Fatal(err)
		}
		storetest.Load(t, db, g, qs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// addrLog captures the address Run logs when it starts serving.
type addrLog struct {
	logBuffer
}

func (l *addrLog) addr() string {
	for _, line := range strings.Split(l.String(), "\n") {
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving" {
			return rec.Addr
		}
	}
	return ""
}

// TestRunGracefulShutdownDuringLoad runs `grove serve` (Run) on a database
// directory, puts it under load, stops it mid-way and checks that no
// request failed with a server error, that Run returned cleanly and that
// the database was closed (it can be opened again).
func TestRunGracefulShutdownDuringLoad(t *testing.T) {
	dir := diskDB(t)
	logs := &addrLog{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{DB: dir, Addr: "127.0.0.1:0", ReadOnly: true},
			Deps{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	}()
	waitFor(t, "the server to listen", func() bool { return logs.addr() != "" })
	base := "http://" + logs.addr()
	load := make(chan map[int]int64, 1)
	loadCtx, stopLoad := context.WithTimeout(context.Background(), time.Minute)
	defer stopLoad()
	go func() {
		load <- closedLoop(loadCtx, 16, base+"/v1/relations?id=m1", base+"/v1/edges?id=p1&relation=directed_by&dir=in")
	}()
	waitFor(t, "some load", func() bool { return strings.Count(logs.String(), `"msg":"http request"`) > 100 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	stopLoad()
	status := <-load
	for code, n := range status {
		if code != http.StatusOK {
			t.Errorf("status %d during shutdown (%d times)", code, n)
		}
	}
	if status[http.StatusOK] < 100 {
		t.Errorf("load result %v", status)
	}
	db, err := engine.Open(dir, engine.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("database not released: %v", err)
	}
	db.Close()
	if !strings.Contains(logs.String(), `"msg":"shut down"`) {
		t.Errorf("no shutdown log")
	}
}

// closedLoop sends GET requests to urls from clients goroutines, each the
// next as soon as the previous answered, until ctx ends, and counts the
// answers by status code. Requests that get no answer (the listener has
// closed) are not counted: they never reached a handler.
func closedLoop(ctx context.Context, clients int, urls ...string) map[int]int64 {
	var (
		mu     sync.Mutex
		status = map[int]int64{}
		wg     sync.WaitGroup
	)
	hc := &http.Client{Timeout: 10 * time.Second}
	for c := range clients {
		wg.Go(func() {
			for i := c; ctx.Err() == nil; i++ {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, urls[i%len(urls)], nil)
				if err != nil {
					return
				}
				resp, err := hc.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				status[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return status
}

func TestRunErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no db", Config{}, "no database directory"},
		{"exposed", Config{DB: t.TempDir(), Addr: "0.0.0.0:0"}, "bearer token is required"},
		{"bad token file", Config{DB: t.TempDir(), TokenFile: "/nonexistent/token"}, "token file"},
		{"bad addr", Config{DB: t.TempDir(), Addr: "127.0.0.1:99999"}, "serve"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Run(context.Background(), c.cfg, Deps{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run: %v, want %q", err, c.want)
			}
		})
	}
}

// slowKG makes Relations wait (honouring ctx) and signals when entered.
type slowKG struct {
	store.KG
	delay   time.Duration
	entered chan struct{}
}

func (k slowKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	k.entered <- struct{}{}
	select {
	case <-time.After(k.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return k.KG.Relations(ctx, ids, dir)
}

func TestShutdownLetsInFlightFinish(t *testing.T) {
	cases := []struct {
		name     string
		delay    time.Duration
		deadline time.Duration
		finishes bool
	}{
		{"finishes within the deadline", 200 * time.Millisecond, 20 * time.Second, true},
		{"cancelled at the deadline", time.Hour, 100 * time.Millisecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kg := slowKG{KG: testDB(t), delay: c.delay, entered: make(chan struct{}, 1)}
			ts := startServer(t, Config{ShutdownTimeout: c.deadline}, kg, Deps{})
			type answer struct {
				status int
				err    error
			}
			got := make(chan answer, 1)
			go func() {
				resp, err := http.Get(ts.url + "/v1/relations?id=m1")
				if err != nil {
					got <- answer{err: err}
					return
				}
				resp.Body.Close()
				got <- answer{status: resp.StatusCode}
			}()
			<-kg.entered
			if err := ts.stop(); err != nil {
				t.Fatalf("Serve: %v", err)
			}
			a := <-got
			if c.finishes && (a.err != nil || a.status != 200) {
				t.Fatalf("in-flight request: %+v", a)
			}
			if !c.finishes && a.err == nil && a.status == 200 {
				t.Fatalf("request outlived the shutdown deadline: %+v", a)
			}
		})
	}
}

func TestReadyzDuringShutdown(t *testing.T) {
	s, err := New(Config{}, testDB(t), Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ready  bool
		status int
	}{{true, 200}, {false, 503}} {
		s.ready.Store(c.ready)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		if rec.Code != c.status {
			t.Errorf("ready=%v: status %d", c.ready, rec.Code)
		}
	}
}

func TestServeTwice(t *testing.T) {
	ts := startServer(t, Config{}, testDB(t), Deps{})
	if st, _ := ts.get("/healthz"); st != 200 {
		t.Fatal("not serving")
	}
	if err := ts.s.Serve(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("second Serve: %v", err)
	}
}

// deafKG ignores cancellation in Relations, as a long store scan without
// a context check would, and records when it returned.
type deafKG struct {
	store.KG
	delay    time.Duration
	entered  chan struct{}
	returned chan time.Time
}

func (k deafKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	k.entered <- struct{}{}
	time.Sleep(k.delay)
	k.returned <- time.Now()
	return nil, ctx.Err()
}

// TestShutdownWaitsForHandlers: past the shutdown deadline, Serve returns
// (and Run closes the database) only after the handlers still inside the
// store have returned, and a request arriving then is refused without
// reaching the store.
func TestShutdownWaitsForHandlers(t *testing.T) {
	kg := deafKG{KG: testDB(t), delay: 600 * time.Millisecond, entered: make(chan struct{}, 1), returned: make(chan time.Time, 1)}
	ts := startServer(t, Config{ShutdownTimeout: 50 * time.Millisecond}, kg, Deps{})
	go func() {
		if resp, err := http.Get(ts.url + "/v1/relations?id=m1"); err == nil {
			resp.Body.Close()
		}
	}()
	<-kg.entered
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	stopped := time.Now()
	select {
	case r := <-kg.returned:
		if r.After(stopped) {
			t.Fatalf("Serve returned %v before the handler left the store", r.Sub(stopped))
		}
	default:
		t.Fatal("Serve returned while a handler was still inside the store")
	}
}

func TestGateRefusesAfterClose(t *testing.T) {
	var g gate
	if !g.enter() {
		t.Fatal("a fresh gate refused a request")
	}
	done := make(chan struct{})
	go func() { g.close(nil); close(done) }()
	select {
	case <-done:
		t.Fatal("close returned with a request inside")
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	<-done
	if g.enter() {
		t.Fatal("a closed gate admitted a request")
	}
}
