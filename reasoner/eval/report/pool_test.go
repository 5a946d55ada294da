package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/llm"
)

// writeRun writes a run directory: a manifest (unless m is nil) and one
// result per question text, with ids 0, 1, ...
func writeRun(t *testing.T, m *eval.Manifest, method string, questions ...string) string {
	t.Helper()
	dir := t.TempDir()
	if m != nil {
		data, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, "run.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for i, q := range questions {
		r := eval.Result{ID: string(rune('0' + i)), Method: method, Index: i, Question: q, Answer: "x", Found: true,
			Gold: []string{"x"}, Scores: map[string]float64{eval.ScoreEMIn: 1}}
		data, _ := json.Marshal(r)
		b.Write(append(data, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, eval.ResultsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportRefusesPooledDatasets: runs of different datasets, samples or
// graphs are not pooled into one report, nor are results whose ids collide
// with different questions.
func TestReportRefusesPooledDatasets(t *testing.T) {
	qald := &eval.Manifest{Dataset: "/d/qald_10.json", Format: "qald10", Graphs: []string{"wikidata"}}
	cwq := &eval.Manifest{Dataset: "/d/cwq.json", Format: "cwq", Graphs: []string{"freebase"}}
	qaldFB := &eval.Manifest{Dataset: "/d/qald_10.json", Format: "qald10", Graphs: []string{"freebase"}}
	qald50 := &eval.Manifest{Dataset: "/d/qald_10.json", Format: "qald10", Graphs: []string{"wikidata"}, Limit: 50, Seed: 233}
	for _, tc := range []struct {
		name       string
		a, b       *eval.Manifest
		qa, qb     []string
		methodB    string
		want       string // "" when the report builds
		wantCounts int    // questions in the report
	}{
		{"same dataset, two methods", qald, qald, []string{"q0", "q1"}, []string{"q0", "q1"}, "cot", "", 2},
		{"different datasets", qald, cwq, []string{"q0"}, []string{"c0"}, "cot", "datasets /d/qald_10.json and /d/cwq.json differ", 0},
		{"different datasets, same method", qald, cwq, []string{"q0"}, []string{"c0"}, "tot", "different question sets", 0},
		{"different graphs", qald, qaldFB, []string{"q0"}, []string{"q0"}, "cot", "graphs", 0},
		{"different samples", qald, qald50, []string{"q0"}, []string{"q0"}, "cot", "limit/seed", 0},
		{"no manifests, colliding ids", nil, nil, []string{"q0", "q1"}, []string{"c0"}, "tot", "different datasets", 0},
		{"no manifests, same questions", nil, nil, []string{"q0", "q1"}, []string{"q0"}, "tot", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := writeRun(t, tc.a, "tot", tc.qa...)
			b := writeRun(t, tc.b, tc.methodB, tc.qb...)
			rep, err := Build(a, b)
			if tc.want == "" {
				if err != nil || rep.Questions != tc.wantCounts {
					t.Fatalf("report: %v, %+v", err, rep)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReportNamesDatasetAndKG: report.md and report.json name the dataset
// file, its format and sample, the graphs and the store.
func TestReportNamesDatasetAndKG(t *testing.T) {
	for _, tc := range []struct {
		name     string
		m        *eval.Manifest
		markdown []string
		json     []string
	}{
		{"sampled QALD-10", &eval.Manifest{Dataset: "/d/qald_10.json", Format: "qald10", Limit: 50, Seed: 233,
			Graphs: []string{"wikidata"}, KG: "badger /data/grove"},
			[]string{"Dataset: /d/qald_10.json (format qald10; the first 50 after the shuffle with seed 233)",
				"KG: wikidata (badger /data/grove)"},
			[]string{`"file": "/d/qald_10.json"`, `"format": "qald10"`, `"limit": 50`, `"seed": 233`,
				`"graphs": [` + "\n" + `      "wikidata"`, `"kgs": [`}},
		{"whole file, all graphs", &eval.Manifest{Dataset: "/d/cwq.json", Seed: 233},
			[]string{"Dataset: /d/cwq.json (format auto-detected; all questions, in file order)",
				"KG: all graphs of the store (store not recorded)"},
			[]string{`"file": "/d/cwq.json"`, `"graphs": []`}},
		{"detected format", &eval.Manifest{Dataset: "/d/cwq.json", Format: "cwq", FormatDetected: true, Seed: 233},
			[]string{"Dataset: /d/cwq.json (format cwq, auto-detected; all questions, in file order)"},
			[]string{`"format": "cwq"`, `"format_detected": true`}},
		{"topic entity ids", &eval.Manifest{Dataset: "/d/webqsp.json", Format: "webqsp", Seed: 233, Graphs: []string{"wd"},
			TopicEntities: true, TopicIDs: eval.TopicIDsWikidata},
			[]string{"KG: wd (store not recorded), with the dataset's topic entities (wikidata ids)"},
			[]string{`"topic_entities": true`, `"topic_ids": "wikidata"`}},
		{"no manifest", nil, []string{"Dataset: unknown (no run manifest)", "KG: unknown"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Build(writeRun(t, tc.m, "cot", "q0"))
			if err != nil {
				t.Fatal(err)
			}
			var md strings.Builder
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.markdown {
				if !strings.Contains(md.String(), want) {
					t.Errorf("report.md lacks %q:\n%s", want, md.String())
				}
			}
			data, _ := json.MarshalIndent(rep, "", "  ")
			for _, want := range tc.json {
				if !strings.Contains(string(data), want) {
					t.Errorf("report.json lacks %q:\n%s", want, data)
				}
			}
		})
	}
}

// TestReportCountsGoldIDsOnly: the report counts the questions whose gold
// answers are bare ids (once per question, whatever the methods).
func TestReportCountsGoldIDsOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		idsOnly []bool // per question, results of two methods each
		want    string // "" when the report must not warn
	}{
		{"none", []bool{false, false}, ""},
		{"one of three", []bool{true, false, false}, "1 of 3 questions have gold answers given only as ids"},
		{"all", []bool{true, true}, "2 of 2 questions have gold answers given only as ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			for i, only := range tc.idsOnly {
				for _, m := range []string{"tot", "cot"} {
					data, _ := json.Marshal(eval.Result{ID: string(rune('a' + i)), Method: m, Index: i, Question: "q",
						Gold: []string{"Q5"}, GoldIDs: []string{"Q5"}, GoldIDsOnly: only, Scores: map[string]float64{}})
					b.Write(append(data, '\n'))
				}
			}
			os.WriteFile(filepath.Join(dir, eval.ResultsFile), []byte(b.String()), 0o644)
			rep, err := Build(dir)
			if err != nil {
				t.Fatal(err)
			}
			var md strings.Builder
			rep.WriteMarkdown(&md)
			data, _ := json.Marshal(rep)
			if tc.want == "" {
				if strings.Contains(md.String(), "only as ids") || !strings.Contains(string(data), `"gold_ids_only":0`) {
					t.Errorf("warned without ids-only golds:\n%s", md.String())
				}
				return
			}
			if !strings.Contains(md.String(), tc.want) {
				t.Errorf("report.md lacks %q:\n%s", tc.want, md.String())
			}
			if !strings.Contains(string(data), `"gold_ids_only":`+tc.want[:1]) {
				t.Errorf("report.json: %s", data)
			}
		})
	}
}

// TestErroredRunsNotAveraged: failed runs are counted in Errors and left
// out of the score means (not averaged as 0), and report.md says so.
func TestErroredRunsNotAveraged(t *testing.T) {
	for _, tc := range []struct {
		name           string
		errs           []bool // per result: failed
		wantEM         float64
		wantErrorsNote bool
	}{
		{"no errors", []bool{false, false}, 1, false},
		{"one error", []bool{false, true}, 1, true},
		{"all errors", []bool{true, true}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			for i, failed := range tc.errs {
				r := eval.Result{ID: string(rune('a' + i)), Method: "cot", Index: i, Question: "q", Gold: []string{"x"},
					Answer: "x", Found: true, Scores: map[string]float64{eval.ScoreEMIn: 1}}
				if failed {
					r.Answer, r.Found, r.Error, r.Scores = "", false, "HTTP 503", map[string]float64{eval.ScoreEMIn: 0}
				}
				data, _ := json.Marshal(r)
				b.Write(append(data, '\n'))
			}
			os.WriteFile(filepath.Join(dir, eval.ResultsFile), []byte(b.String()), 0o644)
			rep, err := Build(dir)
			if err != nil {
				t.Fatal(err)
			}
			m := rep.Methods[0]
			if m.Scores[eval.ScoreEMIn] != tc.wantEM || m.N != len(tc.errs) {
				t.Errorf("EM-in %v over N %d, want %v over %d", m.Scores[eval.ScoreEMIn], m.N, tc.wantEM, len(tc.errs))
			}
			var md strings.Builder
			rep.WriteMarkdown(&md)
			if got := strings.Contains(md.String(), "ended in an error**: they are counted in Errors and left out"); got != tc.wantErrorsNote {
				t.Errorf("errors note %v, want %v:\n%s", got, tc.wantErrorsNote, md.String())
			}
		})
	}
}

// TestReportKeepsModelsApart: runs of one question set by different models
// are reported side by side, one row per model and method, each with its
// own scores; they used to share the method's row, in which the last run
// read replaced the others' results under a title naming every model.
func TestReportKeepsModelsApart(t *testing.T) {
	run := func(model llm.Info, em float64) string {
		m := &eval.Manifest{Dataset: "/d/q.jsonl", Format: "jsonl", Model: model, Methods: []string{"cot"}}
		dir := writeRun(t, m, "cot", "q0", "q1")
		data, _ := os.ReadFile(filepath.Join(dir, eval.ResultsFile))
		out := strings.ReplaceAll(string(data), `"em_in":1`, fmt.Sprintf(`"em_in":%g`, em))
		if err := os.WriteFile(filepath.Join(dir, eval.ResultsFile), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	qwen := llm.Info{Name: "Qwen", Provider: llm.ProviderOpenAI, Endpoint: "http://<host>:8000/v1"}
	qwen2 := llm.Info{Name: "Qwen", Provider: llm.ProviderOpenAI, Endpoint: "http://<host>:9000/v1"}
	llama := llm.Info{Name: "Llama", Provider: llm.ProviderOpenAI, Endpoint: "http://<host>:8000/v1"}
	for _, tc := range []struct {
		name   string
		a, b   llm.Info
		want   map[string]float64 // method row -> EM-in
		wantMd []string
	}{
		// One model: a later record of a (method, question) replaces an earlier one.
		{"one model", qwen, qwen, map[string]float64{"cot": 0}, []string{"| cot | 2 |"}},
		{"two models", qwen, llama, map[string]float64{"cot (Qwen)": 1, "cot (Llama)": 0},
			[]string{"| cot (Qwen) | 2 | 100.0 |", "| cot (Llama) | 2 | 0.0 |"}},
		{"one name, two endpoints", qwen, qwen2, map[string]float64{
			"cot (" + qwen.String() + ")": 1, "cot (" + qwen2.String() + ")": 0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := run(tc.a, 1), run(tc.b, 0)
			rep, err := Build(a, b)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, m := range rep.Methods {
				got[m.Method] = m.Scores[eval.ScoreEMIn]
				if tc.name != "one model" && m.N != 2 {
					t.Errorf("%s: N %d, want 2", m.Method, m.N)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("EM-in by row %v, want %v", got, tc.want)
			}
			var md strings.Builder
			rep.WriteMarkdown(&md)
			for _, w := range tc.wantMd {
				if !strings.Contains(md.String(), w) {
					t.Errorf("report.md lacks %q:\n%s", w, md.String())
				}
			}
		})
	}
}

// TestReportNamesKnownFormat: when the first run's manifest is an older
// one without a format, the report names the format the others record
// (it used to say "auto-detected", from the first manifest only).
func TestReportNamesKnownFormat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		formats []string
		want    string
	}{
		{"old first", []string{"", "jsonl"}, "(format jsonl, auto-detected;"},
		{"known first", []string{"jsonl", ""}, "(format jsonl, auto-detected;"},
		{"none known", []string{"", ""}, "(format auto-detected;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dirs []string
			for _, f := range tc.formats {
				m := &eval.Manifest{Dataset: "/d/q.jsonl", Format: f, FormatDetected: f != "", Seed: 233}
				dirs = append(dirs, writeRun(t, m, "cot", "q0"))
			}
			rep, err := Build(dirs...)
			if err != nil {
				t.Fatal(err)
			}
			var md strings.Builder
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md.String(), tc.want) {
				t.Errorf("report.md lacks %q:\n%s", tc.want, md.String())
			}
		})
	}
}
