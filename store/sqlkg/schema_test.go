package sqlkg_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

// indexes lists the indexes of table in the database, by name.
func indexes(t *testing.T, url, table string) string {
	t.Helper()
	var s string
	err := openDB(t, url).QueryRow(`SELECT coalesce(string_agg(indexname, ' ' ORDER BY indexname), '') FROM pg_indexes
		WHERE tablename = $1 AND indexname LIKE 'grove%'`, table).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPostgresSchema: a read-only open runs no schema change (it works
// for a role with SELECT alone, and does not wait behind a writer's
// lock), searches through the label index a database made before has,
// and says what an empty database lacks; a writable open replaces that
// old whole-value index, after which long literals load.
func TestPostgresSchema(t *testing.T) {
	kg, pg := openPostgres(t)
	ctx := context.Background()
	db := openDB(t, pg.URL)
	if got := indexes(t, pg.URL, "nodes"); got != "grove_nodes_label" {
		t.Fatalf("a new database's label index: %q, want grove_nodes_label", got)
	}
	if _, err := kg.Load(ctx, "g", []quad.Quad{lbl("/br", "Blade Runner", ""), q("/br", "/p", "/x", "")}); err != nil {
		t.Fatal(err)
	}
	// The database as the code before made it: the index over whole
	// values.
	for _, s := range []string{`DROP INDEX grove_nodes_label`,
		`CREATE INDEX grove_nodes_lower ON nodes (lower(value_string) text_pattern_ops)`,
		`CREATE ROLE reader LOGIN`, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	readerURL := strings.Replace(pg.URL, "grove@", "reader@", 1)
	search := func(t *testing.T, kg *sqlkg.KG, text string) {
		t.Helper()
		for _, s := range []string{text, text[:len(text)-2]} { // exact, prefix
			cs, err := kg.Search(ctx, "", s, 5)
			if err != nil || len(cs) != 1 || cs[0].ID != "/br" {
				t.Errorf("Search(%q) = %v, %v; want /br", s, cs, err)
			}
		}
	}
	t.Run("read-only, SELECT only, behind a writer", func(t *testing.T) {
		// A writer holds quads and nodes (ROW EXCLUSIVE, as a write
		// does): a CREATE INDEX would wait for it.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec(`LOCK TABLE quads, nodes IN ROW EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		octx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		ro, err := sqlkg.Open(octx, sqlkg.Config{URL: readerURL, ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only open as a SELECT-only role: %v", err)
		}
		defer ro.Close()
		search(t, ro, "blade runner")
		if _, err := ro.Load(ctx, "g", []quad.Quad{q("/a", "/p", "/b", "")}); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Load on a read-only open: %v, want ErrReadOnly", err)
		}
		if got := indexes(t, pg.URL, "nodes"); got != "grove_nodes_lower" {
			t.Errorf("a read-only open changed the indexes: %q", got)
		}
	})
	t.Run("writable open migrates", func(t *testing.T) {
		rw, err := sqlkg.Open(ctx, sqlkg.Config{URL: pg.URL})
		if err != nil {
			t.Fatal(err)
		}
		defer rw.Close()
		if got := indexes(t, pg.URL, "nodes"); got != "grove_nodes_label" {
			t.Errorf("after a writable open on an old database: %q, want grove_nodes_label only", got)
		}
		search(t, rw, "blade runner")
		if _, err := rw.Load(ctx, "g", []quad.Quad{lbl("/long", randomLetters(3000), "")}); err != nil {
			t.Errorf("a 3000-letter literal after the migration: %v", err)
		}
	})
	t.Run("read-only open of an empty database", func(t *testing.T) {
		if _, err := db.Exec(`CREATE DATABASE empty`); err != nil {
			t.Fatal(err)
		}
		_, err := sqlkg.Open(ctx, sqlkg.Config{URL: strings.Replace(pg.URL, "/grove?", "/empty?", 1), ReadOnly: true})
		if err == nil || !strings.Contains(err.Error(), "nodes and quads") || !strings.Contains(err.Error(), "writable open creates") {
			t.Errorf("read-only open of an empty database: %v; want what is missing and that a writable open creates it", err)
		}
	})
}

// randomLetters is n random ASCII letters (they do not compress).
func randomLetters(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return string(b)
}

// TestPostgresLiterals: a literal longer than a btree entry loads by
// every write path and is found by prefix; a NUL, which PostgreSQL text
// cannot hold, is refused before anything is sent, naming the quad and
// why (store.ErrUnstorable), and changes nothing.
func TestPostgresLiterals(t *testing.T) {
	kg, pg := openPostgres(t)
	ctx := context.Background()
	db := openDB(t, pg.URL)
	long := "Zyx " + randomLetters(3000)
	nul := quad.Make(quad.IRI("/n"), quad.IRI("/desc"), quad.String("a\x00b"), nil)
	qs := kg.QuadStore()
	stream := func(g string, quads ...quad.Quad) error {
		_, err := kg.WriteFrom(ctx, sqlkg.StreamOptions{Graph: g}, func(fn func([]quad.Quad) error) error { return fn(quads) })
		return err
	}
	load := func(g string, quads ...quad.Quad) error { _, err := kg.Load(ctx, g, quads); return err }
	apply := func(_ string, quads ...quad.Quad) error {
		var ds []graph.Delta
		for _, q := range quads {
			ds = append(ds, add(q))
		}
		return qs.ApplyDeltas(ds, graph.IgnoreOpts{IgnoreDup: true})
	}
	many := func(q quad.Quad) []quad.Quad { // past the direct path: staged
		out := []quad.Quad{q}
		for i := range sqlkg.SmallWrite + 1 {
			out = append(out, quad.Make(quad.IRI("/m"), quad.IRI("/p"), quad.Int(i), nil))
		}
		return out
	}
	type writer func(g string, qs ...quad.Quad) error
	cases := []struct {
		name    string
		write   writer
		quads   []quad.Quad
		wantErr string // "" loads
	}{
		{"long literal, Load", load, []quad.Quad{lbl("/l1", long, "")}, ""},
		{"long literal, WriteFrom", stream, []quad.Quad{lbl("/l2", long+"b", "")}, ""},
		{"long literal, ApplyDeltas", apply, []quad.Quad{lbl("/l3", long+"c", "g")}, ""},
		{"long literal, staged", load, many(lbl("/l4", long+"d", "")), ""},
		{"NUL in an object, Load", load, []quad.Quad{q("/a", "/p", "/b", ""), nul}, "quad 2 (subject </n>, predicate </desc>)"},
		{"NUL in an object, staged", load, many(nul), "quad 1 (subject </n>, predicate </desc>)"},
		{"NUL in an object, WriteFrom", stream, []quad.Quad{nul}, "subject </n>, predicate </desc>"},
		{"NUL in an object, ApplyDeltas", apply, []quad.Quad{nul}, "quad 1 (subject </n>, predicate </desc>)"},
		{"NUL in a subject", apply, []quad.Quad{quad.Make(quad.IRI("/x\x00"), quad.IRI("/p"), quad.IRI("/o"), quad.IRI("g"))},
			"its subject holds a NUL"},
		{"NUL in a graph label", apply, []quad.Quad{quad.Make(quad.IRI("/x"), quad.IRI("/p"), quad.IRI("/o"), quad.String("g\x00"))},
			"its graph label holds a NUL"},
		{"invalid UTF-8", apply, []quad.Quad{quad.Make(quad.IRI("/x"), quad.IRI("/p"), quad.String("a\xffb"), nil)},
			"not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, db)
			err := c.write("g", c.quads...)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				return
			}
			if !errors.Is(err, store.ErrUnstorable) || !strings.Contains(err.Error(), c.wantErr) ||
				!strings.Contains(err.Error(), "PostgreSQL text cannot hold") {
				t.Errorf("write: %v; want ErrUnstorable naming %q and why", err, c.wantErr)
			}
			if after := snapshot(t, db); after != before {
				t.Errorf("a refused write changed the database: %s, was %s", after, before)
			}
		})
	}
	cs, err := kg.Search(ctx, "", "zyx", 10)
	if err != nil || len(cs) != 4 {
		t.Errorf("Search(zyx) = %v, %v; want the 4 long literals' subjects", cs, err)
	}
	if err := kg.Storable(nul); !errors.Is(err, store.ErrUnstorable) {
		t.Errorf("Storable(%v) = %v, want ErrUnstorable", nul, err)
	}
}

// TestPostgresUnlabelledCounted: quads without a graph label, which
// Cayley's API writes, are graph "" in Graphs with exact counts, as the
// embedded store lists them; a database whose unlabelled quads were
// written before they were counted gets its "" row on a writable open.
func TestPostgresUnlabelledCounted(t *testing.T) {
	kg, pg := openPostgres(t)
	ctx := context.Background()
	db := openDB(t, pg.URL)
	qs := kg.QuadStore()
	ds := []graph.Delta{add(q("/u", "/p", "/v", "")), add(q("/u", "/p2", "/w", "")), add(q("/a", "/p", "/b", "g"))}
	if err := qs.ApplyDeltas(ds, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	want := func(t *testing.T, k *sqlkg.KG, want string) {
		t.Helper()
		gs, err := k.Graphs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range gs {
			got = append(got, g.Name+"="+itoa(g.Quads)+"/"+itoa(g.Relations))
		}
		if s := strings.Join(got, " "); s != want {
			t.Errorf("Graphs = %s, want %s", s, want)
		}
	}
	want(t, kg, "=2/2 g=1/1")
	checkExact(t, twin{kg, db})
	// As the code before left it: the quads, no row.
	if _, err := db.Exec(`DELETE FROM grove_graphs WHERE name = ''`); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlkg.Open(ctx, sqlkg.Config{URL: pg.URL, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	want(t, ro, "g=1/1") // a read-only open writes nothing
	rw, err := sqlkg.Open(ctx, sqlkg.Config{URL: pg.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	want(t, rw, "=2/2 g=1/1")
	if err := rw.QuadStore().ApplyDeltas([]graph.Delta{del(q("/u", "/p", "/v", ""))}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	want(t, rw, "=1/1 g=1/1")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestPostgresConcurrentOpens: writable opens of one database at once
// (processes starting together) all succeed and leave Grove's schema
// whole, on a fresh database and on one of the old layout, which each of
// them would migrate.
func TestPostgresConcurrentOpens(t *testing.T) {
	const opens, rounds = 8, 3
	pg := testserver.StartPostgres(t)
	admin := openDB(t, pg.URL)
	cases := []struct {
		name string
		old  bool // the database is of the old layout
	}{{"fresh database", false}, {"old layout, migrated", true}}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for r := range rounds {
				name := fmt.Sprintf("opens%d_%d", i, r)
				if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
					t.Fatal(err)
				}
				url := strings.Replace(pg.URL, "/grove?", "/"+name+"?", 1)
				if c.old {
					makeOldLayout(t, url)
				}
				openAtOnce(t, url, opens)
				if got := indexes(t, url, "nodes"); got != "grove_nodes_label" {
					t.Errorf("round %d: label indexes %q, want grove_nodes_label", r, got)
				}
				if got := indexes(t, url, "quads"); !strings.Contains(got, "grove_quads_label") {
					t.Errorf("round %d: indexes of quads %q, want grove_quads_label among them", r, got)
				}
			}
		})
	}
}

// makeOldLayout gives the database at url the schema of Grove before the
// label index over prefixes (and before the index of quads by label),
// holding one quad.
func makeOldLayout(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	kg, err := sqlkg.Open(ctx, sqlkg.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kg.Load(ctx, "g", []quad.Quad{lbl("/br", "Blade Runner", "")}); err != nil {
		t.Fatal(err)
	}
	kg.Close()
	db := openDB(t, url)
	for _, s := range []string{`DROP INDEX grove_nodes_label`, `DROP INDEX grove_quads_label`,
		`CREATE INDEX grove_nodes_lower ON nodes (lower(value_string) text_pattern_ops)`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// openAtOnce opens n KGs writable on url at once, failing the test on
// any open's error, and closes them.
func openAtOnce(t *testing.T, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			kg, err := sqlkg.Open(context.Background(), sqlkg.Config{URL: url})
			if err != nil {
				errs <- err
				return
			}
			kg.Close()
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent writable open: %v", err)
	}
}
