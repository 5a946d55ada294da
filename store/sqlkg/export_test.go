package sqlkg

import (
	"context"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// SmallWrite is the largest batch written with direct statements.
const SmallWrite = smallWrite

// ApplyWith applies deltas as QuadStore's ApplyDeltas does, with label
// (when not "") as every quad's label as Load and Delete give it, through
// direct statements (useDirect true) or staging whatever the batch's size.
// It returns the quads added and deleted.
func ApplyWith(ctx context.Context, k *KG, deltas []graph.Delta, opts graph.IgnoreOpts, label string, useDirect bool) (added, deleted int64, err error) {
	w, err := deltaSet(deltas, opts)
	if err != nil {
		return 0, 0, err
	}
	if label != "" {
		w.label = quad.IRI(label)
	}
	r, err := k.writeWith(ctx, w, func(*batch) writeStrategy {
		if useDirect {
			return direct{k}
		}
		return staged{k}
	})
	return r.added, r.deleted, err
}

// Exec runs one statement on k's pool, its error as the KG's calls give
// theirs (k.wrap).
func Exec(ctx context.Context, k *KG, query string) error {
	_, err := k.db.ExecContext(ctx, query)
	return k.wrap(ctx, err)
}
