package sqlkg_test

import (
	"context"
	"database/sql"
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
	checkRefs(t, pg.URL)
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

// checkRefs: Load keeps Cayley's node reference counts (one per quad
// direction, label included), checked on a sample of nodes and on the
// busiest ones.
func checkRefs(t *testing.T, url string) {
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var bad, checked int
	err = db.QueryRow(`SELECT count(*) FILTER (WHERE refs <> (SELECT count(*) FROM quads WHERE subject_hash = n.hash)
			+ (SELECT count(*) FROM quads WHERE predicate_hash = n.hash) + (SELECT count(*) FROM quads WHERE object_hash = n.hash)
			+ (SELECT count(*) FROM quads WHERE label_hash = n.hash)), count(*)
		FROM (SELECT hash, refs FROM nodes ORDER BY hash LIMIT 300) n`).Scan(&bad, &checked)
	if err != nil {
		t.Fatal(err)
	}
	var label int64
	if err := db.QueryRow(`SELECT refs FROM nodes WHERE value_string = 'film' AND iri`).Scan(&label); err != nil {
		t.Fatal(err)
	}
	if bad != 0 || checked != 300 || label != 471705 {
		t.Errorf("reference counts: %d of %d sampled nodes wrong; graph label node refs %d, want 471705", bad, checked, label)
	}
}
