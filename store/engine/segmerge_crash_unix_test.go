//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/grove-kg/grove/store/storetest/crash"
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
	if err := tw.seg.Apply(context.Background(), "b", segQuads(rand.New(rand.NewPCG(1, 1)), "b", 3)[:3], nil); !errors.Is(err, ErrMergeUnfinished) {
		t.Fatalf("deltas after the kill: %v", err)
	}
	st, err := tw.seg.MergeSegments(context.Background(), nil)
	if err != nil || !st.Resumed || tw.seg.MergeUnfinished() {
		t.Fatalf("second run: %+v, %v", st, err)
	}
	tw.compare("merge completed")
}

// killMidMerge runs the crash child on dir and kills it once it reports.
func killMidMerge(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringMerge$")
	cmd.Env = append(os.Environ(), mergeCrashEnv+"="+dir)
	crash.KillAtReport(t, cmd, "merging", time.Minute)
}

// mergeCrashChild merges the segments of the database at dir in small
// transactions, reports on fd 3 after the third and stops itself.
func mergeCrashChild(dir string) {
	report := crash.Report()
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
