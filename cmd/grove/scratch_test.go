package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoteScratch: a remote ingest's spool directory is named after its
// process, and creating one removes those of processes that have ended
// (a killed ingest), not those of running ones or other files.
func TestRemoteScratch(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no process to outlive: %v", err)
	}
	stale := filepath.Join(tmp, "grove-ingest-"+strconv.Itoa(dead.Process.Pid)+"-123")
	live := filepath.Join(tmp, "grove-ingest-1-456") // pid 1 runs
	other := filepath.Join(tmp, "grove-ingest-notapid")
	for _, d := range []string{stale, live, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := remoteScratch()
	if err != nil {
		t.Fatal(err)
	}
	if want := "grove-ingest-" + strconv.Itoa(os.Getpid()) + "-"; filepath.Dir(dir) != tmp || filepath.Base(dir)[:len(want)] != want {
		t.Errorf("scratch dir %s, want %s* in %s", dir, want, tmp)
	}
	for d, want := range map[string]bool{stale: false, live: true, other: true, dir: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
