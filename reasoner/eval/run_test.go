package eval

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store/storetest"
)

// cotConfig runs the KG-free baselines with a scripted model.
func cotConfig(t *testing.T, qs []dataset.Question, model llm.Model, methods ...string) Config {
	return Config{Questions: qs, Methods: methods, Out: t.TempDir(), Concurrency: 4, Registry: registry(),
		Deps: reasoner.Deps{Model: model}}
}

// TestScriptedModel: a scripted model that knows the gold answers makes
// CoT exact on every demo question, and the zero-shot model's non-answers
// fall back to CoT.
func TestScriptedModel(t *testing.T) {
	qs := loadDemo(t)
	m := goldModel(qs)
	cfg := cotConfig(t, qs, m, "cot", "zeroshot->cot")
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) != 74 {
		t.Fatalf("%d results", len(sum.Results))
	}
	for _, r := range sum.Results {
		if r.Scores[ScoreEMIn] != 1 || r.Scores[ScoreF1] == 0 || !r.Found || r.Tokens == 0 || r.Error != "" {
			t.Errorf("%s/%s: %+v", r.Method, r.ID, r)
		}
		wantCalls, wantFallback := 2, false
		if r.Method == "zeroshot->cot" {
			wantCalls, wantFallback = 3, true
		}
		if r.ModelCalls != wantCalls || r.Fallback != wantFallback {
			t.Errorf("%s/%s: %d model calls, fallback %v", r.Method, r.ID, r.ModelCalls, r.Fallback)
		}
		if _, ok := r.Scores[ScoreHits1]; ok {
			t.Errorf("%s/%s: hits1 without gold ids", r.Method, r.ID)
		}
	}
	if got := m.CallCount(); got != 37*5 {
		t.Errorf("model calls = %d, want %d", got, 37*5)
	}
}

func TestJudge(t *testing.T) {
	qs := loadDemo(t)[:3]
	judge := &llm.Scripted{Rules: []llm.Rule{{Name: metric.JudgeTaskName, Func: func(req llm.Request, _ int) (string, error) {
		if strings.Contains(req.Task.Context, req.Task.Candidate) {
			return "Yes\nIt matches.", nil
		}
		return "No\nIt does not match.", nil
	}}}}
	cfg := cotConfig(t, qs, goldModel(qs), "cot")
	cfg.Judge = &metric.Judge{Model: judge}
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		want := 0.0
		if len(r.Gold) == 1 {
			want = 1 // the candidate (all golds joined) is in the context only for one gold
		}
		if got, ok := r.Scores[ScoreJudge]; !ok || got != want || r.JudgeTokens == 0 {
			t.Errorf("%s: judge %v (present %v), tokens %d", r.ID, got, ok, r.JudgeTokens)
		}
	}
}

// TestJudgeFromCache: verdicts served from the response cache spend no
// tokens and report what they cost when produced.
func TestJudgeFromCache(t *testing.T) {
	qs := loadDemo(t)[:2]
	judge := &llm.Scripted{Rules: []llm.Rule{{Name: metric.JudgeTaskName, Func: func(llm.Request, int) (string, error) {
		return "Yes\nIt matches.", nil
	}}}}
	dir := t.TempDir()
	run := func() []Result {
		cache, err := llm.OpenCache(judge, llm.CacheOptions{Dir: dir, Mode: llm.CacheReadWrite,
			Identity: llm.CacheIdentity{Model: "judge"}, Endpoint: "http://<host>:1/v1"})
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		cfg := cotConfig(t, qs, goldModel(qs), "cot")
		cfg.Judge = &metric.Judge{Model: cache}
		sum, err := Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Results
	}
	spent := map[string]int{}
	for _, r := range run() {
		spent[r.ID] = r.JudgeTokens
		if r.JudgeTokens == 0 || r.JudgeCachedTokens != 0 {
			t.Errorf("first run %s: judge tokens %d, cached %d", r.ID, r.JudgeTokens, r.JudgeCachedTokens)
		}
	}
	for _, r := range run() {
		if r.JudgeTokens != 0 || r.JudgeCachedTokens != spent[r.ID] || r.JudgeCacheUnknownUsage != 0 {
			t.Errorf("re-run %s: judge tokens %d, cached %d (want %d), unknown %d", r.ID, r.JudgeTokens,
				r.JudgeCachedTokens, spent[r.ID], r.JudgeCacheUnknownUsage)
		}
	}
}

// TestJudgeSummary: the summary names the judge and counts its failures,
// which leave their results without a judge score.
func TestJudgeSummary(t *testing.T) {
	qs := loadDemo(t)[:3]
	for _, tc := range []struct {
		name       string
		rule       llm.Rule
		wantErrors int
	}{
		{"all judged", llm.Rule{Name: metric.JudgeTaskName, Replies: []string{"Yes\nRight."}, Repeat: true}, 0},
		{"every call fails", llm.Rule{Name: metric.JudgeTaskName, Err: errors.New("boom")}, 3},
		{"unparseable once", llm.Rule{Name: metric.JudgeTaskName, Replies: []string{"Maybe", "Yes", "No"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judge := &llm.Scripted{Name: "judge-model", Rules: []llm.Rule{tc.rule}}
			cfg := cotConfig(t, qs, goldModel(qs), "cot")
			cfg.Concurrency = 1
			cfg.Judge = &metric.Judge{Model: judge}
			sum, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Judge == nil || !sum.Judge.Same(llm.Describe(judge)) {
				t.Errorf("summary judge = %v, want %v", sum.Judge, llm.Describe(judge))
			}
			if sum.Judged != 3 || sum.JudgeErrors != tc.wantErrors || sum.Errors != 0 {
				t.Errorf("judged %d, judge errors %d, errors %d; want 3, %d, 0", sum.Judged, sum.JudgeErrors,
					sum.Errors, tc.wantErrors)
			}
			failed := 0
			for _, r := range sum.Results {
				if _, scored := r.Scores[ScoreJudge]; scored == (r.JudgeError != "") {
					t.Errorf("%s: judge score present %v with judge error %q", r.ID, scored, r.JudgeError)
				}
				failed += min(1, len(r.JudgeError))
			}
			if failed != tc.wantErrors {
				t.Errorf("%d results with a judge error, want %d", failed, tc.wantErrors)
			}
		})
	}
	sum, err := Run(t.Context(), cotConfig(t, qs, goldModel(qs), "cot"))
	if err != nil || sum.Judge != nil || sum.Judged != 0 {
		t.Errorf("without a judge: judge %v, judged %d, %v", sum.Judge, sum.Judged, err)
	}
}

func TestExistingResultsNeedResume(t *testing.T) {
	qs := loadDemo(t)[:4]
	cfg := cotConfig(t, qs, goldModel(qs), "cot")
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("second run without resume: err = %v", err)
	}
	cfg.Resume = true
	cfg.Limit = 3
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "settings changed: questions") {
		t.Fatalf("resume with another limit: err = %v", err)
	}
	cfg.Limit = 0
	cfg.Params = map[string]reasoner.Params{"cot": {"temperature": 0.5}}
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "parameters of cot") {
		t.Fatalf("resume with other parameters: err = %v", err)
	}
	cfg.Params = nil
	cfg.Methods = []string{"cot", "zeroshot"}
	sum, err := Run(t.Context(), cfg)
	if err != nil || sum.Resumed != 4 || sum.Ran != 4 {
		t.Fatalf("resume adding a method: %+v, %v", sum, err)
	}
	m, _ := ReadManifest(filepath.Join(cfg.Out, "run.json"))
	if len(m.Methods) != 2 {
		t.Errorf("manifest methods %v", m.Methods)
	}
	if m.Model.Name != llm.ScriptedModelName || !m.Model.NotLLM || m.Grove == "" {
		t.Errorf("manifest does not name the model and version: %+v %q", m.Model, m.Grove)
	}
	cfg.Deps.Model = &llm.Scripted{Name: "other"}
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "model other") {
		t.Errorf("resume with another model: %v", err)
	}
}

// flaky fails the zero-shot calls of the questions in bad.
type flaky struct {
	bad   map[string]bool
	calls atomic.Int32
}

func (f *flaky) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.calls.Add(1)
	if f.bad[req.Task.Question] {
		return llm.Response{}, errors.New("HTTP 503")
	}
	return llm.Response{Texts: []string{"Answer: somebody"}, Model: "flaky"}, nil
}

func TestErrorsAndRetry(t *testing.T) {
	qs := loadDemo(t)[:5]
	m := &flaky{bad: map[string]bool{qs[1].Question: true, qs[3].Question: true}}
	cfg := cotConfig(t, qs, m, "zeroshot")
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 2 {
		t.Fatalf("errors = %d", sum.Errors)
	}
	for _, r := range sum.Results {
		if (r.Error != "") != m.bad[r.Question] || (r.Error != "" && !strings.Contains(r.Error, "HTTP 503")) {
			t.Errorf("%s: error %q", r.ID, r.Error)
		}
	}
	cfg.Resume = true
	if sum, err = Run(t.Context(), cfg); err != nil || sum.Ran != 0 {
		t.Fatalf("plain resume re-ran %d: %v", sum.Ran, err)
	}
	m.bad = nil
	cfg.RetryErrors = true
	if sum, err = Run(t.Context(), cfg); err != nil || sum.Ran != 2 || sum.Errors != 0 {
		t.Fatalf("retry: %+v, %v", sum, err)
	}
	loaded, err := Load(cfg.Out)
	if err != nil || len(loaded) != 5 {
		t.Fatalf("load: %d, %v", len(loaded), err)
	}
	for _, l := range loaded {
		if l.Error != "" {
			t.Errorf("%s still has error %q", l.ID, l.Error)
		}
	}
}

func TestTimeout(t *testing.T) {
	qs := loadDemo(t)[:2]
	cfg := cotConfig(t, qs, &llm.Scripted{Default: llm.Reply("Answer: x"), Latency: time.Minute}, "zeroshot")
	cfg.Timeout = 20 * time.Millisecond
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if !strings.Contains(r.Error, "timed out after 20ms") || r.Trace == "" {
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
}

type panicky struct{}

func (panicky) Answer(context.Context, reasoner.Query) (*trace.Trace, error) { panic("boom") }

func TestPanicIsRecorded(t *testing.T) {
	qs := loadDemo(t)[:2]
	cfg := cotConfig(t, qs, lexical.Policy{}, "panicky")
	cfg.Registry.Register("panicky", "panics", func(reasoner.Deps, reasoner.Params) (reasoner.Reasoner, error) {
		return panicky{}, nil
	})
	sum, err := Run(t.Context(), cfg)
	if err != nil || sum.Errors != 2 || !strings.Contains(sum.Results[0].Error, "panicked") {
		t.Fatalf("%+v, %v", sum, err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no output directory"},
		{Config{Out: "x", Dataset: "d", Registry: registry()}, "no methods"},
		{Config{Out: "x", Dataset: "d", Methods: []string{"cot"}}, "no method registry"},
		{Config{Out: "x", Dataset: "d", Methods: []string{"cot"}, Registry: registry(), Limit: -1}, "limit"},
		{Config{Out: "x", Dataset: "d", Methods: []string{"cot"}, Registry: registry(), Shard: Shard{3, 2}}, "shard 3/2"},
	} {
		if _, err := Run(t.Context(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	qs := loadDemo(t)[:2]
	for methods, want := range map[string]string{"nope": `unknown reasoning method "nope"`, "cot,cot": "listed twice",
		"cot->": "empty fallback"} {
		cfg := cotConfig(t, qs, lexical.Policy{}, strings.Split(methods, ",")...)
		if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", methods, err, want)
		}
	}
	cfg := cotConfig(t, nil, lexical.Policy{}, "cot")
	cfg.Dataset = filepath.Join(t.TempDir(), "missing.json")
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing dataset: err = %v", err)
	}
}

func TestLoadQuestions(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
<Q2> <http://www.w3.org/2000/01/rdf-schema#label> "Bob" .
`})
	qs := []dataset.Question{
		{ID: "a", Question: "q a", Answers: []string{"x"}},
		{ID: "b", Question: "q b", Answers: []string{" "}},
		{ID: "c", Question: "q c", AnswerIDs: []string{"Q1", "Q2", "Q9"},
			Meta: map[string]string{dataset.MetaUnlabeled: "Q1 Q2 Q9"}},
		{ID: "d", Question: "q d", Answers: []string{"y"}, TopicEntities: map[string]string{"Q2": "Bob", "Q1": "Alice"}},
	}
	cfg := &Config{Questions: qs, Deps: reasoner.Deps{KG: db}}
	got, skipped, err := loadQuestions(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(got) != 3 || got[1].q.ID != "c" || got[1].index != 1 || got[2].index != 2 {
		t.Fatalf("got %+v, skipped %d", got, skipped)
	}
	if a := got[1].q.Answers; len(a) != 2 || a[0] != "Alice" || a[1] != "Bob" {
		t.Errorf("resolved answers = %v", a)
	}
	if qs[2].Meta[dataset.MetaUnlabeled] == "" {
		t.Error("loadQuestions modified the caller's questions")
	}
	cfg.TopicEntities = true
	if q := query(cfg, got[2].q); strings.Join(q.TopicEntities, ",") != "Q1,Q2" {
		t.Errorf("topic entities = %v", q.TopicEntities)
	}
	cfg.Deps.KG = nil
	got, _, err = loadQuestions(t.Context(), cfg)
	if err != nil || len(got) != 3 || strings.Join(got[1].q.Answers, ",") != "Q1,Q2,Q9" {
		t.Errorf("without a KG the ids are the answers: %+v, %v", got, err)
	}
	// A duplicate id is named with its records' positions in the dataset,
	// also when --limit shuffled them (positions after the shuffle were
	// given before).
	cfg.Questions = append(qs, dataset.Question{ID: "a", Question: "again", Answers: []string{"z"}})
	for _, limit := range []int{0, 5} {
		cfg.Limit = limit
		if _, _, err := loadQuestions(t.Context(), cfg); err == nil ||
			!strings.Contains(err.Error(), `question id "a" is used by more than one question (records 1, 5)`) {
			t.Errorf("duplicate ids, limit %d: err = %v", limit, err)
		}
	}
}

// TestManifestNamesFormat: the manifest names the dataset's format,
// whether given or detected from the file (then marked as detected).
func TestManifestNamesFormat(t *testing.T) {
	qs := loadDemo(t)
	for _, tc := range []struct {
		name     string
		format   dataset.Format
		detected bool
	}{
		{"auto-detected", dataset.FormatAuto, true},
		{"given", dataset.FormatJSONL, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, nil, goldModel(qs), "cot")
			cfg.Dataset, cfg.Format, cfg.Limit = demoQuestions, tc.format, 2
			if _, err := Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			m, err := ReadManifest(filepath.Join(cfg.Out, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != string(dataset.FormatJSONL) || m.FormatDetected != tc.detected {
				t.Errorf("manifest format %q (detected %v), want %q (detected %v)", m.Format, m.FormatDetected,
					dataset.FormatJSONL, tc.detected)
			}
		})
	}
}
