package literal

import (
	"strings"
	"unicode/utf8"
)

// Clip shortens s to at most n runes, the last of them "…" when it cut
// anything; n < 1 means no limit. It never splits a rune.
func Clip(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// OneLine collapses every run of white space (newlines included) to one
// space, trims the ends and clips the result to n runes (see Clip).
func OneLine(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}
