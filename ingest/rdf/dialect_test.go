package rdf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

func readFixture(t *testing.T, path string, opts Options) []quad.Quad {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []quad.Quad
	w := source.WriterFunc(func(q quad.Quad) error { got = append(got, q); return nil })
	if err := New(opts).Read(context.Background(), path, f, w); err != nil {
		t.Fatal(err)
	}
	return got
}

func iri(s string) quad.Value { return quad.IRI(s) }

func lang(s, l string) quad.Value { return quad.LangString{Value: quad.String(s), Lang: l} }

func typed(s, t string) quad.Value {
	return quad.TypedString{Value: quad.String(s), Type: quad.IRI(t)}
}

func q3(s, p string, o quad.Value) quad.Quad {
	return quad.Quad{Subject: iri(s), Predicate: iri(p), Object: o}
}

func diffQuads(t *testing.T, got, want []quad.Quad) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w quad.Quad
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("quad %d:\n got %v\nwant %v", i, g, w)
		}
	}
}

const xsdDate = "http://www.w3.org/2001/XMLSchema#date"

func TestFreebaseFixture(t *testing.T) {
	got := readFixture(t, "testdata/freebase.nt", Options{Dialect: Freebase{}})
	jfk := "m.0d3k14"
	want := []quad.Quad{
		q3(jfk, store.FreebaseName, lang("John F. Kennedy", "en")),
		q3(jfk, store.FreebaseAlias, lang("JFK", "en")),
		q3(jfk, store.FreebaseAlias, lang("Jack Kennedy", "en")),
		q3(jfk, store.FreebaseDesc, lang("John Fitzgerald Kennedy, often referred to as JFK, was the 35th President of the United States.\nHe served from 1961 until his assassination in 1963.", "en")),
		q3(jfk, FreebaseType, iri("people.person")),
		q3(jfk, FreebaseType, iri("government.us_president")),
		q3(jfk, "people.person.date_of_birth", typed("1917-05-29", xsdDate)),
		q3(jfk, "people.person.place_of_birth", iri("m.01m1_d")),
		q3(jfk, "government.politician.government_positions_held", iri("m.04j60kh")),
		q3("m.04j60kh", FreebaseType, iri("government.government_position_held")),
		q3("m.04j60kh", "government.government_position_held.office_holder", iri(jfk)),
		q3("m.04j60kh", "government.government_position_held.basic_title", iri("m.060c4")),
		q3("m.04j60kh", "government.government_position_held.from", typed("1961-01-20", xsdDate)),
		q3("m.060c4", store.FreebaseName, lang("President", "en")),
		q3("government.government_position_held", FreebaseMediator, typed("true", "http://www.w3.org/2001/XMLSchema#boolean")),
		q3("film.film.directed_by", store.RDFSLabel, lang("Directed by", "en")),
		q3("film.film.directed_by", "http://www.w3.org/2002/07/owl#inverseOf", iri("film.director.film")),
	}
	diffQuads(t, got, want)
}

func TestFreebaseOptions(t *testing.T) {
	names := func(got []quad.Quad) []string {
		var out []string
		for _, q := range got {
			if q.Predicate == iri(store.FreebaseName) && q.Subject == iri("m.0d3k14") {
				out = append(out, q.Object.String())
			}
		}
		return out
	}
	tests := []struct {
		name  string
		opts  Options
		names string
		count int
	}{
		{"german", Options{Dialect: Freebase{}, Options: source.Options{Languages: []string{"DE"}}}, `"John F. Kennedy"@de`, 13},
		{"all languages", Options{Dialect: Freebase{}, Options: source.Options{Languages: []string{"*"}}}, `"John F. Kennedy"@en "John F. Kennedy"@de "Джон Кеннеди"@ru`, 20},
		{"extra drop", Options{Dialect: Freebase{Drop: []string{"people.person.", store.FreebaseAlias}}}, `"John F. Kennedy"@en`, 13},
		{"keep all", Options{Dialect: Freebase{KeepAll: true}}, `"John F. Kennedy"@en`, 23},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readFixture(t, "testdata/freebase.nt", tc.opts)
			if s := strings.Join(names(got), " "); s != tc.names {
				t.Errorf("names %s, want %s", s, tc.names)
			}
			if len(got) != tc.count {
				t.Errorf("%d quads, want %d", len(got), tc.count)
			}
		})
	}
}

// TestFreebaseQuestionMIDs checks that the topic entities of the Freebase
// KG-QA sets (SimpleQA, WebQuestions, CWQ, GrailQA) come out of the
// dialect with exactly the ids the questions use.
func TestFreebaseQuestionMIDs(t *testing.T) {
	dir := datadir.Shared(t, "freebase-questions")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no question files in %s", dir)
	}
	midRE := regexp.MustCompile(`^[mg]\.[0-9a-z_]+$`)
	want := make(map[string]string)
	for _, f := range files {
		for mid, name := range topicEntities(t, f) {
			if midRE.MatchString(mid) {
				want[mid] = name
			}
		}
	}
	if len(want) < 5000 {
		t.Fatalf("only %d topic entities", len(want))
	}
	var b strings.Builder
	for mid, name := range want {
		fmt.Fprintf(&b, "<%s%s>\t<%stype.object.name>\t%s\t.\n", FreebaseNS, mid, FreebaseNS, quad.LangString{Value: quad.String(name), Lang: "en"})
	}
	got, err := readAll(t, Options{Dialect: Freebase{}}, b.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range got {
		id := string(q.Subject.(quad.IRI))
		if name, ok := want[id]; !ok || q.Object != lang(name, "en") {
			t.Errorf("%v: not a topic entity of the questions (or wrong name)", q)
		}
		delete(want, id)
	}
	if len(want) != 0 {
		t.Errorf("%d topic entities lost, e.g. %v", len(want), firstKey(want))
	}
}

func topicEntities(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		TopicEntity map[string]string `json:"topic_entity"`
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make(map[string]string)
	for _, q := range qs {
		for k, v := range q.TopicEntity {
			out[k] = v
		}
	}
	return out
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

const (
	xsdAnyURI = store.XSDAnyURI
	wkt       = store.WKTLiteral
)

func TestWikidataTruthyFixture(t *testing.T) {
	got := readFixture(t, "testdata/truthy.nt", Options{Dialect: WikidataTruthy{}, Options: source.Options{Graph: "wd"}})
	want := []quad.Quad{
		q3("Q64", store.GroveNodeType, quad.String("item")),
		q3("Q64", "P17", iri("Q183")),
		q3("Q64", "P1082", typed("3755251", store.GroveQuantity)),
		q3("Q64", "P625", typed("Point(13.383333333 52.516666666)", wkt)),
		q3("Q64", "P856", typed("https://www.berlin.de/", xsdAnyURI)),
		q3("Q64", "P1448", lang("Berlin", "de")),
		q3("Q64", "P571", typed("1237-01-01T00:00:00Z", store.XSDDateTime)),
		q3("Q64", "P214", quad.String("152735283")),
		q3("Q64", "P982", quad.String("C9AC1239-E832-41BC-9930-E252A1FD1105")),
		q3("Q64", store.GroveSameAs, iri("mb:area/c9ac1239-e832-41bc-9930-e252a1fd1105")),
		q3("Q64", store.RDFSLabel, lang("Berlin", "en")),
		q3("Q64", store.SchemaDesc, lang("capital and largest city of Germany", "en")),
		q3("Q64", store.SKOSAltLabel, lang("Berlin, Germany", "en")),
		q3("Q1339", store.GroveNodeType, quad.String("item")),
		q3("Q1339", store.RDFSLabel, lang("Johann Sebastian Bach", "en")),
		q3("Q1339", "P434", quad.String("24f1766e-9635-4d58-a4d4-9413f9f98a4c")),
		q3("Q1339", store.GroveSameAs, iri("mb:artist/24f1766e-9635-4d58-a4d4-9413f9f98a4c")),
		q3("Q1339", "P435", quad.String("not-a-uuid")),
		q3("Q1339", "P1038", typed("2ae8c3a4d29e9af0d5a9fba4a1d0f1a8", store.GroveUnknown)),
		q3("Q1339", "P3373", typed("wd/genid1", store.GroveUnknown)),
		q3("Q1339", "P18", typed("http://commons.wikimedia.org/wiki/Special:FilePath/Johann%20Sebastian%20Bach.jpg", xsdAnyURI)),
		q3("P17", store.GroveNodeType, quad.String("property")),
		q3("P17", store.RDFSLabel, lang("country", "en")),
		q3("P214", store.GroveNodeType, quad.String("property")),
		q3("P214", store.GroveHidden, quad.String("true")),
		q3("P214", store.RDFSLabel, lang("VIAF ID", "en")),
		q3("P22", store.GroveNodeType, quad.String("property")),
		q3("P22", inverseProperty, iri("P40")),
		q3("P22", store.RDFSLabel, lang("father", "en")),
		q3("P40", store.GroveNodeType, quad.String("property")),
		q3("P40", store.RDFSLabel, lang("child", "en")),
		q3("P40", inverseProperty, iri("P22")),
		q3("Q100000000", store.OWLSameAs, iri("Q64")),
		// collected over the stream, emitted at its end
		q3("P22", store.GroveInverseLabel, lang("child", "en")),
		q3("P40", store.GroveInverseLabel, lang("father", "en")),
	}
	diffQuads(t, got, want)
}

// TestWikidataTruthyInverseLabels checks the languages of inverse labels,
// with "mul" labels as fallback.
func TestWikidataTruthyInverseLabels(t *testing.T) {
	tests := []struct {
		langs []string
		want  []string
	}{
		{[]string{"en"}, []string{`P22 "child"@en`, `P40 "father"@en`}},
		{[]string{"de"}, []string{`P22 "Kind"@de`, `P40 "Vater"@de`}},
		{[]string{"fr"}, nil}, // P22 has neither a French nor a mul label
		{[]string{"*"}, []string{`P22 "Kind"@de`, `P22 "child"@en`, `P40 "father"@en`}},
	}
	for _, tc := range tests {
		got := readFixture(t, "testdata/truthy.nt", Options{Dialect: WikidataTruthy{}, Options: source.Options{Languages: tc.langs}})
		var inv []string
		for _, q := range got {
			if q.Predicate == iri(store.GroveInverseLabel) {
				inv = append(inv, idOf(q.Subject)+" "+q.Object.String())
			}
		}
		if strings.Join(inv, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("languages %v: inverse labels %v, want %v", tc.langs, inv, tc.want)
		}
	}
}

func TestWikidataTruthyLanguages(t *testing.T) {
	got := readFixture(t, "testdata/truthy.nt", Options{Dialect: WikidataTruthy{}, Options: source.Options{Languages: []string{"en", "de"}}})
	var texts []string
	for _, q := range got {
		if q.Subject == iri("Q64") {
			if ls, ok := q.Object.(quad.LangString); ok {
				texts = append(texts, idOf(q.Predicate)+" "+ls.String())
			}
		}
	}
	want := []string{
		`P1448 "Berlin"@de`,
		store.RDFSLabel + ` "Berlin"@en`,
		store.RDFSLabel + ` "Berlin"@de`,
		store.SchemaDesc + ` "capital and largest city of Germany"@en`,
		store.SchemaDesc + ` "Hauptstadt und größte Stadt Deutschlands"@de`,
		store.SKOSAltLabel + ` "Berlin, Germany"@en`,
		store.SKOSAltLabel + ` "Berlin, Deutschland"@de`,
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
}

func TestMusicBrainzProperty(t *testing.T) {
	want := map[string]string{
		"P434": "artist", "P435": "work", "P436": "release-group", "P966": "label",
		"P982": "area", "P1004": "place", "P1330": "instrument", "P1407": "series",
		"P4404": "recording", "P5813": "release", "P6423": "event", "P8052": "genre",
		"P17": "", "P4340": "", "": "",
	}
	for pid, typ := range want {
		if got := MusicBrainzProperty(pid); got != typ {
			t.Errorf("MusicBrainzProperty(%q) = %q, want %q", pid, got, typ)
		}
	}
}

func TestNormalizeMBID(t *testing.T) {
	tests := []struct {
		in   quad.Value
		want string
		ok   bool
	}{
		{quad.String("24f1766e-9635-4d58-a4d4-9413f9f98a4c"), "24f1766e-9635-4d58-a4d4-9413f9f98a4c", true},
		{quad.String(" 24F1766E-9635-4D58-A4D4-9413F9F98A4C "), "24f1766e-9635-4d58-a4d4-9413f9f98a4c", true},
		{typed("24f1766e-9635-4d58-a4d4-9413f9f98a4c", xsdString), "24f1766e-9635-4d58-a4d4-9413f9f98a4c", true},
		{quad.String("24f1766e96354d58a4d49413f9f98a4c"), "", false},
		{quad.String("24f1766e-9635-4d58-a4d4-9413f9f98a4g"), "", false},
		{quad.String("24f1766e-9635-4d58-a4d4_9413f9f98a4c"), "", false},
		{quad.IRI("24f1766e-9635-4d58-a4d4-9413f9f98a4c"), "", false},
	}
	for _, tc := range tests {
		got, ok := normalizeMBID(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("normalizeMBID(%v) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDialectDeterministic reads a fixture twice with one Reader: mappers
// keep per-stream state, which must not leak from one read to the next.
func TestDialectDeterministic(t *testing.T) {
	for _, c := range []struct {
		d    Dialect
		file string
	}{{Freebase{}, "testdata/freebase.nt"}, {WikidataTruthy{}, "testdata/truthy.nt"}} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		r := New(Options{Dialect: c.d})
		var runs [2][]quad.Quad
		for i := range runs {
			w := source.WriterFunc(func(q quad.Quad) error { runs[i] = append(runs[i], q); return nil })
			if err := r.Read(context.Background(), "x", strings.NewReader(string(data)), w); err != nil {
				t.Fatal(err)
			}
		}
		diffQuads(t, runs[1], runs[0])
	}
}

// TestDropped: a reader counts the statements its dialect left out (each
// Freebase statement gives at most one quad, so the fixture's statements
// less the quads read), none without a dialect, and a second Read counts
// afresh.
func TestDropped(t *testing.T) {
	raw, err := os.ReadFile("testdata/freebase.nt")
	if err != nil {
		t.Fatal(err)
	}
	var statements int64
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			statements++
		}
	}
	for _, tc := range []struct {
		name string
		opts Options
		none bool // nothing is dropped
	}{
		{"no dialect", Options{}, true},
		{"english", Options{Dialect: Freebase{}}, false},
		{"german", Options{Dialect: Freebase{}, Options: source.Options{Languages: []string{"DE"}}}, false},
		{"keep all, every language", Options{Dialect: Freebase{KeepAll: true}, Options: source.Options{Languages: []string{"*"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := New(tc.opts)
			for round := range 2 {
				var n int64
				w := source.WriterFunc(func(quad.Quad) error { n++; return nil })
				if err := rd.Read(context.Background(), "freebase.nt", strings.NewReader(string(raw)), w); err != nil {
					t.Fatal(err)
				}
				want := statements - n
				if tc.none {
					want = 0
				}
				if got := rd.Dropped(); got != want || !tc.none && got == 0 {
					t.Errorf("round %d: Dropped() = %d, want %d (%d statements, %d quads)", round, got, want, statements, n)
				}
			}
		})
	}
}
