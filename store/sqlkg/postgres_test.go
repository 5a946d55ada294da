package sqlkg_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
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
	if _, err := kg.Load(ctx, kgtest.StatementsGraph, kgtest.StatementsQuads()); err != nil {
		t.Fatal(err)
	}
	// Loading the same quads again adds nothing.
	if n, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil || n != 0 {
		t.Errorf("reload added %d quads, %v", n, err)
	}
	checkRefs(t, pg.URL)
	t.Run("gizmo", func(t *testing.T) {
		checkGizmo(t, kg, map[string][]quad.Quad{kgtest.FilmGraph: film, kgtest.ExtraGraph: kgtest.ExtraQuads(),
			kgtest.StatementsGraph: kgtest.StatementsQuads()})
	})
	kgtest.Run(t, kgtest.Harness{
		KG:         kg,
		NoFuzzy:    true,
		Statements: true,
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

// TestPostgresSearchCap: exact matches are found however many labels share
// their prefix (more than the cap of rows a read returns), and prefix
// matches come shortest first.
func TestPostgresSearchCap(t *testing.T) {
	kg, _ := openPostgres(t)
	ctx := context.Background()
	label := func(id, l string) quad.Quad {
		return quad.Make(quad.IRI(id), quad.IRI(store.RDFSLabel), quad.String(l), nil)
	}
	// 3000 labels start with "m"; the exact "M" and the short prefix
	// matches are loaded last, so that row order alone does not find them.
	var qs []quad.Quad
	for i := range 3000 {
		qs = append(qs, label(fmt.Sprintf("/m/film_%04d", i), fmt.Sprintf("Movie number %04d", i)))
	}
	if _, err := kg.Load(ctx, "many", qs); err != nil {
		t.Fatal(err)
	}
	if _, err := kg.Load(ctx, "many", []quad.Quad{
		label("/en/m_1931", "M"), label("/en/m_1951", "M"), label("/en/mya", "Mya"), label("/en/ma", "Ma"),
		label("/en/madonna", "MADONNA"), label("/en/other", "Blade"),
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text  string
		limit int
		want  []string // id:match, best first
	}{
		{"M", 4, []string{"/en/m_1931:exact", "/en/m_1951:exact", "/en/ma:prefix", "/en/mya:prefix"}},
		{"m", 2, []string{"/en/m_1931:exact", "/en/m_1951:exact"}},
		{"madonna", 1, []string{"/en/madonna:exact"}},
		{"Mo", 2, []string{"/m/film_0000:prefix", "/m/film_0001:prefix"}},
		{"Movie number 2999", 1, []string{"/m/film_2999:exact"}},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			cs, err := kg.Search(ctx, "many", c.text, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range cs {
				got = append(got, x.ID+":"+x.Match)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("search %q = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

// openPostgres starts a private PostgreSQL and opens the SQL backend on
// it; the KG is closed when the test ends.
func openPostgres(tb testing.TB) (*sqlkg.KG, *testserver.Postgres) {
	tb.Helper()
	pg := testserver.StartPostgres(tb)
	kg, err := sqlkg.Open(context.Background(), sqlkg.Config{URL: pg.URL})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { kg.Close() })
	return kg, pg
}
