package engine_test

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/kgtest"
)

// TestKGConformance runs the store.KG conformance suite on the engine with
// the film sample from data/.
func TestKGConformance(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	film, err := kgtest.FilmQuads()
	if err != nil {
		t.Fatal(err)
	}
	load(t, db, kgtest.FilmGraph, film)
	load(t, db, kgtest.ExtraGraph, kgtest.ExtraQuads())
	kgtest.Run(t, kgtest.Harness{
		KG: db,
		Write: func(ctx context.Context, graph string, qs []quad.Quad) error {
			return db.Apply(ctx, graph, qs, nil)
		},
		OpenClosed: func(t *testing.T) store.KG {
			other, err := engine.Open(t.TempDir(), engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return other
		},
	})
}

func load(t *testing.T, db *engine.DB, graph string, qs []quad.Quad) {
	t.Helper()
	l, err := db.NewLoader(engine.LoadOptions{Graph: graph})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}
