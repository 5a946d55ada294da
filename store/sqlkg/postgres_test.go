package sqlkg_test

import (
	"context"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/testserver"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sqlkg"
)

func TestPostgres(t *testing.T) {
	pg := testserver.StartPostgres(t)
	ctx := context.Background()
	open := func(t *testing.T) *sqlkg.KG {
		kg, err := sqlkg.Open(ctx, sqlkg.Config{URL: pg.URL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kg.Close() })
		return kg
	}
	kg := open(t)
	film, err := kgtest.FilmQuads()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := kg.Load(ctx, kgtest.FilmGraph, film)
	t.Logf("loaded the film graph in %v", time.Since(start))
	if err != nil {
		t.Fatal(err)
	} else if n != 471705 {
		t.Errorf("loaded %d new quads, want 471705", n)
	}
	if _, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	// Loading the same quads again adds nothing.
	if n, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil || n != 0 {
		t.Errorf("reload added %d quads, %v", n, err)
	}
	kgtest.Run(t, kgtest.Harness{
		KG:      kg,
		NoFuzzy: true,
		Write: func(ctx context.Context, graph string, qs []quad.Quad) error {
			_, err := kg.Load(ctx, graph, qs)
			return err
		},
		OpenClosed: func(t *testing.T) store.KG { return open(t) },
	})
}
