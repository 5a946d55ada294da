package tot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/store"
)

// errNothingNew marks a relation expansion that added no edge or entity.
type errNothingNew struct{ relation string }

func (e errNothingNew) Error() string {
	return fmt.Sprintf("following %s added nothing new to the local graph", e.relation)
}

// transition applies proposal p to n and returns the child state. A child
// that is invalid (nothing new) is returned with a non-nil invalid error;
// err is for KG failures.
func (r *run) transition(ctx context.Context, n *node, p proposal) (c *node, invalid, err error) {
	c = n.child(p.action, p.text)
	switch p.action {
	case ActionThink:
		c.addHistory(string(ActionThink) + ": " + p.text)
	case ActionExpand:
		c.goal = p.text
		c.addHistory(strings.TrimSuffix(string(ActionExpand)+": "+p.text, ": "))
	case ActionAnswer:
		c.answerIDs = c.sub.Resolve(p.text)
		c.addHistory(string(ActionAnswer) + ": " + p.text)
	case ActionSelectEntities:
		c.selected = p.ids
		c.addHistory(string(ActionSelectEntities) + ": " + r.describeEntities(n, p.ids))
	case ActionSelectRelation:
		invalid, err = r.expandRelation(ctx, c, p.rel)
	}
	return c, invalid, err
}

// describeEntities renders ids with their labels: "Q392 (Bob Dylan), Q5".
func (r *run) describeEntities(n *node, ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id
		if e, ok := n.sub.Entity(id); ok && e.Label != "" {
			parts[i] += " (" + flat(e.Label) + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// expandRelation fetches the edges of c.selected along o into a copy of
// the local graph, links the new entities into the other KGs, and records
// the action and an observation in c's history.
func (r *run) expandRelation(ctx context.Context, c *node, o *relOption) (invalid, err error) {
	edges, err := r.KG.Edges(ctx, c.selected, o.Rel.ID, o.Rel.Dir, r.cfg.MaxEdges)
	if err != nil {
		return nil, fmt.Errorf("edges of %v along %s (%s): %w", c.selected, o.Rel.ID, o.Rel.Dir, err)
	}
	sub := c.sub.Clone()
	before := sub.NumEntities()
	newEdges, fetched := 0, 0
	for _, e := range edges {
		if e.Graph != o.Rel.Graph {
			continue
		}
		fetched++
		if sub.AddEdge(e, o.Rel.Dir, o.Rel.InverseLabel) {
			newEdges++
		}
	}
	var newIDs []string
	for _, e := range sub.Entities()[before:] {
		newIDs = append(newIDs, e.ID)
	}
	if err := r.linkAcross(ctx, sub, newIDs); err != nil {
		return nil, err
	}
	c.sub = sub
	label := relationText(*o, len(r.Graphs) > 1)
	c.addHistory(fmt.Sprintf("%s: %s (%s, %s)", ActionSelectRelation, label, o.Rel.ID, o.Rel.Dir),
		observation(newEdges, len(newIDs), fetched, o.Rel.Count, r.cfg.MaxEdges))
	if newEdges == 0 && len(newIDs) == 0 {
		return errNothingNew{relation: label}, nil
	}
	return nil, nil
}

// observation summarises an expansion for the history.
func observation(newEdges, newEntities, fetched int, total int64, limit int) string {
	s := fmt.Sprintf("OBSERVATION: %d new %s, %d new %s", newEdges, noun(newEdges, "edge"), newEntities,
		noun(newEntities, "entity"))
	if fetched >= limit && total > int64(fetched) {
		s += " (only the first " + strconv.Itoa(fetched) + " of " + strconv.FormatInt(total, 10) + " edges were fetched)"
	}
	return s
}

func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	if strings.HasSuffix(word, "y") {
		return strings.TrimSuffix(word, "y") + "ies"
	}
	return word + "s"
}

// supportEdges are the local-graph edges that mention the answer's
// entities, in the store's form.
func supportEdges(n *node) []store.Edge {
	var out []store.Edge
	for _, e := range n.sub.EdgesAbout(n.answerIDs) {
		out = append(out, e.Edge)
	}
	return out
}
