//go:build unix

package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/llm"
)

// TestRunRefusesSecondWriter: while one run writes a results file, a second
// run into the same output directory (another model, or the same run
// resumed twice) is refused with ErrRunInUse before it answers anything or
// rewrites the manifest; both used to append to one results.jsonl, the
// manifest naming only the last model to start.
func TestRunRefusesSecondWriter(t *testing.T) {
	qs := loadDemo(t)[:3]
	started, release := make(chan struct{}), make(chan struct{})
	blocking := &llm.Scripted{Name: "first", Rules: []llm.Rule{{Name: baseline.TaskZeroShot,
		Func: func(llm.Request, int) (string, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			<-release
			return "Answer: Ridley Scott", nil
		}}}}
	first := cotConfig(t, qs, blocking, "zeroshot")
	first.Concurrency = 1
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), first)
		done <- err
	}()
	<-started
	for _, resume := range []bool{false, true} {
		second := cotConfig(t, qs, &llm.Scripted{Name: "second", Default: llm.Reply("Answer: x")}, "zeroshot")
		second.Out, second.Resume = first.Out, resume
		_, err := Run(t.Context(), second)
		if !errors.Is(err, ErrRunInUse) || !strings.Contains(err.Error(), ResultsFile) {
			t.Errorf("second run (resume %v): err = %v, want ErrRunInUse naming the results file", resume, err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := readKeys(t, first.Out+"/"+ResultsFile); len(got) != len(qs) {
		t.Fatalf("results %v, want one per question of the first run", got)
	}
	m, err := ReadManifest(first.Out + "/run.json")
	if err != nil || m.Model.Name != "first" {
		t.Fatalf("manifest model %q (%v), want first", m.Model.Name, err)
	}
	// Once the first run has ended, the directory can be resumed.
	first.Resume = true
	if _, err := Run(t.Context(), first); err != nil {
		t.Fatalf("resume after the first run ended: %v", err)
	}
}
