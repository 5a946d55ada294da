package sparqlkg

import (
	"context"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/remote"
	"github.com/grove-kg/grove/store/literal"
)

// describe fetches the labels, aliases and descriptions of nodes (SPARQL
// terms) in batched queries, keyed by term.
func (k *KG) describe(ctx context.Context, nodes []string) (map[string]remote.Names, error) {
	names, _, err := k.describeNodes(ctx, nodes, false)
	return names, err
}

// describeNodes is describe that, with inverse, also reads each node's
// grove:inverseLabel (a relation node's) in the same queries, keyed by
// term.
func (k *KG) describeNodes(ctx context.Context, nodes []string, inverse bool) (map[string]remote.Names, map[string]string, error) {
	var uniq []string
	seen := map[string]bool{}
	for _, n := range nodes {
		if n != "" && !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	out := make(map[string]remote.Names, len(uniq))
	inv := map[string]string{}
	preds := k.d.labelPreds()
	if inverse {
		preds = append(slices.Clip(preds), store.GroveInverseLabel)
	}
	for _, batch := range k.batches(uniq) {
		q := "SELECT ?x ?p ?l WHERE { " + bindValues("?x", batch) + " VALUES ?p { " + iris(preds) +
			" } " + k.inGraphs("?x ?p ?l") + " }"
		r, err := k.c.query(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		for _, b := range r.Results.Bindings {
			key := termString(b["x"])
			if b["p"].Value == store.GroveInverseLabel {
				if l := b["l"]; isLiteral(l) && l.Value != "" && (inv[key] == "" || l.Value < inv[key]) {
					inv[key] = l.Value
				}
				continue
			}
			n := out[key]
			k.addName(&n, b["p"].Value, b["l"])
			out[key] = n
		}
	}
	return out, inv, nil
}

// relMeta is how a relation is named, as the embedded engine names it.
type relMeta struct {
	label, inverse string
}

// lookup names nodes (SPARQL terms) and relations (ids) in one batched
// query: a relation is named by the label of its own node (Wikidata: wd:P57
// "director"), else by words derived from its id ("/film/film/directed_by"
// -> "directed by"); a qualifier pq:Q after property Q; its inverse label is
// its node's grove:inverseLabel, else derived from the label.
func (k *KG) lookup(ctx context.Context, nodes, rels []string) (map[string]remote.Names, map[string]relMeta, error) {
	relNode := make(map[string]string, len(rels))
	all := slices.Clone(nodes)
	for _, id := range rels {
		if t, err := k.nodeTerm(strings.TrimPrefix(id, store.QualifierPrefix)); err == nil {
			relNode[id] = t
			all = append(all, t)
		}
	}
	names, inv, err := k.describeNodes(ctx, all, len(rels) > 0)
	if err != nil {
		return nil, nil, err
	}
	meta := make(map[string]relMeta, len(rels))
	for _, id := range rels {
		t := relNode[id]
		m := relMeta{label: names[t].Entity(id).Label, inverse: inv[t]}
		if m.label == "" {
			m.label = store.DeriveLabel(strings.TrimPrefix(id, store.QualifierPrefix))
		}
		if m.inverse == "" {
			m.inverse = store.InverseLabel(m.label)
		}
		meta[id] = m
	}
	return names, meta, nil
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

// xsdString is the datatype of plain literals.
const xsdString = "http://www.w3.org/2001/XMLSchema#string"

// toValue converts a literal binding to a quad value.
func toValue(t term) quad.Value {
	switch {
	case t.Lang != "":
		return quad.LangString{Value: quad.String(t.Value), Lang: t.Lang}
	case t.Datatype != "" && t.Datatype != xsdString:
		return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}
	}
	return quad.String(t.Value)
}

// literalTerms are the terms of the ids the literals ts name in their
// text (a quantity's unit, a point's globe; ids that cannot be nodes are
// left out), to be described with the nodes around them.
func (k *KG) literalTerms(ts ...term) []string {
	var out []string
	for _, t := range ts {
		for _, id := range remote.LiteralIDs(toValue(t)) {
			if n, err := k.nodeTerm(id); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// literalText renders literal t for humans, as the engine does: the ids
// its text names by their labels in names (see literalTerms).
func (k *KG) literalText(t term, names map[string]remote.Names) string {
	return literal.Render(toValue(t), func(id string) string {
		n, err := k.nodeTerm(id)
		if err != nil {
			return ""
		}
		return names[n].Label()
	})
}
