// Package subgraph is the local knowledge graph of a reasoning state: the
// entities a method has seen (id, label, description, the KGs they came
// from), the edges it fetched, and the cross-KG links between entities,
// plus the compact text every method shows a model.
//
// The text is hand-written rather than produced by a JSON or YAML library,
// so nothing is quoted or escaped and the token cost stays low (the
// Tree-of-Traversals paper's YAML-like layout):
//
//	Entities:
//	  /en/blade_runner: Blade Runner
//	  /en/ridley_scott: Ridley Scott - English film director
//	Edges:
//	  Blade Runner:
//	    directed by:
//	      Ridley Scott
//	  Ridley Scott:
//	    directed:
//	      Gladiator
//
// Entities are listed with id, label and description; edges are grouped by
// the entity they were fetched from and then by relation. An edge fetched
// against its stored direction (store.In) is listed under its object with
// the relation's inverse label ("is mother of"), so the reader sees the
// walk as it happened; the same fact is never stored twice, whichever
// direction it was fetched in. When the local graph spans several KGs,
// entities and relations carry a "[graph]" tag and links between KGs are
// shown on the entity lines. Order is deterministic: insertion order, which
// a method's deterministic KG calls fix.
//
// A Graph is a value owned by one reasoning state: it is not safe for
// concurrent mutation, and a method that branches calls Clone.
package subgraph

import (
	"cmp"
	"slices"
	"strings"

	"github.com/grove-kg/grove/store"
)

// Entity is an entity (or literal value) of the local graph.
type Entity struct {
	ID          string
	Label       string
	Description string
	// Graphs are the KGs the entity was seen in, in order of discovery.
	Graphs  []string
	Literal bool
	// Contents describe a mediator (a node without a label, such as a
	// Freebase CVT): "(actor: Harrison Ford; character: Rick Deckard)". It
	// is the entity's display name when it has no label.
	Contents string
	// Start says whether the reasoning started from the entity (see
	// MarkStart).
	Start Start
}

// Start says how the reasoning started from an entity: not at all (the
// zero value), from an entity it linked, or from a topic entity given
// with the question.
type Start int

const (
	// NotStart is an entity reached or found, not started from.
	NotStart Start = iota
	// StartLinked is an entity the method linked from a mention.
	StartLinked
	// StartTopic is a topic entity given with the question.
	StartTopic
)

// Edge is one fetched fact.
type Edge struct {
	store.Edge
	// Dir is the direction the edge was followed in: Out lists it under
	// its subject with RelationLabel, In under its object with
	// InverseLabel.
	Dir          store.Direction
	InverseLabel string
	// Content marks an edge that describes a mediator: the text lists it
	// in the mediator's name instead of under the mediator.
	Content bool
}

// Link says that From is the same entity as To in another KG.
type Link struct {
	From, To string
	// Graph is To's graph; Via the predicate that established the link.
	Graph, Via string
}

type edgeKey struct{ s, r, o, g string }

// GroupKey names the edges of one relation from one entity in one
// direction and graph: a group of the text.
type GroupKey struct {
	Anchor, Relation, Graph string
	Dir                     store.Direction
}

// Graph is a local knowledge graph.
type Graph struct {
	index    map[string]int
	entities []Entity
	edges    []Edge
	edgeSet  map[edgeKey]struct{}
	links    []Link
	// totals are the true edge counts of groups (see SetTotal).
	totals map[GroupKey]int64
}

// New returns an empty local graph.
func New() *Graph {
	return &Graph{index: map[string]int{}, edgeSet: map[edgeKey]struct{}{}, totals: map[GroupKey]int64{}}
}

// Clone returns an independent copy.
func (g *Graph) Clone() *Graph {
	c := &Graph{
		index:    make(map[string]int, len(g.index)),
		entities: make([]Entity, len(g.entities)),
		edges:    slices.Clone(g.edges),
		edgeSet:  make(map[edgeKey]struct{}, len(g.edgeSet)),
		links:    slices.Clone(g.links),
		totals:   make(map[GroupKey]int64, len(g.totals)),
	}
	for k, v := range g.totals {
		c.totals[k] = v
	}
	for k, v := range g.index {
		c.index[k] = v
	}
	for i, e := range g.entities {
		e.Graphs = slices.Clone(e.Graphs)
		c.entities[i] = e
	}
	for k := range g.edgeSet {
		c.edgeSet[k] = struct{}{}
	}
	return c
}

// AddEntity adds e as seen in graph (may be ""), or completes the entity
// already there (missing label or description, new graph). It reports
// whether the entity is new.
func (g *Graph) AddEntity(e store.Entity, graph string) bool {
	if i, ok := g.index[e.ID]; ok {
		old := &g.entities[i]
		if old.Label == "" {
			old.Label = e.Label
		}
		if old.Description == "" {
			old.Description = e.Description
		}
		if graph != "" && !slices.Contains(old.Graphs, graph) {
			old.Graphs = append(old.Graphs, graph)
		}
		return false
	}
	ne := Entity{ID: e.ID, Label: e.Label, Description: e.Description, Literal: e.Literal}
	if graph != "" {
		ne.Graphs = []string{graph}
	}
	g.index[e.ID] = len(g.entities)
	g.entities = append(g.entities, ne)
	return true
}

// AddEdge adds a fact fetched in direction dir (Out or In; Both counts as
// Out) with the relation's inverse label, adding both ends as entities of
// the edge's graph. A fact already present (in either direction) is not
// added again; AddEdge reports whether the edge is new.
func (g *Graph) AddEdge(e store.Edge, dir store.Direction, inverseLabel string) bool {
	g.AddEntity(e.Subject, e.Graph)
	g.AddEntity(e.Object, e.Graph)
	k := edgeKey{e.Subject.ID, e.Relation, e.Object.ID, e.Graph}
	if _, dup := g.edgeSet[k]; dup {
		return false
	}
	if dir != store.In {
		dir = store.Out
	}
	g.edgeSet[k] = struct{}{}
	g.edges = append(g.edges, Edge{Edge: e, Dir: dir, InverseLabel: inverseLabel})
	return true
}

// AddContentEdge adds an edge that describes a mediator (see
// Edge.Content), fetched in direction dir from the mediator.
func (g *Graph) AddContentEdge(e store.Edge, dir store.Direction, inverseLabel string) bool {
	if !g.AddEdge(e, dir, inverseLabel) {
		return false
	}
	g.edges[len(g.edges)-1].Content = true
	return true
}

// SetContents sets the contents of a mediator already in the graph. The
// first contents stay: a mediator keeps one name however it is reached
// again (its contents leave out the node it was reached from).
func (g *Graph) SetContents(id, contents string) {
	if i, ok := g.index[id]; ok && contents != "" && g.entities[i].Contents == "" {
		g.entities[i].Contents = contents
	}
}

// MarkStart records that the reasoning started from id (already in the
// graph) as start: Resolve ranks it after the entities reached from it
// whatever the direction of their edges. An entity keeps its strongest
// mark (a topic entity linked again stays a topic entity).
func (g *Graph) MarkStart(id string, start Start) {
	if i, ok := g.index[id]; ok && start > g.entities[i].Start {
		g.entities[i].Start = start
	}
}

// SetTotal records the true number of edges of a group, of which the
// graph may hold only some: the text then says "(133 in all, 12 shown)".
func (g *Graph) SetTotal(k GroupKey, total int64) {
	if k.Dir != store.In {
		k.Dir = store.Out
	}
	g.totals[k] = total
}

// Total returns a group's recorded total.
func (g *Graph) Total(k GroupKey) (int64, bool) {
	if k.Dir != store.In {
		k.Dir = store.Out
	}
	n, ok := g.totals[k]
	return n, ok
}

// Count returns how many edges of a group the graph holds.
func (g *Graph) Count(k GroupKey) int {
	n := 0
	for _, e := range g.edges {
		anchor := e.Subject.ID
		if e.Dir == store.In {
			anchor = e.Object.ID
		}
		if anchor == k.Anchor && e.Relation == k.Relation && e.Graph == k.Graph && e.Dir == k.Dir {
			n++
		}
	}
	return n
}

// AddLink records that from (already in the graph) is the same entity as
// to in graph, adding to as an entity of that graph. It reports whether the
// link is new.
func (g *Graph) AddLink(from string, to store.Entity, graph, via string) bool {
	g.AddEntity(to, graph)
	for _, l := range g.links {
		if l.From == from && l.To == to.ID && l.Graph == graph {
			return false
		}
	}
	g.links = append(g.links, Link{From: from, To: to.ID, Graph: graph, Via: via})
	return true
}

// Has reports whether id is an entity of the graph.
func (g *Graph) Has(id string) bool {
	_, ok := g.index[id]
	return ok
}

// Entity returns the entity with the given id.
func (g *Graph) Entity(id string) (Entity, bool) {
	i, ok := g.index[id]
	if !ok {
		return Entity{}, false
	}
	e := g.entities[i]
	e.Graphs = slices.Clone(e.Graphs)
	return e, true
}

// Entities returns the entities (literals included) in insertion order.
func (g *Graph) Entities() []Entity {
	out := make([]Entity, len(g.entities))
	for i, e := range g.entities {
		e.Graphs = slices.Clone(e.Graphs)
		out[i] = e
	}
	return out
}

// Expandable returns the non-literal entities in insertion order: the ones
// a method can fetch edges for.
func (g *Graph) Expandable() []Entity {
	var out []Entity
	for _, e := range g.entities {
		if !e.Literal {
			e.Graphs = slices.Clone(e.Graphs)
			out = append(out, e)
		}
	}
	return out
}

// Edges returns the edges in insertion order.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// Links returns the cross-KG links in insertion order.
func (g *Graph) Links() []Link { return slices.Clone(g.links) }

// NumEntities is the number of entities, literals included.
func (g *Graph) NumEntities() int { return len(g.entities) }

// NumEdges is the number of edges.
func (g *Graph) NumEdges() int { return len(g.edges) }

// Graphs returns the KGs the local graph draws from, in order of discovery.
func (g *Graph) Graphs() []string {
	var out []string
	for _, e := range g.entities {
		for _, gr := range e.Graphs {
			if !slices.Contains(out, gr) {
				out = append(out, gr)
			}
		}
	}
	return out
}

// EdgesAbout returns the edges with an end among ids, in insertion order.
func (g *Graph) EdgesAbout(ids []string) []Edge {
	var out []Edge
	for _, e := range g.edges {
		if slices.Contains(ids, e.Subject.ID) || slices.Contains(ids, e.Object.ID) {
			out = append(out, e)
		}
	}
	return out
}

// Resolve returns the ids of the entities a piece of text names: the
// whole text, or else each item of a list ("a, b", "[a; b]", "a and b"),
// compared exactly with entity ids and case-insensitively with labels and
// display names. Partial words never match ("Q30" does not name "Q3012").
// When several entities share the name, those the reasoning reached
// through an edge come before those it started from, each group in
// insertion order (see rank): "The Illusion" answering "which play is
// produced by the illusion?" is first the play reached from the
// production, not the production.
func (g *Graph) Resolve(text string) []string {
	if ids := g.resolveItem(text); len(ids) > 0 {
		return ids
	}
	var out []string
	for _, part := range splitList(text) {
		for _, id := range g.resolveItem(part) {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// resolveItem matches one item against ids, labels and names, as written
// and then without surrounding quotes, emphasis, brackets and a final
// period.
func (g *Graph) resolveItem(s string) []string {
	s = strings.TrimSpace(s)
	if ids := g.match(s); len(ids) > 0 {
		return ids
	}
	return g.match(strings.TrimSpace(strings.Trim(s, "\"'`*.[]()")))
}

// match returns the entity with id s, or the entities whose label or
// display name equals s case-insensitively.
func (g *Graph) match(s string) []string {
	if s == "" {
		return nil
	}
	if _, ok := g.index[s]; ok {
		return []string{s}
	}
	names := g.names()
	var out []string
	for _, e := range g.entities {
		if strings.EqualFold(flat(e.Label), s) || strings.EqualFold(names[e.ID], s) {
			out = append(out, e.ID)
		}
	}
	if len(out) > 1 {
		reached := g.reached()
		slices.SortStableFunc(out, func(a, b string) int {
			return cmp.Compare(g.rank(a, reached), g.rank(b, reached))
		})
	}
	return out
}

// rank orders the entities a name resolves to: entities reached through
// an edge (0), entities neither reached nor started from (1), entities
// the method linked (2), topic entities given with the question (3), the
// question's subject and never its answer. Starts are those marked by
// MarkStart; the direction of an unmarked entity's first edge decides
// whether it was reached (see Reached).
func (g *Graph) rank(id string, reached map[string]bool) int {
	switch start := g.entities[g.index[id]].Start; {
	case start != NotStart:
		return 1 + int(start)
	case reached[id]:
		return 0
	}
	return 1
}

// Reached reports whether the reasoning reached the entity id through an
// edge rather than starting from it. An entity marked by MarkStart is a
// start whatever its edges; for an unmarked one, whether the first edge
// (in insertion order) that touches id was fetched from its other end. An
// entity no edge touches (linked, not yet expanded) is a start.
func (g *Graph) Reached(id string) bool {
	if e, ok := g.Entity(id); !ok || e.Start != NotStart {
		return false
	}
	return g.reached()[id]
}

// reached maps every entity an edge touches to whether its first edge
// reached it, by the direction of the edge alone.
func (g *Graph) reached() map[string]bool {
	first := make(map[string]bool, len(g.entities))
	for _, e := range g.edges {
		anchor, far := e.Subject.ID, e.Object.ID
		if e.Dir == store.In {
			anchor, far = far, anchor
		}
		if _, ok := first[anchor]; !ok {
			first[anchor] = false
		}
		if _, ok := first[far]; !ok {
			first[far] = true
		}
	}
	return first
}

// splitList splits an answer list on commas, semicolons, newlines, "|"
// and the word "and".
func splitList(text string) []string {
	text = strings.NewReplacer("[", " ", "]", " ", ";", ",", "\n", ",", "|", ",").Replace(text)
	var out []string
	for _, p := range strings.Split(text, ",") {
		words := strings.Fields(p)
		start := 0
		for i, w := range words {
			if strings.EqualFold(w, "and") {
				out = append(out, strings.Join(words[start:i], " "))
				start = i + 1
			}
		}
		out = append(out, strings.Join(words[start:], " "))
	}
	return out
}
