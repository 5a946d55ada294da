package reasoner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// NameAnswer settles an answer whose text is exactly the id of an entity
// the KG knows ("Q3247097"): an id is not an answer a reader can use, so
// the text becomes the entity's label. graphs are the query's graphs
// (empty: every graph). Only an id the reasoning saw is named, and only
// within the query's graphs; the answer's Entities tell what it saw,
// since every method resolves its answer against what its model was
// shown (see trace.Answer.Entities): the answer node's local graph for
// Tree-of-Traversals and its chain, the chain's retrieved triples and the
// entities its searches and explorations found for the graph-grounded
// methods, the entities of the paths the answer prompt showed for RTSoG,
// nothing for the baselines, which see no KG.
//
// An id outside the query's graphs, or one the reasoning never saw, keeps
// its text, is not among the answer's Entities (so no evaluation credits
// it as an entity answer) and is not confident; the second result is then
// a warning for the trace. A seen id without a label keeps its text too
// and is not confident. Where the method's check had passed, the answer's
// Doubt says why it is not confident all the same; the reason always does.
// Any other answer, a text that is no entity id, and a failed lookup
// return a unchanged. Only texts that look like ids (one word with a
// letter and a digit) are looked up, so ordinary answers cost no KG call.
func NameAnswer(ctx context.Context, kg store.KG, graphs []string, a trace.Answer) (trace.Answer, string) {
	id := strings.TrimSpace(a.Text)
	if !a.Found || kg == nil || !idLike(id) {
		return a, ""
	}
	e, err := kg.Entity(ctx, id)
	if err != nil || e.Literal || e.ID != id {
		if err != nil && !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
			a.Reason = strings.TrimSpace(a.Reason + " (the answer looks like an id; looking it up failed: " + err.Error() + ")")
		}
		return a, ""
	}
	if !inGraphs(e, graphs) {
		a.Entities = slices.DeleteFunc(slices.Clone(a.Entities), func(x string) bool { return x == id })
		why := fmt.Sprintf("the answer %s is an entity of %s (%s), outside the query's graphs %s",
			id, strings.Join(e.Graphs, ", "), e.Name(), strings.Join(graphs, ", "))
		return doubt(a, why, why), why + ": it is not named and not confident"
	}
	if !slices.Contains(a.Entities, id) {
		why := fmt.Sprintf("the answer %s is the id of an entity the reasoning never saw (%s in %s)",
			id, e.Name(), strings.Join(e.Graphs, ", "))
		return doubt(a, why, why), why + ": none of the KG facts the model was shown held it, so it is not named and not confident"
	}
	if !subgraph.HasLabel(e.ID, e.Label) {
		return doubt(a, "the answer "+id+" has no label in the KG",
			"the answer is the id of an entity without a label ("+subgraph.Unlabelled(id)+")"), ""
	}
	a.Text = strings.Join(strings.Fields(e.Label), " ")
	return a, ""
}

// doubt makes a not confident: its Doubt is short when its check had
// passed, and reason joins its Reason.
func doubt(a trace.Answer, short, reason string) trace.Answer {
	if a.Confident {
		a.Doubt = short
	}
	a.Confident = false
	if a.Reason != "" {
		reason = a.Reason + "; " + reason
	}
	a.Reason = reason
	return a
}

// inGraphs reports whether e is in one of graphs (empty: every graph).
func inGraphs(e store.Entity, graphs []string) bool {
	return len(graphs) == 0 || slices.ContainsFunc(e.Graphs, func(g string) bool { return slices.Contains(graphs, g) })
}

// idLike reports one word holding both a letter and a digit ("Q42",
// "book/2284", "/m/02mjmr"), but no year, number or name.
func idLike(s string) bool {
	if s == "" || len(s) > 200 || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	return strings.ContainsFunc(s, unicode.IsLetter) && strings.ContainsFunc(s, unicode.IsDigit)
}
