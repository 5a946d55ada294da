package remote

import (
	"context"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/literal"
)

// LiteralIDs returns the ids the literals among vs name in their text (a
// quantity's unit, a point's globe), without duplicates: a backend looks
// up their labels with its nodes' so that the literals render as the
// embedded engine renders them.
func LiteralIDs(vs ...quad.Value) []string {
	var ids []string
	for _, v := range vs {
		switch v.(type) {
		case quad.IRI, quad.BNode, nil:
			continue // a node is named by its Names, not as a literal
		}
		for _, id := range literal.Names(v) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// LiteralText renders literals as the embedded engine does, a quantity's
// unit and a point's globe by their labels: the ids the literals vs name
// are looked up first, all in one call of lookup, which returns the Names
// it found keyed by id (a missing id has no label: the text marks it, see
// literal.NoLabel). Literals that name no id cost no call. The returned
// function renders any value (ids not looked up render unlabelled); it
// only reads, so it is safe for concurrent use.
func LiteralText(ctx context.Context, vs []quad.Value, lookup func(ctx context.Context, ids []string) (map[string]Names, error)) (func(quad.Value) string, error) {
	labels := map[string]string{}
	if ids := LiteralIDs(vs...); len(ids) > 0 {
		names, err := lookup(ctx, ids)
		if err != nil {
			return nil, err
		}
		for id, n := range names {
			labels[id] = n.label
		}
	}
	return func(v quad.Value) string {
		return literal.Render(v, func(id string) string { return labels[id] })
	}, nil
}

// Label is the node's label, "" when it has none.
func (s Names) Label() string { return s.label }
