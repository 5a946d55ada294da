package sparqlkg

import (
	"context"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// names is what describe learns of one node.
type names struct {
	label, desc         string
	labelRank, descRank int
	aliases             []string
}

// entity builds a fresh store.Entity (its slices belong to the caller).
func (n names) entity(id string) store.Entity {
	return store.Entity{ID: id, Label: n.label, Description: n.desc, Aliases: slices.Clone(n.aliases)}
}

// langRank prefers English and untagged text.
func langRank(lang string) int {
	if lang == "" || lang == "en" || strings.HasPrefix(lang, "en-") {
		return 0
	}
	return 1
}

// describe fetches the labels, aliases and descriptions of nodes (SPARQL
// terms) in batched queries, keyed by term.
func (k *KG) describe(ctx context.Context, nodes []string) (map[string]names, error) {
	var uniq []string
	seen := map[string]bool{}
	for _, n := range nodes {
		if n != "" && !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	out := make(map[string]names, len(uniq))
	preds := k.d.labelPreds()
	for _, batch := range k.batches(uniq) {
		q := "SELECT ?x ?p ?l WHERE { VALUES ?x { " + strings.Join(batch, " ") + " } VALUES ?p { " + iris(preds) +
			" } " + k.inGraphs("?x ?p ?l") + " }"
		r, err := k.c.query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, b := range r.Results.Bindings {
			key := termString(b["x"])
			n := out[key]
			k.addName(&n, b["p"].Value, b["l"])
			out[key] = n
		}
	}
	return out, nil
}

// addName folds one label-like literal into n. Earlier label predicates
// and English text win.
func (k *KG) addName(n *names, p string, l term) {
	if !isLiteral(l) {
		return
	}
	lr := langRank(l.Lang)
	if i := slices.Index(k.d.Label, p); i >= 0 {
		rank := 1 + lr*len(k.d.Label) + i
		if n.label == "" || rank < n.labelRank || rank == n.labelRank && l.Value < n.label {
			n.label, n.labelRank = l.Value, rank
		}
		return
	}
	if slices.Contains(k.d.Alias, p) {
		if lr == 0 && !slices.Contains(n.aliases, l.Value) {
			n.aliases = append(n.aliases, l.Value)
			slices.Sort(n.aliases)
		}
		return
	}
	if i := slices.Index(k.d.Description, p); i >= 0 {
		rank := 1 + lr*len(k.d.Description) + i
		if n.desc == "" || rank < n.descRank || rank == n.descRank && l.Value < n.desc {
			n.desc, n.descRank = l.Value, rank
		}
	}
}

// toValue converts a literal binding to a quad value.
func toValue(t term) quad.Value {
	switch {
	case t.Lang != "":
		return quad.LangString{Value: quad.String(t.Value), Lang: t.Lang}
	case t.Datatype != "" && t.Datatype != "http://www.w3.org/2001/XMLSchema#string":
		return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}
	}
	return quad.String(t.Value)
}

// renderLiteral renders a literal for humans, as the engine does.
func renderLiteral(v quad.Value) string { return literal.Render(v, nil) }
