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
