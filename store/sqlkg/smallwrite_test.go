package sqlkg_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

// twin is a KG with a handle on its database.
type twin struct {
	kg *sqlkg.KG
	db *sql.DB
}

// openTwins opens two KGs on two databases of one private PostgreSQL.
func openTwins(t *testing.T) (direct, staged twin) {
	t.Helper()
	kg, pg := openPostgres(t)
	ctx := context.Background()
	db := openDB(t, pg.URL)
	if _, err := db.Exec(`CREATE DATABASE grove2`); err != nil {
		t.Fatal(err)
	}
	url2 := strings.Replace(pg.URL, "/grove?", "/grove2?", 1)
	kg2, err := sqlkg.Open(ctx, sqlkg.Config{URL: url2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kg2.Close() })
	return twin{kg, db}, twin{kg2, openDB(t, url2)}
}

// openDB opens a plain connection pool, closed when the test ends.
func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dump is everything a write changes, by value: the quads (their values,
// not hashes), the nodes with their reference counts, and grove_graphs.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	err := db.QueryRow(`SELECT
		coalesce((SELECT string_agg(x, E'\n' ORDER BY x) FROM (SELECT concat_ws(' ', encode(subject_hash, 'hex'),
			encode(predicate_hash, 'hex'), encode(object_hash, 'hex'), encode(label_hash, 'hex')) AS x FROM quads) q), '') || E'\n--\n' ||
		coalesce((SELECT string_agg(x, E'\n' ORDER BY x) FROM (SELECT concat_ws(' ', encode(hash, 'hex'), refs, value_string, datatype,
			language, iri, bnode, value_int, value_bool, value_float, value_time) AS x FROM nodes) n), '') || E'\n--\n' ||
		coalesce((SELECT string_agg(name || '=' || quads || '/' || relations, ' ' ORDER BY name) FROM grove_graphs), '')`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkExact: the graph counts equal a recount of the quads, and every
// node's reference count is exact (checkCounts), whatever graphs there
// are.
func checkExact(t *testing.T, tw twin) {
	t.Helper()
	var names []string
	rows, err := tw.db.Query(`SELECT DISTINCT coalesce(n.value_string, '') FROM quads q LEFT JOIN nodes n ON n.hash = q.label_hash ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	checkCounts(t, context.Background(), tw.kg, tw.db, names)
	// The foreign keys, which a superuser's writes skip: every hash a
	// quad holds is a node's (a quad without a label holds NULL).
	var dangling int
	err = tw.db.QueryRow(`SELECT count(*) FROM quads q WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE hash = q.subject_hash)
		OR NOT EXISTS (SELECT 1 FROM nodes WHERE hash = q.predicate_hash) OR NOT EXISTS (SELECT 1 FROM nodes WHERE hash = q.object_hash)
		OR q.label_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM nodes WHERE hash = q.label_hash)`).Scan(&dangling)
	if err != nil {
		t.Fatal(err)
	}
	if dangling != 0 {
		t.Errorf("%d quads name a node that is not stored", dangling)
	}
}

// TestPostgresSmallWrites: the same batches, written with direct
// statements into one database and staged into another, return the
// same results and errors and leave equal tables, with exact graph and
// reference counts; a failed batch changes nothing.
func TestPostgresSmallWrites(t *testing.T) {
	dt, st := openTwins(t)
	ctx := context.Background()
	ts := quad.Time(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	lit := func(s string, o quad.Value, g string) quad.Quad {
		var l quad.Value
		if g != "" {
			l = quad.IRI(g)
		}
		return quad.Make(quad.IRI(s), quad.IRI("/lit"), o, l)
	}
	a, b, c := q("/a", "/p", "/b", "g1"), q("/b", "/p", "/c", "g1"), q("/c", "/q", "/a", "g1")
	missing := q("/zz", "/p", "/nothing", "g1")
	all := graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}
	var adds, dels func(...quad.Quad) []graph.Delta
	adds = func(qs ...quad.Quad) []graph.Delta { return deltas(graph.Add, qs) }
	dels = func(qs ...quad.Quad) []graph.Delta { return deltas(graph.Delete, qs) }
	cases := []struct {
		name    string
		ds      []graph.Delta
		opts    graph.IgnoreOpts
		label   string // every quad's label, as Load and Delete give it
		added   int64
		deleted int64
		wantErr error // nil: the batch succeeds
		naming  quad.Quad
	}{
		{name: "adds with repeats", ds: adds(a, b, a, c, b), opts: all, added: 3},
		{name: "every kind of value", ds: adds(lit("/v", quad.String("text"), "g1"), lit("/v", quad.Int(-42), "g1"),
			lit("/v", quad.Float(2.5), "g1"), lit("/v", quad.Bool(true), "g1"), lit("/v", ts, "g1"),
			lit("/v", quad.LangString{Value: "chat", Lang: "fr"}, "g1"),
			lit("/v", quad.TypedString{Value: "7", Type: "xsd:integer"}, "g1"), lit("/v", quad.BNode("b1"), "g1")),
			opts: all, added: 8},
		{name: "re-adds and new quads", ds: adds(a, q("/d", "/p", "/a", "g1"), b), opts: all, added: 1},
		{name: "re-add, IgnoreDup false", ds: adds(q("/e", "/p", "/f", "g1"), a), wantErr: graph.ErrQuadExists, naming: a},
		{name: "repeat in a batch, IgnoreDup false", ds: adds(q("/e", "/p", "/f", "g1"), q("/e", "/p", "/f", "g1")),
			wantErr: graph.ErrQuadExists, naming: q("/e", "/p", "/f", "g1")},
		{name: "new adds, IgnoreDup false", ds: adds(q("/e", "/p", "/f", "g1"), q("/e", "/r", "/f", "g1")), added: 2},
		{name: "mixed graphs and no graph", ds: adds(q("/a", "/p", "/b", "g2"), q("/x", "/s", "/a", "g2"), q("/a", "/p", "/b", ""),
			q("/y", "/p", "/y", ""), q("/a", "/t", "/b", "g3")), opts: all, added: 5},
		{name: "deletes of present and missing quads", ds: dels(c, missing, q("/e", "/r", "/f", "g1"), c), opts: all, deleted: 2},
		{name: "a missing delete, IgnoreMissing false", ds: dels(b, missing), wantErr: graph.ErrQuadNotExist, naming: missing},
		{name: "a repeated delete, IgnoreMissing false", ds: dels(b, b), wantErr: graph.ErrQuadNotExist, naming: b},
		{name: "a missing delete refused after valid adds", ds: append(adds(q("/h", "/p", "/i", "g1")), dels(missing)...),
			wantErr: graph.ErrQuadNotExist, naming: missing},
		{name: "add and delete the same quad", ds: append(adds(q("/h", "/p", "/i", "g1")), dels(q("/h", "/p", "/i", "g1"))...),
			added: 1, deleted: 1},
		{name: "nodes losing their last quad", ds: dels(q("/x", "/s", "/a", "g2"), q("/y", "/p", "/y", ""),
			lit("/v", ts, "g1"), lit("/v", quad.BNode("b1"), "g1")), deleted: 4},
		{name: "deletes across graphs, a graph emptied", ds: dels(q("/a", "/t", "/b", "g3"), q("/a", "/p", "/b", "g2"),
			q("/a", "/p", "/b", "")), deleted: 3},
		{name: "a graph's last quad of a predicate", ds: dels(q("/d", "/p", "/a", "g1"), q("/e", "/p", "/f", "g1"),
			lit("/v", quad.Int(-42), "g1")), deleted: 3},
		{name: "Load's label", ds: adds(q("/a", "/p", "/b", ""), q("/k", "/p", "/l", ""), q("/k", "/p", "/l", "")),
			opts: all, label: "g4", added: 2},
		{name: "Delete's label", ds: dels(q("/a", "/p", "/b", ""), q("/m", "/p", "/n", "")), opts: all, label: "g4", deleted: 1},
		{name: "adds and deletes of several graphs", ds: append(adds(q("/n", "/u", "/o", "g5"), q("/n", "/u", "/o", "g1")),
			dels(q("/k", "/p", "/l", "g4"), a, a)...), opts: all, added: 2, deleted: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				added, deleted int64
				err            string
			}
			var got [2]result
			for i, tw := range []twin{dt, st} {
				before := dump(t, tw.db)
				added, deleted, err := sqlkg.ApplyWith(ctx, tw.kg, c.ds, c.opts, c.label, i == 0)
				got[i] = result{added, deleted, fmt.Sprint(err)}
				switch {
				case c.wantErr == nil && err != nil:
					t.Fatalf("direct=%v: %v", i == 0, err)
				case c.wantErr != nil && !errors.Is(err, c.wantErr):
					t.Fatalf("direct=%v: error %v, want %v", i == 0, err, c.wantErr)
				case c.wantErr != nil:
					if !strings.Contains(err.Error(), c.naming.String()) {
						t.Errorf("direct=%v: error %q does not name %s", i == 0, err, c.naming)
					}
					if after := dump(t, tw.db); after != before {
						t.Errorf("direct=%v: a failed write changed the tables", i == 0)
					}
				}
				checkExact(t, tw)
			}
			if got[0] != got[1] {
				t.Errorf("direct statements: %+v; staged: %+v", got[0], got[1])
			}
			if c.wantErr == nil && (got[0].added != c.added || got[0].deleted != c.deleted) {
				t.Errorf("added %d and deleted %d, want %d and %d", got[0].added, got[0].deleted, c.added, c.deleted)
			}
			if d, s := dump(t, dt.db), dump(t, st.db); d != s {
				t.Errorf("the tables differ:\ndirect statements:\n%s\nstaged:\n%s", d, s)
			}
		})
	}
}

// deltas are qs as deltas of action a.
func deltas(a graph.Procedure, qs []quad.Quad) []graph.Delta {
	out := make([]graph.Delta, len(qs))
	for i, q := range qs {
		out[i] = graph.Delta{Quad: q, Action: a}
	}
	return out
}

// TestPostgresConcurrentSmallWrites: writers adding and deleting
// overlapping quads of shared graphs, nodes and predicates at once leave
// the graph counts and reference counts exact and none fails; writers of
// direct statements alone never deadlock (none is tried again), with
// staged writers among them a deadlock's victim is tried again. Every
// writer, staged ones too, adds the same quad without a graph: graph ""'s
// row makes its writers take turns, so the staged path, which counts
// references before it inserts, counts them exactly.
func TestPostgresConcurrentSmallWrites(t *testing.T) {
	for _, c := range []struct {
		name   string
		staged func(w int) bool
	}{
		{"direct", func(int) bool { return false }},
		{"direct and staged", func(w int) bool { return w%3 == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			pg := testserver.StartPostgres(t)
			var logs strings.Builder
			var mu sync.Mutex
			log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelWarn}))
			kg, err := sqlkg.Open(context.Background(), sqlkg.Config{URL: pg.URL, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			defer kg.Close()
			writeConcurrently(t, kg, c.staged)
			checkExact(t, twin{kg, openDB(t, pg.URL)})
			mu.Lock()
			defer mu.Unlock()
			if n := strings.Count(logs.String(), "deadlock"); n > 0 {
				t.Logf("%d deadlocks, tried again", n)
				if c.name == "direct" {
					t.Errorf("writers of direct statements deadlocked:\n%s", logs.String())
				}
			}
		})
	}
}

// writeConcurrently runs six writers of fifteen rounds each: in round r,
// a writer adds quads of predicate /r<r> (new to the graph) to g<r%2>,
// some of which the others add too, and a quad without a graph that all
// add, then deletes some of them; staged(w) says writer w stages its
// writes.
func writeConcurrently(t *testing.T, kg *sqlkg.KG, staged func(w int) bool) {
	const writers, rounds = 6, 15
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				g, p := fmt.Sprintf("g%d", r%2), fmt.Sprintf("/r%d", r)
				qs := []quad.Quad{q("/shared", p, "/o", g), q(fmt.Sprintf("/w%d", w), p, "/o", g),
					q("/shared", p, fmt.Sprintf("/o%d", (w+r)%3), g)}
				qs = append(qs, q("/shared", "/p", "/o", ""))
				opts := graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}
				if _, _, err := sqlkg.ApplyWith(ctx, kg, deltas(graph.Add, qs), opts, "", !staged(w)); err != nil {
					errs <- fmt.Errorf("writer %d, round %d, add: %w", w, r, err)
					return
				}
				if _, _, err := sqlkg.ApplyWith(ctx, kg, deltas(graph.Delete, qs[(w+r)%2:]), opts, "", !staged(w)); err != nil {
					errs <- fmt.Errorf("writer %d, round %d, delete: %w", w, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
