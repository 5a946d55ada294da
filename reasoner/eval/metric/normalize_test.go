package metric

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeMatchesPython(t *testing.T) {
	// Expected values printed by the Tree-of-Traversals normalize_answer
	// (casefold, string.punctuation, \b(a|an|the)\b, \s+) under CPython 3.11.
	tests := []struct{ in, want string }{
		{"The Beatles", "beatles"},
		{"  A  tale of Two   Cities ", "tale of two cities"},
		{"1,000", "1000"},
		{"Straße", "strasse"},
		{"ǅemal", "ǆemal"},
		{"ÉCOLE", "école"},
		{"O’Neal", "o’neal"},
		{"O'Neal", "oneal"},
		{"The A-Team", "ateam"},
		{"Hunter × Hunter", "hunter × hunter"},
		{"Star Wars: Episode V – The Empire Strikes Back", "star wars episode v – empire strikes back"},
		{"an_the", "anthe"},
		{"theatre", "theatre"},
		{"a.b.c", "abc"},
		{"İstanbul", "i̇stanbul"},
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ"},
		{"Yes.", "yes"},
		{"the\u00a0end", "end"},
		{"a\tb\nc", "b c"},
		{"Ⅻ the ²", "ⅻ ²"},
		{"café the", "café"},
		{"\u00b7the\u00b7", "··"},
		{"ﬁsh", "fish"},
		{"[Harry Potter, Ron Weasley]", "harry potter ron weasley"},
		{"July 04, 1776", "july 04 1776"},
		{"A, B and C", "b and c"},
		{"", ""},
		{"the", ""},
		{"$100 + 5%", "100 5"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"The Beatles", "1,000", "Straße", "a-an-the", "ΣΊΣΥΦΟΣ", "ﬁ the\u00a0a", "İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		n := Normalize(s)
		if again := Normalize(n); again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, again)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("white space left in %q", n)
		}
		for _, w := range strings.Fields(n) {
			if w == "a" || w == "an" || w == "the" {
				t.Fatalf("article left in %q", n)
			}
		}
		if v := EMIn(s, []string{s}); n != "" && v != 1 {
			t.Fatalf("EMIn(%q, itself) = %v", s, v)
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", "The answer is Christopher Nolan, the director of Inception (2010)."},
		{"unicode", "Die Antwort ist Małgorzata Braunek – die Mutter von Xawery Żuławski."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Normalize(bc.s)
			}
		})
	}
}

// BenchmarkNormalizeBaseline is the floor Normalize is compared against:
// strings.ToLower plus strings.Fields over the same inputs.
func BenchmarkNormalizeBaseline(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", "The answer is Christopher Nolan, the director of Inception (2010)."},
		{"unicode", "Die Antwort ist Małgorzata Braunek – die Mutter von Xawery Żuławski."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_ = strings.Join(strings.Fields(strings.ToLower(bc.s)), " ")
			}
		})
	}
}
