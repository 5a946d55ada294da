package sqlkg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	_ "github.com/cayleygraph/cayley/graph/sql/postgres" // Cayley's own postgres flavor, the baseline
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

// BenchmarkNameOf: one NameOf round trip (a hash not in the database, so
// Cayley's name cache never answers) through the watched connector (the
// quad store Open makes) and through Cayley's own lib/pq pool.
func BenchmarkNameOf(b *testing.B) {
	kg, pg := openPostgres(b)
	ctx := context.Background()
	if _, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		b.Fatal(err)
	}
	plain, err := graph.NewQuadStore("postgres", pg.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	for _, c := range []struct {
		name string
		qs   graph.QuadStore
	}{{"watched", kg.QuadStore()}, {"plain", plain}} {
		b.Run(c.name, func(b *testing.B) {
			ref, err := c.qs.ValueOf(quad.IRI("not in the database"))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := c.qs.NameOf(ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyDeltas: a batch of 10,000 (or 2) new quads (fresh subjects,
// objects and literals, as a large HTTP write) added to the film graph,
// then deleted, through the KG's QuadStore (its transactional write,
// keeping grove_graphs) and through Cayley's own postgres quad store
// (which does not). Reported per batch.
func BenchmarkApplyDeltas(b *testing.B) {
	kg, pg := openFilm(b)
	plain, err := graph.NewQuadStore("postgres", pg.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	round := 0
	for _, c := range []struct {
		name string
		qs   graph.QuadStore
		n    int
	}{{"grove/10000", kg.QuadStore(), 10000}, {"cayley/10000", plain, 10000}, {"grove/2", kg.QuadStore(), 2}, {"cayley/2", plain, 2}} {
		b.Run(c.name, func(b *testing.B) {
			var add, del time.Duration
			for b.Loop() {
				round++
				ds := make([]graph.Delta, 0, c.n)
				for i := range c.n {
					s := quad.IRI(fmt.Sprintf("/bench/%d/%d", round, i))
					ds = append(ds, graph.Delta{Action: graph.Add, Quad: quad.Make(s, quad.IRI("/film/film/bench"),
						quad.String(fmt.Sprintf("value %d %d", round, i)), quad.IRI(kgtest.FilmGraph))})
				}
				start := time.Now()
				if err := c.qs.ApplyDeltas(ds, graph.IgnoreOpts{IgnoreDup: true}); err != nil {
					b.Fatal(err)
				}
				add += time.Since(start)
				for i := range ds {
					ds[i].Action = graph.Delete
				}
				start = time.Now()
				if err := c.qs.ApplyDeltas(ds, graph.IgnoreOpts{}); err != nil {
					b.Fatal(err)
				}
				del += time.Since(start)
			}
			b.ReportMetric(float64(add.Microseconds())/1000/float64(b.N), "ms/add")
			b.ReportMetric(float64(del.Microseconds())/1000/float64(b.N), "ms/delete")
		})
	}
}

// BenchmarkWriteStrategies: batches of n new quads added to the film graph
// and deleted, through direct statements and staged, whatever the size:
// where one overtakes the other (sqlkg's smallWrite). Reported per batch.
func BenchmarkWriteStrategies(b *testing.B) {
	kg, _ := openFilm(b)
	ctx := context.Background()
	round := 0
	for _, n := range []int{2, 20, 50, 100, 200, 400, 800} {
		for _, direct := range []bool{true, false} {
			b.Run(fmt.Sprintf("%d/direct=%v", n, direct), func(b *testing.B) {
				var add, del time.Duration
				for b.Loop() {
					round++
					ds := make([]graph.Delta, 0, n)
					for i := range n {
						s := quad.IRI(fmt.Sprintf("/bench/%d/%d", round, i))
						ds = append(ds, graph.Delta{Action: graph.Add, Quad: quad.Make(s, quad.IRI("/film/film/bench"),
							quad.String(fmt.Sprintf("value %d %d", round, i)), quad.IRI(kgtest.FilmGraph))})
					}
					start := time.Now()
					if _, _, err := sqlkg.ApplyWith(ctx, kg, ds, graph.IgnoreOpts{IgnoreDup: true}, "", direct); err != nil {
						b.Fatal(err)
					}
					add += time.Since(start)
					for i := range ds {
						ds[i].Action = graph.Delete
					}
					start = time.Now()
					if _, _, err := sqlkg.ApplyWith(ctx, kg, ds, graph.IgnoreOpts{}, "", direct); err != nil {
						b.Fatal(err)
					}
					del += time.Since(start)
				}
				b.ReportMetric(float64(add.Microseconds())/1000/float64(b.N), "ms/add")
				b.ReportMetric(float64(del.Microseconds())/1000/float64(b.N), "ms/delete")
			})
		}
	}
}

// openFilm opens a KG on a private PostgreSQL holding the film graph.
func openFilm(b *testing.B) (*sqlkg.KG, *testserver.Postgres) {
	kg, pg := openPostgres(b)
	film, err := kgtest.FilmQuads()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := kg.Load(context.Background(), kgtest.FilmGraph, film); err != nil {
		b.Fatal(err)
	}
	return kg, pg
}

// BenchmarkFirstLoad times a load of the film graph's first 100,000
// quads into empty tables (the staged path's new nodes and quads, no row
// updated), emptied again between loads.
func BenchmarkFirstLoad(b *testing.B) {
	kg, _ := openPostgres(b)
	ctx := context.Background()
	film, err := kgtest.FilmQuads()
	if err != nil {
		b.Fatal(err)
	}
	film = film[:min(len(film), 100_000)]
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := sqlkg.Exec(ctx, kg, `TRUNCATE quads, nodes, grove_graphs`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := kg.Load(ctx, kgtest.FilmGraph, film); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(film)), "quads")
}
