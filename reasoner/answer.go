package reasoner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// NameAnswer settles an answer whose text is exactly the id of an entity
// the KG knows ("Q3247097", "/en/ridley_scott"): an id is not an answer a
// reader can use, so the text becomes the entity's label. graphs are the
// query's graphs (empty: every graph). Only an id the reasoning saw is
// named, and only within the query's graphs; the answer's Entities tell
// what it saw, since every method resolves its answer against what its
// model was shown (see trace.Answer.Entities): the answer node's local
// graph for Tree-of-Traversals and its chain, the chain's retrieved
// triples and the entities its searches and explorations found for the
// graph-grounded methods, the entities of the paths the answer prompt
// showed for RTSoG, and for RTSoG also an id answer that any earlier
// prompt of its run showed (a linking candidate, a scored tail). The
// baselines, which show their model no KG, settle their answers with
// NameModelAnswer instead.
//
// An id outside the query's graphs, or one the reasoning never saw, keeps
// its text, is not among the answer's Entities (so no evaluation credits
// it as an entity answer) and is not confident; the second result is then
// a warning for the trace. A seen id without a label keeps its text too
// and is not confident. An answer that is unmistakably a KG id
// (llm.KGIDLike) when there is no KG (kg nil) to check it is not
// confident either, with a warning; a name that merely looks like a code
// ("B12", "COVID-19") is then left as it is. Where the method's check had
// passed, the answer's Doubt says why it is not confident all the same;
// the reason always does. Any other answer, a
// text that is no entity id, and a failed lookup return a unchanged. Only
// texts that look like ids (llm.IDLike: one word with a letter and a
// digit, a ':', a '_' or a path's '/') are looked up, so ordinary answers
// ("Paris", "1982", "yes") cost no KG call.
func NameAnswer(ctx context.Context, kg store.KG, graphs []string, a trace.Answer) (trace.Answer, string) {
	id := strings.TrimSpace(a.Text)
	if !looksLikeID(a, id, kg) {
		return a, ""
	}
	if kg == nil {
		why := "the answer " + id + " looks like an id, but there was no KG to check it"
		return doubt(a, why, why), why + ": it is not named and not confident"
	}
	e, a, ok := lookupID(ctx, kg, id, a)
	if !ok {
		return a, ""
	}
	if !inGraphs(e, graphs) {
		return outsideGraphs(a, e, id, graphs)
	}
	if !slices.Contains(a.Entities, id) {
		why := fmt.Sprintf("the answer %s is the id of an entity the reasoning never saw (%s in %s)",
			id, e.Name(), strings.Join(e.Graphs, ", "))
		return doubt(a, why, why), why + ": none of the KG facts the model was shown held it, so it is not named and not confident"
	}
	return label(a, e, id), ""
}

// NameModelAnswer settles the answer of a method that shows its model no
// KG (the baselines): an answer that looks like an id (llm.IDLike) can
// only come from the model's own memory, so it is never confident and
// the second result is then a warning for the trace saying so. With no
// KG at hand (kg nil) the id is not checked, and only an answer that is
// unmistakably a KG id (llm.KGIDLike: a Freebase MID or key, a Wikidata
// id, an IRI, a prefixed id, a dotted Freebase relation id) is flagged; a
// name that merely looks like a code ("B12", "COVID-19", "MP3", "F-16",
// "R2-D2", "7-Eleven") is an ordinary answer. Otherwise an id of an entity
// in the query's graphs (empty: every graph) is named with its label (the
// reasoning never saw it, so it does not join the answer's Entities); one
// outside them and one without a label keep their text. A text no entity
// has, a failed lookup and any other answer return a unchanged (only
// texts that look like ids cost a KG call).
func NameModelAnswer(ctx context.Context, kg store.KG, graphs []string, a trace.Answer) (trace.Answer, string) {
	id := strings.TrimSpace(a.Text)
	if !looksLikeID(a, id, kg) {
		return a, ""
	}
	saw := "the answer " + id + " looks like an id, but the method saw no KG"
	if kg == nil {
		why := saw + " and none was at hand to check it"
		return doubt(a, why, why), why + ": it comes from the model's memory, is not named and not confident"
	}
	e, a, ok := lookupID(ctx, kg, id, a)
	if !ok {
		return a, ""
	}
	if !inGraphs(e, graphs) {
		a, warn := outsideGraphs(a, e, id, graphs)
		return a, saw + "; " + warn
	}
	a = label(a, e, id)
	why := fmt.Sprintf("%s: the model gave it from its memory (%s in %s)", saw, e.Name(), strings.Join(e.Graphs, ", "))
	named := "it is not confident"
	if a.Text != id {
		named = "it is named from the KG but not confident"
	}
	return doubt(a, why, why), why + ": " + named
}

// looksLikeID reports whether a found answer's text id is to be settled
// as an id: with a KG whenever it looks like one (llm.IDLike), the lookup
// deciding; with none (kg nil) only when it is unmistakably a KG id
// (llm.KGIDLike), so that names that look like codes ("B12", "COVID-19",
// "R2-D2") stay answers.
func looksLikeID(a trace.Answer, id string, kg store.KG) bool {
	if !a.Found {
		return false
	}
	if kg == nil {
		return llm.KGIDLike(id)
	}
	return llm.IDLike(id)
}

// lookupID returns the entity whose id is id and whether there is one; a
// failed lookup (other than not found) is noted in the answer's reason.
func lookupID(ctx context.Context, kg store.KG, id string, a trace.Answer) (store.Entity, trace.Answer, bool) {
	e, err := kg.Entity(ctx, id)
	if err != nil || e.Literal || e.ID != id {
		if err != nil && !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
			a.Reason = strings.TrimSpace(a.Reason + " (the answer looks like an id; looking it up failed: " + err.Error() + ")")
		}
		return e, a, false
	}
	return e, a, true
}

// outsideGraphs settles an answer that is the id of e, an entity outside
// the query's graphs: it leaves the answer's Entities and is flagged.
func outsideGraphs(a trace.Answer, e store.Entity, id string, graphs []string) (trace.Answer, string) {
	a.Entities = slices.DeleteFunc(slices.Clone(a.Entities), func(x string) bool { return x == id })
	why := fmt.Sprintf("the answer %s is an entity of %s (%s), outside the query's graphs %s",
		id, strings.Join(e.Graphs, ", "), e.Name(), strings.Join(graphs, ", "))
	return doubt(a, why, why), why + ": it is not named and not confident"
}

// label names an answer that is the id of e with e's label; without a
// label it keeps its text and is not confident.
func label(a trace.Answer, e store.Entity, id string) trace.Answer {
	if !subgraph.HasLabel(e.ID, e.Label) {
		return doubt(a, "the answer "+id+" has no label in the KG",
			"the answer is the id of an entity without a label ("+subgraph.Unlabelled(id)+")")
	}
	a.Text = strings.Join(strings.Fields(e.Label), " ")
	return a
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
