// Package literal renders literal values for humans: the text an LLM prompt,
// a CLI table or a web page shows for a node that is a value rather than an
// entity.
//
// Render is the single entry point. It dispatches on the quad value type and,
// for typed strings, on the datatype:
//
//   - grove:time (Wikidata time with precision, see store.GroveTime) renders
//     at its precision: "8 July 2010", "July 2010", "2010", "1900s",
//     "19th century", "2nd millennium", "13.8 billion years ago"; negative
//     years are BC ("44 BC"). Wikidata years are historical (there is no
//     astronomical shift: "-0044" is 44 BC). An optional third field
//     "julian" marks Julian-calendar dates, rendered as "(Julian)".
//   - xsd:date, xsd:dateTime, xsd:gYear, xsd:gYearMonth render likewise.
//     XSD uses astronomical year numbering (XSD 1.1): "0000" is 1 BC and
//     "-0043" is 44 BC.
//   - grove:quantity "1234.5 Q11573" renders "1,234.5 metre", the unit label
//     coming from labelOf; a unit labelOf knows no label for renders as its
//     id followed by NoLabel, "10 Q11229 (no label in the KG)", never as a
//     bare id that reads as if it were a name.
//   - geo:wktLiteral "Point(13.405 52.52)" renders "52.52°N, 13.405°E"; a
//     leading CRS IRI naming a Wikidata globe adds " on <globe label>" (the
//     globe's id followed by NoLabel when labelOf knows none).
//   - numbers get thousands separators (plain xsd numbers only from five
//     integer digits up, so that years stored as integers stay "1982");
//     booleans render "true"/"false"; xsd:anyURI renders the URI.
//   - a language-tagged string renders its text, followed by " (de)" when
//     the language is not English ("en", "en-gb", ...) or language-neutral
//     ("", "mul", "und", "zxx"), so a reader can tell an untranslated value
//     from an English one.
//   - IRIs and blank nodes render labelOf(id), or the id itself.
//
// Render never panics and never fails: a value that does not parse as its
// datatype is returned as its raw lexical form, so bad data stays visible.
package literal

import (
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// Namespaces whose local names select a renderer.
const (
	xsdNS       = "http://www.w3.org/2001/XMLSchema#"
	xsdPrefix   = "xsd:"
	wikidataNS  = "http://www.wikidata.org/entity/"
	wikidataNS2 = "https://www.wikidata.org/entity/"
)

// NoLabel follows an id the KG has no label for where the id stands for a
// name in text: "Q11229 (no label in the KG)". An id is not a description,
// and a bare id must never read as if it were a name.
const NoLabel = "(no label in the KG)"

// Render returns the human-readable text of v. labelOf maps an entity id to
// its label ("" when unknown) and may be nil.
func Render(v quad.Value, labelOf func(id string) string) string {
	switch x := v.(type) {
	case nil:
		return ""
	case quad.String:
		return string(x)
	case quad.LangString:
		return renderLang(string(x.Value), x.Lang)
	case quad.TypedString:
		return renderTyped(string(x.Value), string(x.Type), labelOf)
	case quad.IRI:
		return renderID(string(x), labelOf)
	case quad.BNode:
		return renderID("_:"+string(x), labelOf)
	case quad.Int:
		return groupInteger(formatInt(int64(x)), 5)
	case quad.Float:
		return renderNumber(formatFloat(float64(x)), 5)
	case quad.Bool:
		return renderBool(formatBool(bool(x)))
	case quad.Time:
		return renderQuadTime(x)
	}
	return quad.StringOf(v)
}

// Names returns the ids whose labels Render(v, labelOf) asks labelOf for
// (a quantity's unit, a point's globe; an IRI or blank node itself), in
// the order asked, so that a caller without labels at hand can look them
// up in one batch first.
func Names(v quad.Value) []string {
	var ids []string
	Render(v, func(id string) string {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		return ""
	})
	return ids
}

// renderLang renders a language-tagged string.
func renderLang(text, lang string) string {
	if unmarkedLanguage(lang) {
		return text
	}
	return text + " (" + lang + ")"
}

// unmarkedLanguage reports whether a BCP 47 tag needs no mark: empty,
// English ("en", "en-GB") or language-neutral (Wikidata's "mul" for all
// languages, "und" undetermined, "zxx" no linguistic content).
func unmarkedLanguage(lang string) bool {
	l := strings.ToLower(lang)
	switch l {
	case "", "en", "mul", "und", "zxx":
		return true
	}
	return strings.HasPrefix(l, "en-")
}

// renderID renders an entity id by its label, or as the id itself (a node's
// own text: whoever names the node marks it, see NoLabel).
func renderID(id string, labelOf func(string) string) string {
	if l := labelFor(id, labelOf); l != "" {
		return l
	}
	return id
}

// renderName renders an id that stands for a name inside a literal's text
// (a quantity's unit, a globe): its label, or the id followed by NoLabel.
func renderName(id string, labelOf func(string) string) string {
	if l := labelFor(id, labelOf); l != "" {
		return l
	}
	return id + " " + NoLabel
}

// labelFor is the label labelOf gives id, or its Wikidata id when id is a
// Wikidata IRI; "" when neither has one. A label that is only the id
// itself ("Q11229") is none.
func labelFor(id string, labelOf func(string) string) string {
	ids := []string{id}
	if q, ok := wikidataID(id); ok {
		ids = append(ids, q)
	}
	for _, x := range ids {
		if l := strings.TrimSpace(lookup(labelOf, x)); l != "" && l != x && l != id {
			return l
		}
	}
	return ""
}

// lookup calls labelOf when it is set.
func lookup(labelOf func(string) string, id string) string {
	if labelOf == nil || id == "" {
		return ""
	}
	return labelOf(id)
}

// wikidataID strips the Wikidata entity namespace from an IRI.
func wikidataID(s string) (string, bool) {
	for _, ns := range []string{wikidataNS, wikidataNS2} {
		if rest, ok := strings.CutPrefix(s, ns); ok && rest != "" {
			return rest, true
		}
	}
	return "", false
}

// localType returns the XSD local name of a datatype IRI ("" if not XSD).
func localType(t string) string {
	t = strings.TrimSuffix(strings.TrimPrefix(t, "<"), ">")
	if rest, ok := strings.CutPrefix(t, xsdNS); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(t, xsdPrefix); ok {
		return rest
	}
	return ""
}

// renderTyped dispatches a typed string on its datatype.
func renderTyped(s, typ string, labelOf func(string) string) string {
	switch strings.TrimSuffix(strings.TrimPrefix(typ, "<"), ">") {
	case store.GroveTime:
		return renderGroveTime(s, labelOf)
	case store.GroveQuantity:
		return renderQuantity(s, labelOf)
	case store.WKTLiteral:
		return renderWKT(s, labelOf)
	}
	return renderXSD(s, localType(typ))
}

// renderXSD renders the XSD datatypes; unknown types return s.
func renderXSD(s, local string) string {
	switch local {
	case "date":
		return renderXSDDate(s)
	case "dateTime", "dateTimeStamp":
		return renderXSDDateTime(s)
	case "gYear":
		return renderXSDGYear(s)
	case "gYearMonth":
		return renderXSDGYearMonth(s)
	case "integer", "int", "long", "short", "byte", "nonNegativeInteger",
		"positiveInteger", "negativeInteger", "nonPositiveInteger",
		"unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
		"decimal", "double", "float":
		return renderNumber(s, 5)
	case "boolean":
		return renderBool(s)
	}
	return s
}

// renderBool normalises the XSD boolean lexical forms.
func renderBool(s string) string {
	switch strings.TrimSpace(s) {
	case "true", "1":
		return "true"
	case "false", "0":
		return "false"
	}
	return s
}
