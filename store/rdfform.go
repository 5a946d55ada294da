package store

import (
	"math"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"
)

// xsdNS is the XML Schema namespace of the native values' datatypes.
const xsdNS = "http://www.w3.org/2001/XMLSchema#"

// RDFForm returns v in the form RDF data carries it: a native value
// (quad.Time, Int, Float or Bool, which a store hands out for a typed
// literal in its canonical form, and which Cayley clients write) as the
// typed literal with the full XSD datatype IRI and the canonical lexical
// form ("7"^^<…#integer>, "2.5"^^<…#double>, "true"^^<…#boolean>, a
// dateTime in UTC with its nanoseconds); any other value unchanged. It is
// the form the badger engine stores natives in, so a literal loaded from a
// file comes back as it was written, where Cayley's own rendering of a
// native ("True"^^<xsd:boolean>, "2.5E+00"^^<xsd:double>) would not.
func RDFForm(v quad.Value) quad.Value {
	var typ, text string
	switch v := v.(type) {
	case quad.Time:
		typ, text = "dateTime", time.Time(v).UTC().Format(time.RFC3339Nano)
	case quad.Int:
		typ, text = "integer", strconv.FormatInt(int64(v), 10)
	case quad.Float:
		typ, text = "double", FormatDouble(float64(v))
	case quad.Bool:
		typ, text = "boolean", strconv.FormatBool(bool(v))
	default:
		return v
	}
	return quad.TypedString{Value: quad.String(text), Type: quad.IRI(xsdNS + typ)}
}

// FormatDouble is the shortest xsd:double lexical form of f that parses
// back to f ("2.5", "1e+21", "NaN", "INF", "-INF"; "0" for -0 too).
func FormatDouble(f float64) string {
	switch {
	case f == 0:
		return "0" // -0 too: quad.Float(-0) == quad.Float(0), so one term
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
