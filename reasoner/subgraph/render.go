package subgraph

import (
	"strconv"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// names returns every entity's display name: its label with whitespace
// collapsed, or its id followed by NoLabel when it has none; a label
// shared by several entities gets the id appended ("John Smith (Q1)").
func (g *Graph) names() map[string]string {
	count := make(map[string]int, len(g.entities))
	for _, e := range g.entities {
		if l := display(e); l != "" {
			count[strings.ToLower(l)]++
		}
	}
	out := make(map[string]string, len(g.entities))
	for _, e := range g.entities {
		l := display(e)
		switch {
		case l == "":
			out[e.ID] = Unlabelled(e.ID)
		case count[strings.ToLower(l)] > 1 && !e.Literal:
			out[e.ID] = l + " (" + e.ID + ")"
		default:
			out[e.ID] = l
		}
	}
	return out
}

// display is an entity's label (a literal's value), or a mediator's
// contents; "" when it has neither.
func display(e Entity) string {
	if l := flat(e.Label); l != "" && (e.Literal || HasLabel(e.ID, l)) {
		return l
	}
	return flat(e.Contents)
}

// Name returns the display name of id: its label, disambiguated with the
// id when several entities share it, or the id itself.
func (g *Graph) Name(id string) string {
	if n, ok := g.names()[id]; ok {
		return n
	}
	return id
}

// Names returns the display names of ids (see Name), computed once.
func (g *Graph) Names(ids []string) []string {
	names := g.names()
	out := make([]string, len(ids))
	for i, id := range ids {
		if n, ok := names[id]; ok {
			out[i] = n
		} else {
			out[i] = id
		}
	}
	return out
}

// flat collapses whitespace (newlines included) so that a label cannot
// break the layout.
func flat(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// MultiGraph reports whether the local graph spans several KGs, in which
// case the text tags entities and relations with their graph.
func (g *Graph) MultiGraph() bool { return len(g.Graphs()) > 1 }

// String returns Render().
func (g *Graph) String() string { return g.Render() }

// Render returns the local graph as text (see the package comment).
func (g *Graph) Render() string {
	var b strings.Builder
	g.WriteText(&b, "")
	return b.String()
}

// WriteText writes the text to b, every line prefixed with indent.
func (g *Graph) WriteText(b *strings.Builder, indent string) {
	names := g.names()
	multi := g.MultiGraph()
	b.WriteString(indent + "Entities:\n")
	g.writeEntities(b, indent+"  ", multi)
	b.WriteString(indent + "Edges:\n")
	g.writeEdges(b, indent+"  ", names, multi)
}

func (g *Graph) writeEntities(b *strings.Builder, indent string, multi bool) {
	n := 0
	for _, e := range g.entities {
		if e.Literal {
			continue
		}
		n++
		b.WriteString(indent + e.ID)
		if l := display(e); l != "" {
			b.WriteString(": " + l)
		} else {
			b.WriteString(" " + NoLabel)
		}
		if d := flat(e.Description); d != "" {
			b.WriteString(" - " + d)
		}
		if multi && len(e.Graphs) > 0 {
			b.WriteString(" [" + strings.Join(e.Graphs, ", ") + "]")
		}
		for _, same := range g.partners(e.ID) {
			b.WriteString(" (same as " + same + ")")
		}
		b.WriteByte('\n')
	}
	if n == 0 {
		b.WriteString(indent + "(none)\n")
	}
}

// partners returns the ids linked to id, in link order.
func (g *Graph) partners(id string) []string {
	var out []string
	for _, l := range g.links {
		switch id {
		case l.From:
			out = append(out, l.To)
		case l.To:
			out = append(out, l.From)
		}
	}
	return out
}

// group is the edges listed under one anchor entity and one relation.
type group struct {
	key   GroupKey
	label string
	lines []string
}

func (g *Graph) writeEdges(b *strings.Builder, indent string, names map[string]string, multi bool) {
	if len(g.edges) == 0 {
		b.WriteString(indent + "(none)\n")
		return
	}
	var anchors []string
	byAnchor := map[string][]*group{}
	index := map[GroupKey]*group{}
	for _, e := range g.edges {
		if e.Content {
			continue
		}
		anchor, other := e.Subject.ID, e.Object
		if e.Dir == store.In {
			anchor, other = e.Object.ID, e.Subject
		}
		k := GroupKey{anchor, e.Relation, e.Graph, e.Dir}
		gr := index[k]
		if gr == nil {
			gr = &group{key: k, label: relationLabel(e, multi)}
			index[k] = gr
			if _, seen := byAnchor[anchor]; !seen {
				anchors = append(anchors, anchor)
			}
			byAnchor[anchor] = append(byAnchor[anchor], gr)
		}
		gr.lines = append(gr.lines, g.endName(names, other, anchor)+QualifiersText(e.Qualifiers))
	}
	for _, a := range anchors {
		b.WriteString(indent + nameOf(names, store.Entity{ID: a}) + ":\n")
		for _, gr := range byAnchor[a] {
			b.WriteString(indent + "  " + gr.label + g.totalNote(gr.key, len(gr.lines)) + ":\n")
			for _, l := range gr.lines {
				b.WriteString(indent + "    " + l + "\n")
			}
		}
	}
}

// totalNote is " (133 in all, 12 shown)" for a group with a recorded
// total, " (12 in all)" when it is complete, "" without a total.
func (g *Graph) totalNote(k GroupKey, shown int) string {
	n, ok := g.totals[k]
	switch {
	case !ok:
		return ""
	case n > int64(shown):
		return " (" + strconv.FormatInt(n, 10) + " in all, " + strconv.Itoa(shown) + " shown)"
	}
	return " (" + strconv.FormatInt(n, 10) + " in all)"
}

func nameOf(names map[string]string, e store.Entity) string {
	if n, ok := names[e.ID]; ok {
		return n
	}
	return EntityText(e)
}

// maxMediatorParts bounds the members that name a mediator (see endName).
const maxMediatorParts = 4

// endName is the name of one end of an edge whose other end is except. A
// mediator (an entity with contents) is named by its other members, never
// by except itself: its contents were computed from the node it was
// reached from, and the film it hangs from must not describe the
// performance as "(is starring of: Fort Apache)" under Fort Apache.
func (g *Graph) endName(names map[string]string, e store.Entity, except string) string {
	if i, ok := g.index[e.ID]; !ok || g.entities[i].Contents == "" || flat(g.entities[i].Label) != "" {
		return nameOf(names, e)
	}
	var parts []string
	for _, x := range g.edges {
		var other store.Entity
		var label string
		switch e.ID {
		case x.Subject.ID:
			other, label = x.Object, RelationText(x.Relation, x.RelationLabel, x.InverseLabel, store.Out)
		case x.Object.ID:
			other, label = x.Subject, RelationText(x.Relation, x.RelationLabel, x.InverseLabel, store.In)
		default:
			continue
		}
		if other.ID == except || other.ID == e.ID {
			continue
		}
		parts = append(parts, label+": "+nameOf(names, other))
		if len(parts) == maxMediatorParts {
			break
		}
	}
	if len(parts) == 0 {
		return Unlabelled(e.ID)
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// relationLabel is the label an edge is listed under.
func relationLabel(e Edge, multi bool) string {
	l := RelationText(e.Relation, e.RelationLabel, e.InverseLabel, e.Dir)
	if multi && e.Graph != "" {
		l += " [" + e.Graph + "]"
	}
	return l
}

// QualifiersText renders statement qualifiers, " (start time: 2003; end time:
// 2010)", one bracket per statement when a fact has several, numbered
// with their total: " (statement 1 of 2: start time: 1775; end time:
// 1788) (statement 2 of 2: start time: 1798)". The qualifiers of two
// statements are never merged: their dates could not be paired.
func QualifiersText(fs []store.Feature) string {
	groups := store.GroupQualifiers(fs)
	var b strings.Builder
	for n, st := range groups {
		parts := make([]string, len(st))
		for i, f := range st {
			parts[i] = QualifierText(f)
		}
		b.WriteString(" (")
		if len(groups) > 1 {
			b.WriteString("statement " + strconv.Itoa(n+1) + " of " + strconv.Itoa(len(groups)) + ": ")
		}
		b.WriteString(strings.Join(parts, "; ") + ")")
	}
	return b.String()
}

// Triples returns one "subject -> relation -> object" line per edge (see
// EdgeTriples).
func (g *Graph) Triples() []string { return g.EdgeTriples(g.edges) }

// EdgeTriples returns one "subject -> relation -> object" line per edge,
// in stored direction with the local graph's display names and forward
// labels (qualifiers in parentheses after the object). Methods hand these
// to models as structured context; "->" inside a name becomes "-" so every
// line has exactly three parts.
func (g *Graph) EdgeTriples(edges []Edge) []string {
	facts := g.EdgeFacts(edges)
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = arrowSafe(f.Subject) + " -> " + arrowSafe(f.Relation) + " -> " + arrowSafe(f.Object)
	}
	return out
}

// Facts returns every edge as an llm.Fact (see EdgeFacts).
func (g *Graph) Facts() []llm.Fact { return g.EdgeFacts(g.edges) }

// EdgeFacts returns the edges as the structured facts of an llm.Task: the
// same display names, labels and qualifiers as EdgeTriples, unsplit.
func (g *Graph) EdgeFacts(edges []Edge) []llm.Fact {
	names := g.names()
	out := make([]llm.Fact, len(edges))
	for i, e := range edges {
		rel := RelationText(e.Relation, e.RelationLabel, "", store.Out)
		out[i] = llm.Fact{Subject: g.endName(names, e.Subject, e.Object.ID), Relation: rel,
			Object: g.endName(names, e.Object, e.Subject.ID) + QualifiersText(e.Qualifiers)}
	}
	return out
}

func arrowSafe(s string) string { return strings.ReplaceAll(s, "->", "-") }
