package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
)

// TestResumeRefusesChangedContent: a resume whose questions keep their ids
// but changed text or gold answers is refused, naming the question and
// what changed; a manifest without a content hash (older Grove) resumes
// with a warning.
func TestResumeRefusesChangedContent(t *testing.T) {
	base := loadDemo(t)[:3]
	for _, tc := range []struct {
		name    string
		change  func(qs []dataset.Question)
		oldMan  bool // drop the content hash from the first run's manifest
		want    string
		warning string
	}{
		{"unchanged", func([]dataset.Question) {}, false, "", ""},
		{"question text", func(qs []dataset.Question) { qs[1].Question = "Who produced it?" },
			false, `question ` + base[1].ID + `: text "Who produced it?"`, ""},
		{"gold answers", func(qs []dataset.Question) { qs[2].Answers = []string{"Somebody Else"} },
			false, `question ` + base[2].ID + `: gold answers ["Somebody Else"]`, ""},
		{"gold ids", func(qs []dataset.Question) { qs[0].AnswerIDs = []string{"Q1"} },
			false, `question ` + base[0].ID + `: gold ids ["Q1"]`, ""},
		{"old manifest", func(qs []dataset.Question) { qs[1].Question = "Who produced it?" },
			true, "", "predates question content hashes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := append([]dataset.Question(nil), base...)
			cfg := cotConfig(t, qs, goldModel(qs), "cot")
			if _, err := Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			if tc.oldMan {
				dropContentHash(t, filepath.Join(cfg.Out, "run.json"))
			}
			changed := append([]dataset.Question(nil), base...)
			tc.change(changed)
			cfg.Questions, cfg.Resume = changed, true
			sum, err := Run(t.Context(), cfg)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cannot resume") {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(sum.Warnings, "\n"); (tc.warning == "") != (got == "") || !strings.Contains(got, tc.warning) {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
		})
	}
}

func dropContentHash(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["questions_content_hash"]; !ok {
		t.Fatal("the manifest has no questions_content_hash")
	}
	delete(m, "questions_content_hash")
	data, _ = json.Marshal(m)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
