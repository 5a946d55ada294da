package literal

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven ru…"},
		{"Zürich Kärnten", 8, "Zürich …"},
		{"東京都千代田区", 4, "東京都…"},
		{"anything", 0, "anything"},
		{"ab", 1, "…"},
	} {
		got := Clip(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if tc.n > 0 && utf8.RuneCountInString(got) > tc.n {
			t.Errorf("Clip(%q, %d) = %q: longer than %d runes", tc.in, tc.n, got, tc.n)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"  a\n\tb  c ", 0, "a b c"},
		{"line one\nline two", 10, "line one …"},
		{"", 5, ""},
	} {
		if got := OneLine(tc.in, tc.n); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
