package report

import (
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval"
)

func TestIncomplete(t *testing.T) {
	rows := func(ns ...int) []MethodRow {
		var out []MethodRow
		for i, n := range ns {
			out = append(out, MethodRow{Method: []string{"tot", "cot"}[i], N: n})
		}
		return out
	}
	for _, c := range []struct {
		name      string
		manifests []eval.Manifest
		questions int
		methods   []MethodRow
		want      string // "" = complete
		header    string
	}{
		{"complete", []eval.Manifest{{Questions: 40}}, 40, rows(40, 40), "", "(40 questions, 2 methods)"},
		{"killed after 11", []eval.Manifest{{Questions: 40}}, 11, rows(11, 11), "11 of 40 questions have results",
			"(11 of 40 questions, 2 methods)"},
		{"methods uneven", []eval.Manifest{{Questions: 40}}, 11, rows(11, 9),
			"the methods have results for different questions (tot 11, cot 9)", "(11 of 40 questions, 2 methods)"},
		{"shards counted once each", []eval.Manifest{{Shard: "1/2", Questions: 20}, {Shard: "2/2", Questions: 20},
			{Shard: "1/2", Questions: 20}}, 40, rows(40), "", "(40 questions, 1 methods)"},
		{"no manifest", nil, 5, rows(5), "", "(5 questions, 1 methods)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Report{Dirs: []string{"d"}, Questions: c.questions, Planned: planned(c.manifests), Methods: c.methods}
			r.Incomplete = incomplete(r.Questions, r.Planned, r.Methods)
			if c.want == "" && r.Incomplete != "" || !strings.Contains(r.Incomplete, c.want) {
				t.Errorf("incomplete = %q, want %q", r.Incomplete, c.want)
			}
			var b strings.Builder
			if err := r.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if !strings.Contains(md, c.header) || strings.Contains(md, "Incomplete") != (c.want != "") {
				t.Errorf("report header:\n%.400s", md)
			}
		})
	}
}

func TestHits1NotApplicable(t *testing.T) {
	res := func(method, id string, entities []string, hits *float64) eval.Loaded {
		l := eval.Loaded{}
		l.Method, l.ID, l.Found, l.AnswerEntities = method, id, true, entities
		l.Scores = map[string]float64{eval.ScoreEMIn: 1}
		if hits != nil {
			l.Scores[eval.ScoreHits1] = *hits
		}
		return l
	}
	one, zero := 1.0, 0.0
	rs := []eval.Loaded{
		res("tot", "q1", []string{"/en/ridley_scott"}, &one),
		res("tot", "q2", nil, nil), // no gold ids
		res("cot", "q1", nil, &zero),
		res("cot", "q2", nil, nil),
	}
	r := &Report{Methods: methodRows([]string{"tot", "cot"}, rs), Scores: []string{eval.ScoreEMIn, eval.ScoreHits1}}
	if got, ok := r.Methods[0].Scores[eval.ScoreHits1]; !ok || got != 1 || r.Methods[0].Hits1N != 1 {
		t.Errorf("tot Hits@1 %v (%v) over %d, want 1 over 1", got, ok, r.Methods[0].Hits1N)
	}
	if got, ok := r.Methods[1].Scores[eval.ScoreHits1]; ok {
		t.Errorf("cot, whose answers name no entity, has Hits@1 %v", got)
	}
	note := r.hits1Note()
	for _, want := range []string{"tot 1 of 2", "not applicable to cot"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}
