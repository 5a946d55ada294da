package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/sim"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/store/storetest"
)

// films is a small real KG: nine films by four directors.
const films = `<d1> <name> "Ridley Scott" .
<d2> <name> "Steven Spielberg" .
<d3> <name> "James Cameron" .
<d4> <name> "Sofia Coppola" .
<f1> <name> "Blade Runner" .
<f2> <name> "Alien" .
<f3> <name> "Gladiator" .
<f4> <name> "Jaws" .
<f5> <name> "Duel" .
<f6> <name> "Titanic" .
<f7> <name> "Aliens" .
<f8> <name> "Lost in Translation" .
<f9> <name> "Somewhere" .
<a1> <name> "Harrison Ford" .
<a2> <name> "Sigourney Weaver" .
<f1> </film/directed_by> <d1> .
<f2> </film/directed_by> <d1> .
<f3> </film/directed_by> <d1> .
<f4> </film/directed_by> <d2> .
<f5> </film/directed_by> <d2> .
<f6> </film/directed_by> <d3> .
<f7> </film/directed_by> <d3> .
<f8> </film/directed_by> <d4> .
<f9> </film/directed_by> <d4> .
<f1> </film/starring> <a1> .
<f2> </film/starring> <a2> .
<f7> </film/starring> <a2> .
`

// questions over films with their gold paths.
func questions() ([]dataset.Question, map[string][]string) {
	var qs []dataset.Question
	paths := map[string][]string{}
	add := func(id, q, ty string, answers []string, path ...string) {
		qs = append(qs, dataset.Question{ID: id, Question: q, Answers: answers, Type: ty})
		paths[id] = path
	}
	for _, f := range []struct{ id, name, director string }{
		{"f1", "Blade Runner", "Ridley Scott"}, {"f4", "Jaws", "Steven Spielberg"}, {"f6", "Titanic", "James Cameron"},
		{"f8", "Lost in Translation", "Sofia Coppola"}, {"f2", "Alien", "Ridley Scott"}, {"f5", "Duel", "Steven Spielberg"},
	} {
		add("director-"+f.id, "Who directed "+f.name+"?", "1-hop", []string{f.director}, f.id, "/film/directed_by")
	}
	add("others-f1", "Which other films were directed by the director of Blade Runner?", "2-hop",
		[]string{"Alien", "Gladiator"}, "f1", "/film/directed_by", "~/film/directed_by")
	add("others-f4", "Which other films were directed by the director of Jaws?", "2-hop",
		[]string{"Duel"}, "f4", "/film/directed_by", "~/film/directed_by")
	add("others-f8", "Which other films were directed by the director of Lost in Translation?", "2-hop",
		[]string{"Somewhere"}, "f8", "/film/directed_by", "~/film/directed_by")
	add("director-of-star", "Who directed the films starring Harrison Ford?", "2-hop",
		[]string{"Ridley Scott"}, "a1", "~/film/starring", "/film/directed_by")
	return qs, paths
}

// runStudy evaluates tot, chain and cot with the simulated oracle at P=0.5
// and returns the output directory.
func runStudy(t *testing.T) string {
	t.Helper()
	db := storetest.Open(t, map[string]string{"films": films})
	qs, paths := questions()
	golds, err := sim.Golds(t.Context(), db, qs, paths)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := sim.NewOracle(golds, sim.OracleConfig{P: 0.5, Noise: 0.1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	reg := reasoner.NewRegistry()
	tot.Register(reg)
	baseline.Register(reg)
	dir := t.TempDir()
	_, err = eval.Run(t.Context(), eval.Config{Questions: qs, Methods: []string{"tot", "chain", "cot"}, Out: dir,
		Concurrency: 4, Registry: reg, Deps: reasoner.Deps{KG: db, Model: oracle}})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReport(t *testing.T) {
	dir := runStudy(t)
	rep, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, rep, loaded)
	checkValues(t, rep, loaded)
	checkBacktrack(t, rep)
	out := filepath.Join(dir, "report")
	files, err := rep.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files)
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md.String())
	for _, want := range []string{"| Method | N | EM-in | EM | F1 | Rouge-L | No answer | ->CoT | Errors |",
		"| tot | 10 |", "## EM-in by question type", "| 1-hop | 6 |", "![answer value vs EM-in](fig5-value.svg)",
		"![backtracking](fig6-backtracking.svg)", "Model: sim-oracle (simulated, NOT AN LLM)",
		"not produced by a language model",
		"| Model calls | Samples | Samples from cache |", "Model settings: noise=0.1, p=0.5, recall=0, seed=5", "## Accuracy (scores in %), model: sim-oracle"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// checkTable recomputes the accuracy and cost columns from the results.
func checkTable(t *testing.T, rep *Report, rs []eval.Loaded) {
	t.Helper()
	if rep.Questions != 10 || len(rep.Methods) != 3 || rep.Methods[0].Method != "tot" || rep.Methods[2].Method != "cot" {
		t.Fatalf("report rows %+v", rep.Methods)
	}
	for _, row := range rep.Methods {
		sum, tokens, samples, n, none := 0.0, 0, 0, 0, 0
		for _, r := range rs {
			if r.Method == row.Method {
				sum += r.Scores[eval.ScoreEMIn]
				tokens += r.ModelCalls
				samples += r.Samples
				n++
				if !r.Found {
					none++
				}
			}
		}
		if row.N != n || math.Abs(row.Scores[eval.ScoreEMIn]-sum/float64(n)) > 1e-12 ||
			math.Abs(row.ModelCalls-float64(tokens)/float64(n)) > 1e-12 || row.NoAnswer != none {
			t.Errorf("%s: row %+v, want n=%d em_in=%.3f", row.Method, row, n, sum/float64(n))
		}
		if math.Abs(row.Samples-float64(samples)/float64(n)) > 1e-12 || row.Samples < row.ModelCalls {
			t.Errorf("%s: %.1f samples per question for %.1f calls, want %.1f", row.Method, row.Samples, row.ModelCalls,
				float64(samples)/float64(n))
		}
	}
	// tot asks for k samples per call: more samples than calls.
	if tot := rep.Methods[0]; tot.Samples <= tot.ModelCalls {
		t.Errorf("tot: %.1f samples for %.1f calls", tot.Samples, tot.ModelCalls)
	}
	if rep.Methods[2].Scores[eval.ScoreEMIn] != 0 || rep.Methods[2].NoAnswer != 10 {
		t.Errorf("cot without recall answered: %+v", rep.Methods[2])
	}
}

// checkValues recounts the evaluated answers of each method's traces.
func checkValues(t *testing.T, rep *Report, rs []eval.Loaded) {
	t.Helper()
	if len(rep.Value) != 2 || rep.Value[0].Method != "tot" || rep.Value[1].Method != "chain" {
		t.Fatalf("value profiles for %+v", rep.Value)
	}
	for _, p := range rep.Value {
		answers := 0
		for _, r := range rs {
			if r.Method != p.Method {
				continue
			}
			tr, err := eval.ReadTrace(r.TracePath())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tr.Nodes {
				if n.Answer && n.Evaluated {
					answers++
				}
			}
		}
		total := 0
		for _, c := range p.Count {
			total += c
		}
		if p.Answers != answers || total != answers || answers == 0 {
			t.Errorf("%s: %d answers in the profile, %d binned, %d in the traces", p.Method, p.Answers, total, answers)
		}
		// The oracle values right answers near 1 and wrong ones near 0.
		if p.Count[4] > 0 && p.EMIn[4] < 0.9 || p.Count[0] > 0 && p.EMIn[0] > 0.1 {
			t.Errorf("%s: value profile %+v does not separate right from wrong", p.Method, p)
		}
	}
}

func checkBacktrack(t *testing.T, rep *Report) {
	t.Helper()
	got := map[string]Backtrack{}
	for _, b := range rep.Backtrack {
		got[b.Method] = b
	}
	if b := got["tot"]; b.Cases == 0 || b.Questions != 10 || b.With < b.Without {
		t.Errorf("tot backtracking %+v", b)
	}
	if b := got["chain"]; b.Cases != 0 {
		t.Errorf("chain backtracked: %+v", b)
	}
}

func checkFiles(t *testing.T, f Files) {
	t.Helper()
	if len(f.Figures) != 4 {
		t.Fatalf("figures %v", f.Figures)
	}
	for _, p := range f.Figures {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".png") {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil || img.Bounds().Dx() != 800 {
				t.Errorf("%s: %v", p, err)
			}
			continue
		}
		if err := wellFormed(data); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	var back Report
	data, err := os.ReadFile(f.JSON)
	if err != nil || json.Unmarshal(data, &back) != nil || len(back.Methods) != 3 {
		t.Errorf("report.json: %v", err)
	}
}

func wellFormed(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no results") {
		t.Errorf("empty dir: err = %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, eval.ResultsFile), []byte(`{"id":"a","method":"m","index":0,"trace":"traces/nope.json.gz","scores":{"em_in":1}}`+"\n"), 0o644)
	rep, err := Build(dir)
	if err != nil || len(rep.Warnings) != 1 || len(rep.Value) != 0 {
		t.Fatalf("missing trace: %+v, %v", rep, err)
	}
	files, err := rep.Write(filepath.Join(dir, "out"))
	if err != nil || len(files.Figures) != 0 {
		t.Errorf("figures without data: %v, %v", files.Figures, err)
	}
	md, _ := os.ReadFile(files.Markdown)
	for _, want := range []string{"No method evaluated its answers", "No search backtracked", "## Warnings"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	_ = fmt.Sprint
}
