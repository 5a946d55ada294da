package tot

import (
	"context"
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/subgraph"
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
	case ActionSearch:
		invalid, err = r.searchKG(ctx, c, p.text)
	case ActionSelectEntities:
		c.selected = p.ids
		c.addHistory(string(ActionSelectEntities) + ": " + r.describeEntities(n, p.ids))
	case ActionSelectRelation:
		invalid, err = r.expandRelation(ctx, c, p.rel)
	}
	return c, invalid, err
}

// describeEntities renders ids with their names (a mediator's contents):
// "Q392 (Bob Dylan), Q5".
func (r *run) describeEntities(n *node, ids []string) string {
	names := n.sub.Names(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id
		if names[i] != id {
			parts[i] += " (" + names[i] + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// errNothingFound marks a SEARCH_KG that linked no new entity.
type errNothingFound struct{ name string }

func (e errNothingFound) Error() string {
	return fmt.Sprintf("searching for %q linked no new entity", e.name)
}

// searchKG links a name again (SEARCH_KG): the linker searches it in the
// query's graphs and the model chooses among the candidates, which are
// added to a copy of the local graph with their cross-KG links.
func (r *run) searchKG(ctx context.Context, c *node, name string) (invalid, err error) {
	found, err := r.linker().Link(ctx, r.Question, link.NamePart(name))
	if err != nil {
		return nil, err
	}
	sub := c.sub.Clone()
	added, err := r.addLinked(ctx, sub, found, subgraph.StartLinked)
	if err != nil {
		return nil, err
	}
	c.sub = sub
	obs := "OBSERVATION: no new entity found"
	if len(added) > 0 {
		obs = "OBSERVATION: added " + r.describeEntities(c, added)
	}
	c.addHistory(string(ActionSearch)+": "+name, obs)
	if len(added) == 0 {
		return errNothingFound{name: name}, nil
	}
	return nil, nil
}

// expandRelation fetches the next page of the ranked edges of c.selected
// along o (see package hood: the first MaxEdges by relevance to the
// question, then the next ones when the relation is chosen again) into a
// copy of the local graph, with mediators' contents and the relation's
// totals, links the new entities into the other KGs, and records the
// action and an observation in c's history.
func (r *run) expandRelation(ctx context.Context, c *node, o *relOption) (invalid, err error) {
	sub := c.sub.Clone()
	before := sub.NumEntities()
	page, newEdges, err := r.fetchNew(ctx, c, o, sub)
	if err != nil {
		return nil, err
	}
	var newIDs []string
	entities := 0
	for _, e := range sub.Entities()[before:] {
		newIDs = append(newIDs, e.ID)
		if !e.Literal {
			entities++
		}
	}
	if err := r.linkAcross(ctx, sub, newIDs); err != nil {
		return nil, err
	}
	c.sub = sub
	label := relationText(*o, len(r.Graphs) > 1)
	c.addHistory(fmt.Sprintf("%s: %s (%s, %s)", ActionSelectRelation, label, o.Rel.ID, o.Rel.Dir),
		observation(newEdges, entities, len(newIDs)-entities, page))
	if newEdges == 0 && len(newIDs) == 0 {
		return errNothingNew{relation: label}, nil
	}
	return nil, nil
}

// maxSkipPages bounds the pages fetchNew reads past edges the local graph
// already holds.
const maxSkipPages = 8

// fetchNew adds to sub the next page of c.selected's ranked edges along o
// and records how far c has read. A page whose edges sub holds already
// (fetched from another selection of entities: the pages are kept per
// selection) is passed over for the next, up to maxSkipPages, so that
// choosing a relation again shows what the graph lacks.
func (r *run) fetchNew(ctx context.Context, c *node, o *relOption, sub *subgraph.Graph) (hood.Page, int, error) {
	offset := c.shown.Of(c.selected, o.Rel)
	for i := 0; ; i++ {
		page, err := hood.Fetch(ctx, r.KG, c.selected, o.Rel, offset, r.cfg.MaxEdges,
			hood.Options{Question: r.Question, Graphs: r.Graphs})
		if err != nil {
			return hood.Page{}, 0, err
		}
		newEdges := hood.AddTo(sub, page, o.Rel)
		offset = page.Offset + len(page.Edges)
		c.shown = c.shown.With(c.selected, o.Rel, offset)
		if newEdges > 0 || !page.More() || len(page.Edges) == 0 || i+1 == maxSkipPages {
			return page, newEdges, nil
		}
	}
}

// observation summarises an expansion for the history: what was new
// (entities apart from literal values), which part of the relation's
// edges the graph now shows, and how to see more.
func observation(newEdges, newEntities, newValues int, p hood.Page) string {
	s := fmt.Sprintf("OBSERVATION: %d new %s, %d new %s", newEdges, noun(newEdges, "edge"), newEntities,
		noun(newEntities, "entity"))
	if newValues > 0 {
		s += fmt.Sprintf(", %d new %s", newValues, noun(newValues, "value"))
	}
	s += "; edges shown: " + p.Note()
	if p.More() {
		s += "; choose the same relation again to see the next ones"
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
