package sparqlkg

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// The Wikibase ontology's links from a property node to its type and to
// the predicates of its claims (wd:P214 wikibase:directClaim wdt:P214;
// wikibase:directClaimNormalized wdtn:P214). The p:, ps: and pq: forms
// are statement predicates, hidden whatever their type.
const (
	wikibasePropertyType          = wikibaseNS + "propertyType"
	wikibaseDirectClaim           = wikibaseNS + "directClaim"
	wikibaseDirectClaimNormalized = wikibaseNS + "directClaimNormalized"
)

// typedPattern is the graph pattern that matches when predicate term p
// (a variable or an IRI) is a claim predicate of a property node whose
// type is one of Dialect.HiddenPropertyTypes, in the configured graphs.
// Its own variables start with ?wb, so that inside FILTER NOT EXISTS they
// do not meet the caller's. The endpoint joins it by index lookups on p:
// no list of hidden properties travels in the query.
func (k *KG) typedPattern(p string) string {
	return "VALUES ?wbLink { " + iris([]string{wikibaseDirectClaim, wikibaseDirectClaimNormalized}) +
		" } VALUES ?wbType { " + iris(k.d.HiddenPropertyTypes) + " } " +
		k.inGraphsAs("?wbG", "?wbProp ?wbLink "+p+" . ?wbProp <"+wikibasePropertyType+"> ?wbType")
}

// typeFilter is the FILTER that drops the predicates in variable v whose
// property type is hidden, to be placed beside (not inside) a GRAPH
// block; "" when the dialect hides no property type.
func (k *KG) typeFilter(v string) string {
	if len(k.d.HiddenPropertyTypes) == 0 {
		return ""
	}
	return "FILTER NOT EXISTS { " + k.typedPattern(v) + " }"
}

// visibleEdges is pattern (edges through predicate ?p, or through a named
// relation) in the configured graphs, restricted for an "" relation to
// the visible predicates: visibleFilter's and, by typeFilter, not those
// of a hidden property type. A named relation is followed even when
// hidden. It sends no request after the KG's first read of hiddenSet.
func (k *KG) visibleEdges(ctx context.Context, relation, pattern string) (string, error) {
	filter, err := k.visibleFilter(ctx, relation)
	if err != nil {
		return "", err
	}
	out := k.inGraphs(pattern + " " + filter)
	if relation == "" {
		out += " " + k.typeFilter("?p")
	}
	return out, nil
}

// hiddenAmong returns which of preds (predicate IRIs) reasoners hide: the
// dialect's (hiddenPred), those marked grove:hidden in the data (hiddenSet)
// and those of a hidden property type (typedHidden, asked only about the
// predicates the first two do not hide).
func (k *KG) hiddenAmong(ctx context.Context, preds []string) (map[string]bool, error) {
	marked, err := k.hiddenSet(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	var rest []string
	for _, p := range preds {
		if k.hiddenPred(p, marked) {
			out[p] = true
		} else if validIRI(p) {
			rest = append(rest, p)
		}
	}
	typed, err := k.typedHidden(ctx, rest)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, typed)
	return out, nil
}

// typedHidden returns which of preds are claim predicates of a property
// of a hidden type. Each predicate is asked about once per KG: the
// answers are kept (one entry per predicate the KG's calls have listed,
// so the endpoint's properties bound them), and only predicates no
// earlier call classified are sent, Config.Batch per query; a call whose
// predicates are all known sends nothing. A failed read keeps nothing.
func (k *KG) typedHidden(ctx context.Context, preds []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(k.d.HiddenPropertyTypes) == 0 || len(preds) == 0 {
		return out, nil
	}
	var ask []string
	k.hidMu.Lock()
	for _, p := range preds {
		if hidden, known := k.typed[p]; !known {
			ask = append(ask, p)
		} else if hidden {
			out[p] = true
		}
	}
	k.hidMu.Unlock()
	slices.Sort(ask) // the same query text (cache key) every time
	ask = slices.Compact(ask)
	found, err := k.askTyped(ctx, ask)
	if err != nil {
		return nil, err
	}
	k.hidMu.Lock()
	defer k.hidMu.Unlock()
	if k.typed == nil {
		k.typed = make(map[string]bool, len(ask))
	}
	for _, p := range ask {
		k.typed[p] = found[p]
		if found[p] {
			out[p] = true
		}
	}
	return out, nil
}

// askTyped asks the endpoint which of preds (sorted, valid IRIs) are claim
// predicates of a property of a hidden type: one query per Config.Batch.
// The lock is not held: concurrent callers share the client's request.
func (k *KG) askTyped(ctx context.Context, preds []string) (map[string]bool, error) {
	found := map[string]bool{}
	terms := make([]string, len(preds))
	for i, p := range preds {
		terms[i] = "<" + p + ">"
	}
	for _, batch := range k.batches(terms) {
		q := "SELECT DISTINCT ?p WHERE { " + bindValues("?p", batch) + " " + k.typedPattern("?p") + " }"
		r, err := k.c.query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("reading the property types of %d relations: %w", len(batch), err)
		}
		for _, b := range r.Results.Bindings {
			found[b["p"].Value] = true
		}
	}
	return found, nil
}
