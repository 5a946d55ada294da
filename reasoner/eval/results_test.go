package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/trace"
)

const (
	rec1 = `{"id":"a","method":"tot","index":0,"answer":"x","scores":{"em_in":1}}`
	rec2 = `{"id":"b","method":"tot","index":1,"answer":"y","scores":{"em_in":0}}`
)

func TestParseResults(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		n          int
		torn       int
		err        string
	}{
		{"empty", "", 0, 0, ""},
		{"two records", rec1 + "\n" + rec2 + "\n", 2, -1, ""},
		{"blank lines", "\n" + rec1 + "\n\n", 1, -1, ""},
		{"torn without newline", rec1 + "\n" + rec2[:20], 1, len(rec1) + 1, ""},
		{"torn invalid last line", rec1 + "\n{\"id\":\n", 1, len(rec1) + 1, ""},
		{"bad middle line", rec1 + "\n{oops\n" + rec2 + "\n", 0, 0, "results.jsonl:2: bad result record"},
		{"missing method", `{"id":"a"}` + "\n" + rec2 + "\n", 0, 0, `results.jsonl:1: bad result record: field "method": missing`},
		{"negative index", `{"id":"a","method":"m","index":-2}` + "\n" + rec2 + "\n", 0, 0, `field "index": negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, torn, err := parseResults("results.jsonl", []byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			want := int64(tc.torn)
			if tc.torn < 0 {
				want = int64(len(tc.data))
			}
			if err != nil || len(rs) != tc.n || torn != want {
				t.Fatalf("got %d records, torn %d (want %d, %d), err %v", len(rs), torn, tc.n, want, err)
			}
		})
	}
}

func FuzzParseResults(f *testing.F) {
	f.Add([]byte(rec1 + "\n" + rec2 + "\n"))
	f.Add([]byte(rec1 + "\n" + rec2[:17]))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, torn, err := parseResults("f.jsonl", data)
		if err != nil {
			return
		}
		if torn < 0 || torn > int64(len(data)) || (torn > 0 && data[torn-1] != '\n') {
			t.Fatalf("torn offset %d of %d", torn, len(data))
		}
		// The valid prefix reads back the same records with no torn tail.
		again, torn2, err := parseResults("f.jsonl", data[:torn])
		if err != nil || len(again) != len(rs) || torn2 != torn {
			t.Fatalf("prefix: %d records (want %d), torn %d, err %v", len(again), len(rs), torn2, err)
		}
		for _, r := range rs {
			if r.check() != nil {
				t.Fatalf("invalid record accepted: %+v", r)
			}
		}
	})
}

func TestOpenLogResumeCutsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsFile)
	if err := os.WriteFile(path, []byte(rec1+"\n"+rec2[:30]), 0o644); err != nil {
		t.Fatal(err)
	}
	l, prev, torn, err := openLog(path, true)
	if err != nil || len(prev) != 1 {
		t.Fatalf("prev %d, err %v", len(prev), err)
	}
	if err := l.cut(torn); err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal([]byte(rec2), &r); err != nil {
		t.Fatal(err)
	}
	if err := l.append(r); err != nil {
		t.Fatal(err)
	}
	l.close()
	data, _ := os.ReadFile(path)
	if got := strings.Count(string(data), "\n"); got != 2 || !strings.HasSuffix(string(data), "\"index\":1,\"question\":\"\",\"answer\":\"y\",\"found\":false,\"value\":0,\"confident\":false,\"gold\":null,\"scores\":{\"em_in\":0},\"prompt_tokens\":0,\"completion_tokens\":0,\"tokens\":0,\"model_calls\":0,\"samples\":0,\"cache_hits\":0,\"kg_calls\":0,\"nodes\":0,\"expansions\":0,\"wall_time_ns\":0,\"finished\":\"0001-01-01T00:00:00Z\"}\n") {
		t.Fatalf("file after resume:\n%s", data)
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  bool
	}{
		{"", Shard{}, false},
		{"1/4", Shard{1, 4}, false},
		{" 4 / 4 ", Shard{4, 4}, false},
		{"1/1", Shard{1, 1}, false},
		{"0/4", Shard{}, true},
		{"5/4", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
		{"1/0", Shard{}, true},
	} {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/4", "", "3/3", "0/1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.String() != "" {
			again, err := ParseShard(sh.String())
			if err != nil || again != sh {
				t.Fatalf("round trip of %q: %v, %v", s, again, err)
			}
		}
	})
}

// TestShardsPartition: the shards of n cover every position exactly once.
func TestShardsPartition(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for pos := range 23 {
			owners := 0
			for i := 1; i <= n; i++ {
				if (Shard{i, n}).Has(pos) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("n=%d pos=%d: %d owners", n, pos, owners)
			}
		}
	}
}

func TestScore(t *testing.T) {
	q := dataset.Question{Answers: []string{"Alice", "Bob"}, AnswerIDs: []string{"Q1", "Q2"}}
	for _, tc := range []struct {
		answer   string
		entities []string
		want     map[string]float64
	}{
		{"Alice and Bob", []string{"Q1"}, map[string]float64{ScoreEMIn: 1, ScoreEM: 0, ScoreHits1: 1}},
		{"alice", nil, map[string]float64{ScoreEMIn: 0.5, ScoreEM: 1, ScoreF1: 1, ScoreRougeL: 1, ScoreHits1: 0}},
		{"", []string{"Q3"}, map[string]float64{ScoreEMIn: 0, ScoreEM: 0, ScoreF1: 0, ScoreRougeL: 0, ScoreHits1: 0}},
	} {
		got := Score(tc.answer, tc.entities, q)
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %s = %v, want %v", tc.answer, k, got[k], v)
			}
		}
	}
	if _, ok := Score("x", nil, dataset.Question{Answers: []string{"x"}})[ScoreHits1]; ok {
		t.Error("hits1 scored without gold ids")
	}
}

func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	tr := &trace.Trace{Method: "tot", Question: "Who?", Nodes: []trace.Node{{ID: 1, Text: "root"}},
		Answer: trace.Answer{Found: true, Text: "Ridley Scott"}}
	rel := traceRel("tot->cot", "../../etc/passwd")
	if strings.Contains(rel, "..") || !strings.HasPrefix(rel, filepath.Join(TracesDir, "tot-_cot")) {
		t.Fatalf("unsafe trace path %q", rel)
	}
	if traceRel("m", "a/b") == traceRel("m", "a_b") {
		t.Error("distinct ids share a trace file")
	}
	path := filepath.Join(dir, rel)
	if err := WriteTrace(path, tr); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTrace(path)
	if err != nil || got.Answer.Text != "Ridley Scott" || len(got.Nodes) != 1 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("trace file mode %v (%v), want 0644 like results.jsonl", fi.Mode().Perm(), err)
	}
	if _, err := ReadTrace(filepath.Join(dir, "nope.json.gz")); err == nil {
		t.Error("reading a missing trace succeeded")
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"": "_", "abc-1_2.x": "abc-1_2.x", ".hidden": "_hidden", "a/b c": "a_b_c",
		"é": "_", strings.Repeat("x", 100): strings.Repeat("x", 60)} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoadZeroesNonAnswers: results written before non-answers scored 0
// (an "unknown" credited against a gold "No") are reported at 0.
func TestLoadZeroesNonAnswers(t *testing.T) {
	dir := t.TempDir()
	old := `{"id":"q1","method":"cot","index":0,"answer":"unknown","found":false,"scores":{"em_in":1,"f1":0.5}}` + "\n" +
		`{"id":"q2","method":"cot","index":1,"answer":"No","found":true,"scores":{"em_in":1,"f1":1}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ls, err := Load(dir)
	if err != nil || len(ls) != 2 {
		t.Fatalf("load: %d results, %v", len(ls), err)
	}
	want := map[string]float64{"q1": 0, "q2": 1}
	for _, l := range ls {
		if l.Scores["em_in"] != want[l.ID] || (l.ID == "q1" && l.Scores["f1"] != 0) {
			t.Errorf("%s: scores %v", l.ID, l.Scores)
		}
	}
}
