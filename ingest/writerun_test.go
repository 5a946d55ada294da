package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/engine"
)

// numbered is an N-Triples text of n distinct quads.
func numbered(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<s%d> <p> <o%d> .\n", i, i)
	}
	return b.String()
}

// stopAt is a context that is cancelled once db holds at least n quads:
// Incremental checks its context before each transaction, so a run of
// new quads in batches dividing n stops after exactly n.
type stopAt struct {
	context.Context
	db *engine.DB
	n  int64
}

func (c stopAt) Err() error {
	if c.db.Counts().Quads >= c.n {
		return context.Canceled
	}
	return nil
}

// TestIncrementalRecordsUnfinishedRun: an incremental run stopped
// part-way says how far it got, keeps the record of the run with the
// right counts, files and sizes, and running the same command again
// completes it and removes the record; a run that completes leaves none.
func TestIncrementalRecordsUnfinishedRun(t *testing.T) {
	for _, del := range []bool{false, true} {
		t.Run(map[bool]string{false: "incremental", true: "delete"}[del], func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t, t.TempDir())
			defer db.Close()
			p := write(t, "upd.nt", numbered(10))
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			var stop context.Context = stopAt{Context: ctx, db: db, n: 4}
			if del {
				if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, false, 3); err != nil {
					t.Fatal(err)
				}
				stop = stopAfterDeletes{Context: ctx, db: db, left: 6}
			}
			_, err = Incremental(stop, db, []string{p}, Options{Graph: "g"}, del, 2)
			if !errors.Is(err, context.Canceled) || !errors.Is(err, engine.ErrWriteRunUnfinished) ||
				!strings.Contains(err.Error(), "after 4 of its 10 quads") {
				t.Fatalf("stopped run: %v", err)
			}
			runs, err := db.UnfinishedWriteRuns()
			if err != nil {
				t.Fatal(err)
			}
			want := engine.WriteRun{Graph: "g", Delete: del, Files: []engine.WriteRunFile{{Name: p, Size: st.Size()}},
				Done: 4, Total: 10}
			if len(runs) != 1 || fmt.Sprint(runs[0]) != fmt.Sprint(want) {
				t.Fatalf("records %+v, want %+v", runs, want)
			}
			if got := db.Counts().Quads; got != map[bool]int64{false: 4, true: 6}[del] {
				t.Fatalf("%d quads after the stopped run", got)
			}
			if _, err := Incremental(ctx, db, []string{p}, Options{Graph: "g"}, del, 2); err != nil {
				t.Fatal(err)
			}
			if runs, err := db.UnfinishedWriteRuns(); err != nil || len(runs) != 0 {
				t.Fatalf("records after the re-run: %+v, %v", runs, err)
			}
			if got := db.Counts().Quads; got != map[bool]int64{false: 10, true: 0}[del] {
				t.Fatalf("%d quads after the re-run", got)
			}
		})
	}
}

// stopAfterDeletes is a context cancelled once db holds at most left
// quads.
type stopAfterDeletes struct {
	context.Context
	db   *engine.DB
	left int64
}

func (c stopAfterDeletes) Err() error {
	if c.db.Counts().Quads <= c.left {
		return context.Canceled
	}
	return nil
}

// TestStdinWriteRunsByDigest: standard input has no path or size, so a
// write run read from it is identified by a digest of its quads: another
// stdin run into the same graph leaves the unfinished run's record alone,
// and the same input again completes it.
func TestStdinWriteRunsByDigest(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	stdin := os.Stdin
	t.Cleanup(func() { os.Stdin = stdin })
	from := func(text string) {
		t.Helper()
		f, err := os.Open(write(t, "stdin.nt", text))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		os.Stdin = f
	}
	first := numbered(10)
	from(first)
	if _, err := Incremental(stopAt{Context: ctx, db: db, n: 4}, db, []string{"-"}, Options{Graph: "g"}, false, 2); !errors.Is(err, engine.ErrWriteRunUnfinished) {
		t.Fatalf("stopped run: %v", err)
	}
	from("<x> <p> <y> .\n")
	if _, err := Incremental(ctx, db, []string{"-"}, Options{Graph: "g"}, false, 2); err != nil {
		t.Fatal(err)
	}
	runs, err := db.UnfinishedWriteRuns()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Done != 4 || runs[0].Files[0].Digest == "" ||
		!strings.Contains(runs[0].String(), "(standard input, quads digest ") {
		t.Fatalf("after another stdin run, records %+v (want the first run's, 4 of 10 done)", runs)
	}
	from(first)
	if _, err := Incremental(ctx, db, []string{"-"}, Options{Graph: "g"}, false, 2); err != nil {
		t.Fatal(err)
	}
	if runs, err := db.UnfinishedWriteRuns(); err != nil || len(runs) != 0 {
		t.Fatalf("records after the same input again: %+v, %v", runs, err)
	}
}
