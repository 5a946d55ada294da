package evalcli

import (
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval"
)

// TestProgressBarEnd: the bar ends full when every run finished, and at
// the runs done when the run was interrupted (not filled to 100%), its
// last state drawn even when it came within the redraw throttle.
func TestProgressBarEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		done    int
		resumed int
		want    string
		notWant string
	}{
		{"finished", 24, 0, "100% |", ""},
		{"interrupted", 3, 0, "(3/24", "100%"},
		{"interrupted after a resume", 7, 4, "(3/20", "100%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			update, finish := progressBar(&w)
			for done := tc.resumed; done <= tc.done; done++ {
				update(eval.Progress{Total: 24, Done: done, Resumed: tc.resumed})
			}
			finish()
			frames := strings.Split(strings.TrimRight(w.String(), "\n"), "\r")
			last := frames[len(frames)-1]
			if !strings.Contains(last, tc.want) || (tc.notWant != "" && strings.Contains(last, tc.notWant)) {
				t.Errorf("last frame %q: want %q, not %q", last, tc.want, tc.notWant)
			}
		})
	}
}

// TestProgressBarEndFigures: the bar's last frame shows the latest
// figures even when the last progress came within the redraw throttle,
// filled or not (it used to end at 100% with the first frame's "EM-in -",
// or a resumed run's old figures, while the summary said otherwise).
func TestProgressBarEndFigures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		done    int
		resumed int
		want    string
	}{
		{"finished", 24, 0, "EM-in zeroshot 5.4"},
		{"finished after a resume", 24, 4, "EM-in zeroshot 5.4 | 4 resumed"},
		{"interrupted", 3, 0, "EM-in zeroshot 5.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			update, finish := progressBar(&w)
			for done := tc.resumed; done <= tc.done; done++ {
				p := eval.Progress{Total: 24, Done: done, Resumed: tc.resumed}
				if done == tc.resumed {
					p.Methods = map[string]eval.MethodProgress{"zeroshot": {Done: 1, EMIn: 0.143}}
				} else {
					p.Methods = map[string]eval.MethodProgress{"zeroshot": {Done: done, EMIn: 0.054}}
				}
				update(p)
			}
			finish()
			frames := strings.Split(strings.TrimRight(w.String(), "\n"), "\r")
			last := frames[len(frames)-1]
			if !strings.Contains(last, tc.want) {
				t.Errorf("last frame %q: want %q", last, tc.want)
			}
		})
	}
}
