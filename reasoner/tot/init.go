package tot

import (
	"context"
	"fmt"
	"slices"

	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/subgraph"
)

// initialize builds the root's local graph: the query's topic entities, or
// the entities linked from the question's mentions, each linked into the
// other KGs.
func (r *run) initialize(ctx context.Context, topics []string) (*subgraph.Graph, error) {
	g := subgraph.New()
	var found []link.Linked
	var err error
	start := subgraph.StartTopic
	if len(topics) > 0 {
		found, err = r.linker().Lookup(ctx, topics)
	} else {
		start = subgraph.StartLinked
		found, err = r.linker().Question(ctx, r.Question)
	}
	if err != nil {
		return nil, err
	}
	if _, err := r.addLinked(ctx, g, found, start); err != nil {
		return nil, err
	}
	return g, nil
}

// addLinked adds linked entities to g marked as start (see
// subgraph.Graph.MarkStart), each linked into the query's other KGs, and
// returns the ids that were new.
func (r *run) addLinked(ctx context.Context, g *subgraph.Graph, found []link.Linked, start subgraph.Start) ([]string, error) {
	var added []string
	for _, l := range found {
		if g.AddEntity(l.Entity, l.Graph) {
			added = append(added, l.Entity.ID)
		}
		g.MarkStart(l.Entity.ID, start)
	}
	return added, r.linkAcross(ctx, g, added)
}

// linker links the question's mentions with the policy model.
func (r *run) linker() link.Linker {
	return link.Linker{KG: r.KG, Model: r.Model, Graphs: r.Graphs, SearchLimit: r.cfg.SearchLimit,
		Temperature: r.cfg.EvalTemperature, System: systemPrompt, Warn: r.Warn,
		Tasks: link.Tasks{Extract: TaskExtract, Select: TaskLink}}
}

// linkAcross links the given local entities into the query's other KGs
// through KG.SameAs (only when the query uses several KGs); a linked
// entity is a start as its source is.
func (r *run) linkAcross(ctx context.Context, g *subgraph.Graph, ids []string) error {
	if len(r.Graphs) < 2 {
		return nil
	}
	for _, id := range ids {
		e, ok := g.Entity(id)
		if !ok || e.Literal {
			continue
		}
		links, err := r.KG.SameAs(ctx, id, "")
		if err != nil {
			return fmt.Errorf("link %s into other graphs: %w", id, err)
		}
		for _, l := range links {
			if slices.Contains(r.Graphs, l.Graph) && !slices.Contains(e.Graphs, l.Graph) {
				g.AddLink(id, l.Target, l.Graph, l.Via)
				g.MarkStart(l.Target.ID, e.Start)
			}
		}
	}
	return nil
}

// first returns the first text of a response, "" when there is none.
func first(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}
