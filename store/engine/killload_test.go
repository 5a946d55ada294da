package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// killSink simulates a kill -9 of a bulk load at the n-th key of stream
// at: the keys that stream was given up to there and those of every
// stream ended before reach the database (as if their tables had just
// been written: persist writes them), the keys of every other stream are
// lost, and every later call fails.
type killSink struct {
	kvWriter
	mu     sync.Mutex
	at     uint32
	n      int
	killed bool
	keys   map[uint32][][2][]byte // the keys of each stream and their values (nil: a delete)
	ended  map[uint32]bool
}

// record keeps a copy of a key given to stream.
func (s *killSink) record(stream uint32, key, val []byte) {
	if s.keys == nil {
		s.keys, s.ended = map[uint32][][2][]byte{}, map[uint32]bool{}
	}
	s.keys[stream] = append(s.keys[stream], [2][]byte{slices.Clone(key), val})
}

// persist writes the keys that were durable at the kill.
func (s *killSink) persist(db *DB) error {
	wb := db.bdb.NewWriteBatch()
	defer wb.Cancel()
	var durable [][2][]byte
	for id, kvs := range s.keys {
		if id == s.at || s.ended[id] {
			durable = append(durable, kvs...)
		}
	}
	for _, kv := range durable {
		var err error
		if kv[1] == nil {
			err = wb.Delete(kv[0])
		} else {
			err = wb.Set(kv[0], kv[1])
		}
		if err != nil {
			return err
		}
	}
	return wb.Flush()
}

// hit counts a key of stream and kills the load at the n-th of at.
func (s *killSink) hit(stream uint32) error {
	if s.killed {
		return errSinkFull
	}
	if stream != s.at {
		return nil
	}
	if s.n--; s.n >= 0 {
		return nil
	}
	s.killed = true
	return errSinkFull
}

func (s *killSink) Set(stream uint32, key, val []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.hit(stream); err != nil {
		return err
	}
	s.record(stream, key, append([]byte{}, val...))
	return s.kvWriter.Set(stream, key, val)
}

func (s *killSink) Delete(stream uint32, key []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.hit(stream); err != nil {
		return err
	}
	s.record(stream, key, nil)
	return s.kvWriter.Delete(stream, key)
}

func (s *killSink) Done(streams ...uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return errSinkFull
	}
	for _, id := range streams {
		if s.ended == nil {
			s.record(id, nil, nil)
			s.keys[id] = nil
		}
		s.ended[id] = true
	}
	return s.kvWriter.Done(streams...)
}

func (s *killSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		s.kvWriter.Cancel()
		return errSinkFull
	}
	return s.kvWriter.Flush()
}

// killedLoad runs a bulk load of qs into graph that is killed at the n-th
// key of stream at; it fails the test unless the kill happened.
func killedLoad(t *testing.T, db *DB, graph string, qs []quad.Quad, at uint32, n int) {
	t.Helper()
	l, err := db.NewLoader(LoadOptions{Graph: graph, MaxMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ks := &killSink{at: at, n: n}
	l.wrapSink = func(w kvWriter) kvWriter { ks.kvWriter = w; return ks }
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err == nil || !ks.killed {
		t.Fatalf("load killed at key %d of stream %d: commit %v, killed %v", n, at, err, ks.killed)
	}
	if err := ks.persist(db); err != nil {
		t.Fatal(err)
	}
}

// dbState is what a load must leave the same whether or not an earlier
// run of it was killed.
type dbState struct {
	nodes  int64
	quads  map[string]bool
	listed []string // g.V(), sorted
}

func stateOf(t *testing.T, db *DB) dbState {
	t.Helper()
	return dbState{nodes: db.Counts().Nodes, quads: quadSet(t, db), listed: storeNodes(t, db)}
}

// TestKilledLoadRerun: a load into a database holding another graph is
// killed at a key of each write step (the dictionary's two directions, the
// S, O and P lists, the node blocks, the meta keys), in some cases twice,
// then re-run to completion: the database is the one a clean load gives,
// with the same quads and node count, g.V() lists every node once (no
// term has two ids, no id block entry is left without its term key), and
// the re-run counts the new terms a clean load counts (those the killed
// runs numbered included).
func TestKilledLoadRerun(t *testing.T) {
	base, qs := synthQuads(11, 3000), synthQuads(12, 6000)
	open := func(dir string) *DB { return openOpts(t, dir, Options{}) }
	clean := open(t.TempDir())
	loadQuads(t, clean, "a", base)
	wantTerms := loadQuads(t, clean, "b", qs).Terms
	want := stateOf(t, clean)
	clean.Close()
	if n := len(want.listed); int64(n) != want.nodes || len(slices.Compact(slices.Clone(want.listed))) != n {
		t.Fatalf("clean load: %d nodes counted, %d listed", want.nodes, n)
	}
	type kill struct {
		at uint32
		n  int
	}
	cases := [][]kill{
		{{streamID, 0}}, {{streamID, 20}}, {{streamID, 60}}, {{streamTerm, 0}}, {{streamTerm, 700}},
		{{streamSumS, 50}}, {{streamSumO, 50}}, {{streamPred, 1}},
		{{streamMeta, 0}}, {{streamID, 30}, {streamID, 10}}, {{streamID, 40}, {streamSumS, 5}},
	}
	for _, kills := range cases {
		t.Run(fmt.Sprint(kills), func(t *testing.T) {
			dir := t.TempDir()
			db := open(dir)
			loadQuads(t, db, "a", base)
			for _, k := range kills {
				killedLoad(t, db, "b", qs, k.at, k.n)
				db.Close()
				db = open(dir)
				if db.Interrupted() == nil {
					t.Fatal("killed load not reported")
				}
			}
			defer func() { db.Close() }()
			terms := loadQuads(t, db, "b", qs).Terms
			db.Close()
			db = open(dir)
			got := stateOf(t, db)
			if terms != wantTerms {
				t.Errorf("the re-run added %d terms, a clean load %d", terms, wantTerms)
			}
			if got.nodes != want.nodes || !slices.Equal(got.listed, want.listed) {
				t.Errorf("after the re-run: %d nodes counted, %d listed (%d distinct); a clean load has %d",
					got.nodes, len(got.listed), len(slices.Compact(slices.Clone(got.listed))), want.nodes)
			}
			if len(got.quads) != len(want.quads) {
				t.Errorf("after the re-run: %d quads, want %d", len(got.quads), len(want.quads))
			}
			for q := range want.quads {
				if !got.quads[q] {
					t.Fatalf("quad %s missing after the re-run", q)
				}
			}
		})
	}
}

// TestKilledLoadRerunAfterIncrementalWrite: a load of a new graph b is
// killed, an incremental write adds an edge of a new entity to the stored
// graph a (its terms numbered after the ids the killed load reserved), and
// a re-run of the load is killed too. The marker records the term ids the
// two runs numbered, not those the incremental write took: reads find the
// written entity, its edge and relation, and still not the terms of the
// load. The last re-run completes the load exactly (the database a clean
// load gives, and the same count of new terms).
func TestKilledLoadRerunAfterIncrementalWrite(t *testing.T) {
	ctx := context.Background()
	const (
		p1, knows, hub = "http://ex.org/P1", "http://ex.org/knows", "hub0"
		onlyB          = "http://ex.org/onlyB"
	)
	base, qs := synthQuads(11, 3000), synthQuads(12, 6000)
	qs = append(qs, quad.Make(quad.IRI(onlyB), quad.IRI("p1"), quad.IRI(hub), nil))
	write := graph.Delta{Action: graph.Add, Quad: quad.Make(quad.IRI(p1), quad.IRI(knows), quad.IRI(hub), quad.IRI("a"))}
	open := func(dir string) *DB { return openOpts(t, dir, Options{}) }
	clean := open(t.TempDir())
	loadQuads(t, clean, "a", base)
	if err := clean.ApplyDeltas([]graph.Delta{write}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	wantTerms := loadQuads(t, clean, "b", qs).Terms
	want := stateOf(t, clean)
	clean.Close()

	// visible checks what reads say about the incremental write and the
	// load.
	visible := func(t *testing.T, db *DB, when string) {
		t.Helper()
		if _, err := db.Entity(ctx, p1); err != nil {
			t.Errorf("%s: entity %s of the incremental write: %v", when, p1, err)
		}
		edges, err := db.Edges(ctx, []string{p1}, knows, store.Out, 0)
		if err != nil || len(edges) != 1 || edges[0].Object.ID != hub {
			t.Errorf("%s: edges of %s: %+v, %v; want the one to %s", when, p1, edges, err, hub)
		}
		rels, err := db.Relations(ctx, []string{hub}, store.In)
		if err != nil || !slices.ContainsFunc(rels, func(r store.Relation) bool { return r.ID == knows }) {
			t.Errorf("%s: relations into %s: %+v, %v; want %s", when, hub, rels, err, knows)
		}
		if e, err := db.Entity(ctx, onlyB); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: term of the unfinished load: %+v, %v; want not found", when, e, err)
		}
	}
	type kill struct {
		at uint32
		n  int
	}
	for _, kills := range [][2]kill{
		{{streamID, 20}, {streamSumS, 5}},
		{{streamTerm, 700}, {streamID, 0}},
		{{streamID, 20}, {streamMeta, 0}},
	} {
		t.Run(fmt.Sprint(kills), func(t *testing.T) {
			dir := t.TempDir()
			db := open(dir)
			defer func() { db.Close() }()
			loadQuads(t, db, "a", base)
			killedLoad(t, db, "b", qs, kills[0].at, kills[0].n)
			db.Close()
			db = open(dir)
			if err := db.ApplyDeltas([]graph.Delta{write}, graph.IgnoreOpts{}); err != nil {
				t.Fatal(err)
			}
			visible(t, db, "after the incremental write")
			killedLoad(t, db, "b", qs, kills[1].at, kills[1].n)
			db.Close()
			db = open(dir)
			if db.Interrupted() == nil {
				t.Fatal("killed re-run not reported")
			}
			visible(t, db, "after the killed re-run")

			terms := loadQuads(t, db, "b", qs).Terms
			db.Close()
			db = open(dir)
			got := stateOf(t, db)
			if got.nodes != want.nodes || !slices.Equal(got.listed, want.listed) {
				t.Errorf("after the last re-run: %d nodes counted, %d listed (%d distinct); a clean load has %d",
					got.nodes, len(got.listed), len(slices.Compact(slices.Clone(got.listed))), want.nodes)
			}
			if !maps.Equal(got.quads, want.quads) {
				t.Errorf("after the last re-run: %d quads, a clean load has %d", len(got.quads), len(want.quads))
			}
			if terms != wantTerms {
				t.Errorf("the last re-run added %d terms, a clean load %d", terms, wantTerms)
			}
			if e, err := db.Entity(ctx, onlyB); err != nil {
				t.Errorf("term of the completed load: %+v, %v", e, err)
			}
		})
	}
}
