package metric

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// Normalize prepares an answer for comparison exactly as the
// Tree-of-Traversals (and SQuAD) normalize_answer does, in this order:
//
//  1. case folding: Unicode full case folding, like Python's str.casefold
//     ("Straße" -> "strasse", "ΣΊΣΥΦΟΣ" -> "σίσυφοσ");
//  2. punctuation: every character of Python's string.punctuation, the 32
//     ASCII characters !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~, is deleted (not
//     replaced by a space: "1,000" -> "1000", "A-Team" -> "ateam"). Other
//     Unicode punctuation is kept ("O’Neal" keeps its curly apostrophe, an
//     en dash stays), as in the paper's script;
//  3. articles: every word that is exactly "a", "an" or "the" is deleted,
//     where a word is a maximal run of letters, numbers and underscores (the
//     Unicode \w of Python's re), so "theatre" and "an_the" survive;
//  4. white space: runs of Unicode white space become one space, and the
//     ends are trimmed.
//
// Normalize is idempotent.
func Normalize(s string) string {
	s = casefold(s)
	s = removePunctuation(s)
	s = removeArticles(s)
	return strings.Join(strings.Fields(s), " ")
}

// casefold is Python's str.casefold: ASCII strings take a fast path.
func casefold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Fold().String(s)
		}
	}
	return strings.ToLower(s)
}

// isPunct reports whether r is in Python's string.punctuation.
func isPunct(r rune) bool {
	return r < utf8.RuneSelf && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r)
}

func removePunctuation(s string) string {
	if strings.IndexFunc(s, isPunct) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isPunct(r) {
			return -1
		}
		return r
	}, s)
}

// isWord is Python's Unicode \w: letters, numbers and the underscore.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// removeArticles deletes the words "a", "an" and "the", keeping everything
// around them (the white space is collapsed afterwards).
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		end := strings.IndexFunc(s, func(r rune) bool { return !isWord(r) })
		if end < 0 {
			end = len(s)
		}
		if end > 0 {
			if w := s[:end]; w != "a" && w != "an" && w != "the" {
				b.WriteString(w)
			}
			s = s[end:]
			continue
		}
		_, size := utf8.DecodeRuneInString(s)
		b.WriteString(s[:size])
		s = s[size:]
	}
	return b.String()
}

// tokens splits the normalised form of s on white space.
func tokens(s string) []string {
	return strings.Fields(Normalize(s))
}
