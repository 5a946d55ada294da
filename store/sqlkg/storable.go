package sqlkg

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// PostgreSQL text holds neither a NUL character nor bytes that are not
// UTF-8 (the driver speaks UTF-8): sent, either fails the whole write with
// a driver error that names no quad. Every add is checked before anything
// is sent (newBatch), and Storable lets a reader check each quad as it
// parses it, so that the error names the file and line. Cayley's own SQL
// store writes a NUL in a literal as the four characters \x00 and reads
// any \x00 back as a NUL, so a literal that holds the text \x00 comes
// back changed; Grove refuses NUL instead of storing it ambiguously. The
// embedded (badger) backend stores both.

// Storable is nil when the SQL backend can store every term of q, and
// otherwise an error wrapping store.ErrUnstorable that says which term
// holds what and why (it does not name q: the caller positions it).
func (k *KG) Storable(q quad.Quad) error { return storable(q) }

// storable is Storable.
func storable(q quad.Quad) error {
	for _, t := range []struct {
		name string
		v    quad.Value
	}{{"subject", q.Subject}, {"predicate", q.Predicate}, {"object", q.Object}, {"graph label", q.Label}} {
		for _, s := range valueTexts(t.v) {
			if strings.IndexByte(s, 0) >= 0 {
				return fmt.Errorf("%w: its %s holds a NUL character (U+0000), which PostgreSQL text cannot hold "+
					"(remove it from the input, or use the badger backend, which stores it)", store.ErrUnstorable, t.name)
			}
			if !utf8.ValidString(s) {
				return fmt.Errorf("%w: its %s is not valid UTF-8, which PostgreSQL text cannot hold "+
					"(fix the input's encoding, or use the badger backend, which stores the bytes)", store.ErrUnstorable, t.name)
			}
		}
	}
	return nil
}

// valueTexts are the strings of v that go into text columns.
func valueTexts(v quad.Value) []string {
	switch v := v.(type) {
	case quad.IRI:
		return []string{string(v)}
	case quad.BNode:
		return []string{string(v)}
	case quad.String:
		return []string{string(v)}
	case quad.TypedString:
		return []string{string(v.Value), string(v.Type)}
	case quad.LangString:
		return []string{string(v.Value), v.Lang}
	}
	return nil
}

// quadNames is the subject and predicate of q, for errors that name a
// quad whose object may be long or unprintable: each cut to 200 bytes.
func quadNames(q quad.Quad) string {
	return "subject " + clipTerm(q.Subject) + ", predicate " + clipTerm(q.Predicate)
}

// clipTerm is v in N-Quads, cut to 200 bytes.
func clipTerm(v quad.Value) string {
	s := fmt.Sprint(v)
	if v != nil {
		s = v.String()
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
