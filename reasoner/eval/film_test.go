package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestFilm runs the runner on the bundled demo questions over the film
// KG, loaded once because loading takes seconds.
func TestFilm(t *testing.T) {
	db := storetest.Film(t)
	qs := loadDemo(t)
	t.Run("lexical policy", func(t *testing.T) { testLexical(t, db, qs) })
	t.Run("resume after cancel", func(t *testing.T) { testResume(t, db, qs) })
	t.Run("shards and merge", func(t *testing.T) { testShards(t, db, qs) })
}

// testLexical: with the deterministic lexical policy, Tree- and
// Chain-of-Traversals answer every "Who directed X?" question through the
// directed-by edge, the KG-free CoT baseline answers nothing, and every
// result has its trace.
func testLexical(t *testing.T, db store.KG, qs []dataset.Question) {
	dir := t.TempDir()
	methods := []string{"tot", "chain", "cot", "tot->cot"}
	var reports []Progress
	sum, err := Run(t.Context(), Config{Questions: qs, Methods: methods, Out: dir, Concurrency: 4,
		Registry: registry(), Deps: reasoner.Deps{KG: db, Model: lexical.Policy{}}, Graphs: []string{"film"},
		Progress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	keys := readKeys(t, filepath.Join(dir, ResultsFile))
	if got, want := sorted(keys), wantKeys(methods, qs); !slices.Equal(got, want) {
		t.Fatalf("results file has %d records, want %d", len(got), len(want))
	}
	if sum.Jobs != 148 || sum.Ran != 148 || sum.Resumed != 0 || sum.Errors != 0 || len(sum.Results) != 148 {
		t.Errorf("summary = %+v", sum)
	}
	checkProgress(t, reports, 148)
	res := byKey(sum.Results)
	for _, q := range qs {
		if strings.HasPrefix(q.ID, "director-") {
			for _, m := range []string{"tot", "chain"} {
				r := res[m+"/"+q.ID]
				if r.Scores[ScoreEMIn] != 1 || !r.Found || r.KGCalls == 0 || r.ModelCalls == 0 {
					t.Errorf("%s/%s: %+v", m, q.ID, r)
				}
			}
		}
		if r := res["cot/"+q.ID]; r.Found || r.Scores[ScoreEMIn] != 0 || r.KGCalls != 0 || r.ModelCalls != 2 {
			t.Errorf("cot/%s: %+v", q.ID, r)
		}
		for _, m := range methods {
			fileExists(t, dir, res[m+"/"+q.ID].Trace)
		}
	}
	r := res["tot/director-blade_runner"]
	tr, err := ReadTrace(filepath.Join(dir, r.Trace))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Method != "tot" || tr.Answer.Text != "Ridley Scott" || tr.Totals.ModelCalls != r.ModelCalls || len(tr.Nodes) != r.Nodes {
		t.Errorf("trace %s: %+v", r.Trace, tr.Answer)
	}
	m, err := ReadManifest(filepath.Join(dir, "run.json"))
	if err != nil || m.Questions != 37 || !slices.Equal(m.Methods, methods) || m.Seed != 233 {
		t.Errorf("manifest = %+v, %v", m, err)
	}
}

// checkProgress: one report before any result, then one per result, with
// Done rising by one up to total.
func checkProgress(t *testing.T, reports []Progress, total int) {
	t.Helper()
	if len(reports) != total+1 {
		t.Fatalf("%d progress reports, want %d", len(reports), total+1)
	}
	for i, p := range reports {
		if p.Done != i || p.Total != total || (i == 0) != (p.Last == nil) {
			t.Fatalf("report %d: %+v", i, p)
		}
	}
	last := reports[total]
	n := 0
	for _, mp := range last.Methods {
		n += mp.Done
	}
	if n != total || last.EMIn <= 0 || last.EMIn >= 1 {
		t.Errorf("last report %+v", last)
	}
}

// testResume cancels a run after some questions, tears the results
// file's last line as a crash would, resumes, and checks that every
// (method, question) is recorded exactly once.
func testResume(t *testing.T, db store.KG, qs []dataset.Question) {
	dir := t.TempDir()
	methods := []string{"tot", "cot"}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cfg := Config{Questions: qs, Methods: methods, Out: dir, Concurrency: 3, Registry: registry(),
		Deps: reasoner.Deps{KG: db, Model: lexical.Policy{}}, Graphs: []string{"film"},
		Progress: func(p Progress) {
			if p.Done == 10 {
				cancel()
			}
		}}
	sum, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: err = %v", err)
	}
	path := filepath.Join(dir, ResultsFile)
	first := readKeys(t, path)
	if len(first) < 10 || len(first) >= 74 || len(first) != sum.Ran {
		t.Fatalf("first run recorded %d results (summary %d)", len(first), sum.Ran)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"director-jaws","method":"tot","answer":"Steven Spi`)
	f.Close()

	cfg.Resume = true
	cfg.Progress = nil
	sum, err = Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed != len(first) || sum.Ran != 74-len(first) {
		t.Errorf("resume: resumed %d, ran %d (first run had %d)", sum.Resumed, sum.Ran, len(first))
	}
	all := readKeys(t, path)
	if !slices.Equal(all[:len(first)], first) {
		t.Error("resume rewrote the first run's records")
	}
	if got, want := sorted(all), wantKeys(methods, qs); !slices.Equal(got, want) {
		t.Fatalf("after resume: %d records, want %d (lost or duplicated)", len(got), len(want))
	}
	sum, err = Run(t.Context(), cfg)
	if err != nil || sum.Ran != 0 || sum.Resumed != 74 {
		t.Errorf("third run: %+v, %v", sum, err)
	}
}

// testShards runs two shards into separate directories and merges them.
func testShards(t *testing.T, db store.KG, qs []dataset.Question) {
	root := t.TempDir()
	var dirs []string
	for i := 1; i <= 2; i++ {
		dir := filepath.Join(root, "shard", string(rune('0'+i)))
		_, err := Run(t.Context(), Config{Questions: qs, Methods: []string{"chain"}, Out: dir, Limit: 9,
			Shard: Shard{Index: i, Count: 2}, Registry: registry(), Deps: reasoner.Deps{KG: db, Model: lexical.Policy{}}})
		if err != nil {
			t.Fatal(err)
		}
		n := len(readKeys(t, filepath.Join(dir, "results.shard-"+string(rune('0'+i))+"-of-2.jsonl")))
		if want := []int{5, 4}[i-1]; n != want {
			t.Errorf("shard %d has %d results, want %d", i, n, want)
		}
		dirs = append(dirs, dir)
	}
	out := filepath.Join(root, "merged")
	ms, err := Merge(out, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Results != 9 || ms.Questions != 9 || ms.TracesCopied != 9 {
		t.Errorf("merge = %+v", ms)
	}
	loaded, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	sample := dataset.Sample(qs, 9, dataset.DefaultSeed)
	for i, l := range loaded {
		if l.Index != i || l.ID != sample[i].ID {
			t.Errorf("merged result %d: index %d id %s, want %s", i, l.Index, l.ID, sample[i].ID)
		}
		if _, err := ReadTrace(l.TracePath()); err != nil || !strings.HasPrefix(l.TracePath(), out) {
			t.Errorf("trace %s: %v", l.TracePath(), err)
		}
	}
	if _, err := Merge(filepath.Join(root, "bad"), dirs[0], t.TempDir()); err == nil {
		t.Error("merging a directory without results succeeded")
	}
}
