package rtsog

import (
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// node is one state of the reasoning tree. The root holds no entity: its
// children are the topic entities (depth 1, no hop). Every deeper node is
// an entity reached from its parent along one relation.
type node struct {
	// id is the trace node id.
	id       int
	parent   *node
	children []*node
	depth    int

	entity store.Entity
	graph  string
	// start says whether a topic node's entity was given with the
	// question or linked (subgraph.Graph.MarkStart).
	start subgraph.Start
	// described are the contents of a mediator (a Freebase CVT) and desc
	// their text (hood.Render).
	described []hood.Part
	desc      string
	// hop is the edge from the parent; nil for the root and topic nodes.
	hop *hop
	// alts are the other tails of the hop's relation, best first.
	alts []candidate
	// total is the hop relation's true number of tails from the parent.
	total int64

	// sr and sp are the relation and path rewards; q and n the MCTS value
	// and visit count.
	sr, sp float64
	q      float64
	n      int

	// eos is the self-critic's End-of-Search signal.
	eos bool
	// terminal nodes are never expanded: End-of-Search, maximum depth, a
	// literal, or an expansion that found nothing.
	terminal bool
	expanded bool
	// exhausted nodes have nothing left to expand below them.
	exhausted bool
}

// hop is the relation and the KG edge that lead to a node.
type hop struct {
	rel  store.Relation
	edge store.Edge
}

// candidate is one scored tail entity of a relation.
type candidate struct {
	entity    store.Entity
	edge      store.Edge
	described []hood.Part
	desc      string
	score     float64
}

// hops is the length of the node's reasoning path; a hop onto a mediator
// (a node with contents, see hood.Contents) does not count: it and the
// hop out of it are one step (a CVT joins two entities the way one edge
// does). An unlabelled node without contents is a step of its own.
func (n *node) hops() int {
	h := 0
	for v := n; v != nil && v.hop != nil; v = v.parent {
		if len(v.described) == 0 {
			h++
		}
	}
	return h
}

// stat is the node's MCTS statistics.
func (n *node) stat() Stat { return Stat{Q: n.q, N: n.n} }

// path returns the nodes from the topic entity down to n (empty for the
// root).
func (n *node) path() []*node {
	var out []*node
	for v := n; v != nil && v.depth > 0; v = v.parent {
		out = append(out, v)
	}
	slices.Reverse(out)
	return out
}

// onPath reports whether id is the entity of n or of one of its ancestors.
func (n *node) onPath(id string) bool {
	for v := n; v != nil && v.depth > 0; v = v.parent {
		if v.entity.ID == id {
			return true
		}
	}
	return false
}

// name is the entity's display name: its label; for an unlabelled entity
// with a description (a mediator's contents) its id and the description;
// else its id marked as having no label (subgraph.EntityText).
func name(e store.Entity, desc string) string {
	if desc == "" {
		return subgraph.EntityText(e)
	}
	if !e.Literal && !subgraph.HasLabel(e.ID, e.Label) {
		return flat(e.ID) + " " + desc
	}
	return subgraph.EntityText(e) + " " + desc
}

// label is a relation's label in its followed direction.
func label(rel store.Relation) string { return subgraph.RelText(rel) }

// pathText renders the reasoning path of n: "A -> r1 -> B -> r2 -> C",
// each entity reached by a hop followed by the qualifiers of the hop's
// edge (see reached).
func pathText(n *node) string {
	var b strings.Builder
	for i, v := range n.path() {
		if i > 0 {
			b.WriteString(" -> " + arrowSafe(label(v.hop.rel)) + " -> " + arrowSafe(reached(v)))
			continue
		}
		b.WriteString(arrowSafe(name(v.entity, v.desc)))
	}
	return b.String()
}

// reached is the name of a node reached by a hop followed by the
// qualifiers of the hop's edge, each statement's apart
// (subgraph.QualifiersText): "President of the United States (start
// time: 1789; end time: 1797)".
func reached(v *node) string {
	return name(v.entity, v.desc) + subgraph.QualifiersText(v.hop.edge.Qualifiers)
}

// tailText is the name of a candidate tail followed by its edge's
// qualifiers.
func tailText(c candidate) string {
	return name(c.entity, c.desc) + subgraph.QualifiersText(c.edge.Qualifiers)
}

// extendedText renders n's path extended by relation rel and, when c is
// not nil, the candidate tail c ("A -> r -> ?" without it).
func extendedText(n *node, rel store.Relation, c *candidate) string {
	tail := "?"
	if c != nil {
		tail = arrowSafe(tailText(*c))
	}
	return pathText(n) + " -> " + arrowSafe(label(rel)) + " -> " + tail
}

// triples renders every hop of n's path as one "subject -> relation ->
// object" line in the direction it was walked, then one line per
// alternative tail of the last hop, so that list answers are visible; the
// description edges of an unlabelled entity follow the line that reaches
// it.
func triples(n *node) []string {
	facts := pathFacts(n)
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = triple(f.Subject, f.Relation, f.Object)
	}
	return out
}

// pathFacts is triples as structured facts (llm.Task.Facts).
func pathFacts(n *node) []llm.Fact { return walkFacts(n, true) }

// hopFacts are the hops of n's path only (what pathText shows).
func hopFacts(n *node) []llm.Fact { return walkFacts(n, false) }

// walkFacts lists the hops of n's path in walking order; with details,
// each hop's description edges follow it and the alternative tails of the
// last hop (with theirs) come last.
func walkFacts(n *node, details bool) []llm.Fact {
	var out []llm.Fact
	path := n.path()
	for i := 1; i < len(path); i++ {
		prev, v := path[i-1], path[i]
		out = append(out, llm.Fact{Subject: name(prev.entity, prev.desc), Relation: label(v.hop.rel), Object: reached(v)})
		if details {
			out = append(out, describedFacts(v.entity, v.desc, v.described)...)
		}
	}
	if details && len(path) > 1 {
		head := path[len(path)-2]
		for _, a := range n.alts {
			out = append(out, llm.Fact{Subject: name(head.entity, head.desc), Relation: label(n.hop.rel), Object: tailText(a)})
			out = append(out, describedFacts(a.entity, a.desc, a.described)...)
		}
	}
	return out
}

// describedFacts are the contents of a mediator e, as facts.
func describedFacts(e store.Entity, desc string, parts []hood.Part) []llm.Fact {
	out := make([]llm.Fact, len(parts))
	for i, p := range parts {
		out[i] = llm.Fact{Subject: name(e, desc), Relation: p.Label, Object: subgraph.EntityText(p.Value)}
	}
	return out
}

func triple(head, rel, tail string) string {
	return arrowSafe(head) + " -> " + arrowSafe(rel) + " -> " + arrowSafe(tail)
}

// flat collapses whitespace runs to one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// arrowSafe keeps "->" out of names so that every path part is readable.
func arrowSafe(s string) string { return strings.ReplaceAll(s, "->", "-") }
