package wikidata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/internal/inputtest"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
)

// Hand-made entities in the dump format, modelled on real ones.
const (
	propP131 = `{"type":"property","datatype":"wikibase-item","id":"P131","labels":{"en":{"language":"en","value":"located in the administrative territorial entity"},"de":{"language":"de","value":"liegt in der Verwaltungseinheit"}},"descriptions":{"en":{"language":"en","value":"the item is located on the territory of the following administrative entity"}},"aliases":{"en":[{"language":"en","value":"located in"},{"language":"en","value":"in"}]},"claims":{"P1696":[{"mainsnak":{"snaktype":"value","property":"P1696","datavalue":{"value":{"entity-type":"property","numeric-id":150,"id":"P150"},"type":"wikibase-entityid"},"datatype":"wikibase-property"},"type":"statement","id":"P131$1","rank":"normal"}]}}`
	propP150 = `{"type":"property","datatype":"wikibase-item","id":"P150","labels":{"en":{"language":"en","value":"contains the administrative territorial entity"}},"claims":{"P1696":[{"mainsnak":{"snaktype":"value","property":"P1696","datavalue":{"value":{"entity-type":"property","numeric-id":131},"type":"wikibase-entityid"},"datatype":"wikibase-property"},"type":"statement","id":"P150$1","rank":"normal"}]}}`
	propP214 = `{"type":"property","datatype":"external-id","id":"P214","labels":{"en":{"language":"en","value":"VIAF ID"}},"claims":{}}`
	lexL7    = `{"type":"lexeme","id":"L7","lemmas":{"en":{"language":"en","value":"cat"}},"lexicalCategory":"Q1084","language":"Q1860","claims":{},"forms":[],"senses":[]}`
	itemMul  = `{"type":"item","id":"Q5","labels":{"mul":{"language":"mul","value":"Homo sapiens"}},"descriptions":[],"aliases":[],"claims":[],"sitelinks":[]}`
)

// item builds an item line with the given claims JSON.
func item(id, claims string) string {
	return `{"type":"item","id":"` + id + `","labels":{"en":{"language":"en","value":"x"}},"claims":{` + claims + `}}`
}

// stmt builds a statement of property p with a datavalue JSON.
func stmt(p, rank, datatype, value, extra string) string {
	return `{"mainsnak":{"snaktype":"value","property":"` + p + `","datavalue":` + value +
		`,"datatype":"` + datatype + `"},"type":"statement","id":"Q1$` + p + rank + `","rank":"` + rank + `"` + extra + `}`
}

func dump(lines ...string) []byte {
	return []byte("[\n" + strings.Join(lines, ",\n") + "\n]\n")
}

func TestProperties(t *testing.T) {
	out, st := mustRun(t, Options{Options: source.Options{Languages: []string{"en", "de"}}}, dump(propP131, propP150, propP214))
	want := []string{
		nq("<P131>", "<grove:nodeType>", `"property"`),
		nq("<P131>", "<"+store.RDFSLabel+">", `"located in the administrative territorial entity"@en`),
		nq("<P131>", "<"+store.RDFSLabel+">", `"liegt in der Verwaltungseinheit"@de`),
		nq("<P131>", "<"+store.SKOSAltLabel+">", `"located in"@en`),
		nq("<P131>", "<P1696>", "<P150>"),
		nq("<P150>", "<P1696>", "<P131>"),
		nq("<P131>", "<grove:inverseLabel>", `"contains the administrative territorial entity"@en`),
		nq("<P150>", "<grove:inverseLabel>", `"located in the administrative territorial entity"@en`),
		nq("<P214>", "<grove:hidden>", `"true"`),
	}
	for _, q := range want {
		if !slices.Contains(out, q) {
			t.Errorf("missing %s", q)
		}
	}
	for _, q := range out {
		if strings.Contains(q, "inverseLabel") && strings.HasSuffix(q, "@de .") {
			t.Errorf("inverse label without both German labels: %s", q)
		}
	}
	// The metadata comes after every entity.
	if last := out[len(out)-1]; last != nq("<P214>", "<grove:hidden>", `"true"`) {
		t.Errorf("last quad %s", last)
	}
	if st.Properties != 3 || st.Entities != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestLexemesAndMul(t *testing.T) {
	in := dump(lexL7, itemMul)
	out, st := mustRun(t, Options{}, in)
	if st.Lexemes != 0 || st.Filtered != 1 || slices.Contains(out, nq("<L7>", "<grove:nodeType>", `"lexeme"`)) {
		t.Errorf("lexeme not skipped: %+v", st)
	}
	if !slices.Contains(out, nq("<Q5>", "<"+store.RDFSLabel+">", `"Homo sapiens"@mul`)) {
		t.Errorf("mul label fallback missing: %v", out)
	}
	out, st = mustRun(t, Options{KeepLexemes: true}, in)
	for _, q := range []string{
		nq("<L7>", "<grove:nodeType>", `"lexeme"`),
		nq("<L7>", "<"+store.RDFSLabel+">", `"cat"@en`),
		nq("<L7>", "<"+LexicalCategoryPredicate+">", "<Q1084>"),
		nq("<L7>", "<"+LanguagePredicate+">", "<Q1860>"),
	} {
		if !slices.Contains(out, q) {
			t.Errorf("missing %s", q)
		}
	}
	if st.Lexemes != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestLabelFallback: an item with no label (or description) in the chosen
// languages is named (and described) by its mul text, else a regional
// variant of a chosen language, else its English one, else an English
// variant, else the one of the smallest language code, whatever the member
// order; a key that is not a language code is never used.
func TestLabelFallback(t *testing.T) {
	text := func(lang, text string) string {
		return `"` + lang + `":{"language":"` + lang + `","value":"` + text + `"}`
	}
	// line gives the item labels and the same languages as descriptions,
	// each description the label prefixed with "d:".
	line := func(pairs ...string) string {
		var labels, descs []string
		for i := 0; i+1 < len(pairs); i += 2 {
			labels = append(labels, text(pairs[i], pairs[i+1]))
			descs = append(descs, text(pairs[i], "d:"+pairs[i+1]))
		}
		return `{"type":"item","id":"Q9","labels":{` + strings.Join(labels, ",") +
			`},"descriptions":{` + strings.Join(descs, ",") + `},"claims":{}}`
	}
	for _, c := range []struct {
		name, line string
		langs      []string
		lang, want string // want "" when the item has no label
	}{
		{"chosen first", line("fr", "Ville", "de", "Stadt"), []string{"de"}, "de", "Stadt"},
		{"mul before others", line("fr", "Ville", "mul", "Town", "en", "City"), []string{"de"}, "mul", "Town"},
		{"variant of a chosen language before English", line("en", "City", "de-ch", "Stadt", "ar", "Madina"), []string{"de"}, "de-ch", "Stadt"},
		{"English before others", line("fr", "Ville", "en", "City", "ar", "Madina"), []string{"de"}, "en", "City"},
		{"English before its variants", line("en-gb", "Town", "en", "City", "ar", "Madina"), []string{"de"}, "en", "City"},
		{"English variant before others", line("ar", "Lawn", "en-gb", "Colour", "de", "Farbe"), nil, "en-gb", "Colour"},
		{"smallest English variant", line("en-us", "Color", "en-ca", "Colour", "ar", "Lawn"), nil, "en-ca", "Colour"},
		{"English variant for another chosen language", line("ar", "Lawn", "en-gb", "Colour"), []string{"de"}, "en-gb", "Colour"},
		{"smallest code", line("zh-hans", "Cheng", "fr", "Ville", "be-tarask", "Horad"), nil, "be-tarask", "Horad"},
		{"smallest code, other order", line("be-tarask", "Horad", "fr", "Ville"), nil, "be-tarask", "Horad"},
		{"not a language code", line("X y", "Bad"), nil, "", ""},
		{"no labels", line(), nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := mustRun(t, Options{Options: source.Options{Languages: c.langs}}, dump(c.line))
			for _, pred := range []string{store.RDFSLabel, store.SchemaDesc} {
				var got []string
				for _, q := range out {
					if strings.Contains(q, "<"+pred+">") {
						got = append(got, q)
					}
				}
				var want []string
				if c.want != "" {
					w := c.want
					if pred == store.SchemaDesc {
						w = "d:" + w
					}
					want = []string{nq("<Q9>", "<"+pred+">", `"`+w+`"@`+c.lang)}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %q, want %q", pred, got, want)
				}
			}
		})
	}
}

func TestValues(t *testing.T) {
	tests := []struct {
		name, claims, want string
	}{
		{"item by numeric id only", `"P31":[` + stmt("P31", "normal", "wikibase-item", `{"value":{"entity-type":"item","numeric-id":5},"type":"wikibase-entityid"}`, "") + `]`,
			nq("<Q1>", "<P31>", "<Q5>")},
		{"lexeme form", `"P5830":[` + stmt("P5830", "normal", "wikibase-form", `{"value":{"entity-type":"form","id":"L7-F1"},"type":"wikibase-entityid"}`, "") + `]`,
			nq("<Q1>", "<P5830>", "<L7-F1>")},
		{"negative quantity with unit", `"P2076":[` + stmt("P2076", "normal", "quantity", `{"value":{"amount":"-40.5","unit":"http://www.wikidata.org/entity/Q25267"},"type":"quantity"}`, "") + `]`,
			nq("<Q1>", "<P2076>", `"-40.5 Q25267"^^<grove:quantity>`)},
		{"quantity with bounds", `"P3395":[` + stmt("P3395", "normal", "quantity", `{"value":{"amount":"+95","unit":"http://www.wikidata.org/entity/Q743895","upperBound":"+120","lowerBound":"+70"},"type":"quantity"}`, "") + `]`,
			nq("<Q1>", "<P3395>", `"95 [70,120] Q743895"^^<grove:quantity>`)},
		{"unitless quantity with bounds", `"P1082":[` + stmt("P1082", "normal", "quantity", `{"value":{"amount":"+66628000","unit":"1","upperBound":"+66628500","lowerBound":"+66627500"},"type":"quantity"}`, "") + `]`,
			nq("<Q1>", "<P1082>", `"66628000 [66627500,66628500]"^^<grove:quantity>`)},
		{"quantity with ±0 bounds", `"P1082":[` + stmt("P1082", "normal", "quantity", `{"value":{"amount":"+8","unit":"1","upperBound":"+8","lowerBound":"+8"},"type":"quantity"}`, "") + `]`,
			nq("<Q1>", "<P1082>", `"8"^^<grove:quantity>`)},
		{"qualifier quantity with bounds", `"P6":[` + stmt("P6", "normal", "wikibase-item", `{"value":{"id":"Q2"},"type":"wikibase-entityid"}`, `,"qualifiers":{"P1114":[{"snaktype":"value","property":"P1114","datavalue":{"value":{"amount":"-1.5","unit":"1","upperBound":"-1","lowerBound":"-2.5"},"type":"quantity"}}]}`) + `]`,
			nq("<Q1$P6normal>", "<pq:P1114>", `"-1.5 [-2.5,-1]"^^<grove:quantity>`)},
		{"mars coordinates", `"P625":[` + stmt("P625", "normal", "globe-coordinate", `{"value":{"latitude":-4.5,"longitude":137.4,"altitude":null,"precision":null,"globe":"http://www.wikidata.org/entity/Q111"},"type":"globecoordinate"}`, "") + `]`,
			nq("<Q1>", "<P625>", `"<http://www.wikidata.org/entity/Q111> Point(137.4 -4.5)"^^<`+store.WKTLiteral+`>`)},
		{"math string", `"P2534":[` + stmt("P2534", "normal", "math", `{"value":"E=mc^2","type":"string"}`, "") + `]`,
			nq("<Q1>", "<P2534>", `"E=mc^2"`)},
		{"month precision", `"P577":[` + stmt("P577", "normal", "time", `{"value":{"time":"+2010-07-00T00:00:00Z","timezone":0,"before":0,"after":0,"precision":10,"calendarmodel":"http://www.wikidata.org/entity/Q1985727"},"type":"time"}`, "") + `]`,
			nq("<Q1>", "<P577>", `"+2010-07-00T00:00:00Z 10"^^<grove:time>`)},
		{"julian month: marked", `"P571":[` + stmt("P571", "normal", "time", `{"value":{"time":"+1237-05-00T00:00:00Z","precision":10,"calendarmodel":"http://www.wikidata.org/entity/Q1985786"},"type":"time"}`, "") + `]`,
			nq("<Q1>", "<P571>", `"+1237-05-00T00:00:00Z 10 julian"^^<grove:time>`)},
		{"julian second: marked", `"P571":[` + stmt("P571", "normal", "time", `{"value":{"time":"+1237-05-03T10:20:30Z","precision":14,"calendarmodel":"http://www.wikidata.org/entity/Q1985786"},"type":"time"}`, "") + `]`,
			nq("<Q1>", "<P571>", `"+1237-05-03T10:20:30Z 14 julian"^^<grove:time>`)},
		{"julian year: no mark", `"P571":[` + stmt("P571", "normal", "time", `{"value":{"time":"+1237-00-00T00:00:00Z","precision":9,"calendarmodel":"http://www.wikidata.org/entity/Q1985786"},"type":"time"}`, "") + `]`,
			nq("<Q1>", "<P571>", `"+1237-00-00T00:00:00Z 9"^^<grove:time>`)},
		{"uppercase mbid", `"P434":[` + stmt("P434", "normal", "external-id", `{"value":"5B11F4CE-A62D-471E-81FC-A69A8278C7DA","type":"string"}`, "") + `]`,
			nq("<Q1>", "<grove:sameAs>", "<mb:artist/5b11f4ce-a62d-471e-81fc-a69a8278c7da>")},
		{"recording mbid", `"P4404":[` + stmt("P4404", "normal", "external-id", `{"value":"0f4f0c5a-7d3b-4f6c-9c1a-2b3c4d5e6f70","type":"string"}`, "") + `]`,
			nq("<Q1>", "<grove:sameAs>", "<mb:recording/0f4f0c5a-7d3b-4f6c-9c1a-2b3c4d5e6f70>")},
		{"empty qualifiers array", `"P6":[` + stmt("P6", "normal", "wikibase-item", `{"value":{"entity-type":"item","id":"Q2"},"type":"wikibase-entityid"}`, `,"qualifiers":[]`) + `]`,
			nq("<Q1>", "<P6>", "<Q2>")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := mustRun(t, Options{}, dump(item("Q1", tt.claims)))
			if !slices.Contains(out, tt.want) {
				t.Errorf("missing %s in\n%s", tt.want, strings.Join(out, "\n"))
			}
		})
	}
}

func TestRanksAndQualifiers(t *testing.T) {
	q := func(p, v string) string {
		return `"` + p + `":[{"snaktype":"value","property":"` + p + `","datavalue":{"value":{"entity-type":"item","id":"` + v + `"},"type":"wikibase-entityid"},"datatype":"wikibase-item"}]`
	}
	val := func(id string) string {
		return `{"value":{"entity-type":"item","id":"` + id + `"},"type":"wikibase-entityid"}`
	}
	novalue := `{"mainsnak":{"snaktype":"novalue","property":"P6"},"type":"statement","id":"Q1$nv","rank":"normal","qualifiers":{"P580":[{"snaktype":"somevalue","property":"P580"}]}}`
	claims := `"P6":[` +
		stmt("P6", "preferred", "wikibase-item", val("Q10"), `,"qualifiers":{`+q("P642", "Q7")+`,`+q("P518", "Q8")+`},"qualifiers-order":["P642"]`) + `,` +
		stmt("P6", "normal", "wikibase-item", val("Q11"), `,"qualifiers":{`+q("P642", "Q9")+`}`) + `,` +
		stmt("P6", "deprecated", "wikibase-item", val("Q12"), "") + `,` + novalue + `],` +
		`"P7":[` + stmt("P7", "normal", "wikibase-item", val("Q13"), `,"qualifiers":{"P580":[{"snaktype":"novalue","property":"P580"}]}`) + `]`
	truthy, st := mustRun(t, Options{}, dump(item("Q1", claims)))
	wantTruthy := []string{
		nq("<Q1>", "<P6>", "<Q10>"),
		nq("<Q1>", "<p:P6>", "<Q1$P6preferred>"),
		nq("<Q1$P6preferred>", "<ps:P6>", "<Q10>"),
		nq("<Q1$P6preferred>", "<pq:P642>", "<Q7>"),
		nq("<Q1$P6preferred>", "<pq:P518>", "<Q8>"),
		nq("<Q1>", "<P7>", "<Q13>"),
	}
	if got := truthy[len(truthy)-len(wantTruthy):]; !slices.Equal(got, wantTruthy) {
		t.Errorf("truthy:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantTruthy, "\n"))
	}
	if st.Statements != 2 {
		t.Errorf("statements = %d", st.Statements)
	}
	all, _ := mustRun(t, Options{AllRanks: true}, dump(item("Q1", claims)))
	for _, q := range []string{nq("<Q1>", "<P6>", "<Q11>"), nq("<Q1$P6normal>", "<pq:P642>", "<Q9>")} {
		if !slices.Contains(all, q) {
			t.Errorf("all ranks: missing %s", q)
		}
	}
	for _, q := range all {
		if strings.Contains(q, "Q12") || strings.Contains(q, "Q1$nv") || strings.Contains(q, "Q1$P7") {
			t.Errorf("all ranks: unexpected %s", q)
		}
	}
}

func TestInputForms(t *testing.T) {
	one := item("Q1", "")
	two := item("Q2", "")
	tests := []struct {
		name, in string
	}{
		{"array", "[\n" + one + ",\n" + two + "\n]\n"},
		{"json lines", one + "\n" + two + "\n"},
		{"crlf", "[\r\n" + one + ",\r\n" + two + "\r\n]\r\n"},
		{"no final newline", one + "\n" + two},
		{"brackets on entity lines", "[" + one + ",\n" + two + "]"},
		{"blank lines and bom", "\ufeff[\n\n" + one + ",\n   \n" + two + ",\n]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, st := mustRun(t, Options{}, []byte(tt.in))
			if st.Entities != 2 || !slices.Contains(out, nq("<Q2>", "<grove:nodeType>", `"item"`)) {
				t.Errorf("stats %+v, out %v", st, out)
			}
		})
	}
}

func TestMalformedLines(t *testing.T) {
	good := item("Q1", "")
	tests := []struct {
		name, bad, want string
		opts            Options
	}{
		{"truncated", `{"type":"item","id":"Q2","labels":{"en":`, `x.json:3: invalid entity JSON: `, Options{}},
		{"not an object", `garbage`, `x.json:3: invalid entity JSON: `, Options{}},
		{"bad id", `{"type":"item","id":"Qx"}`, `x.json:3: id: "Qx" is not a valid item id`, Options{}},
		{"property id on item", `{"type":"item","id":"P1"}`, `x.json:3: id: "P1" is not a valid item id`, Options{}},
		{"unsupported type", `{"type":"form","id":"L1-F1"}`, `x.json:3: type: unsupported entity type "form"`, Options{}},
		{"missing type", `{"id":"Q2"}`, `x.json:3: type: missing`, Options{}},
		{"labels not an object", `{"type":"item","id":"Q2","labels":"x"}`, `x.json:3: labels: invalid JSON at byte 0: want an object`, Options{}},
		{"label value not a string", `{"type":"item","id":"Q2","labels":{"en":{"language":"en","value":5}}}`, `x.json:3: labels: invalid JSON at byte 31: value: want a string`, Options{}},
		{"alias list not an array", `{"type":"item","id":"Q2","aliases":{"en":{"value":"a"}}}`, `x.json:3: aliases: invalid JSON at byte 6: want an array`, Options{}},
		{"bad time precision", item("Q2", `"P585":[`+stmt("P585", "normal", "time", `{"value":{"time":"+2010-00-00T00:00:00Z","precision":15},"type":"time"}`, "")+`]`),
			`x.json:3: claims.P585[0].mainsnak: datavalue: time precision 15 out of range 0-14`, Options{}},
		{"bad time", item("Q2", `"P585":[`+stmt("P585", "normal", "time", `{"value":{"time":"2010","precision":9},"type":"time"}`, "")+`]`),
			`x.json:3: claims.P585[0].mainsnak: datavalue: time "2010 9": month: want - and two digits`, Options{}},
		{"monolingual without language", item("Q2", `"P1448":[`+stmt("P1448", "normal", "monolingualtext", `{"value":{"text":"Berlin"},"type":"monolingualtext"}`, "")+`]`),
			`x.json:3: claims.P1448[0].mainsnak: datavalue: monolingualtext without language`, Options{}},
		{"string as object", item("Q2", `"P18":[`+stmt("P18", "normal", "commonsMedia", `{"value":{"text":"x"},"type":"string"}`, "")+`]`),
			`x.json:3: claims.P18[0].mainsnak: datavalue: value of type "string" has the wrong JSON form`, Options{}},
		{"unknown value type", item("Q2", `"P9":[`+stmt("P9", "normal", "x", `{"value":{"a":1},"type":"hologram"}`, "")+`]`),
			`x.json:3: claims.P9[0].mainsnak: datavalue: unsupported datavalue type "hologram"`, Options{}},
		{"bad quantity", item("Q2", `"P1082":[`+stmt("P1082", "normal", "quantity", `{"value":{"amount":"lots","unit":"1"},"type":"quantity"}`, "")+`]`),
			`x.json:3: claims.P1082[0].mainsnak: datavalue: quantity "lots": amount "lots" is not a number`, Options{}},
		{"quantity with one bound", item("Q2", `"P1082":[`+stmt("P1082", "normal", "quantity", `{"value":{"amount":"+5","unit":"1","upperBound":"+6"},"type":"quantity"}`, "")+`]`),
			`x.json:3: claims.P1082[0].mainsnak: datavalue: quantity with only one bound`, Options{}},
		{"quantity outside its bounds", item("Q2", `"P1082":[`+stmt("P1082", "normal", "quantity", `{"value":{"amount":"+5","unit":"1","upperBound":"+9","lowerBound":"+6"},"type":"quantity"}`, "")+`]`),
			`x.json:3: claims.P1082[0].mainsnak: datavalue: quantity "5 [6,9]": amount outside its bounds`, Options{}},
		{"latitude out of range", item("Q2", `"P625":[`+stmt("P625", "normal", "globe-coordinate", `{"value":{"latitude":91,"longitude":0},"type":"globecoordinate"}`, "")+`]`),
			`x.json:3: claims.P625[0].mainsnak: datavalue: coordinates (91, 0) out of range`, Options{}},
		{"unknown rank", item("Q2", `"P17":[`+stmt("P17", "best", "wikibase-item", `{"value":{"id":"Q183"},"type":"wikibase-entityid"}`, "")+`]`),
			`x.json:3: claims.P17[0].rank: unknown rank "best"`, Options{}},
		{"unknown snaktype", item("Q2", `"P17":[{"mainsnak":{"snaktype":"maybe","property":"P17"},"rank":"normal"}]`),
			`x.json:3: claims.P17[0].mainsnak: snaktype: unknown "maybe"`, Options{}},
		{"missing datavalue", item("Q2", `"P17":[{"mainsnak":{"snaktype":"value","property":"P17"},"rank":"normal"}]`),
			`x.json:3: claims.P17[0].mainsnak: datavalue: missing`, Options{}},
		{"qualifiers without statement id", item("Q2", `"P17":[{"mainsnak":{"snaktype":"value","property":"P17","datavalue":{"value":{"id":"Q183"},"type":"wikibase-entityid"}},"rank":"normal","qualifiers":{"P580":[{"snaktype":"somevalue","property":"P580"}]}}]`),
			`x.json:3: claims.P17[0].id: missing statement id (needed for qualifiers)`, Options{}},
		{"null statement id with qualifiers", item("Q2", `"P17":[{"id":null,"mainsnak":{"snaktype":"value","property":"P17","datavalue":{"value":{"id":"Q183"},"type":"wikibase-entityid"}},"rank":"normal","qualifiers":{"P580":[{"snaktype":"somevalue","property":"P580"}]}}]`),
			`x.json:3: claims.P17[0].id: missing statement id (needed for qualifiers)`, Options{}},
		{"bad qualifier", item("Q2", `"P17":[`+stmt("P17", "normal", "wikibase-item", `{"value":{"id":"Q183"},"type":"wikibase-entityid"}`, `,"qualifiers":{"P580":[{"snaktype":"value","property":"P580","datavalue":{"value":{"time":"+2010-00-00T00:00:00Z"},"type":"time"}}]}`)+`]`),
			`x.json:3: claims.P17[0].qualifiers.P580[0]: datavalue: time without precision`, Options{}},
		{"claims key not a property", item("Q2", `"X1":[]`), `x.json:3: claims: "X1" is not a property id`, Options{}},
		{"bad entity value id", item("Q2", `"P17":[`+stmt("P17", "normal", "wikibase-item", `{"value":{"id":"Q1 <x>"},"type":"wikibase-entityid"}`, "")+`]`),
			`x.json:3: claims.P17[0].mainsnak: datavalue: invalid entity id "Q1 <x>"`, Options{}},
		{"too long", item("Q2", `"P1":[]`), `x.json:3: line longer than 86 bytes`, Options{MaxLineBytes: 86}},
		{"invalid UTF-8 in a value", item("Q2", `"P1448":[`+stmt("P1448", "normal", "monolingualtext", `{"value":{"text":"a`+"\xff"+`b","language":"en"},"type":"monolingualtext"}`, "")+`]`),
			`x.json:3: claims.P1448[0].mainsnak: datavalue: value.text: invalid UTF-8 in a string`, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, tt.opts, dump(good, tt.bad, good))
			var se *source.Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *source.Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %q\nwant prefix %q", err, tt.want)
			}
		})
	}
}

func TestSkipInvalid(t *testing.T) {
	var skipped []string
	opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) {
		skipped = append(skipped, fmt.Sprintf("%s:%d", e.File, e.Line))
	}}, MaxLineBytes: 200}
	in := dump(item("Q1", ""), "{oops", item("Q2", ""), `{"type":"item","id":"Q"}`,
		item("Q3", `"P1":[]`)+strings.Repeat(" ", 300), item("Q4", ""))
	out, st, err := run(t, opts, in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Invalid != 3 || st.Entities != 3 {
		t.Errorf("stats %+v", st)
	}
	if want := []string{"x.json:3", "x.json:5", "x.json:6"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if !slices.Contains(out, nq("<Q4>", "<grove:nodeType>", `"item"`)) {
		t.Error("entity after a long line lost")
	}
}

func TestWriterError(t *testing.T) {
	boom := errors.New("disk full")
	n := 0
	w := source.WriterFunc(func(quad.Quad) error {
		if n++; n == 3 {
			return boom
		}
		return nil
	})
	err := New(Options{}).Read(context.Background(), "x.json", strings.NewReader(string(dump(item("Q1", ""), item("Q2", "")))), w)
	if !errors.Is(err, boom) || n != 3 {
		t.Fatalf("err = %v after %d quads", err, n)
	}
}

func TestReadErrorAndCancel(t *testing.T) {
	r := io.MultiReader(strings.NewReader(item("Q1", "")+"\n"), iotest.ErrReader(errors.New("bad gzip")))
	err := New(Options{}).Read(context.Background(), "x.json", r, source.WriterFunc(func(quad.Quad) error { return nil }))
	if err == nil || err.Error() != "x.json:2: read: bad gzip" {
		t.Errorf("err = %v", err)
	}
	// A line cut by the error is not decoded: the read error is reported,
	// not "invalid entity JSON".
	half := item("Q2", "")[:20]
	r = io.MultiReader(strings.NewReader(item("Q1", "")+",\n"+half), iotest.ErrReader(errors.New("bad gzip")))
	err = New(Options{}).Read(context.Background(), "x.json", r, source.WriterFunc(func(quad.Quad) error { return nil }))
	if err == nil || err.Error() != "x.json:2: read: bad gzip" {
		t.Errorf("cut line: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = New(Options{}).Read(ctx, "x.json", strings.NewReader(string(sample(t))), source.WriterFunc(func(quad.Quad) error { return nil }))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestNormalizeMBID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"5b11f4ce-a62d-471e-81fc-a69a8278c7da", "5b11f4ce-a62d-471e-81fc-a69a8278c7da", true},
		{"5B11F4CE-A62D-471E-81FC-A69A8278C7DA", "5b11f4ce-a62d-471e-81fc-a69a8278c7da", true},
		{"5b11f4ce-a62d-471e-81fc-a69a8278c7d", "", false},
		{"5b11f4cea-62d-471e-81fc-a69a8278c7da", "", false},
		{"5b11f4ce-a62d-471e-81fc-a69a8278c7dz", "", false},
	}
	for _, tt := range tests {
		got, ok := normalizeMBID(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("normalizeMBID(%q) = %q, %v", tt.in, got, ok)
		}
	}
}

func TestSelectRanks(t *testing.T) {
	mk := func(ranks ...string) []statement {
		s := make([]statement, len(ranks))
		for i, r := range ranks {
			s[i].Rank = r
		}
		return s
	}
	tests := []struct {
		ranks []string
		all   bool
		want  []bool
	}{
		{[]string{"normal", "normal"}, false, []bool{true, true}},
		{[]string{"normal", "preferred", "deprecated"}, false, []bool{false, true, false}},
		{[]string{"normal", "preferred", "deprecated"}, true, []bool{true, true, false}},
		{[]string{"deprecated"}, false, []bool{false}},
		{nil, false, []bool{}},
	}
	for _, tt := range tests {
		if got := selectRanks(mk(tt.ranks...), tt.all); !slices.Equal(got, tt.want) {
			t.Errorf("selectRanks(%v, %v) = %v, want %v", tt.ranks, tt.all, got, tt.want)
		}
	}
}

func TestLessID(t *testing.T) {
	ids := []string{"P131", "P17", "P6", "P1082", "Q5", "P31"}
	sortIDs(ids)
	if want := []string{"P6", "P17", "P31", "P131", "P1082", "Q5"}; !slices.Equal(ids, want) {
		t.Errorf("sorted %v", ids)
	}
}

// FuzzReadLine feeds one arbitrary line, as an entity line, through the
// reader: it must never panic, and a bad line is reported at line 2.
func FuzzReadLine(f *testing.F) {
	f.Add(item("Q1", `"P17":[`+stmt("P17", "normal", "wikibase-item", `{"value":{"id":"Q183"},"type":"wikibase-entityid"}`, "")+`]`))
	f.Add(propP131)
	f.Add(lexL7)
	f.Add(itemMul)
	f.Add(`{"type":"item","id":"Q1","claims":{"P1":[{"mainsnak":{"snaktype":"value","datavalue":{"value":null,"type":"time"}},"rank":"normal"}]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		var errs []*source.Error
		opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) { errs = append(errs, e) }},
			KeepLexemes: true, Workers: 1}
		_, st, err := run(t, opts, []byte("[\n"+line+"\n]"))
		if err != nil {
			t.Fatalf("SkipInvalid returned %v", err)
		}
		for _, e := range errs {
			if e.Line != 2 || e.File != "x.json" {
				t.Fatalf("error at %s:%d", e.File, e.Line)
			}
		}
		if st.Invalid != int64(len(errs)) || st.Invalid+st.Entities+st.Filtered > 1 {
			t.Fatalf("stats %+v with %d errors", st, len(errs))
		}
	})
}

func TestDedup(t *testing.T) {
	var d dedup
	for round := 0; round < 2; round++ {
		d.reset()
		for i := 0; i < 40; i++ {
			v := quad.IRI(fmt.Sprintf("Q%d", i%25))
			if got, want := d.add(v), i < 25; got != want {
				t.Fatalf("round %d: add(%v) = %v at %d", round, v, got, i)
			}
		}
	}
}

// TestEndlessLine: a line without an end fails at the line limit (it was
// read for ever, ignoring Ctrl-C); skipping invalid lines, its rest is
// discarded until the context is cancelled.
func TestEndlessLine(t *testing.T) {
	const max = 1 << 16
	discard := source.WriterFunc(func(quad.Quad) error { return nil })
	// The reader may discard some of the rest before the error stops it.
	in := &inputtest.Endless{Prefix: "[\n", Limit: 1 << 28}
	err := New(Options{MaxLineBytes: max}).Read(t.Context(), "zero.json", in, discard)
	if err == nil || !strings.Contains(err.Error(), "zero.json:2: line longer than") || in.N > in.Limit {
		t.Errorf("error %v after %d bytes, want line 2 too long before %d", err, in.N, in.Limit)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	in = &inputtest.Endless{Prefix: "[\n", Limit: 1 << 30, After: 64 * max, Cancel: cancel}
	opts := Options{MaxLineBytes: max, Options: source.Options{SkipInvalid: true, OnSkip: func(*source.Error) {}}}
	if err := New(opts).Read(ctx, "zero.json", in, discard); !errors.Is(err, context.Canceled) {
		t.Errorf("skipping: error %v after %d bytes, want context.Canceled", err, in.N)
	}
}

// TestUnknownValues checks that each somevalue snak (Wikidata's "unknown
// value") becomes its own grove:unknown literal, named by its statement
// (and qualifier), so that two stay two and none reads as a string.
func TestUnknownValues(t *testing.T) {
	some := func(p, id string) string {
		s := `{"mainsnak":{"snaktype":"somevalue","property":"` + p + `","datatype":"wikibase-item"},"type":"statement","rank":"normal"`
		if id != "" {
			s += `,"id":"` + id + `"`
		}
		return s + `}`
	}
	item64 := `{"value":{"entity-type":"item","id":"Q64"},"type":"wikibase-entityid"}`
	someQual := `,"qualifiers":{"P1480":[{"snaktype":"somevalue","property":"P1480"},{"snaktype":"somevalue","property":"P1480"}]}`
	tests := []struct {
		name, claims, pred string
		want               []string
	}{
		{"two unknown children and a known one", `"P40":[` + some("P40", "Q1$1") + `,` + some("P40", "Q1$2") + `,` + stmt("P40", "normal", "wikibase-item", item64, "") + `]`,
			"<P40>", []string{`"Q1$1"^^<grove:unknown>`, `"Q1$2"^^<grove:unknown>`, "<Q64>"}},
		{"without statement ids", `"P40":[` + some("P40", "") + `,` + some("P40", "") + `]`,
			"<P40>", []string{`"Q1 P40 0"^^<grove:unknown>`, `"Q1 P40 1"^^<grove:unknown>`}},
		{"two unknown qualifiers", `"P6":[` + stmt("P6", "normal", "wikibase-item", item64, someQual) + `]`,
			"<pq:P1480>", []string{`"Q1$P6normal P1480 0"^^<grove:unknown>`, `"Q1$P6normal P1480 1"^^<grove:unknown>`}},
		{"unknown value with an unknown qualifier", `"P6":[` + strings.TrimSuffix(some("P6", "Q1$s"), `}`) + someQual + `}]`,
			"<ps:P6>", []string{`"Q1$s"^^<grove:unknown>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := mustRun(t, Options{}, dump(item("Q1", tt.claims)))
			var got []string
			for _, q := range out {
				if f := strings.SplitN(q, " ", 3); f[1] == tt.pred {
					got = append(got, strings.TrimSuffix(f[2], " ."))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s objects %q, want %q", tt.pred, got, tt.want)
			}
		})
	}
}
