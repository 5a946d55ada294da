package eval

import (
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/trace"
)

// TestNonAnswerScoresZero: a result without an answer scores 0 on every
// metric, whatever its text, and an answer scores as usual.
func TestNonAnswerScoresZero(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer trace.Answer
		gold   []string
		ids    []string
		want   float64 // every score
	}{
		{"gave up on a gold No", trace.Answer{Text: "unknown"}, []string{"No"}, nil, 0},
		{"gave up echoing the gold", trace.Answer{Text: "unknown"}, []string{"unknown"}, nil, 0},
		{"not found but names the gold", trace.Answer{Text: "Paris", Entities: []string{"Q90"}}, []string{"Paris"},
			[]string{"Q90"}, 0},
		{"found", trace.Answer{Found: true, Text: "Paris", Entities: []string{"Q90"}}, []string{"Paris"},
			[]string{"Q90"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := job{q: dataset.Question{ID: "1", Question: "q?", Answers: tc.gold, AnswerIDs: tc.ids},
				method: method{name: "cot"}}
			res := newResult(j, &trace.Trace{Answer: tc.answer}, nil, 0, "")
			if len(res.Scores) == 0 {
				t.Fatal("no scores")
			}
			for k, v := range res.Scores {
				if v != tc.want {
					t.Errorf("%s = %v, want %v", k, v, tc.want)
				}
			}
		})
	}
}
