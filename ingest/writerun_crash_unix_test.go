//go:build unix

package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest/crash"
)

// Environment of the incremental crash child.
const (
	crashIncDirEnv  = "GROVE_CRASH_INC_DIR"
	crashIncFileEnv = "GROVE_CRASH_INC_FILE"
	// crashIncQuads and crashIncBatch size the child's run: 120
	// transactions; it is killed once 4 have committed, far from the end.
	crashIncQuads = 30000
	crashIncBatch = 250
	crashIncAt    = 1000
)

// TestCrashDuringIncremental kills a grove ingest --incremental run with
// SIGKILL after some of its transactions have committed and checks that
// the next open reports the unfinished run with exactly the quads it
// applied, and that running it again completes it and removes the record.
// The crash is proven as in TestCrashDuringBulkLoad: the child reports
// once its record says crashIncAt quads are applied, stops itself, and the
// parent checks that SIGKILL ended it.
func TestCrashDuringIncremental(t *testing.T) {
	if dir := os.Getenv(crashIncDirEnv); dir != "" {
		crashIncrementalChild(dir, os.Getenv(crashIncFileEnv))
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := t.TempDir()
	file := write(t, "upd.nt", numbered(crashIncQuads))
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringIncremental$")
	cmd.Env = append(os.Environ(), crashIncDirEnv+"="+dir, crashIncFileEnv+"="+file)
	crash.KillAtReport(t, cmd, crashWriting, 2*time.Minute)

	var logs strings.Builder
	db, err := engine.Open(dir, engine.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.UnfinishedWriteRuns()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("the reopened database reports %d unfinished runs, want 1: %+v", len(runs), runs)
	}
	r := runs[0]
	applied := db.Counts().Quads
	if r.Graph != "g" || r.Delete || r.Total != crashIncQuads || r.Done < crashIncAt || r.Done >= crashIncQuads ||
		r.Done != applied || len(r.Files) != 1 || r.Files[0].Name != file {
		t.Fatalf("record %+v with %d quads stored", r, applied)
	}
	want := fmt.Sprintf("stopped after %d of %d quads; run the same command again", applied, crashIncQuads)
	if !strings.Contains(logs.String(), want) {
		t.Errorf("the reopen does not log %q:\n%s", want, logs.String())
	}
	if _, err := Incremental(context.Background(), db, []string{file}, Options{Graph: "g"}, false, crashIncBatch); err != nil {
		t.Fatalf("re-run after the crash: %v", err)
	}
	if runs, err := db.UnfinishedWriteRuns(); err != nil || len(runs) != 0 {
		t.Fatalf("records after the re-run: %+v, %v", runs, err)
	}
	if n := db.Counts().Quads; n != crashIncQuads {
		t.Fatalf("%d quads after the re-run, want %d", n, crashIncQuads)
	}
}

// crashIncrementalChild runs an incremental ingest of file into the
// database at dir. A watcher reports on fd 3 once the run's record says
// crashIncAt quads are applied and then stops the process, which the
// parent kills.
func crashIncrementalChild(dir, file string) {
	report := crash.Report()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	go func() {
		for {
			if runs, err := db.UnfinishedWriteRuns(); err == nil && len(runs) == 1 && runs[0].Done >= crashIncAt {
				fmt.Fprintln(report, crashWriting)
				_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
				return
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	_, err = Incremental(context.Background(), db, []string{file}, Options{Graph: "g"}, false, crashIncBatch)
	fmt.Fprintln(report, "finished:", err)
	os.Exit(4)
}
