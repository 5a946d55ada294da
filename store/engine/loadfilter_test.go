package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// kgAnswers renders what the KG interface and Cayley's quad iteration
// say about id, for comparing two states of a database.
func kgAnswers(t *testing.T, db *DB, id string) string {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	e, err := db.Entity(ctx, id)
	must(err)
	deg, err := db.Degree(ctx, id, "", store.Both)
	must(err)
	rels, err := db.Relations(ctx, []string{id}, store.Both)
	must(err)
	out, err := db.Edges(ctx, []string{id}, "http://ex.org/r", store.Out, 0)
	must(err)
	in, err := db.Edges(ctx, []string{id}, "http://ex.org/q", store.In, 0)
	must(err)
	nb, err := db.Neighbors(ctx, id, "", store.Both, 0)
	must(err)
	fs, err := db.Features(ctx, id)
	must(err)
	hits, err := db.Search(ctx, "a", "Shared", 10)
	must(err)
	qs := labelledStrings(t, storeQuads(t, db))
	return fmt.Sprintf("entity %+v\ndegree %d\nrelations %+v\nout %+v\nin %+v\nneighbors %+v\nfeatures %+v\nsearch %+v\nquads %q",
		e, deg, rels, out, in, nb, fs, hits, qs)
}

// interruptLoad makes the completed load of graph into an unfinished one,
// as a load killed after writing every index key and before its meta
// keys: the graph's record, the id counter and the stats are put back as
// they were before it (next, stats), and the marker is written.
func interruptLoad(t *testing.T, dir string, db *DB, graph string, next uint64, stats Stats) *DB {
	t.Helper()
	reserved := db.nextID
	err := db.bdb.Update(func(txn *badger.Txn) error {
		sb, _ := json.Marshal(stats)
		if err := txn.Set(metaStats, sb); err != nil {
			return err
		}
		if err := txn.Set(metaNextID, binary.BigEndian.AppendUint64(nil, next)); err != nil {
			return err
		}
		return txn.Delete([]byte(metaGraph + graph))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Interrupted{Graph: graph, Reserved: reserved})
	if err := os.WriteFile(filepath.Join(dir, markerFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in := db.Interrupted(); in == nil || in.Start != next {
		t.Fatalf("interrupted load %+v, want one from id %d", in, next)
	}
	return db
}

// TestUnfinishedLoadInvisible: while a bulk load of a new graph is
// unfinished, reads answer as before it, although its keys are stored:
// an entity it shares with a stored graph keeps its label, degree,
// relations, edges, neighbors and features, Cayley lists the same quads,
// and the terms it added are not found. Re-running it shows it all.
func TestUnfinishedLoadInvisible(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	iri := func(s string) quad.IRI { return quad.IRI("http://ex.org/" + s) }
	q := func(s, p quad.IRI, o quad.Value, g string) quad.Quad {
		return quad.Quad{Subject: s, Predicate: p, Object: o, Label: quad.IRI(g)}
	}
	label := quad.IRI(store.RDFSLabel)
	loadQuads(t, db, "a", []quad.Quad{
		q(iri("s"), label, quad.String("Shared"), "a"),
		q(iri("s"), iri("r"), iri("o1"), "a"),
		q(iri("x"), iri("q"), iri("s"), "a"),
		q(iri("s"), iri("val"), quad.String("lit"), "a"),
	})
	const shared = "http://ex.org/s"
	before := kgAnswers(t, db, shared)
	next, stats := db.nextID, db.Counts()
	b := []quad.Quad{
		q(iri("s"), label, quad.String("Another"), "b"),
		q(iri("s"), iri("r"), iri("new1"), "b"),
		q(iri("new2"), iri("q"), iri("s"), "b"),
		q(iri("new1"), label, quad.String("New one"), "b"),
		q(iri("s"), iri("val"), quad.String("lit b"), "b"),
	}
	loadQuads(t, db, "b", b)
	if kgAnswers(t, db, shared) == before {
		t.Fatal("the load of graph b changed nothing: the test shows nothing")
	}
	db = interruptLoad(t, dir, db, "b", next, stats)

	if got := kgAnswers(t, db, shared); got != before {
		t.Fatalf("unfinished load visible:\n%s\nwant\n%s", got, before)
	}
	ctx := context.Background()
	if e, err := db.Entity(ctx, "http://ex.org/new1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("term of the unfinished load: %+v, %v; want not found", e, err)
	}
	if ref, err := db.ValueOf(iri("new2")); ref != nil || err != nil {
		t.Fatalf("Cayley finds a term of the unfinished load: %v, %v", ref, err)
	}

	loadQuads(t, db, "b", b)
	if db.Interrupted() != nil {
		t.Fatal("marker left after the re-run")
	}
	e, err := db.Entity(ctx, "http://ex.org/new1")
	if err != nil || e.Label != "New one" || !slices.Equal(e.Graphs, []string{"b"}) {
		t.Fatalf("after the re-run: %+v, %v", e, err)
	}
	if kgAnswers(t, db, shared) == before {
		t.Fatal("graph b invisible after the re-run")
	}
}
