package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// Term encoding. Every quad.Value is stored once in the dictionary as a
// compact byte string: one kind byte followed by the value's text. The kind
// byte keeps IRIs, blank nodes and the literal kinds apart without quoting.
const (
	kindIRI   = 'I' // I<iri>
	kindBNode = 'B' // B<id>
	kindStr   = 'S' // S<text>
	kindLang  = 'L' // L<lang>\x00<text>
	kindTyped = 'T' // T<datatype>\x00<text>
)

// xsd is the XML Schema namespace of the native values' datatypes.
const xsd = "http://www.w3.org/2001/XMLSchema#"

var errBadTerm = errors.New("corrupt term encoding")

// encodeTerm appends the dictionary encoding of v to dst.
func encodeTerm(dst []byte, v quad.Value) ([]byte, error) {
	switch v := v.(type) {
	case quad.IRI:
		return append(append(dst, kindIRI), v...), nil
	case quad.BNode:
		return append(append(dst, kindBNode), v...), nil
	case quad.String:
		return append(append(dst, kindStr), v...), nil
	case quad.LangString:
		dst = append(append(dst, kindLang), v.Lang...)
		return append(append(dst, 0), v.Value...), nil
	case quad.TypedString:
		if shortXSD(v.Type) {
			// Cayley's own rendering of a native value ("7"^^<xsd:integer>,
			// what its N-Quads writer and Grove's Cayley read route emit):
			// the native's term, so a re-imported export is not a second one.
			if nv, err := v.ParseValue(); err == nil && isNative(nv) {
				return encodeTerm(dst, nv)
			}
		}
		dst = append(append(dst, kindTyped), v.Type...)
		return append(append(dst, 0), v.Value...), nil
	case quad.Time, quad.Int, quad.Float, quad.Bool:
		return encodeTerm(dst, canonicalTyped(v))
	case nil:
		return nil, errors.New("nil value")
	}
	if ts, ok := v.(quad.TypedStringer); ok {
		return encodeTerm(dst, ts.TypedString())
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// canonicalTyped is the RDF form a native value is stored in
// (store.RDFForm), so a native written through Cayley and the same value
// loaded from a file are one term. v must be a quad.Time, Int, Float or
// Bool.
func canonicalTyped(v quad.Value) quad.TypedString {
	return store.RDFForm(v).(quad.TypedString)
}

// shortXSD reports Cayley's shorthand datatype IRIs ("xsd:integer").
func shortXSD(t quad.IRI) bool { return len(t) > 4 && t[:4] == "xsd:" }

// isNative reports the native values encodeTerm writes in their RDF form.
func isNative(v quad.Value) bool {
	switch v.(type) {
	case quad.Time, quad.Int, quad.Float, quad.Bool:
		return true
	}
	return false
}

// legacyEncoding is the encoding earlier versions wrote for a native
// quad.Int, Float or Bool: Cayley's typed string ("7"^^<xsd:integer>,
// "2.5E+00"^^<xsd:double>, "True"^^<xsd:boolean>); nil for other values.
// Lookups try it after the canonical form, so databases written before
// keep finding those terms.
func legacyEncoding(v quad.Value) []byte {
	switch v.(type) {
	case quad.Int, quad.Float, quad.Bool:
		enc, _ := encodeTerm(nil, v.(quad.TypedStringer).TypedString())
		return enc
	}
	return nil
}

// decodeTerm is the inverse of encodeTerm.
func decodeTerm(b []byte) (quad.Value, error) {
	if len(b) == 0 {
		return nil, errBadTerm
	}
	body := string(b[1:])
	switch b[0] {
	case kindIRI:
		return quad.IRI(body), nil
	case kindBNode:
		return quad.BNode(body), nil
	case kindStr:
		return quad.String(body), nil
	case kindLang, kindTyped:
		i := strings.IndexByte(body, 0)
		if i < 0 {
			return nil, errBadTerm
		}
		if b[0] == kindLang {
			return quad.LangString{Value: quad.String(body[i+1:]), Lang: body[:i]}, nil
		}
		return decodeTyped(b, quad.TypedString{Value: quad.String(body[i+1:]), Type: quad.IRI(body[:i])}), nil
	}
	return nil, errBadTerm
}

// decodeTyped returns the stored typed literal ts (encoded as b) as
// Cayley's native value (quad.Int, quad.Float, quad.Bool, quad.Time) when
// b is that value's canonical form (canonicalTyped) or the form earlier
// versions wrote it in (legacyEncoding), so that a lookup of the native
// value finds this term, and as the typed string otherwise: "7"^^xsd:integer
// reads as quad.Int(7), which Gizmo's Has(p, 7) finds, while
// "07"^^xsd:integer, "1E3"^^xsd:double, "TRUE"^^xsd:boolean, xsd:float and a
// dateTime with a time zone keep their lexical form (parsing them would
// change the text, and two stored terms would read alike).
func decodeTyped(b []byte, ts quad.TypedString) quad.Value {
	v, err := ts.ParseValue()
	if err != nil || v == nil {
		return ts
	}
	if _, ok := v.(quad.TypedString); ok {
		return ts
	}
	if enc, err := encodeTerm(nil, v); err == nil && bytes.Equal(enc, b) {
		return v
	}
	if bytes.Equal(legacyEncoding(v), b) {
		return v
	}
	return ts
}

// altEncoding is the second encoding a lookup of v (encoded as enc) tries,
// nil for none: the legacy form of a native number or boolean, also when v
// is that native's canonical typed string. A term is written in one form
// only (the canonical one, or the legacy one an earlier version wrote), and
// this finds it in either.
func altEncoding(v quad.Value, enc []byte) []byte {
	if ts, ok := v.(quad.TypedString); ok {
		if len(enc) == 0 || enc[0] != kindTyped || !strings.HasPrefix(string(ts.Type), xsd) && !shortXSD(ts.Type) {
			return nil
		}
		nv := decodeTyped(enc, ts)
		if _, typed := nv.(quad.TypedString); typed {
			return nil
		}
		v = nv
	}
	if alt := legacyEncoding(v); !bytes.Equal(alt, enc) {
		return alt
	}
	return nil
}

// nodeID returns the KG-interface id of a node value: the IRI text, or
// "_:" + the blank node id.
func nodeID(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.BNode:
		return "_:" + string(v)
	case quad.Time, quad.Int, quad.Float, quad.Bool:
		// The stored text, in N-Triples ("9.5"^^<…#double>), not Cayley's
		// "9.5E+00"^^<xsd:double>.
		return quad.StringOf(canonicalTyped(v))
	}
	return quad.StringOf(v)
}

// valueOfID is the inverse of nodeID for entity ids.
func valueOfID(id string) quad.Value {
	if strings.HasPrefix(id, "_:") {
		return quad.BNode(id[2:])
	}
	return quad.IRI(strings.TrimSuffix(strings.TrimPrefix(id, "<"), ">"))
}
