package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// predQuads is a small graph whose predicate "knows" has a label.
func predQuads() []quad.Quad {
	g := quad.IRI("g")
	return []quad.Quad{
		{Subject: quad.IRI("a"), Predicate: quad.IRI("knows"), Object: quad.IRI("b"), Label: g},
		{Subject: quad.IRI("a"), Predicate: quad.IRI("likes"), Object: quad.IRI("b"), Label: g},
		{Subject: quad.IRI("knows"), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String("knows old"), Label: g},
	}
}

// predDB is an in-memory database holding predQuads in graph "g".
func predDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	loadQuads(t, db, "g", predQuads())
	return db
}

func gq(s, p string, o quad.Value) quad.Quad {
	return quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(p), Object: o, Label: quad.IRI("g")}
}

// relationOf returns a's outgoing relation id.
func relationOf(t *testing.T, db *DB, id string) store.Relation {
	t.Helper()
	rels, err := db.Relations(context.Background(), []string{"a"}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("a has no relation %s in %+v", id, rels)
	return store.Relation{}
}

// warm fills the caches with the state before a write.
func warm(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		relationOf(t, db, "knows")
		for _, p := range []string{"knows", "likes"} {
			if _, err := db.Edges(ctx, []string{"a"}, p, store.Out, 10); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Degree(ctx, "a", "", store.Out); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPredCacheNotStale: what the predicate cache holds (labels, hidden
// and inverse flags, relation ids) is never served after a write that
// changes it, through ApplyDeltas or a bulk load.
func TestPredCacheNotStale(t *testing.T) {
	ctx := context.Background()
	type write struct {
		add, del []quad.Quad
		bulk     bool
	}
	cases := []struct {
		name   string
		writes []write
		check  func(t *testing.T, db *DB)
	}{
		{"label by deltas", []write{{add: []quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows new"))},
			del: []quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows old"))}}},
			func(t *testing.T, db *DB) { wantLabel(t, db, "knows new") }},
		{"label by bulk load", []write{{add: []quad.Quad{gq("knows", store.RDFSLabel,
			quad.LangString{Value: "knows new", Lang: "en"})}, bulk: true}},
			func(t *testing.T, db *DB) { wantLabel(t, db, "knows new") }},
		{"hidden by deltas", []write{{add: []quad.Quad{gq("knows", store.GroveHidden, quad.String("true"))}}},
			func(t *testing.T, db *DB) {
				if !relationOf(t, db, "knows").Hidden {
					t.Error("knows is not hidden after grove:hidden was added")
				}
				if n, err := db.Degree(ctx, "a", "", store.Out); err != nil || n != 1 {
					t.Errorf("degree of a without hidden relations = %d, %v; want 1", n, err)
				}
			}},
		{"inverse label by bulk load", []write{{add: []quad.Quad{gq("knows", store.GroveInverseLabel,
			quad.String("known by"))}, bulk: true}},
			func(t *testing.T, db *DB) {
				if got := relationOf(t, db, "knows").InverseLabel; got != "known by" {
					t.Errorf("inverse label %q, want %q", got, "known by")
				}
			}},
		{"entity dropped, then re-created", []write{{del: []quad.Quad{gq("a", "likes", quad.IRI("b")),
			gq("a", "knows", quad.IRI("b"))}}, {add: []quad.Quad{gq("a", "knows", quad.IRI("c"))}}},
			func(t *testing.T, db *DB) {
				es, err := db.Edges(ctx, []string{"a"}, "knows", store.Out, 10)
				if err != nil || len(es) != 1 || es[0].Object.ID != "c" {
					t.Errorf("edges a knows = %+v, %v; want c", es, err)
				}
			}},
		{"relation dropped, then re-created", []write{{del: []quad.Quad{gq("a", "likes", quad.IRI("b"))}},
			{add: []quad.Quad{gq("c", "likes", quad.IRI("d"))}}},
			func(t *testing.T, db *DB) {
				es, err := db.Edges(ctx, []string{"c"}, "likes", store.Out, 10)
				if err != nil || len(es) != 1 || es[0].Object.ID != "d" {
					t.Errorf("edges c likes = %+v, %v; want d", es, err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := predDB(t)
			warm(t, db)
			for _, w := range c.writes {
				if w.bulk {
					loadQuads(t, db, "g", w.add)
				} else {
					applyDeltas(t, db, w.del, w.add)
				}
			}
			c.check(t, db)
		})
	}
}

func applyDeltas(t *testing.T, db *DB, del, add []quad.Quad) {
	t.Helper()
	ds := append(deltas(del, graph.Delete), deltas(add, graph.Add)...)
	if err := db.ApplyDeltas(ds, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
}

func wantLabel(t *testing.T, db *DB, want string) {
	t.Helper()
	if got := relationOf(t, db, "knows").Label; got != want {
		t.Errorf("Relations label %q, want %q", got, want)
	}
	es, err := db.Edges(context.Background(), []string{"a"}, "knows", store.Out, 10)
	if err != nil || len(es) != 1 || es[0].RelationLabel != want {
		t.Errorf("Edges = %+v, %v; want relation label %q", es, err, want)
	}
}

// TestPredCacheOldSnapshot: a reader whose snapshot predates a write,
// finishing after it, must not leave what it saw in the cache.
func TestPredCacheOldSnapshot(t *testing.T) {
	db := predDB(t)
	old := db.bdb.NewTransaction(false)
	defer old.Discard()
	applyDeltas(t, db, []quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows old"))},
		[]quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows new")), gq("knows", store.GroveHidden, quad.String("true"))})
	p, err := db.resolveRelation(old, "knows")
	if err != nil {
		t.Fatal(err)
	}
	if pi, err := db.pred(old, p); err != nil || pi.label != "knows old" {
		t.Fatalf("the old snapshot sees %+v, %v; want the old label", pi, err)
	}
	db.labelPreds(old)
	wantLabel(t, db, "knows new")
	if !relationOf(t, db, "knows").Hidden {
		t.Error("knows is not hidden")
	}
}

// TestPredCacheConcurrentWrites: readers keep filling the caches while a
// writer relabels a predicate and an entity; after every write the
// writer's own reads see both labels (the entity label cache served the
// old label here before it was guarded by the predicate cache). Run with
// -race.
func TestPredCacheConcurrentWrites(t *testing.T) {
	db := predDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, _ = db.Relations(ctx, []string{"a"}, store.Both)
				_, _ = db.Edges(ctx, []string{"a"}, "knows", store.Out, 10)
			}
		})
	}
	relabel := []quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows old"))}
	for i := range 200 {
		label := fmt.Sprintf("%d", i)
		add := []quad.Quad{gq("knows", store.RDFSLabel, quad.String("knows "+label)),
			gq("b", store.RDFSLabel, quad.String("bee "+label))}
		applyDeltas(t, db, relabel, add)
		relabel = add
		es, err := db.Edges(context.Background(), []string{"a"}, "knows", store.Out, 10)
		if err != nil || len(es) != 1 || es[0].RelationLabel != "knows "+label || es[0].Object.Label != "bee "+label {
			t.Errorf("write %d: edges %+v, %v; want labels %q and %q", i, es, err, "knows "+label, "bee "+label)
		}
		if got := relationOf(t, db, "knows").Label; got != "knows "+label {
			t.Errorf("write %d: relation label %q, want %q", i, got, "knows "+label)
		}
	}
	cancel()
	wg.Wait()
}

// TestPredCacheWindows: during a write, snapshots that may see its
// commit bypass the cache while older ones use it; the cache is emptied
// when the write ends and not filled from a snapshot older than it.
func TestPredCacheWindows(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := newPredCache()
	c.invalidate(db.readFloor())
	pi := predInfo{id: "p", label: "old"}
	before := db.bdb.NewTransaction(false)
	defer before.Discard()
	c.putPred(before, 1, pi)
	put := func() {
		txn := db.bdb.NewTransaction(false)
		defer txn.Discard()
		c.putPred(txn, 1, pi)
	}
	steps := []struct {
		name string
		do   func()
		hit  bool
	}{
		{"filled", func() {}, true},
		{"write begun, nothing committed", func() { c.beginWrite(db.readFloor()) }, true},
		{"write committed, cache not emptied", func() {
			applyDeltas(t, db, nil, []quad.Quad{gq("x", "y", quad.IRI("z"))})
		}, false},
		{"put from a snapshot that sees the commit", put, false},
		{"write ended", func() { c.endWrite(db.readFloor()) }, false},
		{"put from an older snapshot", func() { c.putPred(before, 1, pi) }, false},
		{"put from a current snapshot", put, true},
	}
	for _, s := range steps {
		s.do()
		now := db.bdb.NewTransaction(false)
		_, hit := c.pred(now, 1)
		now.Discard()
		if hit != s.hit {
			t.Errorf("%s: hit %v, want %v", s.name, hit, s.hit)
		}
	}
	if _, ok := c.pred(before, 1); ok {
		t.Error("an old snapshot reads the cache")
	}
}
