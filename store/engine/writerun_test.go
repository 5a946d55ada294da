package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/dirlock"
)

// runDeltas adds n quads <s_i> <p> <o_i> to graph g.
func runDeltas(from, n int) []graph.Delta {
	ds := make([]graph.Delta, n)
	for i := range ds {
		ds[i] = graph.Delta{Action: graph.Add, Quad: quad.Quad{Subject: quad.IRI(fmt.Sprint("s", from+i)),
			Predicate: quad.IRI("p"), Object: quad.IRI(fmt.Sprint("o", from+i)), Label: quad.IRI("g")}}
	}
	return ds
}

// writeRuns returns the recorded write runs or fails the test.
func writeRuns(t *testing.T, db *DB) []WriteRun {
	t.Helper()
	rs, err := db.UnfinishedWriteRuns()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestWriteRunRecord: a write run is recorded before its first
// transaction, each transaction moves the record on with its data (a
// failing one does not), a run stopped part-way keeps the record with
// the right counts, which a reopen logs and Warnings lists, another run
// into the same graph leaves it alone, and running the same command
// again completes the run and removes it.
func TestWriteRunRecord(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	run := WriteRun{Graph: "g", Files: []WriteRunFile{{Name: "upd.nt", Size: 123}}, Total: 6, Done: 99}
	w, err := db.BeginWriteRun(run)
	if err != nil {
		t.Fatal(err)
	}
	want := run
	want.Done = 0
	if rs := writeRuns(t, db); len(rs) != 1 || !slices.Equal(rs[0].Files, want.Files) || rs[0].Done != 0 || rs[0].Total != 6 {
		t.Fatalf("record before the first transaction: %+v, want %+v", rs, want)
	}
	if err := w.ApplyDeltas(runDeltas(0, 2), graph.IgnoreOpts{IgnoreDup: true}); err != nil {
		t.Fatal(err)
	}
	if rs := writeRuns(t, db); len(rs) != 1 || rs[0].Done != 2 || db.Counts().Quads != 2 {
		t.Fatalf("after one transaction: %+v, %d quads", rs, db.Counts().Quads)
	}
	// A failing transaction (a missing quad to delete) writes neither its
	// quads nor the record.
	bad := append(runDeltas(2, 2), graph.Delta{Action: graph.Delete, Quad: runDeltas(50, 1)[0].Quad})
	failed := w.ApplyDeltas(bad, graph.IgnoreOpts{})
	if failed == nil {
		t.Fatal("a delete of a missing quad succeeded")
	}
	if rs := writeRuns(t, db); len(rs) != 1 || rs[0].Done != 2 || db.Counts().Quads != 2 {
		t.Fatalf("after a failed transaction: %+v, %d quads", rs, db.Counts().Quads)
	}
	err = w.Stop(failed)
	if !errors.Is(err, ErrWriteRunUnfinished) || !errors.Is(err, graph.ErrQuadNotExist) {
		t.Fatalf("Stop = %v, want ErrWriteRunUnfinished wrapping the failure", err)
	}
	db.Close()

	var logs strings.Builder
	db, err = Open(dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	msg := `an incremental ingest (grove ingest --incremental) into graph "g" of upd.nt (123 bytes) stopped after 2 of 6 ` +
		`quads; run the same command again to complete it (it is idempotent)`
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "stopped after 2 of 6 quads") {
		t.Errorf("the reopen does not log the unfinished run:\n%s", logs.String())
	}
	if ws, err := db.Warnings(); err != nil || !slices.Contains(ws, msg) {
		t.Errorf("Warnings = %q, %v; want %q", ws, err, msg)
	}
	// Another run into the same graph (a delete; other files) leaves the
	// record alone.
	changed := slices.Clone(want.Files) // the same name, another size: the file changed
	changed[0].Size++
	for _, other := range []WriteRun{
		{Graph: "g", Delete: true, Files: want.Files, Total: 1},
		{Graph: "g", Files: []WriteRunFile{{Name: "other.nt", Size: 1}}, Total: 1},
		{Graph: "g", Files: changed, Total: 1},
	} {
		o, err := db.BeginWriteRun(other)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	if rs := writeRuns(t, db); len(rs) != 1 || rs[0].Done != 2 {
		t.Fatalf("after other runs: %+v", rs)
	}
	// The same command again, stopped before its first transaction,
	// keeps the record (the earlier run's quads are still applied).
	w, err = db.BeginWriteRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Stop(errors.New("stopped")); !errors.Is(err, ErrWriteRunUnfinished) {
		t.Errorf("Stop of a re-run that applied nothing = %v", err)
	}
	if rs := writeRuns(t, db); len(rs) != 1 || rs[0].Done != 2 {
		t.Fatalf("a re-run that applied nothing dropped the record or its count (2): %+v", rs)
	}
	// Run to the end, it completes the run and removes the record.
	w, err = db.BeginWriteRun(run)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i += 3 {
		if err := w.ApplyDeltas(runDeltas(i, 3), graph.IgnoreOpts{IgnoreDup: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if rs := writeRuns(t, db); len(rs) != 0 || db.Counts().Quads != 6 {
		t.Fatalf("after the complete re-run: %+v, %d quads", rs, db.Counts().Quads)
	}
	if ws, err := db.Warnings(); err != nil || len(ws) != 0 {
		t.Errorf("Warnings after the complete re-run = %q, %v", ws, err)
	}
}

// TestWriteRunNothingApplied: a run that fails before its first
// transaction commits changed nothing: its error is returned as is and
// its record removed.
func TestWriteRunNothingApplied(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginWriteRun(WriteRun{Graph: "g", Delete: true, Files: []WriteRunFile{{Name: "-", Size: -1}}, Total: 3})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := w.Stop(boom); err != boom {
		t.Errorf("Stop = %v, want the failure as is", err)
	}
	if rs := writeRuns(t, db); len(rs) != 0 {
		t.Errorf("records after a run that applied nothing: %+v", rs)
	}
}

// TestWriteRunRefusedWhileMerging: while a merge is unfinished a write run
// is refused before it records anything, with ErrMergeUnfinished, and
// every open logs the unfinished merge and Warnings lists it.
func TestWriteRunRefusedWhileMerging(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	if err := db.markMerge(2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginWriteRun(WriteRun{Graph: "g", Total: 1}); !errors.Is(err, ErrMergeUnfinished) {
		t.Errorf("BeginWriteRun during a merge = %v, want ErrMergeUnfinished", err)
	}
	if err := db.ApplyDeltas(runDeltas(0, 1), graph.IgnoreOpts{}); !errors.Is(err, ErrMergeUnfinished) {
		t.Errorf("ApplyDeltas during a merge = %v, want ErrMergeUnfinished", err)
	}
	if rs := writeRuns(t, db); len(rs) != 0 {
		t.Errorf("a refused run recorded %+v", rs)
	}
	db.Close()
	var logs strings.Builder
	db, err = Open(dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "grove optimize run did not finish") {
		t.Errorf("the reopen does not log the unfinished merge:\n%s", logs.String())
	}
	if ws, err := db.Warnings(); err != nil || !slices.Contains(ws, mergeWarning) {
		t.Errorf("Warnings = %q, %v; want the unfinished merge", ws, err)
	}
}

// TestInUseAdvice: the advice of the error of an open refused because
// another process holds the database fits the holder: only a writing
// grove serve answers KG calls over HTTP; grove optimize refuses everyone
// while it runs.
func TestInUseAdvice(t *testing.T) {
	for _, c := range []struct {
		holders   []dirlock.Holder
		want, not string
	}{
		{holders: []dirlock.Holder{{PID: 1, Write: true, Cmd: "grove --db d optimize"}},
			want: "every other process, readers included, is refused", not: "HTTP"},
		{holders: []dirlock.Holder{{PID: 1, Write: true, Cmd: "grove --db d serve"}},
			want: "a running grove serve answers the same KG calls over HTTP"},
		{holders: []dirlock.Holder{{PID: 1, Write: true, Cmd: "grove ingest --incremental x.nt"}},
			want: "grove ingest holds the database alone", not: "HTTP"},
		{holders: []dirlock.Holder{{PID: 1, Cmd: "grove kg search x"}}, want: "wait for it or stop it", not: ";"},
	} {
		err := inUseErr(c.holders)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), c.want) ||
			c.not != "" && strings.Contains(inUseAdvice(c.holders), c.not) {
			t.Errorf("holders %v: %v; want %q and not %q", c.holders, err, c.want, c.not)
		}
	}
}
