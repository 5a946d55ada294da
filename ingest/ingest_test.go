package ingest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

func openDB(t *testing.T, dir string) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const small = `<a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .
<a> <knows> <b> .
<b> <http://www.w3.org/2000/01/rdf-schema#label> "Beta" .
_:x <knows> <a> .
`

// TestBadLineLeavesDataUnchanged: a bad line stops the run with file:line
// and nothing of the run is stored.
func TestBadLineLeavesDataUnchanged(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	if _, err := Run(ctx, db, []string{write(t, "good.nt", small)}, Options{Graph: "g"}); err != nil {
		t.Fatal(err)
	}
	before := db.Counts()
	bad := write(t, "bad.nt", "<c> <knows> <a> .\n<d> <knows> <a> .\n<e> <knows> \"unterminated .\n")
	_, err := Run(ctx, db, []string{bad}, Options{Graph: "g"})
	var se *source.Error
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(err.Error(), "bad.nt:3") {
		t.Fatalf("error = %v, want bad.nt:3", err)
	}
	if after := db.Counts(); after != before {
		t.Fatalf("counts changed by a failed run: %+v -> %+v", before, after)
	}
	if _, err := db.Entity(ctx, "c"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("quad of the failed run is visible: %v", err)
	}
	// With SkipInvalid the good lines go in and the bad one is counted.
	res, err := Run(ctx, db, []string{bad}, Options{Graph: "g", SkipInvalid: true})
	if err != nil || res.Skipped != 1 || len(res.Samples) != 1 || res.Load.Added != 2 {
		t.Fatalf("skip-invalid: %+v, %v", res, err)
	}
}

// TestReingestIsIdempotent loads the film sample twice.
func TestReingestIsIdempotent(t *testing.T) {
	ctx := context.Background()
	film := storetest.SharedData(t, "freebase-30kmovies.nq.gz")
	db := openDB(t, t.TempDir())
	defer db.Close()
	res, err := Run(ctx, db, []string{film}, Options{Graph: "film"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Load.Added != 471705 {
		t.Fatalf("added %d quads, want 471705", res.Load.Added)
	}
	first := db.Counts()
	res, err = Run(ctx, db, []string{film}, Options{Graph: "film"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Load.Added != 0 || res.Load.Terms != 0 || db.Counts() != first {
		t.Fatalf("re-ingest changed the store: %+v, counts %+v -> %+v", res.Load, first, db.Counts())
	}
	c, err := db.Search(ctx, "film", "Blade Runner", 1)
	if err != nil || len(c) != 1 || c[0].ID != "/en/blade_runner" {
		t.Fatalf("search after re-ingest = %+v, %v", c, err)
	}
	edges, err := db.Edges(ctx, []string{"/en/blade_runner"}, "/film/film/directed_by", store.Out, 0)
	if err != nil || len(edges) != 1 {
		t.Fatalf("edges after re-ingest = %+v, %v", edges, err)
	}
}

// TestIncrementalAndDelete applies and removes a small file through
// transactions.
func TestIncrementalAndDelete(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	p := write(t, "small.nt", small)
	if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, false, 2); err != nil {
		t.Fatal(err)
	}
	if n := db.Counts().Quads; n != 4 {
		t.Fatalf("quads = %d, want 4", n)
	}
	c, err := db.Search(ctx, "g", "beta", 1)
	if err != nil || len(c) != 1 || c[0].ID != "b" {
		t.Fatalf("search after incremental = %+v, %v", c, err)
	}
	if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, true, 100); err != nil {
		t.Fatal(err)
	}
	if st := db.Counts(); st.Quads != 0 || st.Nodes != 0 {
		t.Fatalf("after delete: %+v", st)
	}
	if c, _ := db.Search(ctx, "g", "beta", 1); len(c) != 0 {
		t.Fatalf("deleted label still found: %+v", c)
	}
}

// TestCrashDuringBulkLoad kills a process in the middle of a bulk load and
// checks that the earlier data is intact and that re-running the load
// completes it.
func TestCrashDuringBulkLoad(t *testing.T) {
	if dir := os.Getenv("GROVE_CRASH_DIR"); dir != "" {
		crashChild(dir, os.Getenv("GROVE_CRASH_FILE"))
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	ctx := context.Background()
	film := storetest.SharedData(t, "freebase-30kmovies.nq.gz")
	dir := t.TempDir()
	db := openDB(t, dir)
	if _, err := Run(ctx, db, []string{write(t, "small.nt", small)}, Options{Graph: "g"}); err != nil {
		t.Fatal(err)
	}
	before := db.Counts()
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringBulkLoad$")
	cmd.Env = append(os.Environ(), "GROVE_CRASH_DIR="+dir, "GROVE_CRASH_FILE="+film)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "INGEST_IN_PROGRESS")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child never started writing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // let it write some keys
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	db = openDB(t, dir)
	defer db.Close()
	if db.Interrupted() == nil {
		t.Log("the load finished before the kill; crash path not exercised this time")
	}
	c, err := db.Search(ctx, "g", "alpha", 1)
	if err != nil || len(c) != 1 || c[0].ID != "a" {
		t.Fatalf("earlier data after crash: search = %+v, %v", c, err)
	}
	n, err := db.Neighbors(ctx, "a", "", store.Both, 0)
	if err != nil || len(n) != 2 {
		t.Fatalf("earlier data after crash: neighbors = %+v, %v", n, err)
	}
	if _, err := Run(ctx, db, []string{film}, Options{Graph: "film"}); err != nil {
		t.Fatalf("re-run after crash: %v", err)
	}
	if db.Interrupted() != nil {
		t.Fatal("marker still set after a complete re-run")
	}
	if got := db.Counts().Quads; got != before.Quads+471705 {
		t.Fatalf("quads after re-run = %d, want %d", got, before.Quads+471705)
	}
}

// crashChild loads the film sample and is killed by the parent.
func crashChild(dir, file string) {
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		os.Exit(3)
	}
	_, _ = Run(context.Background(), db, []string{file}, Options{Graph: "film"})
	os.Exit(0)
}
