package sparqlkg

import (
	"context"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/internal/remote"
	"github.com/grove-kg/grove/store/literal"
)

// describe fetches the labels, aliases and descriptions of nodes (SPARQL
// terms) in batched queries, keyed by term.
func (k *KG) describe(ctx context.Context, nodes []string) (map[string]remote.Names, error) {
	var uniq []string
	seen := map[string]bool{}
	for _, n := range nodes {
		if n != "" && !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	out := make(map[string]remote.Names, len(uniq))
	preds := k.d.labelPreds()
	for _, batch := range k.batches(uniq) {
		q := "SELECT ?x ?p ?l WHERE { " + bindValues("?x", batch) + " VALUES ?p { " + iris(preds) +
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

// addName folds one label-like literal into n.
func (k *KG) addName(n *remote.Names, p string, l term) {
	if !isLiteral(l) {
		return
	}
	if i := slices.Index(k.d.Label, p); i >= 0 {
		n.AddLabel(i, len(k.d.Label), l.Lang, l.Value)
	} else if slices.Contains(k.d.Alias, p) {
		n.AddAlias(l.Lang, l.Value)
	} else if i := slices.Index(k.d.Description, p); i >= 0 {
		n.AddDescription(i, len(k.d.Description), l.Lang, l.Value)
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
