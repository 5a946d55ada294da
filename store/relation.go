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

// InverseLabel names the inverse direction: "directed by" -> "directed",
// "director" -> "is director of".
func InverseLabel(label string) string {
	if rest, ok := strings.CutSuffix(label, " by"); ok && rest != "" {
		return rest
	}
	return "is " + label + " of"
}

// CompareRelations is the order of Relations results: graph, direction,
// label, id.
func CompareRelations(a, b Relation) int {
	return cmp.Or(cmp.Compare(a.Graph, b.Graph), cmp.Compare(a.Dir, b.Dir),
		cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID))
}
