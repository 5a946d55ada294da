package labelindex

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"lower", "Blade Runner", "blade runner"},
		{"punctuation", "Blade-Runner!", "blade runner"},
		{"apostrophe", "Schindler's List", "schindler s list"},
		{"collapse and trim", "  The\t\tMatrix \n ", "the matrix"},
		{"only punctuation", "?!...", ""},
		{"accents", "Café Société", "cafe societe"},
		{"sharp s", "Straße", "strasse"},
		{"capital sharp s", "STRAẞE", "strasse"},
		{"ligature", "ﬁnal", "final"},
		{"fullwidth", "ＡＢＣ１２", "abc12"},
		{"superscript", "E=mc²", "e=mc2"},
		{"dotted capital I", "İstanbul", "istanbul"},
		{"final sigma", "ΟΔΥΣΣΕΥΣ Οδυσσευς", "οδυσσευσ οδυσσευσ"},
		{"cyrillic", "Москва", "москва"},
		{"cjk kept", "東京都", "東京都"},
		{"symbols kept", "C++ & $5", "c++ $5"},
		{"modifier symbols split", "a^b`c", "a b c"},
		{"invalid utf8", "ab\xffcd", "ab cd"},
		{"digits", "2001: A Space Odyssey", "2001 a space odyssey"},
		{"nbsp", "New\u00a0York", "new york"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeTruncates(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"ascii", strings.Repeat("abc ", 100)},
		{"multibyte at the cut", strings.Repeat("a", MaxKeyLen-1) + "é" + "xyz"},
		{"space at the cut", strings.Repeat("a", MaxKeyLen) + " b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if len(got) > MaxKeyLen || !utf8.ValidString(got) || strings.HasSuffix(got, " ") {
				t.Fatalf("Normalize gave %d bytes %q", len(got), got)
			}
			if len(got) < MaxKeyLen-utf8.UTFMax {
				t.Fatalf("Normalize cut too much: %d bytes", len(got))
			}
			if again := Normalize(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Blade Runner", "Café", "Straße", "ΟΔΥΣΣΕΥΣ", "ǅ", "ﬁ", "a\u0301", "\xff", "İı"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Normalize(s)
		if len(got) > MaxKeyLen {
			t.Fatalf("key of %d bytes", len(got))
		}
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 key %q", got)
		}
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
			t.Fatalf("untrimmed key %q", got)
		}
		if again := Normalize(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, got, again)
		}
	})
}
