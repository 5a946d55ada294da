package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// kgView renders what a reader sees of a database: its counts, its
// non-empty graphs, and the entity, relations (with counts) and degree of
// each of ids. Two databases holding the same quads must render the same,
// however their quads got there.
func kgView(t testing.TB, db *DB, ids ...string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "counts %+v\n", db.Counts())
	gs, err := db.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if g.Quads > 0 {
			fmt.Fprintf(&b, "graph %+v\n", g)
		}
	}
	for _, id := range ids {
		e, err := db.Entity(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Fprintf(&b, "%s: not found\n", id)
			continue
		} else if err != nil {
			t.Fatalf("entity %s: %v", id, err)
		}
		fmt.Fprintf(&b, "%s: %+v\n", id, e)
		rs, err := db.Relations(ctx, []string{id}, store.Both)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			fmt.Fprintf(&b, "  %s %v %s %d\n", r.ID, r.Dir, r.Graph, r.Count)
		}
		d, err := db.Degree(ctx, id, "", store.Both)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  degree %d\n", d)
	}
	return b.String()
}

// bulkView bulk-loads qs (each into the graph of its label) into a fresh database and renders it as kgView.
func bulkView(t testing.TB, qs []quad.Quad, ids ...string) string {
	t.Helper()
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadOpts(t, db, LoadOptions{Graph: "g", KeepLabels: true}, qs)
	return kgView(t, db, ids...)
}

// nodeDeleteQuads is a small graph in which <a> is a subject, an object,
// a predicate and a graph label, and <hub> has seven quads.
func nodeDeleteQuads() []quad.Quad {
	g := quad.IRI("g")
	qs := []quad.Quad{
		{Subject: quad.IRI("a"), Predicate: quad.IRI("p"), Object: quad.IRI("b"), Label: g},
		{Subject: quad.IRI("b"), Predicate: quad.IRI("q"), Object: quad.IRI("a"), Label: g},
		{Subject: quad.IRI("a"), Predicate: quad.IRI("a"), Object: quad.IRI("a"), Label: g},
		{Subject: quad.IRI("a"), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String("Node A"), Label: g},
		{Subject: quad.IRI("c"), Predicate: quad.IRI("a"), Object: quad.IRI("b"), Label: g},
		{Subject: quad.IRI("x"), Predicate: quad.IRI("p"), Object: quad.IRI("y"), Label: quad.IRI("a")},
		{Subject: quad.IRI("b"), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String("Node B"), Label: g},
	}
	for i := range 7 {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprint("m", i)), Predicate: quad.IRI("p"), Object: quad.IRI("hub"), Label: g})
	}
	return qs
}

// without returns the quads of qs in which v does not appear.
func without(qs []quad.Quad, v quad.Value) []quad.Quad {
	return slices.DeleteFunc(slices.Clone(qs), func(q quad.Quad) bool {
		return q.Subject == v || q.Predicate == v || q.Object == v || q.Label == v
	})
}

// TestDeleteNode: a node delete removes every quad the node is in, in any
// position, and leaves the database as a bulk load of the other quads
// would (counts, graphs, relations, degrees, labels), whether it took one
// transaction or several; an unknown node changes nothing.
func TestDeleteNode(t *testing.T) {
	ids := []string{"a", "b", "c", "x", "y", "hub", "m0", "p"}
	cases := []struct {
		name    string
		node    quad.Value
		partMax int // quads per transaction; 0: the default (one transaction)
		want    int
		err     error
	}{
		{name: "every position, one transaction", node: quad.IRI("a"), want: 6},
		{name: "every position, in parts", node: quad.IRI("a"), partMax: 2, want: 6},
		{name: "a hub in parts", node: quad.IRI("hub"), partMax: 3, want: 7},
		{name: "a literal", node: quad.String("Node B"), want: 1},
		{name: "a predicate", node: quad.IRI("q"), want: 1},
		{name: "unknown", node: quad.IRI("nosuch"), err: graph.ErrNodeNotExists},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			qs := nodeDeleteQuads()
			loadOpts(t, db, LoadOptions{Graph: "g", KeepLabels: true}, qs[:len(qs)/2])
			applyOne(t, db, graph.Add, qs[len(qs)/2:]...) // some quads by a delta
			before := kgView(t, db, ids...)
			db.nodeDeleteSize = c.partMax
			n, err := db.DeleteNode(context.Background(), c.node)
			if !errors.Is(err, c.err) || n != c.want {
				t.Fatalf("DeleteNode = %d, %v; want %d, %v", n, err, c.want, c.err)
			}
			got := kgView(t, db, ids...)
			if c.err != nil {
				if got != before {
					t.Errorf("a failed delete changed the database:\n%s\nwas\n%s", got, before)
				}
				return
			}
			if want := bulkView(t, without(qs, c.node), ids...); got != want {
				t.Errorf("after the delete:\n%s\nwant (bulk load of the rest):\n%s", got, want)
			}
			if recs, err := db.UnfinishedNodeDeletes(); err != nil || len(recs) > 0 {
				t.Errorf("unfinished deletes %v, %v", recs, err)
			}
		})
	}
}

// TestDeleteNodeFailure: a node delete that fails in its one transaction
// changes nothing, and one that fits in one is not affected by a failure
// that would have stopped a second; one that fails between two
// transactions (here the disk fills) says so, leaves consistent counts and
// a record that survives a reopen, and running it again finishes it and
// drops the record.
func TestDeleteNodeFailure(t *testing.T) {
	ids := []string{"hub", "m0", "m6", "a"}
	cases := []struct {
		name     string
		partMax  int
		failFrom int32 // the first write whose free-space check fails
		deleted  int   // before the failure
		done     bool  // no failure: the delete took one transaction
	}{
		{name: "fails in its one transaction", failFrom: 1},
		{name: "one transaction is enough", failFrom: 2, deleted: 7, done: true},
		{name: "fails in its second part", partMax: 3, failFrom: 2, deleted: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { db.Close() }()
			qs := nodeDeleteQuads()
			loadOpts(t, db, LoadOptions{Graph: "g", KeepLabels: true}, qs)
			before := kgView(t, db, ids...)
			var checks atomic.Int32
			db.freeDisk = func(string) (uint64, bool) {
				if checks.Add(1) < c.failFrom {
					return 1 << 40, true
				}
				return 1 << 20, true // under minWriteSpace
			}
			db.nodeDeleteSize = c.partMax
			n, err := db.DeleteNode(context.Background(), quad.IRI("hub"))
			if c.done {
				if err != nil || n != c.deleted {
					t.Fatalf("DeleteNode = %d, %v; want %d", n, err, c.deleted)
				}
				if got, want := kgView(t, db, ids...), bulkView(t, without(qs, quad.IRI("hub")), ids...); got != want {
					t.Errorf("after the delete:\n%s\nwant (bulk load of the rest):\n%s", got, want)
				}
				return
			}
			if !errors.Is(err, store.ErrDiskFull) || n != c.deleted {
				t.Fatalf("DeleteNode = %d, %v; want %d and a full disk", n, err, c.deleted)
			}
			unfinished := errors.Is(err, ErrNodeDeleteUnfinished)
			if unfinished != (c.deleted > 0) || unfinished && !strings.Contains(err.Error(), "delete the node again") {
				t.Errorf("error %q: unfinished %v", err, unfinished)
			}
			db.freeDisk = nil
			got := kgView(t, db, ids...)
			if c.deleted == 0 {
				if got != before {
					t.Errorf("a failed one-transaction delete changed the database:\n%s\nwas\n%s", got, before)
				}
				return
			}
			// The quads deleted so far are gone, the counts say so.
			left := 0
			for _, q := range qs {
				if q.Object == quad.IRI("hub") {
					left++
				}
			}
			if d, err := db.Degree(context.Background(), "hub", "", store.Both); err != nil || d != int64(left-c.deleted) {
				t.Errorf("hub degree %d, %v; want %d", d, err, left-c.deleted)
			}
			want := db.Counts()
			if err := db.recount(); err != nil {
				t.Fatal(err)
			}
			if err := db.reloadMeta(); err != nil {
				t.Fatal(err)
			}
			if db.Counts() != want {
				t.Errorf("counts %+v, recounted %+v", want, db.Counts())
			}
			db.Close()
			if db, err = Open(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			recs, err := db.UnfinishedNodeDeletes()
			if err != nil || len(recs) != 1 || recs[0].Node != "<hub>" || recs[0].Deleted != c.deleted {
				t.Fatalf("after a reopen, unfinished deletes %+v, %v; want <hub> with %d deleted", recs, err, c.deleted)
			}
			db.nodeDeleteSize = c.partMax
			if n, err := db.DeleteNode(context.Background(), quad.IRI("hub")); err != nil || n != left-c.deleted {
				t.Fatalf("DeleteNode again = %d, %v; want %d", n, err, left-c.deleted)
			}
			if recs, err := db.UnfinishedNodeDeletes(); err != nil || len(recs) > 0 {
				t.Errorf("unfinished deletes %v, %v after finishing", recs, err)
			}
			if got, want := kgView(t, db, ids...), bulkView(t, without(qs, quad.IRI("hub")), ids...); got != want {
				t.Errorf("after finishing:\n%s\nwant (bulk load of the rest):\n%s", got, want)
			}
		})
	}
}
