package engine_test

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/storetest"
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
	storetest.Load(t, db, kgtest.FilmGraph, film)
	storetest.Load(t, db, kgtest.ExtraGraph, kgtest.ExtraQuads())
	storetest.Load(t, db, kgtest.StatementsGraph, kgtest.StatementsQuads())
	kgtest.Run(t, kgtest.Harness{
		KG:         db,
		Statements: true,
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
