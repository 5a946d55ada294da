package grounded

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// step is one reasoning step z_i of a chain: a thought and its grounding.
type step struct {
	thought string
	// action is the agent's action as written (canonical when it parsed);
	// "" for the exploration.
	action string
	// observation is what the KG returned: the agent's observation, or the
	// triples and attributes one exploration found (at most maxFound).
	observation string
	// brief is how chains show an exploration's observation: its count
	// and notes. The facts themselves are shown once, in the prompt's
	// knowledge section.
	brief string
}

// attribute is a feature value the chain retrieved.
type attribute struct {
	entity, name, value string
}

// seenEntity is an entity of Algorithm 1's seen_entities.
type seenEntity struct {
	id      string
	visited bool
}

// state is a node of the search: s = [q, G', z_1..z_i]. A state is owned
// by one goroutine at a time: children copy what they change.
type state struct {
	id      int
	parents []*state
	depth   int
	steps   []step
	// sub holds G', the triples retrieved so far, and the entities seen.
	sub   *subgraph.Graph
	attrs []attribute
	// seen are the exploration's seen entities.
	seen []seenEntity
	// merge marks a GoT aggregation state.
	merge bool
	// shown counts the ranked neighbours NeighbourCheck listed per node
	// and edge type, so repeating it lists the next page (copy on write).
	shown hood.Shown

	done   bool
	answer string
	// act is the trace action of the state's step.
	act string
	// problem is why the step's action failed, shown on its trace node.
	problem string
	extra   map[string]string

	value     float64
	evaluated bool
	votes     int
}

// child returns a new state continuing s with thought.
func (s *state) child(thought string) *state {
	c := &state{parents: []*state{s}, depth: s.depth + 1, sub: s.sub.Clone(),
		attrs: slices.Clip(s.attrs), seen: slices.Clone(s.seen), shown: s.shown, extra: map[string]string{}}
	c.steps = append(slices.Clip(s.steps), step{thought: thought})
	return c
}

// last returns the current step.
func (s *state) last() *step { return &s.steps[len(s.steps)-1] }

// thoughts lists the chain's thoughts.
func (s *state) thoughts() []string {
	out := make([]string, len(s.steps))
	for i, st := range s.steps {
		out[i] = st.thought
	}
	return out
}

// addAttribute records a feature value once.
func (s *state) addAttribute(a attribute) bool {
	if slices.Contains(s.attrs, a) {
		return false
	}
	s.attrs = append(slices.Clip(s.attrs), a)
	return true
}

// see adds an entity to the exploration's seen entities (unvisited).
func (s *state) see(id string) bool {
	if slices.ContainsFunc(s.seen, func(e seenEntity) bool { return e.id == id }) {
		return false
	}
	s.seen = append(s.seen, seenEntity{id: id})
	return true
}

// seeVisited adds an entity to the seen entities as visited (a mediator,
// whose contents are explored instead).
func (s *state) seeVisited(id string) {
	if i := slices.IndexFunc(s.seen, func(e seenEntity) bool { return e.id == id }); i >= 0 {
		s.seen[i].visited = true
		return
	}
	s.seen = append(s.seen, seenEntity{id: id, visited: true})
}

// unvisit marks ids[i] unvisited again where left[i] (an exploration
// stopped before them).
func (s *state) unvisit(ids []string, left []bool) {
	for i, id := range ids {
		if !left[i] {
			continue
		}
		if j := slices.IndexFunc(s.seen, func(e seenEntity) bool { return e.id == id }); j >= 0 {
			s.seen[j].visited = false
		}
	}
}

// visit returns the ids of at most max seen entities not yet visited
// (earliest seen first; max <= 0 means all) and marks every unvisited
// entity visited: those beyond max are left out of the exploration (they
// stay in the graph as tails). It also returns how many were left out.
func (s *state) visit(max int) (ids []string, skipped int) {
	for i := range s.seen {
		if s.seen[i].visited {
			continue
		}
		s.seen[i].visited = true
		if max > 0 && len(ids) >= max {
			skipped++
			continue
		}
		ids = append(ids, s.seen[i].id)
	}
	return ids, skipped
}

// merged returns the GoT aggregation of a and b: both chains (their shared
// prefix once), the union of their graphs, attributes and seen entities.
func merged(a, b *state) *state {
	m := &state{parents: []*state{a, b}, depth: max(a.depth, b.depth) + 1, sub: a.sub.Clone(),
		attrs: slices.Clone(a.attrs), seen: slices.Clone(a.seen), merge: true, extra: map[string]string{}}
	p := 0
	for p < len(a.steps) && p < len(b.steps) && a.steps[p] == b.steps[p] {
		p++
	}
	m.steps = slices.Concat(a.steps, b.steps[p:])
	mergeGraph(m.sub, b.sub)
	for _, at := range b.attrs {
		m.addAttribute(at)
	}
	for _, e := range b.seen {
		i := slices.IndexFunc(m.seen, func(x seenEntity) bool { return x.id == e.id })
		if i < 0 {
			m.seen = append(m.seen, e)
		} else {
			m.seen[i].visited = m.seen[i].visited || e.visited
		}
	}
	return m
}

// mergeGraph adds src's entities, edges and links to dst.
func mergeGraph(dst, src *subgraph.Graph) {
	for _, e := range src.Entities() {
		se := store.Entity{ID: e.ID, Label: e.Label, Description: e.Description, Literal: e.Literal}
		if len(e.Graphs) == 0 {
			dst.AddEntity(se, "")
		}
		for _, g := range e.Graphs {
			dst.AddEntity(se, g)
		}
		dst.MarkStart(e.ID, e.Start)
	}
	for _, e := range src.Edges() {
		dst.AddEdge(e.Edge, e.Dir, e.InverseLabel)
	}
	for _, l := range src.Links() {
		if to, ok := src.Entity(l.To); ok {
			dst.AddLink(l.From, store.Entity{ID: to.ID, Label: to.Label, Description: to.Description}, l.Graph, l.Via)
		}
	}
}

// chainText renders the chain: "Thought 1: ...", "Action 1: ...",
// "Observation 1: ..." lines. An exploration step's observation is its
// brief ("found 23 triples and attributes"): every prompt that shows a
// chain lists the facts once, bounded, after it.
func (s *state) chainText() string { return s.chainTextFrom(0) }

// chainTextFrom renders the chain from step from (0-based) on, numbered
// as in the whole chain.
func (s *state) chainTextFrom(from int) string {
	var b strings.Builder
	for i, st := range s.steps {
		if i < from {
			continue
		}
		fmt.Fprintf(&b, "Thought %d: %s\n", i+1, flat(st.thought))
		if st.action != "" {
			fmt.Fprintf(&b, "Action %d: %s\n", i+1, flat(st.action))
		}
		obs := st.observation
		if st.brief != "" {
			obs = st.brief
		}
		if obs != "" {
			fmt.Fprintf(&b, "Observation %d: %s\n", i+1, indentLines(obs))
		}
	}
	return b.String()
}

// tripleLines are G' as "subject -> relation -> object" lines.
func (s *state) tripleLines() []string { return s.sub.Triples() }

// attributeLines are the attributes as "entity -> feature -> value".
func (s *state) attributeLines() []string {
	facts := s.attributeFacts()
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = arrowSafe(f.Subject) + " -> " + arrowSafe(f.Relation) + " -> " + arrowSafe(f.Object)
	}
	return out
}

// attributeFacts are the attributes as structured facts.
func (s *state) attributeFacts() []llm.Fact {
	out := make([]llm.Fact, len(s.attrs))
	for i, a := range s.attrs {
		out[i] = llm.Fact{Subject: a.entity, Relation: a.name, Object: a.value}
	}
	return out
}

// facts is the evidence as structured facts (llm.Task.Facts), in the
// order of evidence: attributes, then triples.
func (s *state) facts() []llm.Fact { return slices.Concat(s.attributeFacts(), s.sub.Facts()) }

// evidence is the attributes and triples, one per line: the structured
// context policies that read Task fields receive. Attributes come first:
// they describe the entities the chain asked about, triples their
// neighbourhood.
func (s *state) evidence() string {
	return strings.Join(slices.Concat(s.attributeLines(), s.tripleLines()), "\n")
}

// supported reports whether answer is backed by what the chain retrieved
// from the KG: the whole answer, or else every item of it (split on
// commas, semicolons and the word "and"), occurs as whole words (case
// ignored) in an entity name or value of the chain's triples and
// attributes, or is exactly the id of an entity at an end of one of the
// chain's triples (an answer given as an id, which NameAnswer names after
// this check). Relation names do not count, nor do entities the chain
// only found by name (a search result without an edge).
func (s *state) supported(answer string) bool {
	var ends []string
	for _, f := range s.facts() {
		ends = append(ends, strings.ToLower(flat(f.Subject)), strings.ToLower(flat(f.Object)))
	}
	ids := s.factIDs()
	occurs := func(item string) bool {
		item = flat(strings.Trim(flat(item), "\"'`*.[]"))
		if ids[item] {
			return true
		}
		item = strings.ToLower(item)
		return item != "" && slices.ContainsFunc(ends, func(e string) bool { return containsWords(e, item) })
	}
	if occurs(answer) {
		return true
	}
	items := strings.FieldsFunc(strings.ReplaceAll(" "+flat(answer)+" ", " and ", ","), func(r rune) bool {
		return r == ',' || r == ';'
	})
	if len(items) < 2 {
		return false
	}
	for _, it := range items {
		if flat(it) != "" && !occurs(it) {
			return false
		}
	}
	return true
}

// factIDs are the ids of the entities at the ends of the chain's triples.
func (s *state) factIDs() map[string]bool {
	ids := map[string]bool{}
	for _, e := range s.sub.Edges() {
		ids[e.Subject.ID], ids[e.Object.ID] = true, true
	}
	return ids
}

// containsWords reports whether sub occurs in s with no letter or digit
// right before or after it.
func containsWords(s, sub string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(sub):])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		from = i + n
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// describe returns "Name (id)" for an entity of the state's graph (a
// mediator's name is its contents), or just the id.
func (s *state) describe(id string) string {
	n := s.sub.Name(id)
	switch {
	case n == id || !s.sub.Has(id):
		return id
	case n == subgraph.Unlabelled(id):
		return n
	case strings.HasSuffix(n, " ("+id+")"):
		return n
	}
	return n + " (" + id + ")"
}

// name returns the display name of id in the state's graph.
func (s *state) name(id string) string { return s.sub.Name(id) }

func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func arrowSafe(s string) string { return strings.ReplaceAll(flat(s), "->", "-") }

// indentLines keeps a multi-line text readable after a label.
func indentLines(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}
