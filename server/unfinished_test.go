package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/engine"
)

// interruptedOptimizeDB is a database on disk with two node-block
// segments whose merge (grove optimize) was stopped before its first
// transaction: reads work, writes are refused with ErrMergeUnfinished.
func interruptedOptimizeDB(t *testing.T) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{SegmentMinQuads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, g := range []string{"a", "b"} {
		l, err := db.NewLoader(engine.LoadOptions{Graph: g})
		if err != nil {
			t.Fatal(err)
		}
		q := quad.Quad{Subject: quad.IRI("s" + g), Predicate: quad.IRI("p"), Object: quad.IRI("o")}
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	if db.Segments() != 2 {
		t.Fatalf("%d segments, want 2", db.Segments())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.MergeSegments(ctx, nil); err == nil || !db.MergeUnfinished() {
		t.Fatalf("MergeSegments on a cancelled context: %v; unfinished %v", err, db.MergeUnfinished())
	}
	return db
}

// TestWritesAfterInterruptedOptimize: a server over a database whose
// grove optimize was interrupted logs it at startup, lists it in
// /v1/stats and answers every write with 503 and what to run (it
// answered 500 "internal error", the reason in its log only); reads go on.
func TestWritesAfterInterruptedOptimize(t *testing.T) {
	const token = "optimize-token"
	db := interruptedOptimizeDB(t)
	ts := startServer(t, Config{Token: token}, db, Deps{QuadStore: db})
	for _, c := range []struct{ path, body, verb string }{
		{"/cayley/api/v2/write", "<w1> <p> <o> .\n", "written"},
		{"/cayley/api/v2/delete", "<sa> <p> <o> .\n", "deleted"},
		{"/cayley/api/v2/node/delete", "<sa>", "deleted"},
	} {
		st, _, body := ts.do("POST", c.path, c.body, nil)
		if st != 503 {
			t.Errorf("%s: status %d, want 503: %s", c.path, st, body)
			continue
		}
		res := decode[changeErrorBody](t, body)
		if !strings.Contains(res.Error, "run grove optimize") || !strings.Contains(res.Error, "nothing was "+c.verb) ||
			res.Count != 0 || res.RequestID == "" {
			t.Errorf("%s: %s", c.path, body)
		}
	}
	if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub=%3Csa%3E", "", nil); st != 200 || !strings.Contains(string(b), "<sa> ") {
		t.Errorf("read after refused writes: %d %s", st, b)
	}
	st, b := ts.get("/v1/stats")
	if s := decode[statsBody](t, b); st != 200 || !slices.ContainsFunc(s.Warnings, func(w string) bool {
		return strings.Contains(w, "grove optimize run did not finish")
	}) {
		t.Errorf("/v1/stats: %d %s", st, b)
	}
	if logs := ts.logs.String(); !strings.Contains(logs, `"level":"WARN","msg":"the database needs attention: a grove optimize run did not finish`) {
		t.Errorf("the startup log does not warn of the unfinished optimize:\n%s", logs)
	}
}

// TestClassifyMergeUnfinished: the engine's refusal is mapped by its
// sentinel, however wrapped, to a 503 that says what to run.
func TestClassifyMergeUnfinished(t *testing.T) {
	if st, _, _ := classify(errors.New(engine.ErrMergeUnfinished.Error())); st == 503 {
		t.Fatalf("the error's text without the sentinel is a 503: classify must not match text")
	}
	err := fmt.Errorf("write: %w", fmt.Errorf("apply deltas: %w", engine.ErrMergeUnfinished))
	st, msg, internal := classify(err)
	if st != 503 || internal || !strings.Contains(msg, "run grove optimize") {
		t.Errorf("classify = %d %q %v", st, msg, internal)
	}
}

// TestUnfinishedWriteRunSurfaces: a grove ingest --incremental run
// stopped part-way is logged when the server starts and listed in
// /v1/stats.
func TestUnfinishedWriteRunSurfaces(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginWriteRun(engine.WriteRun{Graph: "g", Files: []engine.WriteRunFile{{Name: "upd.nt", Size: 42}}, Total: 10})
	if err != nil {
		t.Fatal(err)
	}
	q := quad.Quad{Subject: quad.IRI("s"), Predicate: quad.IRI("p"), Object: quad.IRI("o"), Label: quad.IRI("g")}
	if err := w.ApplyDeltas([]graph.Delta{{Quad: q, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	_ = w.Stop(context.Canceled)
	const want = `an incremental ingest (grove ingest --incremental) into graph "g" of upd.nt (42 bytes) stopped after 1 of 10 quads`
	ts := startServer(t, Config{}, db, Deps{QuadStore: db})
	st, b := ts.get("/v1/stats")
	if s := decode[statsBody](t, b); st != 200 || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], want) {
		t.Errorf("/v1/stats: %d %s", st, b)
	}
	if logs := ts.logs.String(); !strings.Contains(logs, "the database needs attention: "+strings.ReplaceAll(want, `"`, `\"`)) {
		t.Errorf("the startup log does not warn of the unfinished run:\n%s", logs)
	}
}
