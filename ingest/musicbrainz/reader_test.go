package musicbrainz

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/ulikunitz/xz"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
)

const (
	beatles   = "mb:artist/b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"
	lennon    = "mb:artist/4d5447d7-c61c-4120-ba1b-d7f471d385b9"
	mccartney = "mb:artist/ba550d0e-adac-4864-b88b-407cab5e76af"
	starr     = "mb:artist/300c4c73-33ac-4255-9d57-4e32627f5e13"
	ono       = "mb:artist/f1ee6a84-d2e9-4dce-a7f3-0d4d8cc7c8b3"
	uk        = "mb:area/8a754a16-0027-3a29-b6d7-2b40ea0481ed"
	abbeyRoad = "mb:release-group/9162580e-5df4-32de-80cc-f45a8d8a9b1d"
	recording = "mb:recording/0ce64ba5-5d6a-4f54-9b2f-1e2c1c4fa1a3"
	work      = "mb:work/6d1b6a5e-5a47-3c5e-a3a8-1c9f9b6a2c41"

	memberOf = "mb:rel/artist-artist/member_of_band"
)

// graph collects quads and answers simple queries.
type graph []quad.Quad

func (g *graph) WriteQuad(q quad.Quad) error {
	*g = append(*g, q)
	return nil
}

// idOf is the id form of a node: the IRI text or "_:" and the blank node.
func idOf(v quad.Value) string {
	switch x := v.(type) {
	case quad.IRI:
		return string(x)
	case quad.BNode:
		return "_:" + string(x)
	}
	return quad.StringOf(v)
}

func (g graph) objects(s, p string) []quad.Value {
	var out []quad.Value
	for _, q := range g {
		if idOf(q.Subject) == s && q.Predicate == quad.IRI(p) {
			out = append(out, q.Object)
		}
	}
	return out
}

func (g graph) count(s, p string, o quad.Value) int {
	n := 0
	for _, q := range g {
		if idOf(q.Subject) == s && q.Predicate == quad.IRI(p) && q.Object == o {
			n++
		}
	}
	return n
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// dumpTar packs the fixtures the way MusicBrainz ships them, plus the
// metadata files that the reader must ignore.
func dumpTar(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: "mbdump/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
		t.Fatal(err)
	}
	add("TIMESTAMP", []byte("2024-05-01 00:00:00.000000+00\n"))
	add("JSON_DUMPS_SCHEMA_NUMBER", []byte("1\n"))
	add("mbdump/artist", fixture(t, "artist.jsonl"))
	add("mbdump/release-group", fixture(t, "release-group.jsonl"))
	add("mbdump/recording", fixture(t, "recording.jsonl"))
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func read(t testing.TB, opts Options, name string, data []byte) (graph, error) {
	t.Helper()
	var g graph
	err := New(opts).Read(context.Background(), name, bytes.NewReader(data), &g)
	return g, err
}

func str(s string) quad.Value { return quad.String(s) }
func iri(s string) quad.Value { return quad.IRI(s) }
func typed(s, typ string) quad.Value {
	return quad.TypedString{Value: quad.String(s), Type: quad.IRI(typ)}
}

// TestDumpFacts checks hand-verified facts of the tar fixture.
func TestDumpFacts(t *testing.T) {
	g, err := read(t, Options{}, "dump.tar", dumpTar(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s, p string
		o    quad.Value
		want int // occurrences
	}{
		{beatles, store.GroveNodeType, str("artist"), 1},
		{beatles, store.RDFSLabel, str("The Beatles"), 1},
		{beatles, store.SKOSAltLabel, str("Beatles, The"), 1},
		{beatles, store.SKOSAltLabel, str("Beatles"), 1},
		{beatles, store.SKOSAltLabel, quad.LangString{Value: "ビートルズ", Lang: "ja"}, 0}, // not in Languages
		{beatles, store.SKOSAltLabel, str("The Beatles"), 0},                          // alias equal to the name
		{beatles, "mb:prop/type", str("Group"), 1},
		{beatles, "mb:prop/country", str("GB"), 1},
		{beatles, "mb:prop/begin", typed("1960", store.XSDGYear), 1},
		{beatles, "mb:prop/end", typed("1970-04-10", store.XSDDate), 1},
		{beatles, "mb:prop/area", iri(uk), 1},
		{beatles, "mb:prop/genre", iri("mb:genre/0e3fc579-2d24-4f20-9dae-736e1ec78798"), 1},
		{beatles, "mb:prop/isni", str("0000000121707484"), 1},
		{beatles, "mb:prop/rating", typed("4.6", xsdDouble), 1},
		{"mb:prop/isni", store.GroveHidden, str("true"), 1},
		{uk, store.RDFSLabel, str("United Kingdom"), 1}, // embedded entity, labelled once
		{uk, store.GroveNodeType, str("area"), 1},
		{beatles, store.GroveSameAs, iri("Q1299"), 1},
		{lennon, store.GroveSameAs, iri("Q1203"), 1},
		{beatles, "mb:rel/artist-url/wikidata", typed("https://www.wikidata.org/wiki/Q1299", store.XSDAnyURI), 1},
		{"mb:rel/artist-url/wikidata", store.GroveHidden, str("true"), 1},
		{"mb:rel/artist-url/official_homepage", store.RDFSLabel, str("official homepage"), 1},
		// member of band: canonical orientation, member to band, written
		// once although both documents carry it
		{lennon, memberOf, iri(beatles), 1},
		{mccartney, memberOf, iri(beatles), 1},
		{starr, memberOf, iri(beatles), 1},
		{beatles, memberOf, iri(lennon), 0},
		{memberOf, store.RDFSLabel, str("member of band"), 1},
		{memberOf, store.GroveInverseLabel, str("has member"), 1},
		{lennon, "mb:rel/artist-artist/married", iri(ono), 1},
		{ono, store.RDFSLabel, str("Yoko Ono"), 1},
		{lennon, "mb:prop/gender", str("Male"), 1},
		{lennon, "mb:prop/rating", nil, 0},
		// release group and recording
		{abbeyRoad, store.RDFSLabel, str("Abbey Road"), 1},
		{abbeyRoad, store.SKOSAltLabel, str(""), 0}, // no sort name
		{abbeyRoad, "mb:prop/primary_type", str("Album"), 1},
		{abbeyRoad, "mb:prop/first_release_date", typed("1969-09-26", store.XSDDate), 1},
		{abbeyRoad, "mb:prop/artist", iri(beatles), 1},
		{abbeyRoad, store.GroveSameAs, iri("Q180202"), 1},
		{recording, "mb:prop/length_ms", typed("259947", xsdInteger), 1},
		{recording, "mb:prop/video", nil, 0},
		{recording, "mb:rel/recording-work/performance", iri(work), 1},
		{work, store.RDFSLabel, str("Come Together"), 1},
		{mccartney, "mb:rel/artist-recording/instrument", iri(recording), 1},
		{"mb:rel/recording-work/performance", store.RDFSLabel, str("is a performance of"), 1},
		{"mb:rel/recording-work/performance", store.SKOSAltLabel, str("performance"), 1},
	}
	for _, tt := range tests {
		if got := g.count(tt.s, tt.p, tt.o); got != tt.want {
			t.Errorf("<%s> <%s> %v: %d times, want %d", tt.s, tt.p, tt.o, got, tt.want)
		}
	}
}

// text is the lexical form of a literal.
func text(v quad.Value) string {
	switch x := v.(type) {
	case quad.String:
		return string(x)
	case quad.TypedString:
		return string(x.Value)
	case quad.LangString:
		return string(x.Value)
	}
	return fmt.Sprint(quad.NativeOf(v))
}

// qualified renders a qualified edge the way the engine shows it, from
// the p:/ps:/pq: statement quads alone: "label: object (q value, ...)".
func qualified(t *testing.T, g graph, subj, pred string) []string {
	t.Helper()
	label := func(id string) string {
		if ls := g.objects(id, store.RDFSLabel); len(ls) > 0 {
			return text(ls[0])
		}
		return id
	}
	var out []string
	for _, st := range g.objects(subj, store.StatementPrefix+pred) {
		obj := g.objects(idOf(st), store.StatementValuePrefix+pred)
		if len(obj) != 1 {
			t.Fatalf("statement %v has values %v", st, obj)
		}
		var quals []string
		for _, q := range g {
			p := string(q.Predicate.(quad.IRI))
			if q.Subject == st && strings.HasPrefix(p, store.QualifierPrefix) {
				quals = append(quals, label(strings.TrimPrefix(p, store.QualifierPrefix))+" "+text(q.Object))
			}
		}
		out = append(out, fmt.Sprintf("%s: %s (%s)", label(pred), label(idOf(obj[0])), strings.Join(quals, ", ")))
	}
	return out
}

// TestQualifiedMembership checks the statement nodes of memberships.
func TestQualifiedMembership(t *testing.T) {
	g, err := read(t, Options{EntityType: "artist"}, "artist.jsonl", fixture(t, "artist.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ member, want string }{
		{lennon, "member of band: The Beatles (attribute original, begin 1960, end 1969-09-20, instrument guitar, vocals lead vocals)"},
		{mccartney, "member of band: The Beatles (attribute original, begin 1960, end 1970-04-10, instrument bass guitar, vocals lead vocals)"},
		{starr, "member of band: The Beatles (begin 1962-08-18, end 1970-04-10, instrument drums (drum set))"},
	}
	for _, tt := range tests {
		got := qualified(t, g, tt.member, memberOf)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: %q, want %q", tt.member, got, tt.want)
		}
	}
	married := qualified(t, g, lennon, "mb:rel/artist-artist/married")
	if want := "married to: Yoko Ono (begin 1969-03-20, end 1980-12-08)"; len(married) != 1 || married[0] != want {
		t.Errorf("marriage %q, want %q", married, want)
	}
}

// TestStatementNodeShared checks that both documents of a relationship
// name the same statement node, so that separate reads agree.
func TestStatementNodeShared(t *testing.T) {
	lines := bytes.SplitAfter(fixture(t, "artist.jsonl"), []byte("\n"))
	var nodes []quad.Value
	for _, line := range lines[:2] {
		g, err := read(t, Options{EntityType: "artist"}, "one.jsonl", line)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, g.objects(lennon, store.StatementPrefix+memberOf)...)
	}
	if len(nodes) != 2 || nodes[0] != nodes[1] {
		t.Fatalf("statement nodes %v, want the same node twice", nodes)
	}
	if b, ok := nodes[0].(quad.BNode); !ok || !strings.HasPrefix(string(b), "musicbrainz/mbrel-") {
		t.Errorf("statement node %v is not a blank node scoped by the graph", nodes[0])
	}
}

// TestPlainLines checks entity types given, guessed and from tar members.
func TestPlainLines(t *testing.T) {
	tests := []struct {
		file, entity string
		node, typ    string
	}{
		{"artist.jsonl", "", beatles, "artist"},
		{"artist.jsonl", "artist", lennon, "artist"},
		{"release-group.jsonl", "", abbeyRoad, "release-group"},
		{"recording.jsonl", "", recording, "recording"},
		{"recording.jsonl", "recording", recording, "recording"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.entity, func(t *testing.T) {
			g, err := read(t, Options{EntityType: tt.entity}, tt.file, fixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := g.objects(tt.node, store.GroveNodeType); !slices.Equal(got, []quad.Value{str(tt.typ)}) {
				t.Errorf("type of %s = %v, want %q", tt.node, got, tt.typ)
			}
		})
	}
}

func TestGuessType(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"id":"x","release-group":{},"media":[]}`, "release"},
		{`{"id":"x","primary-type":"Album"}`, "release-group"},
		{`{"id":"x","length":1,"first-release-date":""}`, "recording"},
		{`{"id":"x","iswcs":[]}`, "work"},
		{`{"id":"x","label-code":null,"ipis":[]}`, "label"},
		{`{"id":"x","coordinates":null}`, "place"},
		{`{"id":"x","iso-3166-1-codes":["GB"]}`, "area"},
		{`{"id":"x","time":"20:00"}`, "event"},
		{`{"id":"x","gender":null}`, "artist"},
		{`{"id":"x","description":"a lute"}`, "instrument"},
		{`{"id":"x","type":"Catalogue"}`, "series"},
		{`{"id":"x","name":"rock"}`, "genre"},
		{`{"id":"x","name":"B","sort-name":"B","type":"Person"}`, "artist"},
		{`{"id":"x","name":"B","type":"Group"}`, "artist"},
		{`{"id":"x","name":"B","sort-name":"B","type":"Other"}`, "artist"},
		{`{"id":"x","name":"B","type":"Other"}`, "series"},
		{`{"id":"x","name":"B","begin-area":null}`, "artist"},
		{`{"id":"x","type":["Person"]}`, "series"},
	}
	for _, tt := range tests {
		if got, err := guessType([]byte(tt.doc)); err != nil || got != tt.want {
			t.Errorf("guessType(%s) = %q, %v; want %q", tt.doc, got, err, tt.want)
		}
	}
	if _, err := guessType([]byte(`{"name":"x"}`)); err == nil || !strings.Contains(err.Error(), "name the file after its entity type (artist.jsonl") {
		t.Errorf("guessType without id: error %v, want one saying how to name the file", err)
	}
}

func TestTypeFromName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"artist.jsonl", "artist"},
		{"/data/mb/release-group.jsonl.gz", "release-group"},
		{"release_group.json", "release-group"},
		{`C:\dumps\Recording.JSONL`, "recording"},
		{"artist.tar.xz", "artist"},
		{"mbdump/series", "series"},
		{"work", "work"},
		{"artists.jsonl", ""},
		{"a.jsonl", ""},
		{".jsonl", ""},
		{"fuzz", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := typeFromName(tt.name); got != tt.want {
			t.Errorf("typeFromName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTypeFromFileName checks that plain JSON lines take the entity type
// from the file's name before guessing, and that Options.EntityType wins.
func TestTypeFromFileName(t *testing.T) {
	const doc = `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"Band","type":"Catalogue"}` + "\n"
	tests := []struct{ file, entity, want string }{
		{"artist.jsonl", "", "mb:artist/b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"},
		{"dumps/label.json.gz", "", "mb:label/b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"},
		{"things.jsonl", "", "mb:series/b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"},
		{"artist.jsonl", "work", "mb:work/b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"},
	}
	for _, tt := range tests {
		g, err := read(t, Options{EntityType: tt.entity}, tt.file, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.objects(tt.want, store.RDFSLabel); !slices.Equal(got, []quad.Value{str("Band")}) {
			t.Errorf("%s (entity type %q): label of %s = %v, want Band; quads %v", tt.file, tt.entity, tt.want, got, g)
		}
	}
}

// TestLanguages checks alias filtering by locale.
func TestLanguages(t *testing.T) {
	g, err := read(t, Options{Options: source.Options{Languages: []string{"en", "ja"}}, EntityType: "artist"},
		"artist.jsonl", fixture(t, "artist.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if g.count(beatles, store.SKOSAltLabel, quad.LangString{Value: "ビートルズ", Lang: "ja"}) != 1 {
		t.Errorf("Japanese alias missing: %v", g.objects(beatles, store.SKOSAltLabel))
	}
}

// TestForwardOnly checks that only entity0's copy is read.
func TestForwardOnly(t *testing.T) {
	beatlesDoc := bytes.SplitAfter(fixture(t, "artist.jsonl"), []byte("\n"))[0]
	g, err := read(t, Options{ForwardOnly: true, EntityType: "artist"}, "a.jsonl", beatlesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.count(lennon, memberOf, iri(beatles)); n != 0 {
		t.Errorf("backward membership written %d times", n)
	}
	if g.count(beatles, store.GroveSameAs, iri("Q1299")) != 1 {
		t.Error("forward URL relationship missing")
	}
	g, err = read(t, Options{EntityType: "artist"}, "a.jsonl", beatlesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.count(lennon, memberOf, iri(beatles)); n != 1 {
		t.Errorf("by default, backward membership written %d times, want 1", n)
	}
}

// TestErrors checks that bad documents are reported with file, line and
// field.
func TestErrors(t *testing.T) {
	good := `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"X"}`
	rel := func(r string) string {
		return `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"X","relations":[` + r + `]}`
	}
	tests := []struct {
		name, doc   string
		field, want string
	}{
		{"bad mbid", `{"id":"not-a-uuid","name":"X"}`, "id", `"not-a-uuid" is not an MBID`},
		{"missing id", `{"name":"X"}`, "id", "missing MBID"},
		{"bad date", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","life-span":{"begin":"1960-1"}}`, "life-span.begin", `date "1960-1" is not YYYY`},
		{"impossible date", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","life-span":{"end":"2020-02-30"}}`, "life-span.end", `date "2020-02-30": February 2020 has 29 days`},
		{"impossible relationship date", rel(`{"type":"x","direction":"forward","target-type":"url","url":{"resource":"http://a"},"begin":"1960-13"}`),
			"relations[0].begin", `date "1960-13": month 13 is not 01 to 12`},
		{"wrong JSON type", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":5}`, "name", "want a string, got a number"},
		{"object for an array", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","relations":{}}`, "relations", "want an array, got an object"},
		{"string for an array", rel(`{"attributes":"guitar"}`), "relations[0].attributes", "want an array, got a string"},
		{"number in an array", rel(`{},{"attributes":[1]}`), "relations[1].attributes[0]", "want a string, got a number"},
		{"deep field", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","media":[{"tracks":[{"recording":{"id":5}}]}]}`,
			"media[0].tracks[0].recording.id", "want a string, got a number"},
		{"string for a boolean", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","life-span":{"ended":"no"}}`, "life-span.ended", "want a boolean, got a string"},
		{"array for an object", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","life-span":[]}`, "life-span", "want an object, got an array"},
		{"fraction for an integer", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","rating":{"votes-count":1.5}}`, "rating.votes-count", "want an integer, got a number 1.5"},
		{"array document", `[1]`, "", "want an object, got an array"},
		{"syntax error", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d",`, "", "invalid JSON"},
		{"bad direction", rel(`{"type":"x","direction":"up","target-type":"artist"}`), "relations[0].direction", `want forward or backward, got "up"`},
		{"no type", rel(`{"direction":"forward","target-type":"artist"}`), "relations[0].type", "missing relationship type"},
		{"missing target", rel(`{"type":"x","direction":"forward","target-type":"artist"}`), "relations[0].artist", "missing the target entity"},
		{"unknown target type", rel(`{"type":"x","direction":"forward","target-type":"planet"}`), "relations[0].target-type", `unknown target type "planet"`},
		{"bad target id", rel(`{"type":"x","direction":"forward","target-type":"work","work":{"id":"7"}}`), "relations[0].work.id", `"7" is not an MBID`},
		{"bad wikidata url", rel(`{"type":"wikidata","direction":"forward","target-type":"url","url":{"resource":"https://example.org/Q1"}}`),
			"relations[0].url.resource", "is not a Wikidata item URL"},
		{"bad relationship date", rel(`{"type":"x","direction":"forward","target-type":"url","url":{"resource":"http://a"},"end":"soon"}`),
			"relations[0].end", `date "soon"`},
		{"bad coordinates", `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","coordinates":{"latitude":"95","longitude":"1"}}`, "coordinates", "latitude"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := good + "\n\n" + tt.doc + "\n"
			_, err := read(t, Options{EntityType: "place"}, "place.jsonl", []byte(input))
			var se *source.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want *source.Error", err)
			}
			if se.File != "place.jsonl" || se.Line != 3 || se.Field != tt.field || !strings.Contains(se.Err.Error(), tt.want) {
				t.Errorf("got %s:%d field %q: %v; want line 3 field %q containing %q", se.File, se.Line, se.Field, se.Err, tt.field, tt.want)
			}
			if msg := err.Error(); strings.Contains(msg, "musicbrainz.") || strings.Contains(msg, "Go ") || strings.Contains(msg, "json.") {
				t.Errorf("error %q names Go types", msg)
			}
		})
	}
}

// TestInputErrors covers whole-input failures.
func TestInputErrors(t *testing.T) {
	tarData := dumpTar(t)
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"xz", append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "rest"...), "dump.tar: xz:"},
		{"not a dump", []byte("artist\tname\n"), "not a MusicBrainz JSON dump"},
		{"truncated tar", tarData[:700], "dump.tar"},
		{"bad entity type", []byte(`{"id":"x"}`), `unknown entity type "artists"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{}
			if tt.name == "bad entity type" {
				opts.EntityType = "artists"
			}
			_, err := read(t, opts, "dump.tar", tt.input)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestTarXz reads the archive xz-compressed, as MusicBrainz publishes it:
// the quads are those of the plain tar.
func TestTarXz(t *testing.T) {
	tarData := dumpTar(t)
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(tarData)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := read(t, Options{}, "dump.tar", tarData)
	if err != nil {
		t.Fatal(err)
	}
	got, err := read(t, Options{}, "dump.tar.xz", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("tar.xz gave %d quads, plain tar %d (or they differ)", len(got), len(want))
	}
}

// TestTarErrorPosition checks that errors in a tar member name the member.
func TestTarErrorPosition(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	doc := []byte(`{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"X"}` + "\n" + `{"id":"bad"}` + "\n")
	if err := tw.WriteHeader(&tar.Header{Name: "mbdump/label", Mode: 0o644, Size: int64(len(doc))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(doc)
	tw.Close()
	_, err := read(t, Options{}, "label.tar", buf.Bytes())
	var se *source.Error
	if !errors.As(err, &se) || se.File != "label.tar/mbdump/label" || se.Line != 2 || se.Field != "id" {
		t.Fatalf("error %v, want label.tar/mbdump/label:2: id", err)
	}
}

// TestSkipInvalid checks that bad documents are skipped whole.
func TestSkipInvalid(t *testing.T) {
	bad := `{"id":"4d5447d7-c61c-4120-ba1b-d7f471d385b9","name":"Half Written","relations":[` +
		`{"type":"wikidata","direction":"forward","target-type":"url","url":{"resource":"https://www.wikidata.org/wiki/Q1203"}},` +
		`{"type":"x","direction":"sideways","target-type":"url","url":{"resource":"http://a"}}]}`
	input := string(fixture(t, "release-group.jsonl")) + bad + "\n" + "{oops\n"
	var skipped []string
	opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) {
		skipped = append(skipped, fmt.Sprintf("%d:%s", e.Line, e.Field))
	}}, EntityType: "release-group"}
	g, err := read(t, opts, "rg.jsonl", []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2:relations[1].direction", "3:"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if len(g.objects("mb:release-group/4d5447d7-c61c-4120-ba1b-d7f471d385b9", store.RDFSLabel)) != 0 ||
		len(g.objects("mb:release-group/4d5447d7-c61c-4120-ba1b-d7f471d385b9", store.GroveSameAs)) != 0 {
		t.Error("a skipped document wrote quads")
	}
	if g.count(abbeyRoad, store.RDFSLabel, str("Abbey Road")) != 1 {
		t.Error("good document missing")
	}
}

// TestWriterError checks that a failing writer stops the read.
func TestWriterError(t *testing.T) {
	boom := errors.New("disk full")
	err := New(Options{Options: source.Options{SkipInvalid: true}}).Read(context.Background(), "a.jsonl",
		bytes.NewReader(fixture(t, "artist.jsonl")), source.WriterFunc(func(quad.Quad) error { return boom }))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
}

// TestLongLine checks MaxLineBytes.
func TestLongLine(t *testing.T) {
	doc := `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"` + strings.Repeat("x", 3<<20) + `"}`
	g, err := read(t, Options{EntityType: "artist"}, "a.jsonl", []byte(doc))
	if err != nil || len(g) == 0 {
		t.Fatalf("long line: %v, %d quads", err, len(g))
	}
	_, err = read(t, Options{EntityType: "artist", MaxLineBytes: 1 << 20}, "a.jsonl", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "a.jsonl:1: line longer than") {
		t.Fatalf("error %v, want a line length error", err)
	}
}

func TestDateLiteral(t *testing.T) {
	tests := []struct {
		in, value, typ string
		bad            string // part of the error, "" for none
	}{
		{"1962", "1962", store.XSDGYear, ""},
		{"1962-08", "1962-08", store.XSDGYearMonth, ""},
		{"1962-08-18", "1962-08-18", store.XSDDate, ""},
		{"", "", "", ""},
		{"2020-02-29", "2020-02-29", store.XSDDate, ""},
		{"2000-02-29", "2000-02-29", store.XSDDate, ""},
		{"1962-12-31", "1962-12-31", store.XSDDate, ""},
		{"1960-00-00", "1960", store.XSDGYear, ""},
		{"1960-00", "1960", store.XSDGYear, ""},
		{"1960-00-05", "1960", store.XSDGYear, ""},
		{"1960-05-00", "1960-05", store.XSDGYearMonth, ""},
		{"0000", "", "", ""},
		{"0000-00-00", "", "", ""},
		{"62", "", "", "is not YYYY"},
		{"1962-8-18", "", "", "is not YYYY"},
		{"1962/08/18", "", "", "is not YYYY"},
		{"2020-02-30", "", "", `date "2020-02-30": February 2020 has 29 days`},
		{"1900-02-29", "", "", "February 1900 has 28 days"},
		{"1962-04-31", "", "", "April 1962 has 30 days"},
		{"1962-01-32", "", "", "January 1962 has 31 days"},
		{"1960-13", "", "", `date "1960-13": month 13 is not 01 to 12`},
		{"1960-99-01", "", "", "month 99 is not 01 to 12"},
	}
	for _, tt := range tests {
		v, err := dateLiteral(tt.in)
		if tt.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("dateLiteral(%q) = %v, %v; want an error containing %q", tt.in, v, err, tt.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("dateLiteral(%q) error %v", tt.in, err)
			continue
		}
		var want quad.Value
		if tt.typ != "" {
			want = quad.TypedString{Value: quad.String(tt.value), Type: quad.IRI(tt.typ)}
		}
		if v != want {
			t.Errorf("dateLiteral(%q) = %#v, want %#v", tt.in, v, want)
		}
	}
}

func TestAttributeQualifier(t *testing.T) {
	tests := []struct {
		rel, attr string
		values    map[string]string
		pred, val string
	}{
		{"member of band", "guitar", nil, "instrument", "guitar"},
		{"member of band", "original", nil, "attribute", "original"},
		{"vocal", "lead vocals", nil, "vocals", "lead vocals"},
		{"performer", "guest", nil, "attribute", "guest"},
		{"part of", "number", map[string]string{"number": "BWV 1"}, "number", "BWV 1"},
		{"remix", "strange", nil, "attribute", "strange"},
	}
	for _, tt := range tests {
		q := attributeQualifier(tt.rel, tt.attr, tt.values)
		if q.pred != qualPrefix+tt.pred || q.value != str(tt.val) {
			t.Errorf("attributeQualifier(%q, %q) = %s %v, want %s %s", tt.rel, tt.attr, q.pred, q.value, tt.pred, tt.val)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"member of band": "member_of_band", "IMDb": "imdb", "  free streaming ": "free_streaming",
		"is person / legal name": "is_person_legal_name", "": "", "-": "",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCanceled checks that a canceled context stops the read.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var g graph
	err := New(Options{}).Read(ctx, "a.jsonl", bytes.NewReader(fixture(t, "artist.jsonl")), &g)
	if !errors.Is(err, context.Canceled) || len(g) != 0 {
		t.Fatalf("error %v after %d quads, want context.Canceled before any", err, len(g))
	}
}

// TestCredits checks that the credited names of both ends of a
// relationship are kept, named by edge end, whichever document (or both)
// the relationship is read from.
func TestCredits(t *testing.T) {
	const (
		band = `{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"The Beatles","type":"Group","relations":[` +
			`{"type":"member of band","direction":"backward","target-type":"artist","begin":"1960",` +
			`"source-credit":%q,"target-credit":%q,"artist":{"id":"4d5447d7-c61c-4120-ba1b-d7f471d385b9","name":"John Lennon"}}]}` + "\n"
		john = `{"id":"4d5447d7-c61c-4120-ba1b-d7f471d385b9","name":"John Lennon","type":"Person","relations":[` +
			`{"type":"member of band","direction":"forward","target-type":"artist","begin":"1960",` +
			`"source-credit":%q,"target-credit":%q,"artist":{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","name":"The Beatles"}}]}` + "\n"
		url = `{"id":"4d5447d7-c61c-4120-ba1b-d7f471d385b9","name":"John Lennon","relations":[` +
			`{"type":"official homepage","direction":"%s","target-type":"url","source-credit":"Johnny","target-credit":"home",` +
			`"url":{"id":"4d5447d7-c61c-4120-ba1b-d7f471d385b9","resource":"https://example.org/"}}]}` + "\n"
	)
	tests := []struct {
		name, data string
		subj, pred string
		want       string
	}{
		{"subject credit from the object's document", fmt.Sprintf(band, "", "Johnny"), lennon, memberOf,
			"member of band: The Beatles (begin 1960, subject credited as Johnny)"},
		{"subject credit from the subject's document", fmt.Sprintf(john, "Johnny", ""), lennon, memberOf,
			"member of band: The Beatles (begin 1960, subject credited as Johnny)"},
		{"object credit from the object's document", fmt.Sprintf(band, "Beatles", ""), lennon, memberOf,
			"member of band: The Beatles (begin 1960, object credited as Beatles)"},
		{"object credit from the subject's document", fmt.Sprintf(john, "", "Beatles"), lennon, memberOf,
			"member of band: The Beatles (begin 1960, object credited as Beatles)"},
		{"both, from both documents", fmt.Sprintf(band, "Beatles", "Johnny") + fmt.Sprintf(john, "Johnny", "Beatles"), lennon, memberOf,
			"member of band: The Beatles (begin 1960, object credited as Beatles, subject credited as Johnny)"},
		{"URL, forward", fmt.Sprintf(url, "forward"), lennon, "mb:rel/artist-url/official_homepage",
			"official homepage: \"https://example.org/\"^^<" + store.XSDAnyURI + "> (object credited as home, subject credited as Johnny)"},
		{"URL, backward", fmt.Sprintf(url, "backward"), lennon, "mb:rel/artist-url/official_homepage",
			"official homepage: \"https://example.org/\"^^<" + store.XSDAnyURI + "> (object credited as home, subject credited as Johnny)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := read(t, Options{EntityType: "artist"}, "a.jsonl", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if got := qualified(t, g, tt.subj, tt.pred); len(got) != 1 || got[0] != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"name", "name"},
		{"relations.0.attributes", "relations[0].attributes"},
		{"relations.12.attributes.3", "relations[12].attributes[3]"},
		{"media.0.tracks.1.recording.id", "media[0].tracks[1].recording.id"},
		{"life-span.begin", "life-span.begin"},
	}
	for _, tt := range tests {
		if got := fieldPath(tt.in); got != tt.want {
			t.Errorf("fieldPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
