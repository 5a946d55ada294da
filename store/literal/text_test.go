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
