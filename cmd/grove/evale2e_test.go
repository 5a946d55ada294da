package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestE2EEvalModels drives `grove eval` as a researcher comparing two
// models does, against a local fake OpenAI-compatible server answering
// per model name: a second run into the directory another run is writing
// is refused (it used to append its results to the same results.jsonl
// under the first run's manifest), and `grove eval report` of the two
// models' runs keeps their results apart, one row per model (one row used
// to hold the last run's results, titled with both models).
func TestE2EEvalModels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildGrove(t)
	dir := t.TempDir()
	g := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db"), home: dir}
	nt := filepath.Join(dir, "films.nt")
	qfile := filepath.Join(dir, "q.jsonl")
	for p, text := range map[string]string{
		nt: "<f1> <name> \"Blade Runner\" .\n<d1> <name> \"Ridley Scott\" .\n<f1> </film/directed_by> <d1> .\n",
		qfile: `{"id":"1","question":"Who directed Blade Runner?","answers":["Ridley Scott"]}
{"id":"2","question":"Who directed Alien?","answers":["Ridley Scott"]}
{"id":"3","question":"Who directed Gladiator?","answers":["Ridley Scott"]}
`,
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g.ok("ingest", "--quiet", "--graph", "film", nt)

	// Model "good" knows the answers and, until release is closed, is slow;
	// model "bad" never knows them.
	release := make(chan struct{})
	var once sync.Once
	started := make(chan struct{})
	srv := newFakeLLM(t, func(r fakeRequest) string {
		if r.Model != "good" {
			return "Answer: nobody"
		}
		once.Do(func() { close(started) })
		<-release
		return "Answer: Ridley Scott"
	})
	eval := func(model, out string, extra ...string) []string {
		return append([]string{"--db", g.db, "eval", "--dataset", qfile, "--method", "zeroshot", "--out", out,
			"--llm", srv.BaseURL(), "--model", model, "--cache", "off", "--quiet", "--concurrency", "1"}, extra...)
	}
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	first := exec.Command(bin, eval("good", good)...)
	first.Env, first.Dir = g.env(), dir
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the first run sent no request")
	}
	for _, extra := range [][]string{nil, {"--resume"}} {
		_, stderr, err := g.run(eval("bad", good, extra...)[2:]...)
		if err == nil || !strings.Contains(stderr, "is being written by another run") ||
			!strings.Contains(stderr, "results.jsonl is held by process") {
			t.Errorf("second run into %s (%v): %v\n%s", good, extra, err, stderr)
		}
	}
	close(release)
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, firstErr.String())
	}
	data, err := os.ReadFile(filepath.Join(good, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 3 || strings.Contains(string(data), `"model":"bad"`) {
		t.Fatalf("results of the first run (%d lines):\n%s", n, data)
	}

	g.ok(eval("bad", bad)[2:]...)
	out := g.ok("eval", "report", good, bad, "--out", filepath.Join(dir, "report"))
	mustContain(t, "report of two models", out, "model: good + bad", "| zeroshot (good) | 3 | 100.0 |",
		"| zeroshot (bad) | 3 | 0.0 |")
}
