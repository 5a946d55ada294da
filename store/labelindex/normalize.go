package labelindex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxKeyLen is the longest key in bytes. Longer normalized labels and
// queries are cut at a rune boundary, so they still match each other.
const MaxKeyLen = 256

// Normalize returns the key for a label or query: NFKD with combining marks
// removed, case folded, punctuation and separators as single spaces, no
// leading or trailing space, at most MaxKeyLen bytes. It returns "" when
// nothing searchable is left. It is idempotent, so keys from Iterate can be
// added to a Builder again.
func Normalize(s string) string {
	return string(appendNormalized(make([]byte, 0, min(len(s), MaxKeyLen+utf8.UTFMax)), s))
}

// runeClass says what becomes of one rune of NFKD text.
type runeClass uint8

const (
	classDrop runeClass = iota // combining marks vanish
	classSep                   // punctuation, spaces, ... separate words
	classKeep                  // letters, digits, symbols are kept, folded
)

// appendNormalized appends the key for s to dst. It is the allocation-free
// (for ASCII input) core of Normalize used by the Builder.
func appendNormalized(dst []byte, s string) []byte {
	start := len(dst)
	if !isASCII(s) {
		if !utf8.ValidString(s) {
			// Invalid bytes separate words, and must not hide the valid
			// text after them from NFKD.
			s = strings.ToValidUTF8(s, " ")
		}
		s = norm.NFKD.String(s)
	}
	space := true // suppresses leading and repeated spaces
	for _, r := range s {
		class, f := classify(r)
		switch class {
		case classDrop:
			continue
		case classSep:
			if !space {
				dst = append(dst, ' ')
				space = true
			}
		case classKeep:
			if f == 'ß' {
				dst = append(dst, "ss"...)
			} else {
				dst = utf8.AppendRune(dst, f)
			}
			space = false
		}
		if len(dst)-start > MaxKeyLen {
			break
		}
	}
	return trimKey(dst, start)
}

// trimKey cuts dst[start:] to MaxKeyLen bytes at a rune boundary and drops a
// trailing space.
func trimKey(dst []byte, start int) []byte {
	if len(dst)-start > MaxKeyLen {
		end := start + MaxKeyLen
		for end > start && !utf8.RuneStart(dst[end]) {
			end--
		}
		dst = dst[:end]
	}
	if len(dst) > start && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// classify returns the class of r and, for classKeep, its case fold ('ß'
// stands for "ss").
func classify(r rune) (runeClass, rune) {
	if r < utf8.RuneSelf {
		if f := asciiFold[r]; f != 0 {
			return classKeep, rune(f)
		}
		return classSep, ' '
	}
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return classDrop, 0
	case r == 'ß' || r == 'ẞ':
		return classKeep, 'ß'
	case unicode.IsLetter(r), unicode.IsNumber(r), unicode.Is(unicode.Mc, r),
		unicode.In(r, unicode.Sm, unicode.Sc, unicode.So):
		// ToLower(ToUpper(r)) is simple case folding: it maps final sigma,
		// long s and the Kelvin sign to their ordinary lower-case forms.
		return classKeep, unicode.ToLower(unicode.ToUpper(r))
	}
	return classSep, ' '
}

// asciiFold holds, for every ASCII byte, its folded form or 0 for a
// separator. It is a constant table, never written after initialization.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		r := rune(c)
		switch {
		case 'A' <= r && r <= 'Z':
			t[c] = byte(r - 'A' + 'a')
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9',
			unicode.In(r, unicode.Sm, unicode.Sc, unicode.So):
			t[c] = byte(r)
		}
	}
	return t
}()

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
