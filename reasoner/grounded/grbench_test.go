package grounded

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
)

// grbenchQuestion is one line of a GRBench question file.
type grbenchQuestion struct {
	QID      string `json:"qid"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// grbenchQuestions reads the given qids of a GRBench domain from
// testdata/<domain>-questions.jsonl: the upstream lines of those questions
// (PeterGriffinJin/Graph-CoT data/processed_data, Apache-2.0), unchanged.
func grbenchQuestions(t *testing.T, domain string, qids ...string) map[string]grbenchQuestion {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", domain+"-questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]bool{}
	for _, q := range qids {
		want[q] = true
	}
	out := map[string]grbenchQuestion{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var q grbenchQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s.jsonl:%d: %v", domain, line, err)
		}
		if want[q.QID] {
			out[q.QID] = q
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(qids) {
		t.Fatalf("found %d of the qids %v", len(out), qids)
	}
	return out
}

// TestGRBenchGoodreads answers real GRBench questions (Goodreads qids 40,
// 60 and 140) end to end against the hand-built fixture, whose facts make
// the dataset's answers true.
func TestGRBenchGoodreads(t *testing.T) {
	qs := grbenchQuestions(t, "goodreads", "40", "60", "140")
	db := goodreads(t)
	t.Run("qid 60 explore-cot, lexical policy", func(t *testing.T) {
		q := qs["60"]
		tr := answer(t, db, lexical.Policy{}, nil, DefaultConfig(Explore, CoT), reasoner.Query{Question: q.Question})
		if tr.Answer.Text != q.Answer {
			t.Errorf("answer %+v, dataset says %q", tr.Answer, q.Answer)
		}
	})
	t.Run("qid 40 agent-tot select", func(t *testing.T) {
		q := qs["40"]
		if q.Question != qid40 {
			t.Fatalf("qid 40 is %q", q.Question)
		}
		ev := newFake(map[string]func(fcall) string{TaskSelect: voteFor("find the book Demelza")})
		tr := answer(t, db, branching(nil), ev, DefaultConfig(Agent, ToT), reasoner.Query{Question: q.Question})
		if tr.Answer.Text != q.Answer || !tr.Answer.Confident {
			t.Errorf("answer %+v, dataset says %q", tr.Answer, q.Answer)
		}
	})
	t.Run("qid 140 agent-cot", func(t *testing.T) {
		q := qs["140"]
		m := agentModel([]string{"I count the similar books."}, []string{
			"RetrieveNode[The Heartbreakers (The Heartbreakers Chronicles, #1)]",
			"NodeDegree[book/15, similar_books]", "Finish[18]"}, nil)
		tr := answer(t, db, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: q.Question})
		if tr.Answer.Text != q.Answer {
			t.Errorf("answer %+v, dataset says %q", tr.Answer, q.Answer)
		}
	})
}
