package eval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/tot"
)

// demoQuestions is the bundled demo question set.
const demoQuestions = "../../data/film-questions.jsonl"

func loadDemo(t testing.TB) []dataset.Question {
	t.Helper()
	qs, err := dataset.Load(demoQuestions, dataset.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 37 {
		t.Fatalf("demo questions: %d, want 37", len(qs))
	}
	return qs
}

func registry() *reasoner.Registry {
	reg := reasoner.NewRegistry()
	tot.Register(reg)
	baseline.Register(reg)
	return reg
}

// goldModel is a scripted model that answers the cot calls with each
// question's gold answers and never knows the answer in zero-shot.
func goldModel(qs []dataset.Question) *llm.Scripted {
	gold := map[string]string{}
	for _, q := range qs {
		gold[q.Question] = strings.Join(q.Answers, ", ")
	}
	return &llm.Scripted{Rules: []llm.Rule{
		{Name: baseline.TaskZeroShot, Func: llm.Reply("Answer: I cannot tell.")},
		{Name: baseline.TaskReason, Func: func(req llm.Request, _ int) (string, error) {
			return "Recalling the film's credits.", nil
		}},
		{Name: baseline.TaskAnswer, Func: func(req llm.Request, _ int) (string, error) {
			return "Answer: " + gold[req.Task.Question], nil
		}},
	}}
}

// readKeys returns the (method, id) keys of a results file in file order.
func readKeys(t *testing.T, path string) []string {
	t.Helper()
	rs, torn, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); torn != st.Size() {
		t.Fatalf("%s has a torn line at %d of %d", path, torn, st.Size())
	}
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Method + "/" + r.ID
	}
	return keys
}

// wantKeys lists every method/id pair.
func wantKeys(methods []string, qs []dataset.Question) []string {
	var out []string
	for _, q := range qs {
		for _, m := range methods {
			out = append(out, m+"/"+q.ID)
		}
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

func byKey(rs []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range rs {
		m[r.Method+"/"+r.ID] = r
	}
	return m
}

func fileExists(t *testing.T, dir, rel string) {
	t.Helper()
	if rel == "" {
		t.Error("no trace file recorded")
		return
	}
	if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
		t.Error(err)
	}
}
