package reasoner

import (
	"context"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/store"
)

// DescribeMediators returns the text the methods show their model for each
// of ids that is a mediator (an unlabelled node with edges of its own: a
// Freebase CVT, a Wikidata statement node), such as "(actor: Harrison Ford;
// character: Rick Deckard)", so that other front ends (grove kg) name such
// nodes as the model reads them. from maps a mediator to the node it was
// reached from, whose edge back is left out (nil: none). Ids that are not
// mediators (labelled nodes, unlabelled nodes without edges of their own,
// hubs) are not in the result. It costs one KG.Relations call and one
// KG.Edges call per relation of ids; the returned map is the caller's.
func DescribeMediators(ctx context.Context, kg store.KG, ids []string, from map[string]string) (map[string]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	parts, err := hood.Contents(ctx, kg, ids, from, hood.Options{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(parts))
	for id, ps := range parts {
		if text := hood.Render(ps); text != "" {
			out[id] = text
		}
	}
	return out, nil
}
