package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
)

// fakeTotModel answers Tree-of-Traversals prompts the way a competent model
// would for "Who directed Blade Runner?", reading only the prompt text, as
// a real server does.
func fakeTotModel(r fakeRequest) string {
	text := r.Text
	switch {
	case strings.HasSuffix(strings.TrimSpace(text), "Entities:"):
		return "Blade Runner"
	case strings.HasSuffix(strings.TrimSpace(text), "Selection:"):
		if m := regexp.MustCompile(`/en/blade_runner\b`).FindString(text); m != "" {
			return m
		}
		return "none"
	case strings.HasSuffix(strings.TrimSpace(text), "Selected entities:"):
		return "/en/blade_runner"
	case strings.HasSuffix(strings.TrimSpace(text), "Selected relation:"):
		if m := regexp.MustCompile(`(?m)^\s*(R\d+) - directed by`).FindStringSubmatch(text); m != nil {
			return m[1]
		}
		return "none"
	case strings.Contains(text, "Score: X"):
		if strings.Contains(text, "Ridley Scott") {
			return "The graph shows the director.\nScore: 0.9"
		}
		return "Score: 0.6"
	case strings.HasSuffix(strings.TrimSpace(text), "Next action:"):
		if strings.Contains(text, "Ridley Scott") {
			return "ANSWER: Ridley Scott"
		}
		return "EXPAND_KG: find who directed Blade Runner"
	}
	// Answer-scoring prompts and anything else.
	if strings.Contains(text, "Ridley Scott") {
		return "Score: 0.95"
	}
	return "Score: 0.1"
}

// TestCLIAskFakeServer runs `grove ask` end to end against a local fake
// OpenAI-compatible server: prompts over HTTP, replies parsed, the answer
// found in the demo KG, the trace written, and the cache reused.
func TestCLIAskFakeServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	if _, err := run(t, "--db", db, "ingest", "--graph", "film", filepath.Join("..", "..", "data", "film.nq.gz")); err != nil {
		t.Fatal(err)
	}
	srv := newFakeLLM(t, fakeTotModel)
	cache := filepath.Join(t.TempDir(), "cache")
	traceFile := filepath.Join(t.TempDir(), "trace.json")
	args := []string{"--db", db, "ask", "Who directed Blade Runner?", "--llm", srv.BaseURL(), "--model", "fake",
		"--cache-dir", cache, "--trace", traceFile}
	out, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "answer: Ridley Scott") {
		t.Fatalf("ask output:\n%s", out)
	}
	calls := srv.RequestCount()
	if calls == 0 {
		t.Fatal("no request reached the fake server")
	}
	for _, r := range srv.Requests() {
		if r.Temperature == nil {
			t.Fatal("a request was sent without a temperature")
		}
	}
	var tr struct {
		Answer struct {
			Text string `json:"text"`
		} `json:"answer"`
		ModelCalls []json.RawMessage `json:"model_calls"`
	}
	b, err := os.ReadFile(traceFile)
	if err != nil || json.Unmarshal(b, &tr) != nil || len(tr.ModelCalls) == 0 {
		t.Fatalf("trace file: %v, %s", err, b[:min(len(b), 300)])
	}
	// The same question again is answered from the response cache, which
	// says what its samples cost when they were produced.
	out, err = run(t, args...)
	if err != nil || !strings.Contains(out, "Ridley Scott") || !regexp.MustCompile(`, 0 tokens, \d+ cache hits costing [1-9]\d* tokens when produced\)`).MatchString(out) ||
		strings.Contains(out, "produced elsewhere") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if srv.RequestCount() != calls {
		t.Fatalf("cached re-run sent %d more requests", srv.RequestCount()-calls)
	}
	// Another server answering to the same model name is served the first
	// one's samples (the cache is keyed by model name): ask says so.
	other := newFakeLLM(t, fakeTotModel)
	args[5] = other.BaseURL()
	out, stderr, err := runStreams(t, args...)
	first := llm.RedactEndpoint(srv.BaseURL())
	if err != nil || other.RequestCount() != 0 || !strings.Contains(out, "cache hits produced elsewhere than fake (openai-compatible, "+
		llm.RedactEndpoint(other.BaseURL())+`): `) || !strings.Contains(out, `from "fake" at `+first) ||
		!strings.Contains(stderr, "response cache served samples not produced by the configured model") {
		t.Fatalf("run against another server: %v (%d requests)\nstdout:\n%s\nstderr:\n%s", err, other.RequestCount(), out, stderr)
	}
}

// TestCLIAskCacheInUse: a response cache another run holds is refused
// with the holder named and the flags that let runs go side by side.
func TestCLIAskCacheInUse(t *testing.T) {
	db := tinyDB(t)
	srv := newFakeLLM(t, fakeTotModel)
	cache := filepath.Join(t.TempDir(), "cache")
	held, err := llm.OpenCache(&llm.Scripted{}, llm.CacheOptions{Dir: cache, Mode: llm.CacheReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, mode := range []string{"readwrite", "read"} {
		_, err := run(t, "--db", db, "ask", "Who directed Blade Runner?", "--llm", srv.BaseURL(), "--model", "fake",
			"--cache", mode, "--cache-dir", cache)
		if !errors.Is(err, llm.ErrCacheInUse) {
			t.Fatalf("--cache %s beside a writer: %v", mode, err)
		}
		for _, want := range []string{fmt.Sprintf("process %d", os.Getpid()), "writing it", "--cache-dir DIR", "--cache off"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("--cache %s: error lacks %q: %v", mode, want, err)
			}
		}
	}
	if srv.RequestCount() != 0 {
		t.Errorf("%d requests sent by a run that could not open its cache", srv.RequestCount())
	}
}

// TestCLIAskJSONModelFails: with --json, a run the model fails still
// prints its partial trace on standard output, naming the model and the
// error, and exits with the error.
func TestCLIAskJSONModelFails(t *testing.T) {
	db := tinyDB(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest) // not retried
		_, _ = w.Write([]byte(`{"error":{"message":"no such model"}}`))
	}))
	defer srv.Close()
	out, _, err := runStreams(t, "--db", db, "--json", "ask", "Who directed Blade Runner?", "--llm", srv.URL+"/v1",
		"--model", "fake-failing", "--cache", "off", "--timeout", "5s")
	if err == nil {
		t.Fatal("a run whose model fails succeeded")
	}
	var tr struct {
		Model struct {
			Name string `json:"name"`
		} `json:"model"`
		Error string `json:"error"`
	}
	if jerr := json.Unmarshal([]byte(out), &tr); jerr != nil || tr.Model.Name != "fake-failing" || tr.Error == "" {
		t.Fatalf("standard output is not the partial trace naming the model and the error (%v):\n%.500s", jerr, out)
	}
}

func TestCLIAskLexical(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	if _, err := run(t, "--db", db, "ingest", "--graph", "film", filepath.Join("..", "..", "data", "film.nq.gz")); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runStreams(t, "--db", db, "ask", "Who directed Blade Runner?")
	if err != nil || !strings.Contains(out, "answer: Ridley Scott") || !strings.Contains(out, "model: "+lexical.ModelName) {
		t.Fatalf("lexical ask: %v\n%s", err, out)
	}
	if !strings.Contains(stderr, "WARNING: no model configured") {
		t.Fatalf("no warning about the lexical policy on stderr: %q", stderr)
	}
	out, _, err = runStreams(t, "--db", db, "--json", "ask", "Who directed Blade Runner?")
	var tr struct {
		Model struct {
			Name   string `json:"name"`
			NotLLM bool   `json:"not_llm"`
		} `json:"model"`
	}
	if err != nil || json.Unmarshal([]byte(out), &tr) != nil || tr.Model.Name != lexical.ModelName || !tr.Model.NotLLM {
		t.Fatalf("JSON answer does not name the lexical policy: %v\n%s", err, out)
	}
	if _, err := run(t, "--db", db, "ask", "Who directed Blade Runner?", "--method", "nope"); err == nil {
		t.Fatal("unknown method accepted")
	}
	// Compositions work in ask as in eval.
	out, err = run(t, "--db", db, "--json", "ask", "Who directed Blade Runner?", "--method", "tot->cot")
	var composed struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err != nil || json.Unmarshal([]byte(out), &composed) != nil || composed.Method != "tot->cot" ||
		composed.Params["fallback"] != "cot" {
		t.Fatalf("ask --method tot->cot: %v\n%.300s", err, out)
	}
}

// tinyDB ingests a two-film graph: enough for the commands that open the
// KG before they fail or answer.
func tinyDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	nt := filepath.Join(dir, "films.nt")
	data := "<f1> <name> \"Blade Runner\" .\n<d1> <name> \"Ridley Scott\" .\n<f1> </film/directed_by> <d1> .\n"
	if err := os.WriteFile(nt, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if _, err := run(t, "--db", db, "ingest", "--graph", "film", nt); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestCLIModelWithoutURL: a model name without a server URL is an error in
// ask and eval, never a quiet run of the lexical baseline.
func TestCLIModelWithoutURL(t *testing.T) {
	db := tinyDB(t)
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"id":"1","question":"Who directed Blade Runner?","answers":["Ridley Scott"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  string // GROVE_LLM_MODEL
		args []string
	}{
		{"ask --model", "", []string{"ask", "Who directed Blade Runner?", "--method", "cot", "--model", "Qwen"}},
		{"ask GROVE_LLM_MODEL", "Qwen", []string{"ask", "Who directed Blade Runner?"}},
		{"eval --model", "", []string{"eval", "--dataset", questions, "--method", "cot", "--quiet",
			"--out", filepath.Join(t.TempDir(), "run"), "--model", "Qwen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("GROVE_LLM_MODEL", tc.env)
			}
			out, stderr, err := runStreams(t, append([]string{"--db", db}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), `required when model is set (model "Qwen")`) ||
				!strings.Contains(err.Error(), "--llm") {
				t.Fatalf("error = %v, want the model without a URL refused\nstdout: %s", err, out)
			}
			if strings.Contains(stderr, "WARNING: no model configured") {
				t.Errorf("the lexical baseline was announced: %s", stderr)
			}
		})
	}
}
