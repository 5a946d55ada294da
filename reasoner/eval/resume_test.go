package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/llm"
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

// described is a model naming itself with the given Info.
type described struct {
	llm.Model
	info llm.Info
}

func (d described) Describe() llm.Info { return d.info }

// TestResumeRefusesChangedRunSettings: a resume that would add results
// read from another KG store, judged by another judge (or by none, or
// judged where the first part was not), or answered by the model under
// other settings is refused, saying what changed; a resume with the same
// settings runs. Store and judge used to be taken over silently, the
// manifest then naming only the new ones.
func TestResumeRefusesChangedRunSettings(t *testing.T) {
	qs := loadDemo(t)[:2]
	model := func(params map[string]any) llm.Model {
		return described{goldModel(qs), llm.Info{Name: "m", Provider: llm.ProviderOpenAI, Params: params}}
	}
	judge := func(name string) *metric.Judge {
		return &metric.Judge{Model: described{&llm.Scripted{Default: llm.Reply("Yes")},
			llm.Info{Name: name, Provider: llm.ProviderOpenAI}}}
	}
	chat := map[string]any{"endpoint": "chat"}
	for _, tc := range []struct {
		name string
		// change alters the configuration of the resumed run.
		change func(cfg *Config)
		want   string // "" when the resume runs
	}{
		{"same settings", func(*Config) {}, ""},
		{"another store", func(cfg *Config) { cfg.KG = "badger /data/other" },
			"knowledge graph store badger /data/other (was badger /data/db)"},
		{"judge added", func(cfg *Config) { cfg.Judge = judge("j1") }, "judge j1 (openai-compatible) (the run so far had none"},
		{"model settings", func(cfg *Config) { cfg.Deps.Model = model(map[string]any{"endpoint": "completions"}) },
			`settings {"endpoint":"completions"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, qs, model(chat), "cot")
			cfg.KG = "badger /data/db"
			if _, err := Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			cfg.Resume = true
			tc.change(&cfg)
			_, err := Run(t.Context(), cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "cannot resume") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
	// A judged run resumed without its judge or with another one.
	for _, tc := range []struct {
		name  string
		judge *metric.Judge
		want  string
	}{
		{"judge dropped", nil, "no judge (was j1 (openai-compatible): resume with --judge)"},
		{"judge changed", judge("j2"), "judge j2 (openai-compatible) (was j1 (openai-compatible))"},
		{"same judge", judge("j1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, qs, model(chat), "cot")
			cfg.Judge = judge("j1")
			if _, err := Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			cfg.Resume, cfg.Judge = true, tc.judge
			_, err := Run(t.Context(), cfg)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
