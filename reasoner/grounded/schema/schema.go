// Package schema derives a knowledge graph's "graph definition", the
// description of node types, features and edge types that the Graph-CoT
// agent and the automatic graph exploration show the model, from the
// store itself instead of a text written by hand for each dataset.
//
// The store.KG interface has no schema call, so the definition is
// sampled through ordinary KG calls:
//
//  1. Seeds: the caller's seed ids (topic entities) and the top candidates
//     of a few one-letter prefix searches (Options.Probes), which land on
//     labelled nodes of whatever types the graph has.
//  2. Inspection of a node: its relations in both directions
//     (KG.Relations), its literal-valued properties (KG.Features, which
//     name the features), and its type from grove:nodeType when the graph
//     declares types (GRBench graphs do; the Freebase film sample does not).
//     A typed node's type node also names its search feature through
//     grove:textFeature.
//  3. Discovery: every relation not seen before on a node of that type is
//     followed once (one KG.Edges call); the neighbour found becomes the
//     example of the edge type and is inspected before the remaining seeds,
//     so each new edge type leads to the node type at its other end.
//     Hidden relations (labels, Grove's own predicates, external ids) are
//     left out, and so are relations of other graphs. KG.Edges takes no
//     graph, so the call reads one edge more than the other graphs have of
//     the relation from the node (up to 1024) and the example is the first
//     edge of this graph, never another graph's. When other graphs have
//     more (so this graph's edge may lie beyond the edges read), the edge
//     type is still listed, without an example ("p (example not
//     sampled)"), and the next node of the type with the relation is
//     asked for one.
//
// Names (labels and aliases) are not features (KG.Features leaves them
// out): a node's name is what search matches and observations show.
//
// Inspection stops after Options.MaxNodes nodes that have visible
// relations (nodes with none, such as predicate nodes that only carry a
// label, do not count but are bounded too), so the cost is a few KG calls
// per sampled node whatever the size of the graph.
//
//  4. Completion from relation summaries: a sample of one node per edge
//     type misses what few nodes of a type have (a Freebase performance's
//     character is on one performance in nine). So each type's members,
//     up to Options.MemberCap nodes (its inspected nodes and the
//     neighbours of all inspected nodes along their edge types that are
//     of the type: in a typed graph one KG.Edges call of grove:nodeType
//     over all the neighbours reads their types, so a partly typed graph's
//     untyped nodes are summarised without the typed nodes next to them,
//     and a typed node reached only through them still counts for its
//     type), are summarised with one KG.Relations call per type, which
//     returns every relation any of them has; the ones the sample missed
//     are added as edge types or, when literal-valued, as features. The
//     cost stays a few KG calls per type and edge type, and a feature or
//     edge type is only missing when none of a type's first MemberCap
//     nodes has it.
//
// Unnamed nodes (mediators such as Freebase CVTs) appear in examples as
// "(unnamed node)", never by their ids. Features and edge types are named
// as subgraph.RelText names relations: a relation without a label by its
// id followed by subgraph.NoLabel ("P1036 (no label in the KG)", "inverse
// of P131 (no label in the KG)").
package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Defaults of Options.
const (
	DefaultMaxNodes   = 24
	DefaultProbeLimit = 2
	DefaultMemberCap  = 500
)

// DefaultProbes are the prefix searches that seed the sample.
func DefaultProbes() []string { return []string{"a", "e", "s", "m", "c", "t"} }

// Options bound the sampling.
type Options struct {
	// MaxNodes is the number of nodes with visible relations inspected.
	MaxNodes int
	// Probes are searched (prefix match) for seed nodes.
	Probes []string
	// ProbeLimit is the number of candidates taken per probe.
	ProbeLimit int
	// MemberCap bounds the nodes of a type summarised by the completion.
	MemberCap int
}

func (o Options) withDefaults() Options {
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.Probes == nil {
		o.Probes = DefaultProbes()
	}
	if o.ProbeLimit <= 0 {
		o.ProbeLimit = DefaultProbeLimit
	}
	if o.MemberCap <= 0 {
		o.MemberCap = DefaultMemberCap
	}
	return o
}

// Definition is the sampled schema of one graph.
type Definition struct {
	Graph string
	// Types are the node types in order of discovery; untyped nodes are
	// described by the type with an empty Name.
	Types []NodeType
	// Nodes is the number of nodes inspected.
	Nodes int
}

// NodeType describes the nodes of one type.
type NodeType struct {
	// Name is the grove:nodeType value, "" for untyped nodes.
	Name string
	// TextFeature is the feature node search matches (grove:textFeature).
	TextFeature string
	// Features are the names of the literal-valued properties.
	Features []string
	Edges    []EdgeType
}

// EdgeType is a relation followed from nodes of one type.
type EdgeType struct {
	// Relation is the relation id.
	Relation string
	// Name is the relation's label in the followed direction (its inverse
	// label for incoming edges).
	Name string
	Dir  store.Direction
	// Target is the node type at the other end, "" when unknown.
	Target string
	// Example is "source -> target" with the sampled nodes' names.
	Example string
}

// Typed reports whether the graph declares node types.
func (d *Definition) Typed() bool {
	return slices.ContainsFunc(d.Types, func(t NodeType) bool { return t.Name != "" })
}

// Derive samples the definition of graph (see the package comment). seeds
// are inspected first; ids not in the store are skipped.
func Derive(ctx context.Context, kg store.KG, graph string, seeds []string, opts Options) (*Definition, error) {
	d := &deriver{kg: kg, graph: graph, opts: opts.withDefaults(), def: &Definition{Graph: graph},
		types: map[string]int{}, edges: map[edgeKey]bool{}, queued: map[string]bool{}, pending: map[string][]edgeRef{},
		typeOf: map[string]string{}, unexampled: map[edgeKey]edgeRef{}}
	for _, s := range seeds {
		d.enqueue(s, false)
	}
	if err := d.probe(ctx); err != nil {
		return nil, err
	}
	if err := d.run(ctx); err != nil {
		return nil, err
	}
	if err := d.complete(ctx); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", graph, err)
	}
	return d.def, nil
}

type edgeKey struct {
	typ, rel string
	dir      store.Direction
}

// edgeRef points at Types[typ].Edges[edge].
type edgeRef struct{ typ, edge int }

type deriver struct {
	kg    store.KG
	graph string
	opts  Options
	def   *Definition
	types map[string]int
	edges map[edgeKey]bool
	// fresh are neighbours reached through new edge types, served before
	// seeds.
	fresh, seeds []string
	queued       map[string]bool
	// pending are the edge types whose target is the keyed node.
	pending map[string][]edgeRef
	// typeOf is the type of every inspected node.
	typeOf map[string]string
	// members are the inspected nodes of each type, in order.
	members map[string][]string
	// unexampled are the edge types recorded without an example, which
	// the next node of the type with the relation may give.
	unexampled map[edgeKey]edgeRef
}

func (d *deriver) enqueue(id string, fresh bool) {
	if id == "" || d.queued[id] {
		return
	}
	d.queued[id] = true
	if fresh {
		d.fresh = append(d.fresh, id)
	} else {
		d.seeds = append(d.seeds, id)
	}
}

func (d *deriver) next() (string, bool) {
	for _, q := range []*[]string{&d.fresh, &d.seeds} {
		if len(*q) > 0 {
			id := (*q)[0]
			*q = (*q)[1:]
			return id, true
		}
	}
	return "", false
}

// probe adds the candidates of the prefix probes as seeds.
func (d *deriver) probe(ctx context.Context) error {
	for _, p := range d.opts.Probes {
		cands, err := d.kg.Search(ctx, d.graph, p, d.opts.ProbeLimit)
		if err != nil {
			return fmt.Errorf("schema of %s: probe %q: %w", d.graph, p, err)
		}
		for _, c := range cands {
			if !c.Literal {
				d.enqueue(c.ID, false)
			}
		}
	}
	return nil
}

// run inspects queued nodes until the budget is spent.
func (d *deriver) run(ctx context.Context) error {
	for inspected := 0; d.def.Nodes < d.opts.MaxNodes && inspected < 4*d.opts.MaxNodes; inspected++ {
		id, ok := d.next()
		if !ok {
			return nil
		}
		counted, err := d.inspect(ctx, id)
		if err != nil {
			return fmt.Errorf("schema of %s: node %s: %w", d.graph, id, err)
		}
		if counted {
			d.def.Nodes++
		}
	}
	return nil
}

// inspect adds what node id shows to the definition. It reports whether
// the node had visible relations.
func (d *deriver) inspect(ctx context.Context, id string) (bool, error) {
	rels, err := d.kg.Relations(ctx, []string{id}, store.Both)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("relations: %w", err)
	}
	visible := slices.DeleteFunc(slices.Clone(rels), func(r store.Relation) bool {
		return r.Hidden || r.Graph != d.graph || r.Count == 0
	})
	if len(visible) == 0 {
		return false, nil
	}
	typ, err := d.nodeType(ctx, id, rels)
	if err != nil {
		return false, err
	}
	ti, err := d.typeIndex(ctx, typ)
	if err != nil {
		return false, err
	}
	d.typeOf[id] = typ
	if d.members == nil {
		d.members = map[string][]string{}
	}
	d.members[typ] = append(d.members[typ], id)
	for _, ref := range d.pending[id] {
		d.def.Types[ref.typ].Edges[ref.edge].Target = typ
	}
	delete(d.pending, id)
	literal, err := d.features(ctx, id, ti)
	if err != nil {
		return false, err
	}
	for _, r := range visible {
		if r.Dir == store.Out && literal[r.ID] {
			continue
		}
		if err := d.follow(ctx, id, ti, r, rels); err != nil {
			return false, err
		}
	}
	return true, nil
}

// nodeType reads the node's grove:nodeType in this graph when it has one.
// The same node may carry another graph's type too, so the edges are read
// from every graph and the first of this graph is taken.
func (d *deriver) nodeType(ctx context.Context, id string, rels []store.Relation) (string, error) {
	if !slices.ContainsFunc(rels, func(r store.Relation) bool {
		return r.ID == store.GroveNodeType && r.Dir == store.Out && r.Graph == d.graph
	}) {
		return "", nil
	}
	es, err := d.kg.Edges(ctx, []string{id}, store.GroveNodeType, store.Out, 0)
	if err != nil {
		return "", fmt.Errorf("node type: %w", err)
	}
	return d.firstObject(es), nil
}

// firstObject is the name of the object of the first of es in this
// graph, "" when none is.
func (d *deriver) firstObject(es []store.Edge) string {
	for _, e := range es {
		if e.Graph == d.graph {
			return e.Object.Name()
		}
	}
	return ""
}

// typeIndex returns the index of the type, adding it (with its text
// feature) when new. A type node is named by the bare type name, which
// other graphs may share (Wikidata's "item" and Amazon's), so only this
// graph's grove:textFeature counts.
func (d *deriver) typeIndex(ctx context.Context, name string) (int, error) {
	if i, ok := d.types[name]; ok {
		return i, nil
	}
	t := NodeType{Name: name}
	if name != "" {
		es, err := d.kg.Edges(ctx, []string{name}, store.GroveTextFeature, store.Out, 0)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, fmt.Errorf("text feature of type %s: %w", name, err)
		}
		t.TextFeature = d.firstObject(es)
	}
	d.types[name] = len(d.def.Types)
	d.def.Types = append(d.def.Types, t)
	return d.types[name], nil
}

// features adds the node's feature names to its type and returns the ids
// of its literal-valued relations.
func (d *deriver) features(ctx context.Context, id string, ti int) (map[string]bool, error) {
	fs, err := d.kg.Features(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	literal := map[string]bool{}
	t := &d.def.Types[ti]
	for _, f := range fs {
		if f.Graph != d.graph {
			continue
		}
		literal[f.Relation] = true
		if name := subgraph.FeatureName(f); !slices.Contains(t.Features, name) {
			t.Features = append(t.Features, name)
		}
	}
	return literal, nil
}

// follow records relation r of node id when it is new for the node's type
// and queues the neighbour found along it. rels are the node's relations
// in every graph. An edge type recorded without an example (see example)
// is tried again on the next node of the type that has it.
func (d *deriver) follow(ctx context.Context, id string, ti int, r store.Relation, rels []store.Relation) error {
	k := edgeKey{d.def.Types[ti].Name, r.ID, r.Dir}
	ref, retry := d.unexampled[k]
	if d.edges[k] && !retry {
		return nil
	}
	d.edges[k] = true
	from, to, ok, err := d.example(ctx, []string{id}, r, rels)
	if err != nil {
		return err
	}
	if !retry {
		ref = d.addEdge(ti, r)
	}
	if !ok {
		d.unexampled[k] = ref
		return nil
	}
	delete(d.unexampled, k)
	d.setExample(ref, from, to)
	return nil
}

// addEdge appends relation r, without example, to type ti's edge types.
func (d *deriver) addEdge(ti int, r store.Relation) edgeRef {
	t := &d.def.Types[ti]
	t.Edges = append(t.Edges, EdgeType{Relation: r.ID, Name: subgraph.RelText(r), Dir: r.Dir})
	return edgeRef{ti, len(t.Edges) - 1}
}

// setExample gives the edge type at ref its example edge from -> to and
// its target type, or queues the target to learn its type.
func (d *deriver) setExample(ref edgeRef, from, to store.Entity) {
	e := &d.def.Types[ref.typ].Edges[ref.edge]
	e.Example = exampleName(from) + " -> " + exampleName(to)
	switch typ, seen := d.typeOf[to.ID]; {
	case to.Literal:
	case seen:
		e.Target = typ
	default:
		d.pending[to.ID] = append(d.pending[to.ID], ref)
		d.enqueue(to.ID, true)
	}
}

// complete adds to every type the edge types and features its members
// have that the sample missed (step 4 of the package comment).
func (d *deriver) complete(ctx context.Context) error {
	members, err := d.typeMembers(ctx)
	if err != nil {
		return err
	}
	for ti, t := range d.def.Types {
		ms := members[t.Name]
		if len(ms) == 0 {
			continue
		}
		rels, err := d.kg.Relations(ctx, ms, store.Both)
		if err != nil {
			return fmt.Errorf("relations of %d %q nodes: %w", len(ms), t.Name, err)
		}
		for _, r := range rels {
			if r.Hidden || r.Graph != d.graph || r.Count == 0 || r.ID == store.GroveNodeType {
				continue
			}
			if err := d.add(ctx, ti, ms, r, rels); err != nil {
				return err
			}
		}
	}
	return nil
}

// typeMembers returns up to MemberCap nodes of each type, by type name:
// the inspected ones and the neighbours of every inspected node along its
// type's edge types. Neighbours along one edge type can be of several
// types (authors, publishers and series all point at books with "book";
// the unnamed Wikidata items outside the sample are pointed at by typed
// items and point at none), so in a typed graph one KG call reads their
// types and each neighbour joins the members of its own type, the
// untyped ones those of the untyped type. A neighbour of a type that no
// inspected node has is left out.
func (d *deriver) typeMembers(ctx context.Context) (map[string][]string, error) {
	out := map[string][]string{}
	seen := map[string]bool{}
	for name, ids := range d.members {
		out[name] = slices.Clone(ids)
		for _, id := range ids {
			seen[id] = true
		}
	}
	var near []string
	for _, t := range d.def.Types {
		ns, err := d.neighbours(ctx, t, d.members[t.Name], d.opts.MemberCap-len(d.members[t.Name]), seen)
		if err != nil {
			return nil, err
		}
		near = append(near, ns...)
	}
	types, err := d.typesOf(ctx, near)
	if err != nil {
		return nil, err
	}
	for _, id := range near {
		typ := types[id]
		if _, known := d.types[typ]; known && len(out[typ]) < d.opts.MemberCap {
			out[typ] = append(out[typ], id)
		}
	}
	return out, nil
}

// neighbours returns up to limit nodes not yet seen, reached from members
// along the edge types of t in this graph, and marks them seen.
func (d *deriver) neighbours(ctx context.Context, t NodeType, members []string, limit int, seen map[string]bool) ([]string, error) {
	var out []string
	for _, e := range t.Edges {
		if len(out) >= limit {
			break
		}
		es, err := d.kg.Edges(ctx, members, e.Relation, e.Dir, d.opts.MemberCap)
		if err != nil {
			return nil, fmt.Errorf("neighbours along %s: %w", e.Relation, err)
		}
		for _, ed := range es {
			n := ed.Object
			if e.Dir == store.In {
				n = ed.Subject
			}
			if ed.Graph == d.graph && !n.Literal && !seen[n.ID] && len(out) < limit {
				seen[n.ID] = true
				out = append(out, n.ID)
			}
		}
	}
	return out, nil
}

// typesOf reads the grove:nodeType in this graph of the ids with one KG
// call; an id without one is absent. A graph without declared types costs
// no call.
func (d *deriver) typesOf(ctx context.Context, ids []string) (map[string]string, error) {
	types := map[string]string{}
	if len(ids) == 0 || !d.def.Typed() {
		return types, nil
	}
	es, err := d.kg.Edges(ctx, ids, store.GroveNodeType, store.Out, 0)
	if err != nil {
		return nil, fmt.Errorf("node types of %d neighbours: %w", len(ids), err)
	}
	for _, e := range es {
		if _, ok := types[e.Subject.ID]; !ok && e.Graph == d.graph {
			types[e.Subject.ID] = e.Object.Name()
		}
	}
	return types, nil
}

// add records relation r of type ti's members when the type lacks it: a
// feature when its values are literals, an edge type otherwise. rels are
// the members' relations in every graph. When no edge of this graph is
// among the edges read (see example), r is listed as an edge type without
// example: a relation of this graph the members have is not left out.
func (d *deriver) add(ctx context.Context, ti int, members []string, r store.Relation, rels []store.Relation) error {
	k := edgeKey{d.def.Types[ti].Name, r.ID, r.Dir}
	if d.edges[k] {
		return nil
	}
	d.edges[k] = true
	from, to, ok, err := d.example(ctx, members, r, rels)
	if err != nil {
		return err
	}
	if !ok {
		d.addEdge(ti, r)
		return nil
	}
	name := subgraph.RelText(r)
	t := &d.def.Types[ti]
	switch {
	case to.Literal && r.Dir == store.Out:
		if !slices.Contains(t.Features, name) {
			t.Features = append(t.Features, name)
		}
	case to.Literal:
	default:
		e := EdgeType{Relation: r.ID, Name: name, Dir: r.Dir, Example: exampleName(from) + " -> " + exampleName(to)}
		if typ, ok := d.typeOf[to.ID]; ok {
			e.Target = typ
		}
		t.Edges = append(t.Edges, e)
	}
	return nil
}

// maxExampleScan bounds the edges read for one example (see example).
const maxExampleScan = 1024

// example returns the two ends of an edge of relation r of this graph
// from ids, in the followed direction; ok is false when none is found.
// KG.Edges takes no graph, and the same node may have the same relation
// in another graph, so it reads as many edges as the other graphs have
// (their counts in rels, the relations of ids in every graph) plus one,
// up to maxExampleScan, and takes the first of this graph. KG.Edges has
// no offset to read further, so when other graphs have more edges than
// that, ok may be false although this graph has the relation: the caller
// lists the edge type without an example rather than leave it out.
func (d *deriver) example(ctx context.Context, ids []string, r store.Relation, rels []store.Relation) (from, to store.Entity, ok bool, err error) {
	limit := 1
	for _, o := range rels {
		if o.ID == r.ID && o.Dir == r.Dir && o.Graph != d.graph {
			limit += int(min(o.Count, maxExampleScan))
		}
	}
	es, err := d.kg.Edges(ctx, ids, r.ID, r.Dir, min(limit, maxExampleScan))
	if err != nil {
		return from, to, false, fmt.Errorf("edges of %s: %w", r.ID, err)
	}
	i := slices.IndexFunc(es, func(e store.Edge) bool { return e.Graph == d.graph })
	if i < 0 {
		return from, to, false, nil
	}
	from, to = es[i].Subject, es[i].Object
	if r.Dir == store.In {
		from, to = to, from
	}
	return from, to, true, nil
}

// exampleName is a node's name in an example: its label, or "(unnamed
// node)" for a mediator without one.
func exampleName(e store.Entity) string {
	if !e.Literal && strings.TrimSpace(e.Label) == "" {
		return "(unnamed node)"
	}
	return literal.OneLine(e.Name(), maxExample)
}

// maxExample bounds a name in an example.
const maxExample = 40
