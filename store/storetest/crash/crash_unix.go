//go:build unix

package crash

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// KillAtReport starts cmd (usually the test binary re-run as a crash
// child) with a pipe as its fd 3, waits up to wait for the child to write
// the line want on it, kills the child with SIGKILL and checks that SIGKILL
// is what ended it. The child writes want when it has reached the point to
// crash at and should then stop itself (SIGSTOP) so that it cannot go on
// before the kill. cmd's Stderr must be unset: it is shown when the child
// fails to report.
func KillAtReport(t testing.TB, cmd *exec.Cmd, want string, wait time.Duration) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
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
		if line != want {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("child reported %q, not %q; stderr:\n%s", line, want, stderr.String())
		}
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child never reported %q; stderr:\n%s", want, stderr.String())
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

// Report is fd 3 of a crash child started by KillAtReport.
func Report() *os.File { return os.NewFile(3, "crash-report") }
