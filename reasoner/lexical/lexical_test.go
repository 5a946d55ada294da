package lexical

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

func lexicalText(t *testing.T, task llm.Task) string {
	t.Helper()
	resp, err := Policy{}.Generate(context.Background(), llm.Request{Prompt: "ignored", N: 3, Task: structured(task)})
	if err != nil {
		t.Fatalf("Generate(%+v): %v", task, err)
	}
	if len(resp.Texts) != 3 || resp.Texts[0] != resp.Texts[1] || resp.Texts[1] != resp.Texts[2] {
		t.Fatalf("want 3 identical texts, got %q", resp.Texts)
	}
	if resp.Model != ModelName || resp.CacheHits != 0 || resp.Usage != (llm.Usage{}) {
		t.Fatalf("bad response metadata %+v", resp)
	}
	return resp.Texts[0]
}

func TestStem(t *testing.T) {
	groups := [][]string{
		{"directed", "director", "directors", "directing"},
		{"movie", "movies"},
		{"country", "countries"},
		{"starred", "star", "stars", "starring"},
		{"released", "release", "releases"},
		{"boxes", "box"},
	}
	for _, g := range groups {
		for _, w := range g[1:] {
			if stem(w) != stem(g[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want equal", w, stem(w), g[0], stem(g[0]))
			}
		}
	}
	if stem("q42") != "q42" || stem("film") != "film" {
		t.Error("ids and short words must not change")
	}
}

func TestLexicalSelect(t *testing.T) {
	opts := []llm.Option{{ID: "P161", Text: "cast member"}, {ID: "P57", Text: "director"}, {ID: "P136", Text: "genre"}, {ID: "P577", Text: "publication date"}}
	tests := []struct {
		name string
		task llm.Task
		want string
	}{
		{"question overlap", llm.Task{Question: "Who directed Blade Runner?", Options: opts, Pick: 1}, "P57"},
		{"pick two, context second", llm.Task{Question: "Who directed Blade Runner?", Context: "its genre matters", Options: opts, Pick: 2}, "P57, P136"},
		{"only overlapping options", llm.Task{Question: "Who directed Blade Runner?", Options: opts, Pick: 3}, "P57"},
		{"nothing overlaps", llm.Task{Question: "How tall is Everest?", Options: opts, Pick: 2}, "none"},
		{"id when text empty", llm.Task{Question: "is Q42 a human", Options: []llm.Option{{ID: "Q1"}, {ID: "Q42"}}}, "Q42"},
		{"accents folded", llm.Task{Question: "Who directed Amelie?", Options: []llm.Option{{ID: "/en/amelie", Text: "Amélie"}, {ID: "/en/x", Text: "Amiel"}}}, "/en/amelie"},
		{"accents folded in the question", llm.Task{Question: "Wer hat Amélie gedreht?", Options: []llm.Option{{ID: "a", Text: "Amelie Poulain"}}}, "a"},
		{"tie broken by coverage", llm.Task{Question: "film director", Options: []llm.Option{{ID: "a", Text: "director of photography"}, {ID: "b", Text: "director"}}}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.task.Kind = llm.KindSelect
			got := lexicalText(t, tt.task)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if _, err := llm.ParseSelection(got, tt.task.Options, tt.task.Pick); err != nil {
				t.Errorf("reply %q does not parse: %v", got, err)
			}
		})
	}
}

func TestLexicalAction(t *testing.T) {
	all := []llm.Option{{ID: "THINK"}, {ID: "EXPAND_KG"}, {ID: "ANSWER"}}
	q := "Who directed Blade Runner?"
	tests := []struct {
		name    string
		context string
		opts    []llm.Option
		want    string
	}{
		{"answer from edge", "Blade Runner | director | Ridley Scott", all, "ANSWER: Ridley Scott"},
		{"answer from reversed edge", "Ridley Scott | directed | Blade Runner", all, "ANSWER: Ridley Scott"},
		{"relation off topic", "Blade Runner | cast member | Harrison Ford", all, "EXPAND_KG"},
		{"both ends on topic", "Blade Runner | director | Blade Runner (director's cut)", all, "EXPAND_KG"},
		{"no edges", "Blade Runner is a 1982 film.", all, "EXPAND_KG"},
		{"think when no expand", "", []llm.Option{{ID: "THINK"}, {ID: "ANSWER"}}, "THINK: the question is about directed, blade, runner."},
		{"answer unknown as last resort", "", []llm.Option{{ID: "ANSWER"}}, "ANSWER: unknown"},
		{"first option otherwise", "", []llm.Option{{ID: "STOP"}}, "STOP"},
		{"candidate but no answer action", "Blade Runner | director | Ridley Scott", []llm.Option{{ID: "EXPAND_KG"}}, "EXPAND_KG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lexicalText(t, llm.Task{Kind: llm.KindAction, Question: q, Context: tt.context, Options: tt.opts})
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			ids := make([]string, len(tt.opts))
			for i, o := range tt.opts {
				ids[i] = o.ID
			}
			if _, _, err := llm.ParseAction(got, ids); err != nil {
				t.Errorf("reply does not parse: %v", err)
			}
		})
	}
	if _, err := (Policy{}).Generate(context.Background(), llm.Request{Task: llm.Task{Kind: llm.KindAction}}); err == nil {
		t.Error("action without options: want error")
	}
}

func TestLexicalScore(t *testing.T) {
	q := "Who directed Blade Runner?"
	tests := []struct {
		cand string
		want float64
	}{
		{"Blade Runner was directed by Ridley Scott", 1},
		{"Blade Runner stars Harrison Ford", 2.0 / 3},
		{"Alien is a film", 0},
	}
	for _, tt := range tests {
		got, err := llm.ParseScore(lexicalText(t, llm.Task{Kind: llm.KindScore, Question: q, Candidate: tt.cand}))
		if err != nil || got < tt.want-0.01 || got > tt.want+0.01 {
			t.Errorf("score(%q) = %v, %v; want %.2f", tt.cand, got, err, tt.want)
		}
	}
}

func TestLexicalVote(t *testing.T) {
	opts := []llm.Option{{ID: "a", Text: "Harrison Ford starred"}, {ID: "b", Text: "Ridley Scott directed Blade Runner"}}
	got, err := llm.ParseVote(lexicalText(t, llm.Task{Kind: llm.KindVote, Question: "Who directed Blade Runner?", Options: opts}), opts)
	if err != nil || got != "b" {
		t.Errorf("vote = %q, %v; want b", got, err)
	}
	got, err = llm.ParseVote(lexicalText(t, llm.Task{Kind: llm.KindVote, Question: "unrelated", Options: opts}), opts)
	if err != nil || got != "a" {
		t.Errorf("vote without overlap = %q, %v; want first option", got, err)
	}
	if _, err := (Policy{}).Generate(context.Background(), llm.Request{Task: llm.Task{Kind: llm.KindVote}}); err == nil {
		t.Error("vote without options: want error")
	}
}

func TestLexicalExtract(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"Who directed Blade Runner?", []string{"Blade Runner"}},
		{"Where was Barack Obama born?", []string{"Barack Obama"}},
		{"Who wrote The Lord of the Rings?", []string{"The Lord of the Rings"}},
		{"What is Barack Obama's wife's name?", []string{"Barack Obama"}},
		{"Which film by Ridley Scott starred Harrison Ford?", []string{"Ridley Scott", "Harrison Ford"}},
		{"Is Blade Runner 2049 a sequel?", []string{"Blade Runner 2049"}},
		{`Who sang "let it be"?`, []string{"let it be"}},
		{"Who sang 'hey jude' in 1968?", []string{"hey jude"}},
		{"Paris, France and Berlin", []string{"Paris", "France", "Berlin"}},
		{"what is the tallest mountain?", []string{}},
	}
	for _, tt := range tests {
		got := llm.ParseLines(lexicalText(t, llm.Task{Kind: llm.KindExtract, Question: tt.q}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("extract(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	got := llm.ParseLines(lexicalText(t, llm.Task{Kind: llm.KindExtract, Context: "Ridley Scott met Harrison Ford."}))
	if !slices.Equal(got, []string{"Ridley Scott", "Harrison Ford"}) {
		t.Errorf("extract from context = %q", got)
	}
}

func TestLexicalAnswer(t *testing.T) {
	q := "Who directed Blade Runner?"
	tests := []struct {
		name string
		task llm.Task
		want string
	}{
		{"unmentioned options", llm.Task{Question: q, Options: []llm.Option{{ID: "Q184843", Text: "Blade Runner"}, {ID: "Q56005", Text: "Ridley Scott"}}}, "Q56005"},
		{"all mentioned", llm.Task{Question: q, Options: []llm.Option{{ID: "Q184843", Text: "Blade Runner"}}}, "unknown"},
		{"id mentioned", llm.Task{Question: "Who is Q42?", Options: []llm.Option{{ID: "Q42", Text: "Douglas Adams"}, {ID: "Q5", Text: "human"}}}, "Q5"},
		{"several", llm.Task{Question: "Who starred in Alien?", Options: []llm.Option{{ID: "a", Text: "Sigourney Weaver"}, {ID: "b", Text: "John Hurt"}}}, "a, b"},
		{"from context edge", llm.Task{Question: q, Context: "Blade Runner | director | Ridley Scott"}, "Ridley Scott"},
		{"nothing", llm.Task{Question: q}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.task.Kind = llm.KindAnswer
			got, err := llm.ParseAnswer(lexicalText(t, tt.task))
			if err != nil || got != tt.want {
				t.Errorf("answer = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLexicalYesNo(t *testing.T) {
	q := "Who directed Blade Runner?"
	tests := []struct {
		cand, ctx string
		want      bool
	}{
		{"Ridley Scott directed Blade Runner", "", true},
		{"Ridley Scott", "Blade Runner | director | Ridley Scott", true},
		{"Blade", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		yes, reason, err := llm.ParseYesNo(lexicalText(t, llm.Task{Kind: llm.KindYesNo, Question: q, Candidate: tt.cand, Context: tt.ctx}))
		if err != nil || yes != tt.want || reason == "" {
			t.Errorf("yesno(%q, %q) = %v, %q, %v; want %v with a reason", tt.cand, tt.ctx, yes, reason, err, tt.want)
		}
	}
}

func TestLexicalFreeAndErrors(t *testing.T) {
	got := lexicalText(t, llm.Task{Kind: llm.KindFree, Question: "Who directed Blade Runner?"})
	if !strings.Contains(got, "directed, blade, runner") {
		t.Errorf("free = %q", got)
	}
	if _, err := (Policy{}).Generate(context.Background(), llm.Request{Task: llm.Task{Kind: "bogus"}}); err == nil {
		t.Error("unknown kind: want error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Policy{}).Generate(ctx, llm.Request{Task: llm.Task{Kind: llm.KindFree}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: got %v", err)
	}
	resp, err := Policy{}.Generate(context.Background(), llm.Request{N: 0, Task: llm.Task{Kind: llm.KindFree}})
	if err != nil || len(resp.Texts) != 1 {
		t.Errorf("N=0 must give one text: %v, %v", resp.Texts, err)
	}
}
