package reasoner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// NameAnswer settles an answer whose text is exactly the id of an entity
// the KG knows ("Q3247097"): an id is not an answer a reader can use, so
// the text becomes the entity's label, with the id among the answer's
// Entities; an entity without a label leaves the text as it is but makes
// the answer not confident, and the reason says why. Any other answer, a
// text that is no entity id, and a failed lookup return a unchanged. Only
// texts that look like ids (one word with a letter and a digit) are
// looked up, so ordinary answers cost no KG call.
func NameAnswer(ctx context.Context, kg store.KG, a trace.Answer) trace.Answer {
	id := strings.TrimSpace(a.Text)
	if !a.Found || kg == nil || !idLike(id) {
		return a
	}
	e, err := kg.Entity(ctx, id)
	if err != nil || e.Literal || e.ID != id {
		if err != nil && !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
			a.Reason = strings.TrimSpace(a.Reason + " (the answer looks like an id; looking it up failed: " + err.Error() + ")")
		}
		return a
	}
	if !slices.Contains(a.Entities, id) {
		a.Entities = append(slices.Clone(a.Entities), id)
	}
	if subgraph.HasLabel(e.ID, e.Label) {
		a.Text = strings.Join(strings.Fields(e.Label), " ")
		return a
	}
	a.Confident = false
	r := "the answer is the id of an entity without a label (" + subgraph.Unlabelled(id) + ")"
	if a.Reason != "" {
		r = a.Reason + "; " + r
	}
	a.Reason = r
	return a
}

// idLike reports one word holding both a letter and a digit ("Q42",
// "book/2284", "/m/02mjmr"), but no year, number or name.
func idLike(s string) bool {
	if s == "" || len(s) > 200 || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	return strings.ContainsFunc(s, unicode.IsLetter) && strings.ContainsFunc(s, unicode.IsDigit)
}
