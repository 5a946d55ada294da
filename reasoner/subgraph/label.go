package subgraph

import (
	"strings"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Naming in words. A model sees only text, and an id is not a
// description: a node or relation the KG has no label for is written as
// its id followed by NoLabel ("/film/film (no label in the KG)"), never as
// a bare id that reads as if it were a name. Every renderer of entities,
// relations and qualifiers goes through EntityText and RelationText.

// NoLabel follows the id of a node or relation the KG has no label for.
// It is literal.NoLabel, which a quantity's unit id without a label
// carries too ("10 Q11229 (no label in the KG)").
const NoLabel = literal.NoLabel

// HasLabel reports whether label names id in words: it is not empty and
// not a bare Wikidata id derived from id (the store labels P580 "P580"
// when the property has no label; a qualifier "pq:P580" likewise). A
// label spelled like its id in words ("author") is a label.
func HasLabel(id, label string) bool {
	l := flat(label)
	return l != "" && !(wikidataID(l) && lastSegment(id) == l)
}

// lastSegment is the part of an id after its last '/', ':' or '#' ("P580"
// of "pq:P580" and of "http://www.wikidata.org/entity/P580").
func lastSegment(id string) string {
	return id[strings.LastIndexAny(id, "/:#")+1:]
}

// wikidataID reports ids such as P39 and Q23.
func wikidataID(s string) bool {
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'Q' && s[0] != 'L') {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// EntityText is how a text names an entity: its label, a literal's value,
// or its id followed by NoLabel.
func EntityText(e store.Entity) string {
	if e.Literal {
		if l := flat(e.Label); l != "" {
			return l
		}
		return flat(e.ID)
	}
	if HasLabel(e.ID, e.Label) {
		return flat(e.Label)
	}
	return Unlabelled(e.ID)
}

// Unlabelled is the text of a node or relation without a label: its id
// followed by NoLabel.
func Unlabelled(id string) string { return flat(id) + " " + NoLabel }

// RelationText is how a text names a relation followed in direction dir:
// its label (Out) or inverse label (In; store.InverseLabel of the label
// when there is none), or its id followed by NoLabel, marked "inverse of" for In, when
// it has no label.
func RelationText(id, label, inverse string, dir store.Direction) string {
	if !HasLabel(id, label) {
		if dir == store.In {
			return "inverse of " + Unlabelled(id)
		}
		return Unlabelled(id)
	}
	if dir != store.In {
		return flat(label)
	}
	if inv := flat(inverse); inv != "" {
		return inv
	}
	return store.InverseLabel(flat(label))
}

// RelText is RelationText of a relation in its own direction.
func RelText(r store.Relation) string { return RelationText(r.ID, r.Label, r.InverseLabel, r.Dir) }

// NamesFor returns the names the text gives the ends of edges that have
// no label (see trace.Answer.Names): a mediator's contents, else its id
// followed by NoLabel; nil when every end has a label.
func (g *Graph) NamesFor(edges []store.Edge) map[string]string {
	var out map[string]string
	for _, e := range edges {
		for _, end := range []store.Entity{e.Subject, e.Object} {
			if end.Literal || HasLabel(end.ID, end.Label) {
				continue
			}
			n := Unlabelled(end.ID)
			if local, ok := g.Entity(end.ID); ok && display(local) != "" {
				n = display(local)
			}
			if out == nil {
				out = map[string]string{}
			}
			out[end.ID] = n
		}
	}
	return out
}

// QualifierText is "name: value" of a qualifier or feature, each part
// named in words (FeatureName, FeatureValue).
func QualifierText(f store.Feature) string { return FeatureName(f) + ": " + FeatureValue(f) }

// FeatureName is how a text names a feature or qualifier: its name, or
// its relation's id (without the qualifier prefix) followed by NoLabel
// (see RelationText).
func FeatureName(f store.Feature) string {
	return RelationText(strings.TrimPrefix(f.Relation, store.QualifierPrefix), f.Name, "", store.Out)
}

// FeatureValue is how a text gives a feature's or qualifier's value: the
// value, or for an entity without a label its id followed by NoLabel.
func FeatureValue(f store.Feature) string {
	if f.ValueID != "" && !HasLabel(f.ValueID, f.Value) {
		return Unlabelled(f.ValueID)
	}
	return flat(f.Value)
}
