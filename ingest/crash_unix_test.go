//go:build unix

package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// Environment of the crash child (the test binary re-run as a subprocess).
const (
	crashDirEnv  = "GROVE_CRASH_DIR"
	crashFileEnv = "GROVE_CRASH_FILE"
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
		crashChild(dir, os.Getenv(crashFileEnv))
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	ctx := context.Background()
	film := datadir.Film(t)
	dir := t.TempDir()
	db := openDB(t, dir)
	if _, err := Run(ctx, db, []string{write(t, "small.nt", small)}, Options{Graph: "g"}); err != nil {
		t.Fatal(err)
	}
	before := db.Counts()
	db.Close()

	killMidWrite(t, dir, film)

	db = openDB(t, dir)
	defer db.Close()
	if db.Interrupted() == nil {
		t.Fatal("the reopened database does not report the interrupted load")
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

// killMidWrite runs the crash child on dir, waits for its report that the
// write phase has begun, kills it with SIGKILL and checks that SIGKILL is
// what ended it.
func killMidWrite(t *testing.T, dir, file string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringBulkLoad$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashFileEnv+"="+file)
	cmd.ExtraFiles = []*os.File{pw} // fd 3 in the child
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	report := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		report <- strings.TrimSpace(line)
	}()
	select {
	case line := <-report:
		if line != crashWriting {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("child reported %q, not %q; stderr:\n%s", line, crashWriting, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child never reached the write phase; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child ended with %v, want death by SIGKILL", err)
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want death by SIGKILL; stderr:\n%s", exit, stderr.String())
	}
}

// crashChild bulk-loads file into the database at dir. A watcher reports on
// fd 3 as soon as the engine's in-progress marker appears (the write phase
// has begun) and then stops the process, which the parent kills.
func crashChild(dir, file string) {
	report := os.NewFile(3, "crash-report")
	db, err := engine.Open(dir, engine.Options{})
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
