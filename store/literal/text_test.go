package literal

import (
	"testing"
	"unicode/utf8"
)

func TestClipAndOneLine(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		in   string
		n    int
		want string
	}{
		{"Clip", "short", 10, "short"},
		{"Clip", "exactly10!", 10, "exactly10!"},
		{"Clip", "eleven runes", 10, "eleven ru…"},
		{"Clip", "Zürich Kärnten", 8, "Zürich …"},
		{"Clip", "東京都千代田区", 4, "東京都…"},
		{"Clip", "anything", 0, "anything"},
		{"Clip", "ab", 1, "…"},
		{"OneLine", "  a\n\tb  c ", 0, "a b c"},
		{"OneLine", "line one\nline two", 10, "line one …"},
		{"OneLine", "", 5, ""},
	} {
		f := Clip
		if tc.fn == "OneLine" {
			f = OneLine
		}
		got := f(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("%s(%q, %d) = %q, want %q", tc.fn, tc.in, tc.n, got, tc.want)
		}
		if tc.n > 0 && utf8.RuneCountInString(got) > tc.n {
			t.Errorf("%s(%q, %d) = %q: longer than %d runes", tc.fn, tc.in, tc.n, got, tc.n)
		}
	}
}

// TestTagged: a text in a language other than English or a neutral one is
// marked with it, and Untagged takes exactly that mark off again.
func TestTagged(t *testing.T) {
	for _, tc := range []struct {
		text, lang, want string
	}{
		{"Farbe", "de", "Farbe (de)"},
		{"Couleur", "fr-ca", "Couleur (fr-ca)"},
		{"Colour", "en-gb", "Colour"},
		{"Colour", "EN-GB", "Colour"},
		{"Tokyo", "mul", "Tokyo"},
		{"Thing", "", "Thing"},
		{"", "de", ""},
	} {
		got := Tagged(tc.text, tc.lang)
		if got != tc.want {
			t.Errorf("Tagged(%q, %q) = %q, want %q", tc.text, tc.lang, got, tc.want)
		}
		if back := Untagged(got); back != tc.text {
			t.Errorf("Untagged(%q) = %q, want %q", got, back, tc.text)
		}
	}
	for _, s := range []string{"Paris (en)", "Paris (Texas)x", "Paris (a b)", "Paris ()", "Paris"} {
		if got := Untagged(s); got != s {
			t.Errorf("Untagged(%q) = %q, want it unchanged", s, got)
		}
	}
}
