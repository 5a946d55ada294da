package store

import (
	"cmp"
	"strings"
	"unicode"
)

// DeriveLabel turns a predicate id into words: "film.film.directed_by" and
// "/film/film/directed_by" -> "directed by", "http://schema.org/birthDate"
// -> "birth date".
func DeriveLabel(id string) string {
	s := id
	if i := strings.LastIndexAny(strings.TrimRight(s, "/#"), "/#.:"); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	s = strings.Trim(s, "/#")
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	if b.Len() == 0 {
		return id
	}
	if isPropertyID(s) {
		return s
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// isPropertyID reports Wikidata-style ids (P17) that must keep their case.
func isPropertyID(s string) bool {
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'Q') {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// InverseLabel names the inverse direction of a relation from its label,
// for relations whose graph gives no inverse label:
//
//	"directed by"        -> "directed"
//	"instance of"        -> "has instance"
//	"director"           -> "is director of"
//	"shares border with" -> "inverse of shares border with"
//	"P27"                -> "inverse of P27" (an id standing for a label)
//
// A noun phrase gets "is ... of"; a label that starts with a verb or ends
// in another preposition is not one and would read wrongly that way ("is
// shares border with of"), so it is marked as the inverse instead.
func InverseLabel(label string) string {
	words := strings.Fields(label)
	n := len(words)
	if n == 0 {
		return label
	}
	last, verb := strings.ToLower(words[n-1]), verbal(words[0])
	switch {
	case n > 1 && !verb && last == "by":
		return strings.Join(words[:n-1], " ")
	case n > 1 && !verb && last == "of":
		return "has " + strings.Join(words[:n-1], " ")
	case verb || preposition(last) || isPropertyID(label):
		return "inverse of " + label
	}
	return "is " + label + " of"
}

// preposition reports the words a relation label ends with when it is a
// verb or adjective phrase waiting for its object ("located in", "named
// after", "shares border with").
func preposition(w string) bool {
	switch w {
	case "about", "after", "against", "as", "at", "before", "between", "by", "for", "from", "in", "into",
		"of", "on", "than", "to", "under", "with", "within":
		return true
	}
	return false
}

// verbal reports whether a label's first word makes it a verb phrase: an
// auxiliary ("has part", "is a") or a verb in the third person such as
// relation labels use ("follows", "contains").
func verbal(first string) bool {
	switch strings.ToLower(first) {
	case "has", "have", "had", "is", "are", "was", "were", "does", "did", "can",
		"follows", "replaces", "contains", "includes", "uses", "owns", "produces", "shares", "depicts", "located":
		return true
	}
	return false
}

// CompareRelations is the order of Relations results: graph, direction,
// label, id.
func CompareRelations(a, b Relation) int {
	return cmp.Or(cmp.Compare(a.Graph, b.Graph), cmp.Compare(a.Dir, b.Dir),
		cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID))
}
