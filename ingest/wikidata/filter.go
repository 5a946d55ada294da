package wikidata

import "github.com/cayleygraph/quad"

// match reports whether claims satisfy every clause.
func (f ClaimFilter) match(cs claims) bool {
	for i := range f {
		if f[i].holds(cs) == f[i].Negate {
			return false
		}
	}
	return true
}

// holds reports whether some non-deprecated statement of the clause's
// property has a value (one of Values, if any).
func (c *ClaimClause) holds(cs claims) bool {
	stmts := cs.get(c.Property)
	for i := range stmts {
		s := &stmts[i]
		if s.Rank == "deprecated" || s.Mainsnak.Snaktype == "novalue" {
			continue
		}
		if len(c.Values) == 0 {
			return true
		}
		if key, ok := matchKey(&s.Mainsnak); ok && contains(c.Values, key) {
			return true
		}
	}
	return false
}

// matchKey is the text a filter value is compared with: the entity id of
// an entity value or the string of a string value. An unknown value
// (somevalue) has none.
func matchKey(s *snak) (string, bool) {
	if s.Snaktype != snakValueType {
		return "", false
	}
	v, ok, err := snakValue(s, "")
	if !ok || err != nil {
		return "", false
	}
	switch x := v.(type) {
	case quad.IRI:
		return string(x), true
	case quad.String:
		return string(x), true
	case quad.TypedString:
		return string(x.Value), true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
