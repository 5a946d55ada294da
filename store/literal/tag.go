package literal

import "strings"

// Tagged renders a text in language lang as a language-tagged value
// renders: the text, followed by " (de)" when the language is not English
// or language-neutral. The backends mark entity names and descriptions so,
// that a name in a fallback language reads as such: "Farbe (de)". An
// empty text stays empty.
func Tagged(text, lang string) string {
	if text == "" {
		return ""
	}
	return renderLang(text, lang)
}

// Untagged is s without the language mark Tagged adds (" (de)"), or s
// when it has none.
func Untagged(s string) string {
	i := strings.LastIndex(s, " (")
	if i < 0 || !strings.HasSuffix(s, ")") {
		return s
	}
	lang := s[i+2 : len(s)-1]
	if lang == "" || unmarkedLanguage(lang) || strings.ContainsFunc(lang, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-'
	}) {
		return s
	}
	return s[:i]
}
