package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
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

const (
	xsd         = "http://www.w3.org/2001/XMLSchema#"
	xsdDateTime = xsd + "dateTime"
)

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
	// Other native Go values (quad.Int, quad.Float, quad.Bool) are stored as
	// Cayley's typed string form (short datatype "xsd:integer"), as every
	// earlier version stored them; lookups also find the RDF form that
	// ingested data carries (altEncoding).
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
		return decodeTyped(b, quad.TypedString{Value: quad.String(body[i+1:]), Type: quad.IRI(body[:i])}), nil
	}
	return nil, errBadTerm
}

// decodeTyped returns the stored typed literal ts (encoded as b) as
// Cayley's native value (quad.Int, quad.Float, quad.Bool, quad.Time) when
// a lookup of that native value finds this very term again, and as the
// typed string otherwise. So "7"^^xsd:integer reads as quad.Int(7), which
// Gizmo's Has(p, 7) finds, while "07"^^xsd:integer, "1E3"^^xsd:double,
// "TRUE"^^xsd:boolean, xsd:float and a dateTime with a time zone keep their
// lexical form: parsing them would change the text and give a value whose
// lookup misses the stored term (and two stored terms would read alike).
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
	if alt := altEncoding(v); alt != nil && bytes.Equal(alt, b) {
		return v
	}
	return ts
}

// altEncoding is the second encoding a lookup of v tries, nil for none:
// for quad.Int, quad.Float and quad.Bool the RDF form with the full XSD
// datatype IRI and the canonical lexical form ("7"^^<…#integer>,
// "2.5"^^<…#double>, "true"^^<…#boolean>), which is how N-Triples, Turtle
// and RDF/XML data carry them; encodeTerm writes Cayley's short form.
func altEncoding(v quad.Value) []byte {
	var typ, text string
	switch v := v.(type) {
	case quad.Int:
		typ, text = "integer", strconv.FormatInt(int64(v), 10)
	case quad.Float:
		typ, text = "double", formatDouble(float64(v))
	case quad.Bool:
		typ, text = "boolean", strconv.FormatBool(bool(v))
	default:
		return nil
	}
	b := append([]byte{kindTyped}, xsd+typ...)
	return append(append(b, 0), text...)
}

// formatDouble is the shortest xsd:double lexical form of f that parses
// back to f.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
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
