package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counter is a test server that counts requests by path and answers 500
// for paths containing "fail".
type counter struct {
	mu     sync.Mutex
	paths  map[string]int
	bodies []string
	auth   atomic.Int64
}

func newCounter(t *testing.T) (*counter, *httptest.Server) {
	c := &counter{paths: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.paths[r.URL.RequestURI()]++
		if len(b) > 0 {
			c.bodies = append(c.bodies, r.Method+" "+string(b))
		}
		c.mu.Unlock()
		if r.Header.Get("Authorization") == "Bearer t" {
			c.auth.Add(1)
		}
		if strings.Contains(r.URL.Path, "fail") {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return c, srv
}

func TestRunRequestBound(t *testing.T) {
	c, srv := newCounter(t)
	res, err := Run(context.Background(), Config{BaseURL: srv.URL, Clients: 4, Requests: 100,
		Header:  http.Header{"Authorization": {"Bearer t"}},
		Targets: []Target{{Path: "/a"}, {Path: "/b?x=1"}, {Method: "POST", Path: "/c", Body: []byte("hi")}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 100 || res.Errors != 0 || res.Status[200] != 100 || res.RPS <= 0 || res.P50 <= 0 ||
		res.P50 > res.P99 || res.P99 > res.Max {
		t.Fatalf("result %+v", res)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	total := c.paths["/a"] + c.paths["/b?x=1"] + c.paths["/c"]
	if total != 100 || c.paths["/a"] < 30 || c.paths["/c"] < 30 || c.auth.Load() != 100 || c.bodies[0] != "POST hi" {
		t.Fatalf("server saw %v, %d authorised, bodies %v", c.paths, c.auth.Load(), c.bodies[:1])
	}
}

func TestRunDurationBoundAndErrors(t *testing.T) {
	_, srv := newCounter(t)
	res, err := Run(context.Background(), Config{BaseURL: srv.URL, Clients: 2, Duration: 100 * time.Millisecond,
		Targets: []Target{{Path: "/ok"}, {Path: "/fail"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != res.Status[500] || res.Status[500] == 0 || res.TransportErrors != 0 ||
		res.FirstError != "HTTP 500" {
		t.Fatalf("result %+v", res)
	}
	if res.Elapsed > 5*time.Second {
		t.Errorf("duration bound ignored: %v", res.Elapsed)
	}
}

func TestRunTransportErrors(t *testing.T) {
	_, srv := newCounter(t)
	url := srv.URL
	srv.Close()
	res, err := Run(context.Background(), Config{BaseURL: url, Clients: 2, Requests: 10, Targets: []Target{{Path: "/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 10 || res.TransportErrors != 10 || res.Errors != 10 || res.FirstError == "" {
		t.Fatalf("result %+v", res)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no targets", Config{BaseURL: "http://127.0.0.1:1", Requests: 1}, "no targets"},
		{"unbounded", Config{BaseURL: "http://127.0.0.1:1", Targets: []Target{{}}}, "must be bounded"},
		{"remote", Config{BaseURL: "http://192.0.2.1:80", Requests: 1, Targets: []Target{{}}}, "not a loopback"},
		{"all interfaces", Config{BaseURL: "http://0.0.0.0:80", Requests: 1, Targets: []Target{{}}}, "not a loopback"},
		{"scheme", Config{BaseURL: "ftp://127.0.0.1", Requests: 1, Targets: []Target{{}}}, "scheme"},
		{"negative", Config{BaseURL: "http://127.0.0.1:1", Requests: -1, Duration: time.Second, Targets: []Target{{}}}, "negative"},
		{"too many clients", Config{BaseURL: "http://127.0.0.1:1", Clients: 2_000_000_000, Duration: time.Second, Targets: []Target{{}}}, "over the 10000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Run(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if err := CheckLoopback(context.Background(), "http://localhost:7777"); err != nil {
		t.Errorf("localhost: %v", err)
	}
	if err := CheckLoopback(context.Background(), "http://[::1]:7777"); err != nil {
		t.Errorf("::1: %v", err)
	}
}

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	cases := []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {99, 99}, {100, 100}, {0, 1}, {1, 1}, {90, 90}}
	for _, c := range cases {
		if got := Percentile(s, c.p); got != c.want {
			t.Errorf("Percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if Percentile(nil, 50) != 0 || Percentile([]time.Duration{7}, 99) != 7 {
		t.Error("edge cases")
	}
}

func TestRunCancelled(t *testing.T) {
	_, srv := newCounter(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{BaseURL: srv.URL, Duration: time.Hour, Targets: []Target{{Path: "/"}}})
	if err == nil || res.Requests != 0 {
		t.Fatalf("cancelled run: %+v %v", res, err)
	}
}
