package wikidata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// This file is a small JSON scanner over byte slices; decode.go builds the
// entity decoder on it. An entity has labels, aliases and sitelinks in
// hundreds of languages, of which only a few are wanted, so only the wanted
// members are ever turned into strings. Members the reader does not use are
// skipped with bracket and string matching, not validated in depth.

// errEOF reports input that ends inside a value.
var errEOF = errors.New("unexpected end of JSON")

// syntaxError is a scan error at a byte offset.
type syntaxError struct {
	off int
	msg string
	err error // errEOF for truncated input, else nil
}

func (e *syntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg) }
func (e *syntaxError) Unwrap() error { return e.err }

// eofErr reports input that ends inside a value at offset off.
func eofErr(off int) error { return &syntaxError{off: off, msg: errEOF.Error(), err: errEOF} }

func synErr(off int, format string, args ...any) error {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
// It looks at eight bytes at a time for a quote or a backslash (SWAR: a
// few integer operations per word instead of a comparison per byte); a
// backslash escapes the byte after it.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for j+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[j:])
		m := swarHas(x, '"') | swarHas(x, '\\')
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) >> 3
		if b[j] == '"' {
			return j + 1, nil
		}
		j += 2 // a backslash and the byte it escapes
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, nil
		case '\\':
			j++
		}
	}
	return 0, synErr(len(b), "unterminated string starting at byte %d", i)
}

// swarHas sets the high bit of the lowest byte of x equal to c (and
// possibly of higher bytes: only the lowest set bit is exact).
func swarHas(x uint64, c byte) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	v := x ^ lo*uint64(c)
	return (v - lo) &^ v & hi
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, eofErr(i)
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		j := i + 1
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		return j, nil
	default:
		return 0, synErr(i, "unexpected %q", c)
	}
}

// structural marks the bytes skipContainer must look at.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipContainer skips an object or array, matching brackets with a stack.
func skipContainer(b []byte, i int) (int, error) {
	var small [32]byte
	stack := small[:0]
	for j := i; j < len(b); j++ {
		for j < len(b) && !structural[b[j]] {
			j++
		}
		if j == len(b) {
			break
		}
		switch c := b[j]; c {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			stack = append(stack, c+2) // '{'+2 == '}', '['+2 == ']'
		default: // '}' or ']'
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, synErr(j, "unexpected %q", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, eofErr(len(b))
}

// eachMember calls fn for every member of the object obj (which must be
// exactly one object, surrounding space allowed). off is the offset of obj
// in the entity line, for error positions. An empty array "[]" is accepted
// as an empty object (old dumps serialise empty maps so).
func eachMember(obj []byte, off int, fn func(key, val []byte, valOff int) error) error {
	end, err := walkMembers(obj, off, fn)
	if err != nil {
		return err
	}
	return trailing(obj, end, off)
}

// walkMembers is eachMember for an object at the start of b that may be
// followed by more bytes: it returns the index after the object.
func walkMembers(b []byte, off int, fn func(key, val []byte, valOff int) error) (int, error) {
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == '[' {
		if j := skipSpace(b, i+1); j < len(b) && b[j] == ']' {
			return j + 1, nil
		}
	}
	if i >= len(b) || b[i] != '{' {
		return 0, synErr(off+i, "want an object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		key, vStart, vEnd, err := member(b, i, off)
		if err != nil {
			return 0, err
		}
		if err := fn(key, b[vStart:vEnd], off+vStart); err != nil {
			return 0, err
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return 0, eofErr(off + i)
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, synErr(off+i, "want ',' or '}' after a member, got %q", b[i])
		}
	}
}

// member reads `"key": value` at b[i] and returns the raw key and the
// value bounds.
func member(b []byte, i, off int) (key []byte, vStart, vEnd int, err error) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, 0, synErr(off+i, "want a member name")
	}
	kEnd, err := skipString(b, i)
	if err != nil {
		return nil, 0, 0, shift(err, off)
	}
	j := skipSpace(b, kEnd)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, 0, synErr(off+j, "want ':' after a member name")
	}
	vStart = skipSpace(b, j+1)
	vEnd, err = skipValue(b, vStart)
	if err != nil {
		return nil, 0, 0, shift(err, off)
	}
	return b[i:kEnd], vStart, vEnd, nil
}

// eachElement calls fn for every element of the array arr.
func eachElement(arr []byte, off int, fn func(val []byte, valOff int) error) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return synErr(off+i, "want an array")
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return trailing(arr, i+1, off)
	}
	for {
		end, err := skipValue(arr, i)
		if err != nil {
			return shift(err, off)
		}
		if err := fn(arr[i:end], off+i); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return eofErr(off + i)
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return trailing(arr, i+1, off)
		default:
			return synErr(off+i, "want ',' or ']' after an element, got %q", arr[i])
		}
	}
}

// trailing checks that only space follows index i.
func trailing(b []byte, i, off int) error {
	if j := skipSpace(b, i); j < len(b) {
		return synErr(off+j, "unexpected %q after the value", b[j])
	}
	return nil
}

// shift moves a syntax error's offset by off.
func shift(err error, off int) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return &syntaxError{off: se.off + off, msg: se.msg, err: se.err}
	}
	return err
}

// errInvalidUTF8 reports a string that is not valid UTF-8.
var errInvalidUTF8 = errors.New("invalid UTF-8 in a string")

// unquote decodes a raw JSON string token.
func unquote(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New("want a string")
	}
	inner := raw[1 : len(raw)-1]
	simple, ascii := true, true
	for _, c := range inner {
		simple = simple && c != '\\' && c >= 0x20
		ascii = ascii && c < utf8.RuneSelf
	}
	// Invalid bytes are refused, as every other reader refuses them; the
	// JSON decoder would replace them with U+FFFD without a word.
	if !ascii && !utf8.Valid(inner) {
		return "", errInvalidUTF8
	}
	if simple {
		return string(inner), nil
	}
	var s string
	if err := json.UnmarshalOf(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// keyIs reports whether the raw key token equals name (names used by the
// reader never need escapes).
func keyIs(raw []byte, name string) bool {
	return len(raw) == len(name)+2 && string(raw[1:len(raw)-1]) == name
}

// topLevelID returns the "id" member of the entity object in line without
// decoding the rest; ok is false when it cannot be found cheaply.
func topLevelID(line []byte) (id string, ok bool) {
	err := eachMember(line, 0, func(key, val []byte, _ int) error {
		if keyIs(key, "id") {
			s, err := unquote(val)
			if err == nil {
				id, ok = s, true
			}
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return "", false
	}
	return id, ok
}

// errStop ends a member walk early.
var errStop = errors.New("stop")
