package sparqlkg

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestProbeFromCache: with a cache directory, Open's probe is answered
// by an earlier run's cache like any query, so an identical re-run sends
// no request at all and works with the endpoint offline; a query the
// cache does not hold then fails as unreachable. Without a cache
// directory every Open probes the endpoint.
func TestProbeFromCache(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okBody))
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/sparql"
	cacheDir := t.TempDir()
	ctx := context.Background()
	run := func(cache string) (*KG, error) {
		kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t), CacheDir: cache, Retries: -1, Timeout: 2 * time.Second})
		if err != nil {
			return nil, err
		}
		_, err = kg.Graphs(ctx)
		return kg, err
	}
	steps := []struct {
		name         string
		cache        string
		offline      bool
		wantRequests int64 // sent by Open and Graphs
		wantErr      string
	}{
		{name: "first run", cache: cacheDir, wantRequests: 2},
		{name: "re-run", cache: cacheDir, wantRequests: 0},
		{name: "no cache", wantRequests: 2},
		{name: "re-run offline", cache: cacheDir, offline: true, wantRequests: 0},
		{name: "no cache offline", offline: true, wantErr: "unreachable"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.offline {
				srv.Close()
			}
			before := requests.Load()
			kg, err := run(s.cache)
			switch {
			case s.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, s.wantErr)
			case err != nil:
				return
			}
			if n := requests.Load() - before; n != s.wantRequests || kg.Requests() != n {
				t.Errorf("%d requests (KG.Requests %d), want %d", n, kg.Requests(), s.wantRequests)
			}
			if s.offline {
				_, err := kg.Search(ctx, "", "Blade Runner", 5)
				if err == nil || !strings.Contains(err.Error(), "unreachable") {
					t.Errorf("a query the cache does not hold, offline: %v; want unreachable", err)
				}
			}
		})
	}
}

// TestProbeOldCache: a cache an older grove filled lacks the probe's
// answer; with the endpoint offline, Open goes on when the cache holds
// answers (warning that the endpoint was not checked), cached queries
// answer and an uncached one fails as unreachable; an empty cache, or
// none, still fails Open as unreachable.
func TestProbeOldCache(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okBody))
	}))
	url := srv.URL + "/sparql"
	ctx := context.Background()
	var logs strings.Builder
	open := func(cache string) (*KG, error) {
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
		return Open(ctx, Config{URL: url, Dialect: rdf(t), CacheDir: cache, Retries: -1, Timeout: 2 * time.Second, Logger: log})
	}
	old := t.TempDir()
	kg, err := open(old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kg.Graphs(ctx); err != nil {
		t.Fatal(err)
	}
	// The older grove's cache: the same answers, without the probe's.
	if err := os.Remove(kg.c.cachePath(cacheKey(probeQuery))); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	for _, c := range []struct {
		name  string
		cache string
		ok    bool
	}{{"old cache", old, true}, {"empty cache", t.TempDir(), false}, {"no cache", "", false}} {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			kg, err := open(c.cache)
			if !c.ok {
				if err == nil || !strings.Contains(err.Error(), "unreachable") {
					t.Fatalf("Open: %v, want unreachable", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open with an old cache, offline: %v", err)
			}
			if !strings.Contains(logs.String(), "not checked") {
				t.Errorf("no warning that the endpoint was not checked: %q", logs.String())
			}
			if _, err := kg.Graphs(ctx); err != nil {
				t.Errorf("a cached query: %v", err)
			}
			if _, err := kg.Search(ctx, "", "Blade Runner", 5); err == nil || !strings.Contains(err.Error(), "unreachable") {
				t.Errorf("an uncached query: %v, want unreachable", err)
			}
		})
	}
}
