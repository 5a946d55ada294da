package sim

import (
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

const question = "Which films did the director of Blade Runner direct?"

// gold is the two-hop path Blade Runner -> directed by -> Ridley Scott ->
// directed -> {Blade Runner, Alien}.
func gold() Gold {
	br, rs, al := Ent{ID: "f1", Label: "Blade Runner"}, Ent{ID: "p1", Label: "Ridley Scott"}, Ent{ID: "f2", Label: "Alien"}
	return Gold{ID: "q", Question: question, Answers: []string{"Alien"}, Hops: []Hop{
		{From: []Ent{br}, Relation: "directed by", To: []Ent{rs}},
		{From: []Ent{rs}, Relation: "directed", To: []Ent{br, al}},
	}}
}

func oracle(t *testing.T, p float64) *Oracle {
	t.Helper()
	o, err := NewOracle([]Gold{gold()}, OracleConfig{P: p, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func ask(t *testing.T, o *Oracle, task llm.Task, n int) []string {
	t.Helper()
	task.Question = question
	resp, err := o.Generate(t.Context(), llm.Request{N: n, Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Texts) != max(1, n) || resp.Model != OracleModelName {
		t.Fatalf("response %+v", resp)
	}
	return resp.Texts
}

// Contexts as Tree-of-Traversals writes them.
const (
	ctxStart   = "Entities: Blade Runner\n"
	ctxHop1    = "Entities: Blade Runner; Ridley Scott\nBlade Runner -> directed by -> Ridley Scott\n"
	ctxAnswers = ctxHop1 + "Alien -> directed by -> Ridley Scott\n"
)

var (
	actions  = []llm.Option{{ID: "THINK"}, {ID: "EXPAND_KG"}, {ID: "ANSWER"}}
	entities = []llm.Option{{ID: "f1", Text: "Blade Runner"}, {ID: "p1", Text: "Ridley Scott"}, {ID: "x9", Text: "Harrison Ford"}}
	rels     = []llm.Option{{ID: "R1", Text: "starring"}, {ID: "R2", Text: "directed by"}, {ID: "R3", Text: "directed"}}
)

// TestPerfectOracle: with P=1 and no noise every reply is the right one.
func TestPerfectOracle(t *testing.T) {
	o := oracle(t, 1)
	for _, tc := range []struct {
		name string
		task llm.Task
		want string
	}{
		{"extract", llm.Task{Kind: llm.KindExtract}, "Blade Runner"},
		{"link", llm.Task{Kind: llm.KindSelect, Name: "tot/link", Context: "Blade Runner",
			Options: []llm.Option{{ID: "f9", Text: "Blade Runner 2049"}, {ID: "f1", Text: "Blade Runner - 1982 film"}}}, "f1"},
		{"expand first", llm.Task{Kind: llm.KindAction, Context: ctxStart, Options: actions},
			"EXPAND_KG: [hop 1] find the directed by of Blade Runner"},
		{"expand second", llm.Task{Kind: llm.KindAction, Context: ctxHop1, Options: actions},
			"EXPAND_KG: [hop 2] find the directed of Ridley Scott"},
		{"answer", llm.Task{Kind: llm.KindAction, Context: ctxAnswers, Options: actions}, "ANSWER: Alien"},
		{"select by tag", llm.Task{Kind: llm.KindSelect, Context: "[hop 2] find ...", Options: entities, Pick: 3}, "p1"},
		{"select deepest", llm.Task{Kind: llm.KindSelect, Options: entities, Pick: 3}, "p1"},
		{"relation by tag", llm.Task{Kind: llm.KindSelect, Context: "[hop 1] x", Options: rels, Pick: 1}, "R2"},
		{"relation deepest", llm.Task{Kind: llm.KindSelect, Options: rels, Pick: 1}, "R3"},
		{"score right answer", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate-answer", Candidate: "Alien\nSupporting edges:"}, "Score: 1.00"},
		{"score wrong answer", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate-answer", Candidate: "Ridley Scott"}, "Score: 0.00"},
		{"score start", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate", Candidate: "\n" + ctxStart}, "Score: 0.25"},
		{"score good expand", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate",
			Candidate: "EXPAND_KG: [hop 1] find\n" + ctxStart}, "Score: 0.40"},
		{"score wrong entities", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate",
			Candidate: "EXPAND_KG: [hop 1] x\nSELECT_ENTITIES: x9 (Harrison Ford)\n" + ctxStart}, "Score: 0.10"},
		{"score hop reached", llm.Task{Kind: llm.KindScore, Name: "tot/evaluate",
			Candidate: "SELECT_RELATION: directed by (/film/directed_by, out)\nOBSERVATION: 1 new edge\n" + ctxHop1}, "Score: 0.65"},
		{"vote", llm.Task{Kind: llm.KindVote, Options: []llm.Option{{ID: "a", Text: "Jaws"}, {ID: "b", Text: "Alien"}}}, "Best: b"},
		{"yes", llm.Task{Kind: llm.KindYesNo, Candidate: "It is Alien."}, "Yes"},
		{"no", llm.Task{Kind: llm.KindYesNo, Candidate: "It is Jaws."}, "No"},
		{"answer from context", llm.Task{Kind: llm.KindAnswer, Context: ctxAnswers}, "Answer: Alien"},
		{"answer without recall", llm.Task{Kind: llm.KindAnswer}, "Answer: unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ask(t, o, tc.task, 1)[0]; !strings.HasPrefix(got, tc.want) && !strings.HasSuffix(got, tc.want) {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMistakes: with P=0 every decision with a wrong option takes one.
func TestMistakes(t *testing.T) {
	o := oracle(t, 0)
	for range 20 {
		for i, got := range ask(t, o, llm.Task{Kind: llm.KindAction, Context: ctxAnswers, Options: actions}, 5) {
			if strings.Contains(got, "Alien") {
				t.Fatalf("sample %d answered right: %q", i, got)
			}
		}
		if got := ask(t, o, llm.Task{Kind: llm.KindSelect, Options: entities, Pick: 3}, 1)[0]; got == "p1" {
			t.Fatalf("selected the right entity")
		}
	}
	// Without a wrong option there is no mistake to make.
	if got := ask(t, o, llm.Task{Kind: llm.KindSelect, Options: entities[1:2], Pick: 1}, 1)[0]; got != "p1" {
		t.Errorf("single option: %q", got)
	}
	if got := ask(t, o, llm.Task{Kind: llm.KindYesNo, Candidate: "Alien"}, 1)[0]; !strings.HasPrefix(got, "No") {
		t.Errorf("yes/no not flipped: %q", got)
	}
}

// TestNoisyOracle: at P=0.5 samples of one request differ, the share of
// right choices is near P, and replies are reproducible per seed.
func TestNoisyOracle(t *testing.T) {
	o := oracle(t, 0.5)
	task := llm.Task{Kind: llm.KindAction, Context: ctxStart, Options: actions}
	replies := ask(t, o, task, 400)
	right := 0
	for _, r := range replies {
		if strings.HasPrefix(r, "EXPAND_KG: [hop 1]") {
			right++
		}
	}
	if right < 160 || right > 240 {
		t.Errorf("%d of 400 samples right at P=0.5", right)
	}
	if again := ask(t, o, task, 400); strings.Join(again, "|") != strings.Join(replies, "|") {
		t.Error("the same request gave other replies")
	}
	other, _ := NewOracle([]Gold{gold()}, OracleConfig{P: 0.5, Seed: 8})
	if diff := ask(t, other, task, 400); strings.Join(diff, "|") == strings.Join(replies, "|") {
		t.Error("another seed gave the same replies")
	}
	noisy, _ := NewOracle([]Gold{gold()}, OracleConfig{P: 1, Noise: 0.2, Seed: 1})
	scores := ask(t, noisy, llm.Task{Kind: llm.KindScore, Name: "tot/evaluate-answer", Candidate: "Alien"}, 50)
	if distinct(scores) < 5 {
		t.Errorf("noisy scores barely vary: %v", scores)
	}
}

func distinct(xs []string) int {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return len(m)
}

func TestRecall(t *testing.T) {
	o, _ := NewOracle([]Gold{gold()}, OracleConfig{P: 1, Recall: 1})
	if got := ask(t, o, llm.Task{Kind: llm.KindAnswer, Context: "I need to follow directed by"}, 1)[0]; got != "Answer: Alien" {
		t.Errorf("recall 1: %q", got)
	}
}

func TestOracleErrors(t *testing.T) {
	o := oracle(t, 1)
	for _, tc := range []struct {
		task llm.Task
		want string
	}{
		{llm.Task{Kind: llm.KindAnswer, Question: "Who is Bob?"}, `question "Who is Bob?" is not in the gold set`},
		{llm.Task{Kind: "dance", Question: question}, `unknown task kind "dance"`},
		{llm.Task{Kind: llm.KindAction, Question: question}, "action task has no options"},
		{llm.Task{Kind: llm.KindVote, Question: question}, "vote task has no options"},
	} {
		if _, err := o.Generate(t.Context(), llm.Request{Task: tc.task}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	for _, cfg := range []OracleConfig{{P: 1.5}, {P: -0.1}, {Recall: 2}, {Noise: -1}} {
		if _, err := NewOracle([]Gold{gold()}, cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := NewOracle([]Gold{{ID: "e", Question: "q"}}, OracleConfig{}); err == nil {
		t.Error("gold without hops accepted")
	}
}

func FuzzReadView(f *testing.F) {
	f.Add(ctxAnswers)
	f.Add("Entities: a (Q1); b\nx -> y -> z (start: 1)\n -> -> ")
	f.Fuzz(func(t *testing.T, s string) {
		v := readView(s)
		for n := range v.names {
			if n == "" || n != norm(n) {
				t.Fatalf("name %q is not normalised", n)
			}
		}
	})
}

func FuzzHopTag(f *testing.F) {
	for _, s := range []string{"[hop 2] find", "[hop x]", "[hop 3", "a [hop -1] b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := hopTag(s)
		if ok && !strings.Contains(s, "[hop ") {
			t.Fatalf("hopTag(%q) = %d without a tag", s, n)
		}
	})
}

func TestUsageCountsWords(t *testing.T) {
	o := oracle(t, 1)
	resp, err := o.Generate(t.Context(), llm.Request{N: 2, Messages: []llm.Message{{Content: "one two"}, {Content: "three"}},
		Task: llm.Task{Kind: llm.KindExtract, Question: question}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.PromptTokens != 3 || resp.Usage.CompletionTokens != 4 {
		t.Errorf("usage %+v (replies %q)", resp.Usage, resp.Texts)
	}
}
