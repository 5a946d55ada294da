// Package hood is an entity's neighbourhood as Grove's reasoners show it to
// a model: every edge reachable, ranked by relevance to the question, in
// pages, with the true total, and mediator nodes described by their
// contents.
//
// # Ranking and paging
//
// store.KG returns edges in id order, which after a bulk load is
// alphabetical: a method that keeps the first N edges of a relation can
// never reach edge 133 of 133. Fetch instead reads up to a generous cap of
// edges per entity (Options.FetchCap, one KG call each), ranks them, and
// returns one page of the ranking. The rank of an edge is, in order:
//
//  1. lexical similarity to the question of the far end's text: its label,
//     or for a mediator its contents ("actor: Harrison Ford; character:
//     Rick Deckard"): distinct content words shared with the question,
//     after lower-casing and a light plural folding; no embeddings;
//  2. among far ends that matched the question, their degree (KG.Degree
//     over every relation), when at most Options.DegreeCap matched, so the
//     number of KG calls stays bounded on hubs;
//  3. the store's order.
//
// When the cap stops the read, the entities the question names (exact
// label or alias matches of runs of its words, KG.Search) are looked up
// too, and their edges along the relation checked for the entity: so "Blade
// Runner" is among the films of a type node with 30,000 of them, and Note
// says what was read (the first N in the store's order and M the question
// names), never that the most relevant of all were ranked.
//
// An entity whose edges all fit in one page is not ranked at all (order
// only, no extra KG call): ranking decides what is shown, and there
// everything is.
//
// The ranking is a pure function of the question, the entities and the
// store, so asking for the next page (offset + limit) recomputes the same
// order and continues where the previous page stopped. With several
// entities, each entity's ranking is interleaved round-robin, so one
// entity with thousands of edges cannot use up a page: every entity gets
// its share and the ones with fewer edges leave room to the others.
// Page.Total is always the relation's true edge count (from
// KG.Relations), so a model is told "12 of 133 shown" even when the cap
// stopped the fetch.
//
// # Mediators
//
// A mediator is a node without a label, with edges of its own, that
// connects others: a Freebase CVT (a film performance joining film, actor
// and character), a Wikidata statement node. An id such as "_:film/9897"
// tells a model nothing, so Contents describes mediators by their other
// edges, fetched in one batch (one KG.Relations call and one KG.Edges call
// per relation for all mediators of a page), and Render writes them in
// one shared form, "(actor: Harrison Ford; character: Rick Deckard)",
// that every reasoner uses in graph text, options, observations and
// paths.
//
// A node without a label and without outgoing edges is no mediator but
// an ordinary item whose label the KG lacks (a Wikidata city outside a
// loaded subset): the edges of other entities into it would describe it
// as "(inverse of twinned with: Berlin)", which reads as Berlin. It gets
// no contents and reads "Q1486 (no label in the KG)"; so does a hub (an
// unnamed type node). Only an Edge with contents is a mediator
// (Edge.IsMediator); Unlabelled only says it may be one.
package hood

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// Defaults of Options.
const (
	DefaultFetchCap  = 1000
	DefaultDegreeCap = 50
	DefaultMaxParts  = 4
)

// Options bound the work of Fetch and Contents.
type Options struct {
	// Question is what edges are ranked against.
	Question string
	// Graphs are the graphs whose edges count ("" or empty = all).
	Graphs []string
	// FetchCap is the most edges read per entity and relation.
	FetchCap int
	// DegreeCap bounds the far ends whose degree breaks ties: only when at
	// most this many matched the question are their degrees read.
	DegreeCap int
	// MaxParts bounds the edges that describe one mediator.
	MaxParts int
}

func (o Options) withDefaults() Options {
	if o.FetchCap <= 0 {
		o.FetchCap = DefaultFetchCap
	}
	if o.DegreeCap <= 0 {
		o.DegreeCap = DefaultDegreeCap
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMaxParts
	}
	return o
}

func (o Options) inGraphs(g string) bool {
	return len(o.Graphs) == 0 || slices.Contains(o.Graphs, g)
}

// Unlabelled reports whether e may be a mediator: a non-literal node
// without a label. It may also be an ordinary item whose label the KG
// lacks (a Wikidata city outside a loaded subset): Contents tells them
// apart, and only an Edge with contents (Edge.IsMediator) is one.
func Unlabelled(e store.Entity) bool {
	return !e.Literal && strings.TrimSpace(e.Label) == ""
}

// Edge is one ranked edge of a page.
type Edge struct {
	store.Edge
	// From is the entity the edge was fetched from; Far its other end.
	From string
	Far  store.Entity
	// Contents describe Far when it is a mediator (see Contents); an
	// unlabelled far end that is not one has none.
	Contents []Part
	// Score is the lexical similarity of Far's text to the question.
	Score float64
	// Degree is Far's degree, when it was computed (else 0).
	Degree int64
	// Named is set when the edge was found past the fetch cap because the
	// question names Far (namedEdges).
	Named bool
}

// Page is one page of a relation's ranked edges.
type Page struct {
	Edges []Edge
	// Offset is the rank of the page's first edge (0-based).
	Offset int
	// Total is the relation's true number of edges from the entities.
	Total int64
	// Ranked is the number of edges read and ranked (at most FetchCap per
	// entity, plus those the question names): edges beyond it are never
	// shown, which Note says.
	Ranked int
	// Named is how many of the ranked edges were found past the fetch cap
	// because the question names their far end.
	Named int
	// Totals are the true edge counts per entity.
	Totals map[string]int64
}

// IsMediator reports whether the far end of e is a mediator, named by its
// contents: an unlabelled node with edges of its own (see Contents).
func (e Edge) IsMediator() bool { return len(e.Contents) > 0 }

// More reports whether edges beyond this page were ranked.
func (p Page) More() bool { return p.Offset+len(p.Edges) < p.Ranked }

// Note says what part of the total the page shows: "1-10 of 133, ranked
// by relevance to the question", or "12 in all" for a whole relation.
// When the fetch cap stopped the read it says exactly what was ranked:
// the first edges in the store's order, not the most relevant of all
// (an edge beyond the cap is never read, so its relevance is unknown).
func (p Page) Note() string {
	if len(p.Edges) == 0 {
		return fmt.Sprintf("none left of %d", p.Total)
	}
	if int64(len(p.Edges)) >= p.Total && p.Offset == 0 {
		return fmt.Sprintf("%d in all", p.Total)
	}
	s := fmt.Sprintf("%d-%d of %d", p.Offset+1, p.Offset+len(p.Edges), p.Total)
	if int64(p.Ranked) < p.Total {
		read := fmt.Sprintf("the first %d in the store's order", p.Ranked-p.Named)
		if p.Named > 0 {
			read += fmt.Sprintf(" and %d whose entity the question names", p.Named)
		}
		return s + fmt.Sprintf("; only %s were read and ranked by relevance to the question, the other %d cannot "+
			"be listed", read, p.Total-int64(p.Ranked))
	}
	return s + ", ranked by relevance to the question"
}

// Fetch returns the page [offset, offset+limit) of the ranked edges of rel
// from ids (see the package comment). rel.Count is taken as the total when
// positive; otherwise the number of edges found is.
func Fetch(ctx context.Context, kg store.KG, ids []string, rel store.Relation, offset, limit int, opt Options) (Page, error) {
	opt = opt.withDefaults()
	q := Terms(opt.Question)
	per := make([][]Edge, 0, len(ids))
	ranked, named := 0, 0
	totals := make(map[string]int64, len(ids))
	for _, id := range ids {
		es, n, err := rankOne(ctx, kg, id, rel, q, share(limit, len(ids)), opt)
		if err != nil {
			return Page{}, err
		}
		ranked += len(es)
		for _, e := range es {
			if e.Named {
				named++
			}
		}
		per = append(per, es)
		totals[id] = n
	}
	all := interleave(per)
	total := rel.Count
	if total <= 0 {
		total = int64(len(all))
	}
	if len(ids) == 1 && rel.Count > 0 {
		totals[ids[0]] = rel.Count
	}
	p := Page{Offset: max(0, offset), Total: total, Ranked: ranked, Named: named, Totals: totals}
	if p.Offset >= len(all) {
		return p, nil
	}
	end := len(all)
	if limit > 0 {
		end = min(end, p.Offset+limit)
	}
	p.Edges = all[p.Offset:end]
	if err := describe(ctx, kg, p.Edges, opt); err != nil {
		return Page{}, err
	}
	return p, nil
}

// rankOne reads and ranks the edges of rel from one entity; it also
// returns the entity's true number of such edges.
func rankOne(ctx context.Context, kg store.KG, id string, rel store.Relation, q map[string]bool, share int, opt Options) ([]Edge, int64, error) {
	es, capped, err := rankEdges(ctx, kg, id, rel, q, share, opt)
	if err != nil || !capped {
		return es, int64(len(es)), err
	}
	n, err := kg.Degree(ctx, id, rel.ID, rel.Dir)
	if err != nil {
		return nil, 0, fmt.Errorf("degree of %s along %s: %w", id, rel.ID, err)
	}
	return es, n, nil
}

// rankEdges reads and ranks; share is the entity's share of a page (0 =
// unbounded): an entity with no more edges than that keeps the store's
// order, since all its edges are shown on the first page anyway. share
// depends on the page size only, never on the offset, so every page of a
// relation sees the same order.
// capped reports that the fetch cap stopped the read (so the entity may
// have more edges than were read, whatever the graph filter kept).
func rankEdges(ctx context.Context, kg store.KG, id string, rel store.Relation, q map[string]bool, share int, opt Options) (es []Edge, capped bool, err error) {
	raw, err := kg.Edges(ctx, []string{id}, rel.ID, rel.Dir, opt.FetchCap)
	if err != nil {
		return nil, false, fmt.Errorf("edges of %s along %s (%s): %w", id, rel.ID, rel.Dir, err)
	}
	capped = len(raw) >= opt.FetchCap
	var mediators []int
	add := func(e store.Edge, named bool) {
		far := e.Object
		if rel.Dir == store.In {
			far = e.Subject
		}
		es = append(es, Edge{Edge: e, From: id, Far: far, Score: Similarity(q, far.Name()), Named: named})
		if Unlabelled(far) {
			mediators = append(mediators, len(es)-1)
		}
	}
	for _, e := range raw {
		if (rel.Graph != "" && e.Graph != rel.Graph) || !opt.inGraphs(e.Graph) {
			continue
		}
		add(e, false)
	}
	if capped && len(q) > 0 {
		seen := make(map[string]bool, len(es))
		for _, e := range es {
			seen[e.Far.ID] = true
		}
		named, err := namedEdges(ctx, kg, id, rel, seen, opt)
		if err != nil {
			return nil, false, err
		}
		for _, e := range named {
			add(e, true)
		}
	}
	if share > 0 && len(es) <= share {
		return es, capped, nil
	}
	if len(mediators) > 0 && len(q) > 0 {
		// Mediators rank by their contents: describe them all (batched).
		ms := make([]Edge, len(mediators))
		for i, j := range mediators {
			ms[i] = es[j]
		}
		if err := describe(ctx, kg, ms, opt); err != nil {
			return nil, false, err
		}
		for i, j := range mediators {
			es[j].Contents = ms[i].Contents
			if ms[i].IsMediator() {
				es[j].Score = Similarity(q, PartsText(ms[i].Contents))
			}
		}
	}
	matched := 0
	for _, e := range es {
		if e.Score > 0 && !e.Far.Literal && !e.IsMediator() {
			matched++
		}
	}
	for i := range es {
		e := &es[i]
		if matched > opt.DegreeCap || e.Score == 0 || e.Far.Literal || e.IsMediator() {
			continue
		}
		d, err := kg.Degree(ctx, e.Far.ID, "", store.Both)
		if err != nil {
			return nil, false, fmt.Errorf("degree of %s: %w", e.Far.ID, err)
		}
		e.Degree = d
	}
	slices.SortStableFunc(es, func(a, b Edge) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Degree, a.Degree)
	})
	return es, capped, nil
}

// share is one entity's share of a page of limit edges (0 = unbounded).
func share(limit, entities int) int {
	if limit <= 0 || entities <= 0 {
		return 0
	}
	return (limit + entities - 1) / entities
}

// interleave merges per-entity rankings round-robin.
func interleave(per [][]Edge) []Edge {
	if len(per) == 1 {
		return per[0]
	}
	var out []Edge
	for i := 0; ; i++ {
		added := false
		for _, es := range per {
			if i < len(es) {
				out = append(out, es[i])
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

// describe sets the contents of the page's unlabelled far ends that were
// not described yet. One that is no mediator gets empty, non-nil
// contents, so it is not described again.
func describe(ctx context.Context, kg store.KG, es []Edge, opt Options) error {
	var ids []string
	from := map[string]string{}
	for _, e := range es {
		if Unlabelled(e.Far) && e.Contents == nil && !slices.Contains(ids, e.Far.ID) {
			ids = append(ids, e.Far.ID)
			from[e.Far.ID] = e.From
		}
	}
	if len(ids) == 0 {
		return nil
	}
	parts, err := Contents(ctx, kg, ids, from, opt)
	if err != nil {
		return err
	}
	for i := range es {
		if es[i].Contents != nil || !slices.Contains(ids, es[i].Far.ID) {
			continue
		}
		es[i].Contents = parts[es[i].Far.ID]
		if es[i].Contents == nil {
			es[i].Contents = []Part{}
		}
	}
	return nil
}

// Part is one edge that describes a mediator, seen from the mediator.
type Part struct {
	// Label is the relation's label in the direction seen from the
	// mediator ("actor"; an inverse label for incoming edges).
	Label string
	// Value is the other end.
	Value store.Entity
	// Edge is the stored edge.
	Edge store.Edge
	// Dir is the direction of Edge seen from the mediator.
	Dir store.Direction
	// InverseLabel is the relation's inverse label.
	InverseLabel string
}

// Contents describes mediators by their other edges, in both directions:
// for each id, up to MaxParts edges (one per relation first, in the KG's
// relation order), leaving out hidden relations, graphs not in
// opt.Graphs and the edge back to from[id] (the node the mediator was
// reached from). It costs one KG.Relations call plus one KG.Edges call per
// relation, whatever the number of ids, each reading at most 2*MaxParts
// edges per id.
//
// Only a mediator gets contents; the other ids get none and keep their id
// as their name:
//   - a node without edges of its own (no outgoing edge, in opt.Graphs,
//     of a relation that is not hidden) is an ordinary item whose label
//     the KG lacks, such as a Wikidata city outside a loaded subset: the
//     edges of other entities into it do not describe it;
//   - a node with more than 2*MaxParts edges of one relation is a hub (an
//     unnamed type or class node).
func Contents(ctx context.Context, kg store.KG, ids []string, from map[string]string, opt Options) (map[string][]Part, error) {
	opt = opt.withDefaults()
	rels, err := kg.Relations(ctx, ids, store.Both)
	if err != nil {
		return nil, fmt.Errorf("contents of %d mediators: %w", len(ids), err)
	}
	c := contents{out: make(map[string][]Part, len(ids)), hubs: map[string]bool{}, own: map[string]bool{}}
	for _, rel := range rels {
		if rel.Hidden || rel.Count == 0 || !opt.inGraphs(rel.Graph) {
			continue
		}
		// Bounded: a node without a label can be a hub (an unnamed type
		// node with 75,000 members); a few parts per mediator suffice.
		limit := (hubEdges(opt) + 1) * len(ids)
		es, err := kg.Edges(ctx, ids, rel.ID, rel.Dir, limit)
		if err != nil {
			return nil, fmt.Errorf("contents of mediators along %s: %w", rel.ID, err)
		}
		c.add(es, rel, from, opt)
		c.cut = c.cut || (rel.Dir == store.Out && len(es) >= limit)
	}
	if err := c.ownEdges(ctx, kg, ids); err != nil {
		return nil, err
	}
	for id := range c.out {
		if c.hubs[id] || !c.own[id] {
			delete(c.out, id)
		}
	}
	return c.out, nil
}

// contents is what Contents gathers.
type contents struct {
	out  map[string][]Part
	hubs map[string]bool
	// own marks the ids seen with an outgoing edge; cut is set when the
	// limit may have hidden some (see ownEdges).
	own map[string]bool
	cut bool
}

// add takes the parts of one relation's edges es from the mediators.
func (c *contents) add(es []store.Edge, rel store.Relation, from map[string]string, opt Options) {
	added := map[string]bool{}
	per := map[string]int{}
	for _, e := range es {
		if e.Graph != rel.Graph {
			continue
		}
		med, other := e.Subject, e.Object
		if rel.Dir == store.In {
			med, other = e.Object, e.Subject
		}
		if rel.Dir == store.Out {
			c.own[med.ID] = true
		}
		if per[med.ID]++; per[med.ID] > hubEdges(opt) {
			c.hubs[med.ID] = true
		}
		if other.ID == from[med.ID] || added[med.ID] || len(c.out[med.ID]) >= opt.MaxParts {
			continue
		}
		added[med.ID] = true
		c.out[med.ID] = append(c.out[med.ID], Part{Label: label(rel), Value: other, Edge: e, Dir: rel.Dir,
			InverseLabel: rel.InverseLabel})
	}
}

// ownEdges settles, for the ids with parts but no outgoing edge seen,
// whether they have one, when a batch limit may have hidden it (one KG
// call each, only then; KG.Degree counts every graph's edges).
func (c *contents) ownEdges(ctx context.Context, kg store.KG, ids []string) error {
	if !c.cut {
		return nil
	}
	for _, id := range ids {
		if c.own[id] || c.hubs[id] || len(c.out[id]) == 0 {
			continue
		}
		n, err := kg.Degree(ctx, id, "", store.Out)
		if err != nil {
			return fmt.Errorf("outgoing edges of %s: %w", id, err)
		}
		c.own[id] = n > 0
	}
	return nil
}

func label(rel store.Relation) string { return subgraph.RelText(rel) }

// Text is how a model sees the far end of e: its name, or a mediator's
// contents.
func (e Edge) Text() string {
	if e.IsMediator() {
		return Render(e.Contents)
	}
	return subgraph.EntityText(e.Far)
}

// AddTo adds the page's edges of rel to g: each edge in the followed
// direction, each mediator's contents (its name in g) with the edges that
// describe it, and the true total of every entity's group.
func AddTo(g *subgraph.Graph, p Page, rel store.Relation) (newEdges int) {
	for _, e := range p.Edges {
		if g.AddEdge(e.Edge, rel.Dir, rel.InverseLabel) {
			newEdges++
		}
		if len(e.Contents) == 0 {
			continue
		}
		g.SetContents(e.Far.ID, Render(e.Contents))
		for _, part := range e.Contents {
			if g.AddContentEdge(part.Edge, part.Dir, part.InverseLabel) {
				newEdges++
			}
		}
	}
	for id, n := range p.Totals {
		g.SetTotal(subgraph.GroupKey{Anchor: id, Relation: rel.ID, Graph: rel.Graph, Dir: rel.Dir}, n)
	}
	return newEdges
}

// hubEdges is the most edges of one relation a mediator may have.
func hubEdges(opt Options) int { return 2 * opt.MaxParts }

// PartsText is the contents without brackets: "actor: Harrison Ford;
// character: Rick Deckard".
func PartsText(parts []Part) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = flat(p.Label) + ": " + subgraph.EntityText(p.Value)
	}
	return strings.Join(s, "; ")
}

// Render is the one written form of a mediator: "(actor: Harrison Ford;
// character: Rick Deckard)", or "" without contents.
func Render(parts []Part) string {
	if len(parts) == 0 {
		return ""
	}
	return "(" + PartsText(parts) + ")"
}

// stopWords are left out of the lexical similarity.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"did": true, "do": true, "does": true, "for": true, "from": true, "had": true, "has": true, "have": true,
	"how": true, "in": true, "is": true, "it": true, "many": true, "of": true, "on": true, "or": true,
	"the": true, "to": true, "was": true, "were": true, "what": true, "when": true, "where": true,
	"which": true, "who": true, "whom": true, "whose": true, "with": true,
}

// Terms returns the content words of a text: lower-cased letter and digit
// runs, stop words left out, a final "s" folded ("films" = "film").
func Terms(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// Similarity is the number of text's distinct content words that occur
// among the question terms q, with a small bonus for texts that are
// wholly matched (so "Rick Deckard" outranks "Rick Deckard's brother").
func Similarity(q map[string]bool, text string) float64 {
	t := Terms(text)
	if len(t) == 0 || len(q) == 0 {
		return 0
	}
	n := 0
	for w := range t {
		if q[w] {
			n++
		}
	}
	return float64(n) + float64(n)/float64(len(t))/2
}

func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// Shown counts, per entities and relation, the ranked edges a search
// state has already fetched, so fetching again continues with the next
// page. It is never changed in place: With returns a changed copy, so
// search states (tree nodes, chains) can share it.
type Shown map[string]int

func shownKey(ids []string, rel store.Relation) string {
	return strings.Join(slices.Sorted(slices.Values(ids)), "\x00") + "\x01" + rel.ID + "\x01" + rel.Dir.String() +
		"\x01" + rel.Graph
}

// Of returns how many ranked edges of rel from ids were fetched.
func (s Shown) Of(ids []string, rel store.Relation) int { return s[shownKey(ids, rel)] }

// With returns a copy of s recording n fetched edges of rel from ids.
func (s Shown) With(ids []string, rel store.Relation, n int) Shown {
	out := make(Shown, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	out[shownKey(ids, rel)] = n
	return out
}
