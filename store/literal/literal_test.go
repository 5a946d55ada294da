package literal

import (
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

func labels(id string) string {
	return map[string]string{
		"Q11573": "metre", "Q183": "Germany", "Q111": "Mars",
		"_:b1": "blank label", "Q11229": "Q11229",
	}[id]
}

func typed(v, t string) quad.Value { return quad.TypedString{Value: quad.String(v), Type: quad.IRI(t)} }
func gtime(v string) quad.Value    { return typed(v, store.GroveTime) }

func TestRender(t *testing.T) {
	tests := []struct {
		name string
		in   quad.Value
		want string
	}{
		{"nil", nil, ""},
		{"string", quad.String("plain"), "plain"},
		{"lang en", quad.LangString{Value: "Berlin", Lang: "en"}, "Berlin"},
		{"lang en-gb", quad.LangString{Value: "colour", Lang: "en-GB"}, "colour"},
		{"lang de", quad.LangString{Value: "Berlin", Lang: "de"}, "Berlin (de)"},
		{"lang empty", quad.LangString{Value: "x", Lang: ""}, "x"},
		{"lang mul", quad.LangString{Value: "Homo sapiens", Lang: "mul"}, "Homo sapiens"},
		{"lang english-like prefix", quad.LangString{Value: "x", Lang: "eng"}, "x (eng)"},
		{"iri labelled", quad.IRI("Q183"), "Germany"},
		{"iri unknown", quad.IRI("Q999"), "Q999"},
		{"iri wikidata uri", quad.IRI("http://www.wikidata.org/entity/Q183"), "Germany"},
		{"bnode labelled", quad.BNode("b1"), "blank label"},
		{"bnode unknown", quad.BNode("b2"), "_:b2"},
		{"int", quad.Int(1234567), "1,234,567"},
		{"int year-like", quad.Int(1982), "1982"},
		{"float", quad.Float(1234567.5), "1,234,567.5"},
		{"float exp", quad.Float(6.02e23), "6.02e+23"},
		{"bool", quad.Bool(true), "true"},
		{"quad time", quad.Time(time.Date(2010, 7, 8, 0, 0, 0, 0, time.UTC)), "8 July 2010"},
		{"quad time clock", quad.Time(time.Date(2010, 7, 8, 14, 3, 0, 0, time.UTC)), "8 July 2010, 14:03 UTC"},
		{"anyURI", typed("http://www.berlin.de/", store.XSDAnyURI), "http://www.berlin.de/"},
		{"unknown type", typed("abc", "http://example.org/t"), "abc"},
		{"short xsd prefix", typed("12345", "xsd:integer"), "12,345"},
		{"angle bracket type", typed("2010", "<"+store.XSDGYear+">"), "2010"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(tt.in, labels); got != tt.want {
				t.Errorf("Render(%#v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderNilLabelOf(t *testing.T) {
	if got := Render(quad.IRI("Q183"), nil); got != "Q183" {
		t.Errorf("got %q", got)
	}
	// Without labels a unit is an id, marked so (never a bare id that reads
	// as a name).
	if got := Render(typed("5 Q11573", store.GroveQuantity), nil); got != "5 Q11573 (no label in the KG)" {
		t.Errorf("got %q", got)
	}
}

func TestRenderGroveTime(t *testing.T) {
	tests := []struct{ in, want string }{
		{"+2010-07-08T00:00:00Z 11", "8 July 2010"},
		{"+2010-07-08 11", "8 July 2010"},
		{"2010-07-08 11", "8 July 2010"},
		{"+2010-07-08T00:00:00Z 10", "July 2010"},
		{"+2010-07-08T00:00:00Z 9", "2010"},
		{"+1905-00-00T00:00:00Z 8", "1900s"},
		{"+1900-00-00T00:00:00Z 7", "19th century"},
		{"+1901-00-00T00:00:00Z 7", "20th century"},
		{"+1850-00-00T00:00:00Z 7", "19th century"},
		{"+2000-00-00T00:00:00Z 6", "2nd millennium"},
		{"+2001-00-00T00:00:00Z 6", "3rd millennium"},
		{"-0044-03-15T00:00:00Z 11", "15 March 44 BC"},
		{"-0044-00-00T00:00:00Z 9", "44 BC"},
		{"-0044-00-00T00:00:00Z 7", "1st century BC"},
		{"-0450-00-00T00:00:00Z 8", "450s BC"},
		{"-3000-00-00T00:00:00Z 6", "3rd millennium BC"},
		{"+0000-00-00T00:00:00Z 9", "0"},
		{"+0000-00-00T00:00:00Z 7", "1st century"},
		{"-10000-00-00T00:00:00Z 9", "10,000 BC"},
		{"-13798000000-00-00T00:00:00Z 3", "13.798 billion years ago"},
		{"-13798000000-00-00T00:00:00Z 1", "13.8 billion years ago"},
		{"-13798000000-00-00T00:00:00Z 0", "14 billion years ago"},
		{"-65000000-00-00T00:00:00Z 3", "65 million years ago"},
		{"-12000-00-00T00:00:00Z 5", "10,000 years ago"},
		{"-4000-00-00T00:00:00Z 5", "4000 years ago"},
		{"+100000-00-00T00:00:00Z 4", "year 100,000"},
		{"+1250-03-01T00:00:00Z 11 julian", "1 March 1250 (Julian)"},
		{"+1250-00-00T00:00:00Z 9 julian", "1250"},
		{"+2010-07-00T00:00:00Z 11", "July 2010"},   // day unknown
		{"+2010-00-00T00:00:00Z 11", "2010"},        // month unknown
		{"+2010-07-08T00:00:00Z 42", "8 July 2010"}, // out of range: finest field
		{"+2010-00-00T00:00:00Z -1", "2010"},
		{"+2010-07-08T14:30:00Z 13", "8 July 2010, 14:30 UTC"},
		{"+2010-07-08T14:30:05Z 14", "8 July 2010, 14:30:05 UTC"},
		{"+1911-11-11T00:00:00Z 11", "11 November 1911"},
		{"+2021-00-00T00:00:00Z 7", "21st century"},
		{"+1100-00-00T00:00:00Z 7", "11th century"},
		{"+1200-00-00T00:00:00Z 7", "12th century"},
		{"+1300-00-00T00:00:00Z 7", "13th century"},
		// malformed: returned raw
		{"", ""},
		{"+2010-07-08T00:00:00Z", "+2010-07-08T00:00:00Z"},
		{"+2010-13-08T00:00:00Z 11", "+2010-13-08T00:00:00Z 11"},
		{"+2010-07-32T00:00:00Z 11", "+2010-07-32T00:00:00Z 11"},
		{"+2010-07-08T00:00:00Z x", "+2010-07-08T00:00:00Z x"},
		{"+2010-07-08T00:00:00Z 11 gregorian", "+2010-07-08T00:00:00Z 11 gregorian"},
		{"+20100-7-08 11", "+20100-7-08 11"},
		{"+12345678901234567-00-00 9", "+12345678901234567-00-00 9"},
		{"July 2010 10", "July 2010 10"},
		{"+2010-07-08garbage 11", "+2010-07-08garbage 11"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Render(gtime(tt.in), labels); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderXSDDates(t *testing.T) {
	tests := []struct{ typ, in, want string }{
		{store.XSDDate, "2010-07-08", "8 July 2010"},
		{store.XSDDate, "2010-07-08Z", "8 July 2010"},
		{store.XSDDate, "2010-07-08+02:00", "8 July 2010"},
		{store.XSDDate, "-0043-03-15", "15 March 44 BC"},
		{store.XSDDate, "0000-01-01", "1 January 1 BC"},
		{store.XSDDate, "2010-7-8", "2010-7-8"},
		{store.XSDDate, "2010-07-08junk", "2010-07-08junk"},
		{store.XSDDateTime, "2010-07-08T00:00:00Z", "8 July 2010"},
		{store.XSDDateTime, "2010-07-08T14:03:00Z", "8 July 2010, 14:03 UTC"},
		{store.XSDDateTime, "2010-07-08T14:03:09.5+02:00", "8 July 2010, 14:03:09 +02:00"},
		{store.XSDDateTime, "2010-07-08T14:03:00", "8 July 2010, 14:03"},
		{store.XSDDateTime, "2010-07-08", "2010-07-08"},
		{store.XSDDateTime, "2010-07-08T25:00:00Z", "2010-07-08T25:00:00Z"},
		{store.XSDGYear, "2010", "2010"},
		{store.XSDGYear, "-0043", "44 BC"},
		{store.XSDGYear, "0000", "1 BC"},
		{store.XSDGYear, "abc", "abc"},
		{store.XSDGYearMonth, "2010-07", "July 2010"},
		{store.XSDGYearMonth, "2010-00", "2010"},
		{store.XSDGYearMonth, "2010", "2010"},
		{store.GroveUnknown, "Q31$5A8B", "unknown value"},
		{store.GroveUnknown, "Q9006$a P580 0", "unknown value"},
		{store.GroveUnknown, "", "unknown value"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			if got := Render(typed(tt.in, tt.typ), labels); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderQuantity(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1234.5 Q11573", "1,234.5 metre"},
		{"+1234.5 Q11573", "1,234.5 metre"},
		{"1234.5 http://www.wikidata.org/entity/Q11573", "1,234.5 metre"},
		{"3469849", "3,469,849"},
		{"3469849 1", "3,469,849"},
		{"-40 Q25267", "-40 Q25267 (no label in the KG)"},
		{"10 http://www.wikidata.org/entity/Q25267", "10 Q25267 (no label in the KG)"},
		{"10 Q11229", "10 Q11229 (no label in the KG)"},
		{"2 http://qudt.org/vocab/unit/M", "2 http://qudt.org/vocab/unit/M (no label in the KG)"},
		{"0.5", "0.5"},
		{"123", "123"},
		{"1234", "1,234"},
		{"", ""},
		{"abc Q11573", "abc Q11573"},
		{"1 2 3", "1 2 3"},
		{"1e5 Q11573", "1e5 Q11573"},
		{"12.", "12."},
		{"66628000 [66627500,66628500]", "66,628,000 ±500"},
		{"95 [70,120] Q743895", "95 ±25 Q743895 (no label in the KG)"},
		{"95 [70,130] Q11573", "95 (70–130) metre"},
		{"+8 [+7,+9] Q11573", "8 ±1 metre"},
		{"1.5 [1.25,1.75] Q11573", "1.5 ±0.25 metre"},
		{"1.5 [1,2.00]", "1.5 ±0.50"},
		{"-40 [-45,-30]", "-40 (-45–-30)"},
		{"12000 [9000,13000]", "12,000 (9,000–13,000)"},
		{"5 [5,5]", "5 ±0"},
		{"5 [6,7] Q11573", "5 [6,7] Q11573"},
		{"5 [1,2,3]", "5 [1,2,3]"},
		{"5 [1,x]", "5 [1,x]"},
		{"5 [1,9", "5 [1,9"},
		{"5 [1,9] Q1 extra", "5 [1,9] Q1 extra"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Render(typed(tt.in, store.GroveQuantity), labels); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderNumbersAndBooleans(t *testing.T) {
	xsd := "http://www.w3.org/2001/XMLSchema#"
	tests := []struct{ typ, in, want string }{
		{"integer", "1982", "1982"},
		{"integer", "12345", "12,345"},
		{"integer", "-1234567", "-1,234,567"},
		{"integer", "+42", "42"},
		{"decimal", "12345.678", "12,345.678"},
		{"double", "1.5E6", "1,500,000"},
		{"double", "1e300", "1e+300"},
		{"double", "NaN", "NaN"},
		{"double", "INF", "INF"},
		{"float", "x1", "x1"},
		{"int", "", ""},
		{"boolean", "true", "true"},
		{"boolean", "1", "true"},
		{"boolean", "0", "false"},
		{"boolean", "maybe", "maybe"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			if got := Render(typed(tt.in, xsd+tt.typ), labels); got != tt.want {
				t.Errorf("Render(%q^^%s) = %q, want %q", tt.in, tt.typ, got, tt.want)
			}
		})
	}
}

func TestRenderWKT(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Point(13.405 52.52)", "52.52°N, 13.405°E"},
		{"POINT(-74.006 40.7128)", "40.7128°N, 74.006°W"},
		{"Point(-43.2 -22.9)", "22.9°S, 43.2°W"},
		{"Point(13.383333333333 52.516666666667)", "52.516667°N, 13.383333°E"},
		{"<http://www.wikidata.org/entity/Q111> Point(137.4 -4.6)", "4.6°S, 137.4°E on Mars"},
		{"<http://www.wikidata.org/entity/Q2> Point(1 2)", "2°N, 1°E"},
		{"<http://www.wikidata.org/entity/Q405> Point(1 2)", "2°N, 1°E on Q405 (no label in the KG)"},
		{"<http://www.opengis.net/def/crs/OGC/1.3/CRS84> Point(1 2)", "2°N, 1°E"},
		{"Point(1 95)", "Point(1 95)"},
		{"Point(1)", "Point(1)"},
		{"Point 1 2", "Point 1 2"},
		{"Point(a b)", "Point(a b)"},
		{"Point(NaN 2)", "Point(NaN 2)"},
		{"<unterminated Point(1 2)", "<unterminated Point(1 2)"},
		{"LineString(1 2, 3 4)", "LineString(1 2, 3 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Render(typed(tt.in, store.WKTLiteral), labels); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	got, err := ParseTime("-0044-03-15T12:30:00Z 11 julian")
	if err != nil {
		t.Fatal(err)
	}
	want := Time{Year: -44, Month: 3, Day: 15, Hour: 12, Minute: 30, Zone: "Z", Precision: 11, Julian: true}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "2010", "2010 x", "+-2010 9", "2010-01-01 9 x", "2010 9 julian extra"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q): want error", bad)
		}
	}
}

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		want Quantity
	}{
		{"+12.5 http://www.wikidata.org/entity/Q11573", Quantity{Amount: "12.5", Unit: "Q11573"}},
		{"3469849", Quantity{Amount: "3469849"}},
		{"3469849 1", Quantity{Amount: "3469849"}},
		{"95 [70,120] Q743895", Quantity{Amount: "95", Lower: "70", Upper: "120", Unit: "Q743895"}},
		{"+95 [+70,+120]", Quantity{Amount: "95", Lower: "70", Upper: "120"}},
		{"-1.5 [-2,-1] 1", Quantity{Amount: "-1.5", Lower: "-2", Upper: "-1"}},
		{"5 [5,5]", Quantity{Amount: "5", Lower: "5", Upper: "5"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseQuantity(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ParseQuantity(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "12 Q1 extra", "x", "5 [1,9] Q1 extra", "5 [6,7]", "5 [1,4]",
		"5 [1,9", "5 [1;9]", "5 [,9]", "5 [1,x]", "5 [1,2,9]", "[1,9] 5"} {
		if _, err := ParseQuantity(bad); err == nil {
			t.Errorf("ParseQuantity(%q): want error", bad)
		}
	}
}

func TestQuantityString(t *testing.T) {
	for _, s := range []string{"3469849", "891.68 Q712226", "95 [70,120] Q743895", "-1.5 [-2,-1]"} {
		q, err := ParseQuantity(s)
		if err != nil || q.String() != s {
			t.Errorf("ParseQuantity(%q).String() = %q, %v", s, q.String(), err)
		}
	}
}

// FuzzParseQuantity checks that a parsed quantity keeps its amount within
// its bounds, prints back to a form that parses to the same value and
// renders non-empty.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"3469849", "+12.5 Q11573", "95 [70,120] Q743895", "+8 [+7,+9] 1",
		"-1.5 [-2,-1]", "5 [6,7]", "5 [1,9", "1e5 [1,2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		if q.Lower != "" && (compareDecimals(q.Lower, q.Amount) > 0 || compareDecimals(q.Amount, q.Upper) > 0) {
			t.Errorf("ParseQuantity(%q) = %+v: amount outside its bounds", s, q)
		}
		if again, err := ParseQuantity(q.String()); err != nil || again != q {
			t.Errorf("ParseQuantity(%q) = %+v, printed %q, parsed again %+v, %v", s, q, q.String(), again, err)
		}
		if Render(typed(s, store.GroveQuantity), labels) == "" {
			t.Errorf("Render(%q) is empty", s)
		}
	})
}

func TestTimeStringOutOfRangeFields(t *testing.T) {
	// A hand-built Time with impossible fields must not panic.
	tm := Time{Year: 2010, Month: 13, Day: 40, Precision: PrecisionDay}
	if got := tm.String(); got != "2010" {
		t.Errorf("got %q", got)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int64]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th",
		12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th", 112: "112th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{"+2010-07-08T00:00:00Z 11", "1234.5 Q11573", "Point(1 2)",
		"-13798000000-00-00T00:00:00Z 0", "2010-07", "<x> Point(1 2)", "1e400", "+0000-00-00 7 julian",
		"95 [70,120] Q743895", "66628000 [66627500,66628500]"} {
		f.Add(s, 0)
	}
	types := []string{store.GroveTime, store.GroveQuantity, store.GroveUnknown, store.WKTLiteral, store.XSDDate,
		store.XSDDateTime, store.XSDGYear, store.XSDGYearMonth, "http://www.w3.org/2001/XMLSchema#double",
		"http://www.w3.org/2001/XMLSchema#boolean"}
	f.Fuzz(func(t *testing.T, s string, k int) {
		typ := types[(k%len(types)+len(types))%len(types)] // any k, math.MinInt too
		out := Render(typed(s, typ), labels)
		if s != "" && out == "" {
			t.Errorf("Render(%q^^%s) is empty", s, typ)
		}
		_ = Render(quad.LangString{Value: quad.String(s), Lang: s}, labels)
		_ = Render(quad.IRI(s), labels)
	})
}

func TestPlural(t *testing.T) {
	for n, want := range map[int64]string{0: "edges", 1: "edge", 2: "edges"} {
		if got := Plural(n, "edge"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
