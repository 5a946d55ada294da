package rtsog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
)

// Trace node states.
const (
	// StateQuestion is the root: the question, with its sub-questions.
	StateQuestion = "question"
	// StateTopic is a topic entity, the start of every reasoning path.
	StateTopic = "topic"
	// StateEntity is an entity reached along a relation.
	StateEntity = "entity"
	// StateEndOfSearch is an entity the self-critic stopped the search at.
	StateEndOfSearch = "end-of-search"
)

// run is the state of one Answer call. The tree is only touched by the
// goroutine running solve; the concurrent model calls of an expansion
// return values that solve then applies.
type run struct {
	*reasoner.Session
	cfg Config
	// policy and value are the session's Model and Evaluator, named as in
	// the paper.
	policy, value llm.Model

	// subs are the sub-questions.
	subs []string
	root *node
	// nodes are every tree node in creation order, the root first.
	nodes      []*node
	expansions int
	// relinked is set once the sub-questions were linked again.
	relinked bool
	// shown are the entities the run showed the model.
	shown shownIDs
}

// solve runs the three stages: decomposition, SC-MCTS, answer generation.
func (r *run) solve(ctx context.Context, given []string) (trace.Answer, error) {
	r.root = &node{}
	r.root.id = r.Rec.AddNode(trace.Node{State: StateQuestion, Text: r.Question})
	r.nodes = append(r.nodes, r.root)
	rctx := trace.WithNode(ctx, r.root.id)
	topics, start, err := r.topicEntities(rctx, given)
	if err != nil {
		return trace.Answer{}, fmt.Errorf("topic entities: %w", err)
	}
	r.addTopics(topics, start)
	if err := r.decompose(rctx); err != nil {
		return trace.Answer{}, err
	}
	stop, err := r.search(ctx)
	if err != nil {
		return trace.Answer{}, err
	}
	return r.answer(ctx, stop)
}

// addTopics adds one depth-1 node per topic entity under the root, each
// started from as start says.
func (r *run) addTopics(topics []link.Linked, start subgraph.Start) {
	for _, t := range topics {
		r.addTopic(t, start)
	}
	r.root.expanded = true
	r.root.exhausted = len(r.root.children) == 0
}

// addTopic adds a depth-1 node for a topic entity under the root: a
// topic entity given with the question or an entity linked from a
// mention, as start says.
func (r *run) addTopic(t link.Linked, start subgraph.Start) {
	n := &node{parent: r.root, depth: 1, entity: t.Entity, graph: t.Graph, start: start}
	r.shown.add(t.Entity)
	n.id = r.Rec.AddNode(trace.Node{Parents: []int{r.root.id}, Depth: 1, State: StateTopic,
		Text: name(t.Entity, ""), Extra: map[string]string{"entity": t.Entity.ID, "graph": t.Graph}})
	r.root.children = append(r.root.children, n)
	r.nodes = append(r.nodes, n)
}

// search runs up to H iterations of selection, expansion with self-critic,
// evaluation and backpropagation, and says why it stopped. When every
// path has died out (or there was no topic entity) the sub-questions are
// linked again once (relink) and the search goes on from the new topic
// entities.
func (r *run) search(ctx context.Context) (string, error) {
	rctx := trace.WithNode(ctx, r.root.id)
	for i := range r.cfg.Iterations {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		path := r.selectPath()
		if path == nil && r.diedOut() {
			added, err := r.relink(rctx)
			if err != nil {
				return "", err
			}
			if added > 0 {
				path = r.selectPath()
			}
		}
		if path == nil {
			if i == 0 && len(r.root.children) == 0 {
				return "no topic entity to search from", nil
			}
			return fmt.Sprintf("the tree was exhausted after %d of %d iterations", i, r.cfg.Iterations), nil
		}
		if err := r.iterate(ctx, path); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("completed %d iterations", r.cfg.Iterations), nil
}

// diedOut reports whether the search has topic entities but no path the
// self-critic stopped at (End-of-Search): every path ended in a dead end,
// a literal or the depth limit.
func (r *run) diedOut() bool {
	if len(r.root.children) == 0 {
		return false
	}
	for _, n := range r.nodes {
		if n.eos {
			return false
		}
	}
	return true
}

// selectPath descends from the root by UCT among the children that are
// not exhausted, down to an unexpanded node, and returns the nodes
// visited, root first; nil when nothing is left to expand.
func (r *run) selectPath() []*node {
	if r.root.exhausted {
		return nil
	}
	path := []*node{r.root}
	for v := r.root; v.expanded; {
		var open []*node
		var stats []Stat
		for _, c := range v.children {
			if !c.exhausted {
				open = append(open, c)
				stats = append(stats, c.stat())
			}
		}
		i := SelectChild(stats, v.n, r.cfg.Exploration)
		if i < 0 {
			return nil
		}
		v = open[i]
		path = append(path, v)
	}
	return path
}

// iterate expands the last node of path and backs the new values up.
func (r *run) iterate(ctx context.Context, path []*node) error {
	leaf := path[len(path)-1]
	r.expansions++
	leaf.expanded = true
	order := r.expansions
	_ = r.Rec.UpdateNode(leaf.id, func(t *trace.Node) { t.Order = order })
	r.Log.Debug("rtsog: expand", "order", order, "node", leaf.id, "entity", leaf.entity.ID, "depth", leaf.depth)
	children, err := r.expand(ctx, leaf)
	if err != nil {
		return fmt.Errorf("expand node %d (%s): %w", leaf.id, leaf.entity.ID, err)
	}
	leaf.children = children
	leaf.terminal = len(children) == 0
	r.nodes = append(r.nodes, children...)
	backpropagate(path)
	for _, v := range path {
		r.sync(v)
	}
	for _, c := range children {
		r.sync(c)
	}
	return nil
}

// backpropagate counts one more visit on every node of path and then,
// from the expanded node up to the root, sets each node's value to the
// visit-weighted mean of its children's (equations 10 and 11) and
// recomputes whether anything is left to expand below it.
func backpropagate(path []*node) {
	for _, v := range path {
		v.n++
	}
	for i := len(path) - 1; i >= 0; i-- {
		v := path[i]
		stats := make([]Stat, len(v.children))
		open := false
		for j, c := range v.children {
			stats[j] = c.stat()
			open = open || !c.exhausted
		}
		if q, ok := Backup(stats); ok {
			v.q = q
		}
		v.exhausted = v.terminal || (v.expanded && !open)
	}
}

// sync copies a node's search state into its trace node.
func (r *run) sync(n *node) {
	_ = r.Rec.UpdateNode(n.id, func(t *trace.Node) {
		t.Value, t.Visits = n.q, n.n
		t.Evaluated = n.hop != nil || (n.expanded && len(n.children) > 0)
		t.Terminal = n.terminal
		if n.eos {
			t.State = StateEndOfSearch
		}
		if why := leafReason(n, r.cfg.MaxDepth); why != "" {
			setExtra(t, "leaf", why)
		}
	})
}

// leafReason says why a node is terminal, "" when it is not.
func leafReason(n *node, maxDepth int) string {
	switch {
	case !n.terminal:
		return ""
	case n.eos:
		return "end-of-search"
	case n.entity.Literal:
		return "literal"
	case n.hop != nil && n.hops() >= maxDepth:
		return "max depth"
	}
	return "dead end"
}

func setExtra(t *trace.Node, key, value string) {
	if t.Extra == nil {
		t.Extra = map[string]string{}
	}
	t.Extra[key] = value
}

// childExtra are the trace details of an entity node.
func childExtra(c *node, tails string) map[string]string {
	x := map[string]string{
		"entity":   c.entity.ID,
		"relation": c.hop.rel.ID,
		"dir":      c.hop.rel.Dir.String(),
		"graph":    c.graph,
		"s_r":      strconv.FormatFloat(c.sr, 'f', 3, 64),
		"s_p":      strconv.FormatFloat(c.sp, 'f', 3, 64),
		"path":     pathText(c),
		"tails":    tails,
	}
	if len(c.alts) > 0 {
		ids := make([]string, len(c.alts))
		for i, a := range c.alts {
			ids[i] = a.entity.ID
		}
		x["alternatives"] = strings.Join(ids, ", ")
	}
	return x
}

// first returns the first text of a response, "" when there is none.
func first(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}
