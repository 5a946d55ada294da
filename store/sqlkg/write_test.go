package sqlkg_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	_ "github.com/cayleygraph/cayley/writer" // Cayley's "single" writer, as the server uses
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/sqlkg"
)

// TestPostgresWrites: writes and deletes through the QuadStore's writer
// (as the server's Cayley routes make them), through ApplyDeltas, and
// through Load and Delete keep the graph counts equal to a recount of the
// quads, the node reference counts exact, and Cayley's cached counts
// fresh; a graph written only through the writer is listed and
// searchable; a failing batch names its quad and changes nothing.
func TestPostgresWrites(t *testing.T) {
	kg, pg := openPostgres(t)
	ctx := context.Background()
	db, err := sql.Open("postgres", pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g1 := []quad.Quad{q("/a", "/p", "/b", "g1"), q("/b", "/p", "/c", "g1"), lbl("/a", "Alpha", "g1")}
	if _, err := kg.Load(ctx, "g1", stripLabels(g1)); err != nil {
		t.Fatal(err)
	}
	qs := kg.QuadStore()
	// The server's writer: Cayley's "single" with its defaults (duplicate
	// adds skipped, missing deletes refused).
	qw, err := graph.NewQuadWriter("single", qs, nil)
	if err != nil {
		t.Fatal(err)
	}
	write := func(qs ...quad.Quad) error { _, err := graph.NewWriter(qw).WriteQuads(qs); return err }
	remove := func(qs ...quad.Quad) error { _, err := graph.NewRemover(qw).WriteQuads(qs); return err }
	apply := func(opts graph.IgnoreOpts, ds ...graph.Delta) func() error {
		return func() error { return qs.ApplyDeltas(ds, opts) }
	}
	missing := q("/zz", "/p", "/nothing", "g1")
	cases := []struct {
		name    string
		do      func() error
		wantErr error     // nil: the step succeeds
		naming  quad.Quad // the quad a failing step's error names
		graphs  []string  // the graphs listed after the step
	}{
		{name: "write to a loaded graph", do: func() error { return write(q("/c", "/p", "/d", "g1"), q("/c", "/new", "/d", "g1")) },
			graphs: []string{"g1"}},
		{name: "write a new graph", do: func() error {
			return write(q("/x", "/p", "/y", "g2"), lbl("/x", "Zebra fish", "g2"), q("/x", "/only2", "/y", "g2"))
		}, graphs: []string{"g1", "g2"}},
		{name: "write duplicates (skipped)", do: func() error { return write(q("/x", "/p", "/y", "g2"), q("/a", "/p", "/b", "g1")) },
			graphs: []string{"g1", "g2"}},
		{name: "write a duplicate, IgnoreDup false",
			do:      apply(graph.IgnoreOpts{}, add(q("/n", "/p", "/m", "g1")), add(q("/x", "/p", "/y", "g2"))),
			wantErr: graph.ErrQuadExists, naming: q("/x", "/p", "/y", "g2"), graphs: []string{"g1", "g2"}},
		{name: "write a quad twice in a batch, IgnoreDup false",
			do:      apply(graph.IgnoreOpts{}, add(q("/n", "/p", "/m", "g1")), add(q("/n", "/p", "/m", "g1"))),
			wantErr: graph.ErrQuadExists, naming: q("/n", "/p", "/m", "g1"), graphs: []string{"g1", "g2"}},
		{name: "delete a missing quad", do: func() error { return remove(q("/a", "/p", "/b", "g1"), missing) },
			wantErr: graph.ErrQuadNotExist, naming: missing, graphs: []string{"g1", "g2"}},
		{name: "delete a graph's last quad of a predicate", do: func() error { return remove(q("/x", "/only2", "/y", "g2")) },
			graphs: []string{"g1", "g2"}},
		{name: "add and delete in one batch",
			do:     apply(graph.IgnoreOpts{}, add(q("/e", "/p2", "/f", "g3")), del(q("/c", "/new", "/d", "g1"))),
			graphs: []string{"g1", "g2", "g3"}},
		{name: "write a quad without a label (graph \"\")", do: func() error { return write(q("/u", "/p", "/v", "")) },
			graphs: []string{"", "g1", "g2", "g3"}},
		{name: "delete a quad without a label", do: func() error { return remove(q("/u", "/p", "/v", "")) },
			graphs: []string{"g1", "g2", "g3"}},
		{name: "delete a graph's every quad", do: func() error { return remove(q("/x", "/p", "/y", "g2"), lbl("/x", "Zebra fish", "g2")) },
			graphs: []string{"g1", "g3"}},
		{name: "missing deletes skipped, IgnoreMissing", do: apply(graph.IgnoreOpts{IgnoreMissing: true}, del(missing), del(q("/e", "/p2", "/f", "g3"))),
			graphs: []string{"g1"}},
		{name: "Delete", do: func() error {
			n, err := kg.Delete(ctx, "g1", stripLabels([]quad.Quad{missing, q("/b", "/p", "/c", "g1")}))
			if err == nil && n != 1 {
				t.Errorf("Delete = %d, want 1", n)
			}
			return err
		}, graphs: []string{"g1"}},
		{name: "Delete from an unknown graph", do: func() error { _, err := kg.Delete(ctx, "g9", []quad.Quad{missing}); return err },
			wantErr: store.ErrNotFound, graphs: []string{"g1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := qs.Stats(ctx, true); err != nil { // Cayley caches exact counts
				t.Fatal(err)
			}
			before := snapshot(t, db)
			err := c.do()
			switch {
			case c.wantErr == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("error %v, want %v", err, c.wantErr)
			case c.wantErr != nil:
				if c.naming.IsValid() && !strings.Contains(err.Error(), c.naming.String()) {
					t.Errorf("error %q does not name the quad %s", err, c.naming)
				}
				if after := snapshot(t, db); after != before {
					t.Errorf("a failed write changed the database: %s, was %s", after, before)
				}
			}
			checkCounts(t, ctx, kg, db, c.graphs)
			st, err := qs.Stats(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := db.QueryRow(`SELECT count(*) FROM quads`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if st.Quads.Value != n {
				t.Errorf("Cayley's Stats says %d quads, the table holds %d", st.Quads.Value, n)
			}
		})
	}
	t.Run("search a written graph", func(t *testing.T) {
		if err := write(lbl("/w", "Walrus", "g4")); err != nil {
			t.Fatal(err)
		}
		cs, err := kg.Search(ctx, "g4", "walrus", 5)
		if err != nil || len(cs) != 1 || cs[0].ID != "/w" {
			t.Fatalf("Search(g4, walrus) = %v, %v; want /w", cs, err)
		}
		if _, err := kg.Search(ctx, "g2", "zebra", 5); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Search of an emptied graph: %v, want ErrNotFound", err)
		}
	})
}

// q is a quad of IRIs in graph g ("" for none).
func q(s, p, o, g string) quad.Quad {
	var l quad.Value
	if g != "" {
		l = quad.IRI(g)
	}
	return quad.Make(quad.IRI(s), quad.IRI(p), quad.IRI(o), l)
}

// lbl is an rdfs:label quad.
func lbl(s, label, g string) quad.Quad {
	return quad.Make(quad.IRI(s), quad.IRI(store.RDFSLabel), quad.String(label), quad.IRI(g))
}

func add(q quad.Quad) graph.Delta { return graph.Delta{Quad: q, Action: graph.Add} }
func del(q quad.Quad) graph.Delta { return graph.Delta{Quad: q, Action: graph.Delete} }

// stripLabels drops the labels (Load and Delete take the graph apart).
func stripLabels(qs []quad.Quad) []quad.Quad {
	out := slices.Clone(qs)
	for i := range out {
		out[i].Label = nil
	}
	return out
}

// snapshot summarises the tables a failed write must leave alone.
func snapshot(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	err := db.QueryRow(`SELECT (SELECT count(*) FROM quads) || ' quads, ' || (SELECT count(*) FROM nodes) || ' nodes, refs '
		|| (SELECT coalesce(sum(refs), 0) FROM nodes) || ', graphs ' || coalesce((SELECT string_agg(name || '=' || quads || '/' || relations, ' '
			ORDER BY name) FROM grove_graphs), '')`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkCounts: Graphs lists want, with the counts of a recount of the
// quads; every node's reference count is the number of quad directions
// naming it, and no node is left unreferenced.
func checkCounts(t *testing.T, ctx context.Context, kg *sqlkg.KG, db *sql.DB, want []string) {
	t.Helper()
	gs, err := kg.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Quads without a label are graph "".
	rows, err := db.Query(`SELECT coalesce(n.value_string, ''), count(*), count(DISTINCT q.predicate_hash)
		FROM quads q LEFT JOIN nodes n ON n.hash = q.label_hash GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var recount []store.GraphInfo
	for rows.Next() {
		var g store.GraphInfo
		if err := rows.Scan(&g.Name, &g.Quads, &g.Relations); err != nil {
			t.Fatal(err)
		}
		recount = append(recount, g)
	}
	rows.Close()
	var names []string
	for _, g := range gs {
		names = append(names, g.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("Graphs lists %v, want %v", names, want)
	}
	if !slices.EqualFunc(gs, recount, func(a, b store.GraphInfo) bool {
		return a.Name == b.Name && a.Quads == b.Quads && a.Relations == b.Relations
	}) {
		t.Errorf("Graphs = %+v, a recount of the quads = %+v", gs, recount)
	}
	var bad, unref int
	err = db.QueryRow(`SELECT count(*) FILTER (WHERE refs <> (SELECT count(*) FROM quads WHERE subject_hash = n.hash)
			+ (SELECT count(*) FROM quads WHERE predicate_hash = n.hash) + (SELECT count(*) FROM quads WHERE object_hash = n.hash)
			+ (SELECT count(*) FROM quads WHERE label_hash = n.hash)), count(*) FILTER (WHERE refs <= 0) FROM nodes n`).Scan(&bad, &unref)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 || unref != 0 {
		t.Errorf("%d nodes with a wrong reference count, %d unreferenced nodes kept", bad, unref)
	}
}

// TestPostgresCommitDeadline: a write whose context ends while
// PostgreSQL runs its COMMIT (a deferred constraint trigger makes COMMIT
// sleep) fails with an error saying its outcome is unknown
// (ErrCommitUnknown, with the deadline); one whose context ends before
// COMMIT (an immediate trigger makes the INSERT sleep) fails with the
// deadline alone, nothing written. Both small (direct) and staged writes.
func TestPostgresCommitDeadline(t *testing.T) {
	kg, pg := openPostgres(t)
	db := openDB(t, pg.URL)
	// The trigger sleeps once per transaction, whatever its rows.
	if _, err := db.Exec(`CREATE FUNCTION grove_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
		IF coalesce(current_setting('grove.slept', true), '') = '' THEN
			PERFORM set_config('grove.slept', 'yes', true); PERFORM pg_sleep(3);
		END IF;
		RETURN NULL; END $$`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		deferred bool // the trigger runs at COMMIT
		quads    int
	}{
		{"deadline during COMMIT, direct", true, 3},
		{"deadline during COMMIT, staged", true, sqlkg.SmallWrite + 10},
		{"deadline before COMMIT, direct", false, 3},
		{"deadline before COMMIT, staged", false, sqlkg.SmallWrite + 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			when := "INITIALLY IMMEDIATE"
			if c.deferred {
				when = "INITIALLY DEFERRED"
			}
			for _, s := range []string{`DROP TRIGGER IF EXISTS grove_slow ON quads`,
				`CREATE CONSTRAINT TRIGGER grove_slow AFTER INSERT ON quads DEFERRABLE ` + when +
					` FOR EACH ROW EXECUTE FUNCTION grove_slow()`,
				// Superusers' writes run as replicas (no foreign-key
				// triggers): this one runs anyway.
				`ALTER TABLE quads ENABLE ALWAYS TRIGGER grove_slow`} {
				if _, err := db.Exec(s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			qs := make([]quad.Quad, c.quads)
			for i := range qs {
				qs[i] = q(fmt.Sprintf("/%s/s%d", strings.ReplaceAll(c.name, " ", "_"), i), "/p", "/o", "")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := kg.Load(ctx, "g"+strings.ReplaceAll(c.name, " ", "_"), qs)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Load: %v, want the deadline", err)
			}
			if got := errors.Is(err, sqlkg.ErrCommitUnknown); got != c.deferred {
				t.Errorf("Load: %v; says the outcome is unknown: %v, want %v", err, got, c.deferred)
			}
			stored := storedAfterWriters(t, db, qs[0])
			t.Logf("stored once the server was done: %v", stored)
			if !c.deferred && stored {
				t.Errorf("a write stopped before COMMIT was applied")
			}
		})
	}
}

// storedAfterWriters waits until no other session of the database runs a
// statement (the server may go on with a write its client gave up on),
// then says whether x is stored (whatever its label).
func storedAfterWriters(t *testing.T, db *sql.DB, x quad.Quad) bool {
	t.Helper()
	for range 100 {
		var busy int
		if err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND state <> 'idle'`).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var n int
	err := db.QueryRow(`SELECT count(*) FROM quads q JOIN nodes s ON s.hash = q.subject_hash WHERE s.value_string = $1`,
		string(x.Subject.(quad.IRI))).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}
