package reasoner_test

import (
	"slices"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/grounded"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/rtsog"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestFilmLexical: every KG method answers "Who directed Blade Runner?"
// with Ridley Scott on the Freebase film sample with the deterministic
// lexical policy and no LLM, grounded in the directed-by edge. The sample
// is loaded once (it takes seconds) for all methods. Every call is bounded
// by the max_tokens parameter.
func TestFilmLexical(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the film sample")
	}
	reg := reasoner.NewRegistry()
	tot.Register(reg)
	grounded.Register(reg)
	rtsog.Register(reg)
	want := []string{"agent-cot", "agent-got", "agent-tot", "chain", "explore-cot", "explore-got", "explore-tot", "rtsog", "tot"}
	if got := reg.Names(); !slices.Equal(got, want) {
		t.Fatalf("registered methods %v, want %v", got, want)
	}
	db := storetest.Film(t)
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			r, err := reg.New(name, reasoner.Deps{KG: db, Model: lexical.Policy{}}, reasoner.Params{reasoner.ParamMaxTokens: 300})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := r.Answer(t.Context(), reasoner.Query{Question: "Who directed Blade Runner?"})
			if err != nil {
				t.Fatal(err)
			}
			a := tr.Answer
			if !a.Found || a.Text != "Ridley Scott" || !slices.Equal(a.Entities, []string{"/en/ridley_scott"}) {
				t.Fatalf("answer %+v (warnings %+v)", a, tr.Warnings)
			}
			if !slices.ContainsFunc(a.Support, func(e store.Edge) bool {
				return e.Subject.ID == "/en/blade_runner" && e.Relation == "/film/film/directed_by" && e.Object.ID == "/en/ridley_scott"
			}) {
				t.Errorf("support %+v lacks Blade Runner -directed by-> Ridley Scott", a.Support)
			}
			if tr.Params[reasoner.ParamMaxTokens] != 300 {
				t.Errorf("trace params %v: max_tokens is not 300", tr.Params)
			}
			for _, c := range tr.ModelCalls {
				if c.Model != lexical.ModelName {
					t.Errorf("model call %d answered by %q", c.Seq, c.Model)
				}
				if c.MaxTokens < 1 || c.MaxTokens > 300 {
					t.Errorf("model call %d (%s) sent max tokens %d, want 1..300", c.Seq, c.Task, c.MaxTokens)
				}
			}
		})
	}
}
