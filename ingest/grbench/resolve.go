package grbench

import (
	"fmt"
	"strings"
)

// defaultEdgeTargets maps a source node type and an edge type to the node
// type of the neighbors, for the GRBench domains as built by Graph-CoT's
// raw_process notebooks. Node type names are the "<type>" of the
// "<type>_nodes" keys. Biomedical (Hetionet) edges are not listed: their
// names carry both end types and resolve by metaedgeTarget.
var defaultEdgeTargets = map[string]map[string]string{
	// academic: DBLP and MAPLE (biology, chemistry, materials science,
	// medicine, physics) share one schema.
	"paper":  {"author": "author", "venue": "venue", "reference": "paper", "cited_by": "paper"},
	"author": {"paper": "paper", "book": "book"},
	"venue":  {"paper": "paper"},
	// e-commerce: Amazon.
	"item": {
		"brand": "brand", "also_viewed_item": "item", "buy_after_viewing_item": "item",
		"also_bought_item": "item", "bought_together_item": "item",
	},
	"brand": {"item": "item"},
	// literature: Goodreads.
	"book":      {"author": "author", "publisher": "publisher", "series": "series", "similar_books": "book"},
	"publisher": {"book": "book"},
	"series":    {"book": "book"},
	// legal: CourtListener.
	"opinion":         {"opinion_cluster": "opinion_cluster", "reference": "opinion", "cited_by": "opinion"},
	"opinion_cluster": {"opinion": "opinion", "docket": "docket"},
	"docket":          {"opinion_cluster": "opinion_cluster", "court": "court"},
	"court":           {"docket": "docket"},
}

// defaultTextFeatures lists, per known node type, the features tried in
// order for the node's label. They follow Graph-CoT's retriever keys
// (NODE_TEXT_KEYS) except for the legal domain, where Graph-CoT embeds whole
// opinions and syllabi: Grove labels clusters and dockets by case name and
// leaves opinions without a label (set Options.TextFeatures to change that).
var defaultTextFeatures = map[string][]string{
	"paper": {"title"}, "author": {"name"}, "venue": {"name"},
	"item": {"title"}, "brand": {"name"},
	"book": {"title"}, "publisher": {"name"}, "series": {"title"},
	"opinion_cluster": {"case_name"}, "docket": {"case_name", "pacer_case_id"},
	"court": {"full_name"}, "opinion": {},
}

// genericTextFeatures are tried for node types with no configured or default
// text features.
var genericTextFeatures = []string{"name", "title", "full_name", "case_name", "label"}

// normType turns a type name as written in edge names ("Side Effect") into
// the form used in "<type>_nodes" keys ("Side_Effect").
func normType(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), " ", "_") }

// metaedgeTarget resolves Hetionet-style edge names "Source-verb-Target"
// ("Compound-causes-Side Effect"): seen from a Source node the neighbors are
// Targets and vice versa. It returns "" when the name is not of that form or
// names neither side as from.
func metaedgeTarget(from, edge string) string {
	parts := strings.Split(edge, "-")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return ""
	}
	src, dst := normType(parts[0]), normType(parts[2])
	switch from {
	case src:
		return dst
	case dst:
		return src
	}
	return ""
}

// nameTarget resolves an edge by its name against the node types of the
// whole file: "author" -> author, "also_viewed_item" -> item,
// "similar_books" -> book. The longest matching type wins; "" if none.
func nameTarget(edge string, types []string) string {
	best := ""
	for _, t := range types {
		if len(t) <= len(best) {
			continue
		}
		for _, form := range [...]string{t, t + "s"} {
			if edge == form || strings.HasSuffix(edge, "_"+form) {
				best = t
			}
		}
	}
	return best
}

// resolver decides the target node type of each (source type, edge type)
// pair, caching the decision; "" means "decide per id after reading".
type resolver struct {
	explicit   map[string]string
	noDefaults bool
	cache      map[[2]string]string
}

func newResolver(explicit map[string]string, noDefaults bool) *resolver {
	return &resolver{explicit: explicit, noDefaults: noDefaults, cache: map[[2]string]string{}}
}

// target returns the neighbor type for edge on a node of type from, or ""
// when it can only be decided from the ids once the whole file is read.
// Order: Options.EdgeTargets ("from.edge", then "edge"), the built-in
// GRBench table, the "Source-verb-Target" rule.
func (r *resolver) target(from, edge string) string {
	key := [2]string{from, edge}
	if t, ok := r.cache[key]; ok {
		return t
	}
	t := r.lookup(from, edge)
	r.cache[key] = t
	return t
}

func (r *resolver) lookup(from, edge string) string {
	if t, ok := r.explicit[from+"."+edge]; ok {
		return t
	}
	if t, ok := r.explicit[edge]; ok {
		return t
	}
	if !r.noDefaults {
		if t, ok := defaultEdgeTargets[from][edge]; ok {
			return t
		}
	}
	return metaedgeTarget(from, edge)
}

// idIndex records the node type of every id read, so that edges whose type
// could not be resolved by name are resolved by id once the file is read.
// It holds ids only: one map entry per node.
type idIndex struct {
	types []string
	index map[string]uint16 // type name -> position in types
	ids   map[string]uint16 // node id -> type position, or ambiguous
}

// ambiguous marks an id that occurs under more than one node type.
const ambiguous = ^uint16(0)

func newIDIndex() *idIndex {
	return &idIndex{index: map[string]uint16{}, ids: map[string]uint16{}}
}

// addType registers a node type and returns its position.
func (x *idIndex) addType(t string) (uint16, error) {
	if i, ok := x.index[t]; ok {
		return i, nil
	}
	if len(x.types) >= int(ambiguous) {
		return 0, fmt.Errorf("more than %d node types", ambiguous-1)
	}
	i := uint16(len(x.types))
	x.types = append(x.types, t)
	x.index[t] = i
	return i, nil
}

// add records that id is a node of the type at position t.
func (x *idIndex) add(id string, t uint16) {
	if old, ok := x.ids[id]; ok && old != t {
		x.ids[id] = ambiguous
		return
	}
	x.ids[id] = t
}

// lookup returns the type of id: ok is false when id is unknown, and the
// type is "" when id is ambiguous.
func (x *idIndex) lookup(id string) (typ string, ok bool) {
	t, ok := x.ids[id]
	if !ok || t == ambiguous {
		return "", ok
	}
	return x.types[t], true
}
