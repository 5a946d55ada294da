//go:build unix

package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mergeCrashEnv names the database directory of the merge crash child
// (the test binary re-run as a subprocess).
const mergeCrashEnv = "GROVE_MERGE_CRASH_DIR"

// TestCrashDuringMerge kills a process with SIGKILL in the middle of
// MergeSegments and checks that every read is still correct, that writes
// are refused, and that a second run completes the merge. The child
// reports on a pipe after a few committed transactions and stops itself
// (SIGSTOP), so the kill lands mid-merge; the parent checks that SIGKILL
// ended it and that the database holds blocks in both segment 0 and the
// later ones.
func TestCrashDuringMerge(t *testing.T) {
	if dir := os.Getenv(mergeCrashEnv); dir != "" {
		mergeCrashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	tw := segmentedTwin(t, rand.New(rand.NewPCG(6, 1)))
	before := blockKeys(t, tw.seg)
	tw.seg.Close()
	killMidMerge(t, tw.segDir)
	var err error
	if tw.seg, err = Open(tw.segDir, Options{}); err != nil {
		t.Fatal(err)
	}
	if !tw.seg.MergeUnfinished() {
		t.Fatal("the reopened database does not report the unfinished merge")
	}
	if keys := blockKeys(t, tw.seg); keys[1]+keys[2] == 0 || keys[1]+keys[2] == before[1]+before[2] {
		t.Fatalf("block keys per segment %v: the kill did not land mid-merge", keys)
	}
	tw.compare("killed mid-merge")
	if err := tw.seg.Apply(context.Background(), "b", segQuads(rand.New(rand.NewPCG(1, 1)), "b", 3)[:3], nil); !errors.Is(err, errMergeUnfinished) {
		t.Fatalf("deltas after the kill: %v", err)
	}
	st, err := tw.seg.MergeSegments(context.Background(), nil)
	if err != nil || !st.Resumed || tw.seg.MergeUnfinished() {
		t.Fatalf("second run: %+v, %v", st, err)
	}
	tw.compare("merge completed")
}

// killMidMerge runs the crash child on dir, waits for its report, kills it
// with SIGKILL and checks that SIGKILL is what ended it.
func killMidMerge(t *testing.T, dir string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringMerge$")
	cmd.Env = append(os.Environ(), mergeCrashEnv+"="+dir)
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
		if line != "merging" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("child reported %q; stderr:\n%s", line, stderr.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child never reported; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child ended with %v, want death by SIGKILL", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want death by SIGKILL; stderr:\n%s", exit, stderr.String())
	}
}

// mergeCrashChild merges the segments of the database at dir in small
// transactions, reports on fd 3 after the third and stops itself.
func mergeCrashChild(dir string) {
	report := os.NewFile(3, "crash-report")
	db, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	db.mergeOps = 4
	commits := 0
	_, err = db.MergeSegments(context.Background(), func(MergeProgress) {
		if commits++; commits == 3 {
			fmt.Fprintln(report, "merging")
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		}
	})
	fmt.Fprintln(os.Stderr, "merge returned:", err)
	os.Exit(4)
}
