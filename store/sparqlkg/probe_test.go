package sparqlkg

import (
	"context"
	"net/http"
	"net/http/httptest"
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
