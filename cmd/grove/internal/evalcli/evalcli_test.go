package evalcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

const films = `<d1> <name> "Ridley Scott" .
<d2> <name> "Steven Spielberg" .
<f1> <name> "Blade Runner" .
<f2> <name> "Alien" .
<f3> <name> "Jaws" .
<f4> <name> "Duel" .
<f1> </film/directed_by> <d1> .
<f2> </film/directed_by> <d1> .
<f3> </film/directed_by> <d2> .
<f4> </film/directed_by> <d2> .
`

const questions = `{"id": "d-f1", "question": "Who directed Blade Runner?", "answers": ["Ridley Scott"], "type": "1-hop", "path": ["f1", "/film/directed_by"]}
{"id": "d-f3", "question": "Who directed Jaws?", "answers": ["Steven Spielberg"], "type": "1-hop", "path": ["f3", "/film/directed_by"]}
{"id": "o-f1", "question": "Which other films were directed by the director of Blade Runner?", "answers": ["Alien"], "type": "2-hop", "path": ["f1", "/film/directed_by", "~/film/directed_by"]}
{"id": "o-f3", "question": "Which other films were directed by the director of Jaws?", "answers": ["Duel"], "type": "2-hop", "path": ["f3", "/film/directed_by", "~/film/directed_by"]}
`

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// testApp is an App over a real in-memory store; model is the configured
// model (the lexical policy unless set).
func testApp(t *testing.T, model llm.Model) (App, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	db := storetest.Open(t, map[string]string{"films": films})
	if model == nil {
		model = lexical.Policy{}
	}
	dir := t.TempDir()
	qfile := filepath.Join(dir, "questions.jsonl")
	if err := os.WriteFile(qfile, []byte(questions), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	app := App{
		OpenKG: func(context.Context) (store.KG, io.Closer, error) { return db, nopCloser{}, nil },
		OpenModel: func(context.Context) (llm.Model, io.Closer, error) {
			return model, nopCloser{}, nil
		},
		Registry: func() *reasoner.Registry {
			reg := reasoner.NewRegistry()
			tot.Register(reg)
			baseline.Register(reg)
			return reg
		},
		DescribeKG: func() string { return "memory test store" },
		Stdout:     &stdout, Stderr: &stderr,
	}
	return app, &stdout, &stderr, qfile
}

func execute(t *testing.T, app App, args ...string) error {
	t.Helper()
	cmd := Command(app)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage = true
	return cmd.ExecuteContext(t.Context())
}

// TestEvalReportWithOracle runs the whole pipeline with the simulated
// oracle: eval with a progress bar, then report with both figures.
func TestEvalReportWithOracle(t *testing.T) {
	app, stdout, stderr, qfile := testApp(t, nil)
	out := filepath.Join(t.TempDir(), "run")
	err := execute(t, app, "--dataset", qfile, "--method", "tot,chain,cot", "--out", out, "--sim", "0.7",
		"--concurrency", "2", "--param", "tot.max_expansions=12")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "12/12") || !strings.Contains(stderr.String(), "EM-in") {
		t.Errorf("progress bar:\n%s", stderr.String())
	}
	for _, want := range []string{"4 questions (0 skipped without gold), 12 runs: 0 resumed, 12 ran, 0 errors",
		"tot ", "grove eval report " + out, "model: sim-oracle (simulated, NOT AN LLM)", "dataset: " + qfile,
		"kg: all graphs of memory test store"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	m, err := eval.ReadManifest(filepath.Join(out, "run.json"))
	if err != nil || m.Params["tot"]["max_expansions"] != "12" {
		t.Errorf("manifest params %v, %v", m.Params, err)
	}
	stdout.Reset()
	if err := execute(t, app, "report", out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Accuracy", "Model: sim-oracle (simulated, NOT AN LLM)", "| tot | 4 |", "| cot | 4 | 0.0 |",
		"fig5-value.svg", "Dataset: " + qfile + " (format jsonl, auto-detected; all questions, in file order)",
		"KG: all graphs of the store (memory test store)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, f := range []string{"report.md", "report.json", "fig5-value.png", "fig5-value.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestResumeAndMerge runs two shards with the lexical policy, resumes one
// (nothing left to do) and merges them.
func TestResumeAndMerge(t *testing.T) {
	app, stdout, _, qfile := testApp(t, nil)
	root := t.TempDir()
	for _, s := range []string{"1/2", "2/2"} {
		dir := filepath.Join(root, strings.ReplaceAll(s, "/", "of"))
		if err := execute(t, app, "--dataset", qfile, "--method", "chain", "--out", dir, "--shard", s, "--quiet"); err != nil {
			t.Fatal(err)
		}
	}
	if err := execute(t, app, "--dataset", qfile, "--method", "chain", "--out", filepath.Join(root, "1of2"), "--shard", "1/2"); err == nil ||
		!strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without --resume: %v", err)
	}
	stdout.Reset()
	if err := execute(t, app, "--dataset", qfile, "--method", "chain", "--out", filepath.Join(root, "1of2"), "--shard", "1/2",
		"--resume", "--quiet"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "2 runs: 2 resumed, 0 ran") {
		t.Errorf("resume summary:\n%s", stdout.String())
	}
	stdout.Reset()
	merged := filepath.Join(root, "all")
	if err := execute(t, app, "merge", "--out", merged, filepath.Join(root, "1of2"), filepath.Join(root, "2of2")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "merged 4 results (4 questions, methods chain)") {
		t.Errorf("merge output: %s", stdout.String())
	}
	rs, err := eval.Load(merged)
	if err != nil || len(rs) != 4 {
		t.Fatalf("merged results %d, %v", len(rs), err)
	}
}

func TestSimCommand(t *testing.T) {
	app, stdout, _, qfile := testApp(t, nil)
	app.JSON = func() bool { return true }
	if err := execute(t, app, "sim", "--questions", qfile, "--p", "0.5,1", "--seeds", "2"); err != nil {
		t.Fatal(err)
	}
	var tb struct {
		Methods []string
		Ps      []float64
		Cells   [][]struct {
			EMIn float64 `json:"em_in"`
			Runs int
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &tb); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if len(tb.Methods) != 2 || len(tb.Cells) != 2 || tb.Cells[1][1].EMIn != 1 || tb.Cells[0][1].Runs != 8 {
		t.Errorf("table %+v", tb)
	}
}

func TestFlagErrors(t *testing.T) {
	app, _, _, qfile := testApp(t, nil)
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--dataset and --out are required"},
		{[]string{"--dataset", qfile, "--out", out, "--shard", "3/2"}, "--shard"},
		{[]string{"--dataset", qfile, "--out", out, "--param", "k=3"}, "want method.key=value"},
		{[]string{"--dataset", qfile, "--out", out, "--format", "xml"}, "unknown dataset format"},
		{[]string{"--dataset", qfile, "--out", out, "--sim", "1.5"}, "--sim must be in"},
		{[]string{"--dataset", qfile, "--out", out, "--method", "nope", "--quiet"}, `unknown reasoning method "nope"`},
		{[]string{"--dataset", qfile, "--out", out, "--param", "tot.k=x", "--quiet"}, `parameter "k"`},
		{[]string{"sim"}, "--questions is required"},
		{[]string{"sim", "--questions", qfile, "--p", "2"}, "not a probability"},
		{[]string{"merge", out}, "--out is required"},
		{[]string{"report", out}, "no results"},
	} {
		if err := execute(t, app, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := execute(t, App{}, "--dataset", qfile, "--out", out); err == nil || !strings.Contains(err.Error(), "App.OpenKG is nil") {
		t.Errorf("empty app: %v", err)
	}
}

func TestParseParams(t *testing.T) {
	got, err := ParseParams([]string{"tot.k=5", " chain.tau = 0.7 ", "tot.temperature=1"})
	if err != nil || got["tot"]["k"] != "5" || got["chain"]["tau"] != "0.7" || len(got["tot"]) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"k=5", "tot.=5", ".k=5", "tot.k", "tot.k=1,tot.k=2"} {
		specs := strings.Split(bad, ",")
		if _, err := ParseParams(specs); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"tot.k=5", "a.b.c=d", "=", "x.y="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseParams([]string{s})
		if err != nil {
			return
		}
		if len(got) != 1 {
			t.Fatalf("%q gave %v", s, got)
		}
		for m, p := range got {
			if m == "" || len(p) != 1 {
				t.Fatalf("%q gave %v", s, got)
			}
		}
	})
}

// TestModelFlagsFit: the application adds its model flags (--llm,
// --model, --timeout, ...) to the eval command; none may clash.
func TestModelFlagsFit(t *testing.T) {
	cmd := Command(App{})
	for _, name := range []string{"llm", "model", "api-key-env", "endpoint", "cache", "cache-dir", "max-concurrency", "timeout", "json"} {
		if cmd.Flags().Lookup(name) != nil || cmd.PersistentFlags().Lookup(name) != nil {
			t.Errorf("eval defines --%s, which the application's flags use", name)
		}
	}
}

// TestSimRefusesConfiguredModel: --sim replaces the model, so a configured
// model is refused rather than silently ignored.
func TestSimRefusesConfiguredModel(t *testing.T) {
	for _, tc := range []struct {
		name, configured string
		args             []string
		wantErr          string
	}{
		{"sim with a model", `model "fake"`, []string{"--sim", "0.7"}, `--sim answers with the simulated oracle`},
		{"sim without a model", "", []string{"--sim", "0.7"}, ""},
		{"model without sim", `model "fake"`, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, _, _, qfile := testApp(t, nil)
			app.ModelConfigured = func() string { return tc.configured }
			args := append([]string{"--dataset", qfile, "--method", "cot", "--out", filepath.Join(t.TempDir(), "run"),
				"--quiet"}, tc.args...)
			err := execute(t, app, args...)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.configured) {
				t.Fatalf("err = %v, want %q naming %s", err, tc.wantErr, tc.configured)
			}
		})
	}
}

// llmModel is a scripted model that names itself as a language model.
type llmModel struct{ *llm.Scripted }

func (llmModel) Describe() llm.Info { return llm.Info{Name: "fake-j", Provider: llm.ProviderOpenAI} }

// TestJudgeFlag: --judge needs a language model (never the lexical
// baseline or the simulated oracle), and the summary names the judge and
// counts its failures.
func TestJudgeFlag(t *testing.T) {
	answers := []llm.Rule{
		{Name: baseline.TaskReason, Replies: []string{"Recalling."}, Repeat: true},
		{Name: baseline.TaskAnswer, Replies: []string{"Answer: Ridley Scott"}, Repeat: true}}
	for _, tc := range []struct {
		name    string
		model   llm.Model
		args    []string
		wantErr string
		want    []string // in the summary
	}{
		{name: "lexical model", model: lexical.Policy{}, wantErr: "--judge scores the answers with the model as an LLM judge, but the model is lexical-baseline"},
		{name: "simulated oracle", args: []string{"--sim", "0.7"}, wantErr: "--sim replaces the model"},
		{name: "judge fails", model: llmModel{&llm.Scripted{Rules: answers}},
			want: []string{"judge: fake-j (openai-compatible)", "4 ran, 0 errors", "judge failed on 4 of 4 answers"}},
		{name: "judge answers", model: llmModel{&llm.Scripted{Rules: append(answers,
			llm.Rule{Name: "eval/judge", Replies: []string{"Yes"}, Repeat: true})}},
			want: []string{"judge: fake-j (openai-compatible)", "judge failed on 0 of 4 answers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, stdout, _, qfile := testApp(t, tc.model)
			args := append([]string{"--dataset", qfile, "--method", "cot", "--out", filepath.Join(t.TempDir(), "run"),
				"--quiet", "--judge"}, tc.args...)
			err := execute(t, app, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("summary lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}

// failingModel fails every call.
type failingModel struct{}

func (failingModel) Generate(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("HTTP 503")
}

// TestExitStatusOnErrors: a run in which some question failed exits with
// an error that says how many, and the summary leaves them out of EM-in.
func TestExitStatusOnErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		model   llm.Model
		wantErr string
	}{
		{"every run fails", failingModel{}, "4 of 4 runs ended in an error"},
		{"no run fails", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, stdout, _, qfile := testApp(t, tc.model)
			err := execute(t, app, "--dataset", qfile, "--method", "cot", "--out", filepath.Join(t.TempDir(), "run"), "--quiet")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if !strings.Contains(stdout.String(), "left out of the EM-in averages") {
				t.Errorf("summary:\n%s", stdout.String())
			}
		})
	}
}

// stoppingModel answers zero-shot calls and, on its second call, stops the
// run as Ctrl-C would (cancelling its context).
type stoppingModel struct {
	calls  *int
	cancel context.CancelFunc
}

func (m stoppingModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if *m.calls++; *m.calls == 2 {
		m.cancel()
		return llm.Response{}, ctx.Err()
	}
	return llm.Response{Texts: []string{"Answer: Ridley Scott"}}, nil
}

// TestSummaryOfStoppedRun: the summary of a run stopped part-way says how
// many runs were not run, in text and JSON; it used to list only the
// resumed, ran and failed counts, which read as a finished run.
func TestSummaryOfStoppedRun(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		ctx, cancel := context.WithCancel(t.Context())
		calls := 0
		app, stdout, _, qfile := testApp(t, stoppingModel{&calls, cancel})
		app.JSON = func() bool { return asJSON }
		cmd := Command(app)
		cmd.SetArgs([]string{"--dataset", qfile, "--method", "zeroshot", "--concurrency", "1", "--quiet",
			"--out", filepath.Join(t.TempDir(), "run")})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage = true
		if err := cmd.ExecuteContext(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if asJSON {
			var sum struct {
				Jobs, Ran int
				NotRun    int `json:"not_run"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Jobs != 4 || sum.Ran != 1 || sum.NotRun != 3 {
				t.Errorf("JSON summary %+v (%v), want 4 jobs, 1 ran, 3 not run:\n%s", sum, err, stdout)
			}
			continue
		}
		if !strings.Contains(stdout.String(), "4 runs: 0 resumed, 1 ran, 0 errors, 3 NOT RUN (the run was stopped; --resume runs them)") {
			t.Errorf("summary:\n%s", stdout)
		}
	}
}

// TestSummaryReportsCache: the run summary says how many samples the
// response cache gave and what they cost when produced, apart from the
// tokens spent, in text and JSON; without cache hits it says nothing.
func TestSummaryReportsCache(t *testing.T) {
	cache := eval.CacheUse{Samples: 4, CacheHits: 3, Tokens: 12, CachedTokens: 90, UnknownUsage: 1,
		Sources: []llm.CacheSource{{Endpoint: "http://<host>:8000/v1", Model: "m", Samples: 3}}}
	line := "3 of 4 samples from the response cache, which cost 90 tokens when produced (1 sample of unknown usage, not counted); 12 tokens spent"
	tests := []struct {
		name  string
		cache eval.CacheUse
		want  bool
	}{
		{"cache hits", cache, true},
		{"none", eval.CacheUse{Samples: 4, Tokens: 40}, false},
	}
	for _, tt := range tests {
		sum := &eval.Summary{Jobs: 1, Ran: 1, Cache: tt.cache}
		var text, js bytes.Buffer
		if err := printSummary(&text, false, sum); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(text.String(), line); got != tt.want {
			t.Errorf("%s: text summary has the cache line: %v, want %v:\n%s", tt.name, got, tt.want, text.String())
		}
		if err := printSummary(&js, true, sum); err != nil {
			t.Fatal(err)
		}
		var out struct{ Cache *eval.CacheUse }
		if err := json.Unmarshal(js.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if (out.Cache != nil) != tt.want || (tt.want && out.Cache.CachedTokens != 90) {
			t.Errorf("%s: JSON cache %+v", tt.name, out.Cache)
		}
	}
}

// TestSummaryNamesTopicIDs: the run summary says which topic-entity ids
// the questions were asked with, in text and JSON, when the dataset gives
// both; otherwise it says nothing of them.
func TestSummaryNamesTopicIDs(t *testing.T) {
	for _, tt := range []struct {
		ids, text, json string
	}{
		{eval.TopicIDsWikidata, "kg: wd, topic entities as wikidata ids\n", `"topic_ids": "wikidata"`},
		{"", "kg: wd\n", ""},
	} {
		sum := &eval.Summary{Jobs: 1, Ran: 1, Graphs: []string{"wd"}, TopicIDs: tt.ids}
		var text, js bytes.Buffer
		if err := printSummary(&text, false, sum); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), tt.text) {
			t.Errorf("%q: text summary lacks %q:\n%s", tt.ids, tt.text, text.String())
		}
		if err := printSummary(&js, true, sum); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(js.String(), `"topic_ids"`); got != (tt.json != "") || !strings.Contains(js.String(), tt.json) {
			t.Errorf("%q: JSON summary:\n%s", tt.ids, js.String())
		}
	}
}
