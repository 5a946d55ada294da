package literal

import "testing"

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
