//go:build unix

package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest/crash"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// Environment of the crash child (the test binary re-run as a subprocess).
const (
	crashDirEnv  = "GROVE_CRASH_DIR"
	crashFileEnv = "GROVE_CRASH_FILE"
	// crashSegEnv set: the child's load takes a node-block segment of its
	// own (engine.Options.SegmentMinQuads 1).
	crashSegEnv = "GROVE_CRASH_SEGMENT"
	// engineMarker is the file the engine keeps in the database directory
	// while a bulk load writes (engine's markerFile, INGEST_IN_PROGRESS).
	engineMarker = "INGEST_IN_PROGRESS"
	// crashWriting is the line the child sends once it is in the write phase.
	crashWriting = "writing"
)

// TestCrashDuringBulkLoad kills a process with SIGKILL in the middle of a
// bulk load's write phase and checks that the earlier data is intact and
// that re-running the load completes it.
//
// The crash is proven, not assumed: the child reports on a pipe that the
// write phase has begun (the engine's in-progress marker exists) and then
// stops itself (SIGSTOP) so that it cannot finish before the kill; the
// parent checks that the child died of SIGKILL, and that the reopened
// database reports the interrupted load.
func TestCrashDuringBulkLoad(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir, os.Getenv(crashFileEnv), os.Getenv(crashSegEnv) != "")
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	for _, tc := range []struct {
		name           string
		empty, segment bool
	}{
		{name: "segment 0"},
		// The film graph is new and the database not empty: with the
		// threshold at 1 its node blocks go to segment 1, and the re-run
		// must complete them there.
		{name: "own segment", segment: true},
		// Into an empty database the load writes segment 0; the re-run
		// finds the interrupted load's keys, and with the threshold at 1
		// would take a segment of its own unless it keeps the recorded
		// one (it did not: the interrupted blocks were counted twice).
		{name: "empty database", empty: true, segment: true},
	} {
		t.Run(tc.name, func(t *testing.T) { testCrashDuringBulkLoad(t, tc.empty, tc.segment) })
	}
}

func testCrashDuringBulkLoad(t *testing.T, empty, segment bool) {
	ctx := context.Background()
	film := datadir.Film(t)
	dir := t.TempDir()
	opts := engine.Options{}
	if segment {
		opts.SegmentMinQuads = 1
	}
	db, err := engine.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !empty {
		if _, err := Run(ctx, db, []string{write(t, "small.nt", small)}, Options{Graph: "g"}); err != nil {
			t.Fatal(err)
		}
	}
	before := db.Counts()
	db.Close()

	killMidWrite(t, dir, film, segment)

	var logs strings.Builder
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if db, err = engine.Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in := db.Interrupted()
	if in == nil {
		t.Fatal("the reopened database does not report the interrupted load")
	}
	if want := map[bool]uint8{false: 0, true: 1}[segment && !empty]; in.Segment != want {
		t.Fatalf("interrupted load in segment %d, want %d", in.Segment, want)
	}
	if !empty {
		c, err := db.Search(ctx, "g", "alpha", 1)
		if err != nil || len(c) != 1 || c[0].ID != "a" {
			t.Fatalf("earlier data after crash: search = %+v, %v", c, err)
		}
		n, err := db.Neighbors(ctx, "a", "", store.Both, 0)
		if err != nil || len(n) != 2 {
			t.Fatalf("earlier data after crash: neighbors = %+v, %v", n, err)
		}
	}
	if _, err := Run(ctx, db, []string{film}, Options{Graph: "film"}); err != nil {
		t.Fatalf("re-run after crash: %v", err)
	}
	if db.Interrupted() != nil {
		t.Fatal("marker still set after a complete re-run")
	}
	// Into a database that was empty, the re-run starts over: it drops the
	// interrupted load's keys instead of merging with them.
	if over := strings.Contains(logs.String(), "bulk load starts over"); over != empty {
		t.Errorf("re-run started over: %v, want %v", over, empty)
	}
	if got := db.Counts().Quads; got != before.Quads+471705 {
		t.Fatalf("quads after re-run = %d, want %d", got, before.Quads+471705)
	}
	// The re-run's graph answers as a clean load of it does.
	clean := openDB(t, t.TempDir())
	defer clean.Close()
	if _, err := Run(ctx, clean, []string{film}, Options{Graph: "film"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"/en/blade_runner", "/en/ridley_scott", "/en/harrison_ford"} {
		got, err1 := db.Relations(ctx, []string{id}, store.Both)
		want, err2 := clean.Relations(ctx, []string{id}, store.Both)
		if err1 != nil || err2 != nil || fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Fatalf("relations of %s after the re-run: %v (%v), clean load: %v (%v)", id, got, err1, want, err2)
		}
	}
	for _, g := range db.GraphMetas() {
		if g.Name == "film" && g.Segment != in.Segment {
			t.Fatalf("film graph in segment %d, want %d", g.Segment, in.Segment)
		}
	}
}

// killMidWrite runs the crash child on dir, waits for its report that the
// write phase has begun and kills it with SIGKILL.
func killMidWrite(t *testing.T, dir, file string, segment bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringBulkLoad$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashFileEnv+"="+file)
	if segment {
		cmd.Env = append(cmd.Env, crashSegEnv+"=1")
	}
	crash.KillAtReport(t, cmd, crashWriting, 2*time.Minute)
}

// crashChild bulk-loads file into the database at dir. A watcher reports on
// fd 3 as soon as the engine's in-progress marker appears (the write phase
// has begun) and then stops the process, which the parent kills.
func crashChild(dir, file string, segment bool) {
	report := crash.Report()
	opts := engine.Options{}
	if segment {
		opts.SegmentMinQuads = 1
	}
	db, err := engine.Open(dir, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	go func() {
		marker := filepath.Join(dir, engineMarker)
		for {
			if _, err := os.Stat(marker); err == nil {
				fmt.Fprintln(report, crashWriting)
				_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
				return
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	_, err = Run(context.Background(), db, []string{file}, Options{Graph: "film"})
	// Reaching here means the load finished (or failed) before the kill:
	// say so, so that the parent's checks fail with a reason.
	fmt.Fprintln(report, "finished:", err)
	os.Exit(4)
}
