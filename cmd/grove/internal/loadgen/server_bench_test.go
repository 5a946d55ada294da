package loadgen_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/grove-kg/grove/cmd/grove/internal/loadgen"
	"github.com/grove-kg/grove/server"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// benchClients is the concurrency of the HTTP benchmarks (the target:
// >= 10k req/s with 64 clients on 2 cores, p99 <= 10 ms, no errors).
const benchClients = 64

// BenchmarkHTTPRelations (here, beside the generator it drives, because
// loadgen is internal to cmd/grove) measures the KG interface over HTTP on the film
// sample with benchClients concurrent loopback clients, against two
// baselines measured in the same run: the same KG calls made in-process
// (no HTTP), and a trivial HTTP handler (HTTP and load generator cost
// only). Each sub-benchmark reports req/s, p50 and p99 latency and errors.
func BenchmarkHTTPRelations(b *testing.B) {
	db := storetest.Film(b)
	ctx := context.Background()
	films, err := db.Neighbors(ctx, "/en/ridley_scott", "/film/film/directed_by", store.In, 16)
	if err != nil || len(films) == 0 {
		b.Fatalf("films: %v %v", films, err)
	}
	var relTargets, edgeTargets []loadgen.Target
	for _, f := range films {
		q := url.QueryEscape(f.ID)
		relTargets = append(relTargets, loadgen.Target{Path: "/v1/relations?dir=out&id=" + q})
		edgeTargets = append(edgeTargets, loadgen.Target{Path: "/v1/edges?relation=%2Ffilm%2Ffilm%2Fstarring&limit=20&id=" + q})
	}
	b.Run("direct-kg", func(b *testing.B) {
		b.SetParallelism(max(1, benchClients/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if _, err := db.Relations(ctx, []string{films[i%len(films)].ID}, store.Out); err != nil {
					b.Error(err)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
	b.Run("http-baseline", func(b *testing.B) {
		url := serveBench(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
		}))
		runLoad(b, url, []loadgen.Target{{Path: "/"}})
	})
	for _, c := range []struct {
		name    string
		targets []loadgen.Target
		logged  bool
	}{
		{"http-relations", relTargets, false},
		{"http-edges", edgeTargets, false},
		{"http-relations-access-log", relTargets, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			log := slog.New(slog.DiscardHandler)
			if c.logged {
				log = slog.New(slog.NewJSONHandler(io.Discard, nil))
			}
			s, err := server.New(server.Config{}, db, server.Deps{Logger: log})
			if err != nil {
				b.Fatal(err)
			}
			runLoad(b, serveBench(b, s.Handler()), c.targets)
		})
	}
}

// serveBench serves h on a loopback port until the benchmark ends.
func serveBench(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// runLoad sends b.N requests with benchClients clients and reports.
func runLoad(b *testing.B, base string, targets []loadgen.Target) {
	cfg := loadgen.Config{BaseURL: base, Targets: targets, Clients: benchClients}
	// Warm up connections and caches.
	cfg.Requests = 2 * benchClients
	if _, err := loadgen.Run(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	cfg.Requests = int64(b.N)
	b.ResetTimer()
	res, err := loadgen.Run(context.Background(), cfg)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if res.Errors > 0 {
		b.Errorf("%d errors, first: %s", res.Errors, res.FirstError)
	}
	b.ReportMetric(res.RPS, "req/s")
	b.ReportMetric(float64(res.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(res.P99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(res.Errors), "errors")
}
