package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
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

const xsdDateTime = "http://www.w3.org/2001/XMLSchema#dateTime"

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
		dst = append(append(dst, kindTyped), v.Type...)
		return append(append(dst, 0), v.Value...), nil
	case quad.Time:
		// Keep nanoseconds, which quad.Time's own typed string drops.
		ts := quad.TypedString{Value: quad.String(time.Time(v).UTC().Format(time.RFC3339Nano)), Type: quad.IRI(xsdDateTime)}
		return encodeTerm(dst, ts)
	case nil:
		return nil, errors.New("nil value")
	}
	// Native Go values (quad.Int, quad.Time, ...) are stored as their typed
	// string form so that they round-trip through N-Quads.
	if ts, ok := v.(quad.TypedStringer); ok {
		return encodeTerm(dst, ts.TypedString())
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
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
		ts := quad.TypedString{Value: quad.String(body[i+1:]), Type: quad.IRI(body[:i])}
		// Known datatypes come back as Cayley's native values (quad.Int,
		// quad.Time, ...), as they would from any Cayley store.
		if v, err := ts.ParseValue(); err == nil && v != nil {
			return v, nil
		}
		return ts, nil
	}
	return nil, errBadTerm
}

// nodeID returns the KG-interface id of a node value: the IRI text, or
// "_:" + the blank node id.
func nodeID(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.BNode:
		return "_:" + string(v)
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
