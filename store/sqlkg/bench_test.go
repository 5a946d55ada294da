package sqlkg_test

import (
	"context"
	"testing"

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
	pg := testserver.StartPostgres(b)
	ctx := context.Background()
	kg, err := sqlkg.Open(ctx, sqlkg.Config{URL: pg.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer kg.Close()
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
