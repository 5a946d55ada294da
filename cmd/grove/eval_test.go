package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIEvalSimWithModel: `grove eval --sim P` with --llm/--model (or
// GROVE_LLM_URL) is refused, not run with the oracle while the model
// settings are ignored.
func TestCLIEvalSimWithModel(t *testing.T) {
	db := tinyDB(t)
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"id":"1","question":"Who directed Blade Runner?","answers":["Ridley Scott"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, env string // GROVE_LLM_URL
		args      []string
		want      string
	}{
		{"flags", "", []string{"--llm", "http://127.0.0.1:1/v1", "--model", "fake"}, `model "fake"`},
		{"environment", "http://127.0.0.1:1/v1", nil, "url http://<host>:1/v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("GROVE_LLM_URL", tc.env)
			}
			args := append([]string{"--db", db, "eval", "--dataset", questions, "--method", "cot", "--quiet",
				"--out", filepath.Join(t.TempDir(), "run"), "--sim", "0.7"}, tc.args...)
			_, err := run(t, args...)
			if err == nil || !strings.Contains(err.Error(), "--sim answers with the simulated oracle") ||
				!strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want --sim refused naming %s", err, tc.want)
			}
		})
	}
}
