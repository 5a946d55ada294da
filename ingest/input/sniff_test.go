package input

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/storetest/datadir"
)

func tarOf(t testing.TB, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, n := range names {
		body := []byte(`{"id":"5b11f4ce-a62d-471e-81fc-a69a8278c7da","name":"Nirvana","sort-name":"Nirvana"}` + "\n")
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	tw.Close()
	return b.Bytes()
}

func sniffString(s string) (Format, error) {
	return Sniff(bufio.NewReaderSize(strings.NewReader(s), 4096))
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Format
	}{
		{"ntriples", "<http://example.org/s> <http://example.org/p> \"o\" .\n", FormatNTriples},
		{"ntriples relative", "</en/blade_runner> <name> \"Blade Runner\" .\n</en/blade_runner> <type> </film/film> .\n", FormatNTriples},
		{"comment first", "# generated\n_:b1 <http://example.org/p> _:b2 .\n", FormatNTriples},
		{"nquads", "<http://example.org/s> <http://example.org/p> \"o\" .\n<http://example.org/s> <http://example.org/p> \"o\" <http://example.org/g> .\n", FormatNQuads},
		{"grove dump with scoped blank nodes", "_:film/1 </film/performance/actor> </en/milla_jovovich> <film> .\n_:film/a.ttl@ef10db003eea#1 <p> _:film/2 <film> .\n", FormatNQuads},
		{"freebase", "<http://rdf.freebase.com/ns/m.0d3k14>\t<http://rdf.freebase.com/ns/type.object.name>\t\"John F. Kennedy\"@en\t.\n", FormatFreebase},
		{"freebase key predicate", "<http://example.org/x>\t<http://rdf.freebase.com/key/wikipedia.en>\t\"X\"\t.\n", FormatFreebase},
		{"truthy", "<http://www.wikidata.org/entity/Q64> <http://www.wikidata.org/prop/direct/P17> <http://www.wikidata.org/entity/Q183> .\n", FormatWikidataTruthy},
		{"truthy dump header", "<http://wikiba.se/ontology#Dump> <http://schema.org/softwareVersion> \"1.0.0\" .\n", FormatWikidataTruthy},
		{"wikidata object only is plain", "<http://dbpedia.org/resource/Berlin> <http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q64> .\n", FormatNTriples},
		{"wikidata json array", "[\n{\"type\":\"item\",\"id\":\"Q31\",\"labels\":{}},\n", FormatWikidataJSON},
		{"wikidata json spaced", "[ {\"id\": \"P17\", \"type\": \"property\"} ]", FormatWikidataJSON},
		{"empty wikidata dump", "[\n]\n", FormatWikidataJSON},
		{"turtle blank node subject", "[] <http://example.org/p> \"o\" .\n", FormatTurtle},
		{"wikidata json lines", "{\"type\":\"item\",\"id\":\"Q64\",\"labels\":{\"en\":{\"language\":\"en\",\"value\":\"Berlin\"}}}\n", FormatWikidataJSON},
		{"grbench", "{\"paper_nodes\": {\"p1\": {\"features\": {\"title\": \"x\"}, \"neighbors\": {}}}}", FormatGRBench},
		{"grbench bom", "\xef\xbb\xbf{ \"book_nodes\" : {", FormatGRBench},
		{"musicbrainz json", "{\"id\":\"5b11f4ce-a62d-471e-81fc-a69a8278c7da\",\"name\":\"Nirvana\",\"sort-name\":\"Nirvana\",\"relations\":[]}\n", FormatMusicBrainz},
		{"musicbrainz json fields late", "{\"begin-area\":{\"name\":\"Aberdeen\",\"id\":\"a640b45c-c173-49b1-8030-973603e895b5\"},\"gender\":null,\"country\":\"US\",\"sort-name\":\"Nirvana\"}\n", FormatMusicBrainz},
		{"musicbrainz tar", string(tarOf(t, "mbdump/artist")), FormatMusicBrainz},
		{"musicbrainz tar metadata first", string(tarOf(t, "TIMESTAMP", "COPYING")), FormatMusicBrainz},
		{"turtle prefix", "@prefix wd: <http://www.wikidata.org/entity/> .\n", FormatTurtle},
		{"turtle comment then base", "# export\n# v2\n@base <http://e/> .\n", FormatTurtle},
		{"turtle sparql prefix", "PREFIX e: <http://e/>\ne:a e:b e:c .\n", FormatTurtle},
		{"turtle prefixed subject", "foaf:me foaf:name \"x\" .\n", FormatTurtle},
		{"turtle property list subject", "[ <http://e/p> 1 ] <http://e/q> 2 .\n", FormatTurtle},
		{"turtle semicolon", "<http://e/s> <http://e/p> <http://e/o> ;\n  <http://e/q> \"x\" .\n", FormatTurtle},
		{"turtle relative only", "<s> <p> <o>, <o2> .\n", FormatTurtle},
		{"rdfxml declaration", "<?xml version=\"1.0\"?>\n<rdf:RDF>", FormatRDFXML},
		{"rdfxml root", "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">", FormatRDFXML},
		{"rdfxml declaration bom", "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<rdf:RDF>", FormatRDFXML},
		{"rdfxml root bom", "\xef\xbb\xbf<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">", FormatRDFXML},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sniffString(tc.input)
			if err != nil || got != tc.want {
				t.Errorf("Sniff = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestSniffErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		msg   string
	}{
		{"empty", "", "empty input"},
		{"blank", " \n\t\n", "empty input"},
		{"csv", "id,name\n1,x\n", "starts with \"id,name\""},
		{"json array", "[1, 2, 3]", "not a Wikidata entity dump"},
		{"json object", "{\"hello\": \"world\"}\n", "neither GRBench"},
		{"mb field on second line only", "{\"begin-area\":null}\n{\"sort-name\":\"x\"}\n", "neither GRBench"},
		{"other tar", string(tarOf(t, "data/file.txt")), "data/file.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sniffString(tc.input)
			if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Sniff error %v, want ErrUnknownFormat mentioning %q", err, tc.msg)
			}
		})
	}
}

// TestSniffRealFiles sniffs the real data files and this repo's fixtures
// through Open, the way the loader does.
func TestSniffRealFiles(t *testing.T) {
	tests := []struct {
		path string
		want Format
	}{
		{datadir.Film(t), FormatNTriples},
		{datadir.Repo(t, "wikidata-sample-entities.json.gz"), FormatWikidataJSON},
		{"testdata/sample.nt.zst", FormatWikidataTruthy},
		{"../rdf/testdata/freebase.nt", FormatFreebase},
	}
	for _, tc := range tests {
		f, err := Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(f, 64<<10)
		got, err := Sniff(br)
		if err != nil || got != tc.want {
			t.Errorf("%s: Sniff = %v, %v; want %v", tc.path, got, err, tc.want)
		}
		if n, _ := io.Copy(io.Discard, br); n == 0 {
			t.Errorf("%s: Sniff consumed the stream", tc.path)
		}
		f.Close()
	}
}

// TestSniffTruncatedWindow: complete lines decide; a partial last line is
// ignored, and a first line longer than the window falls back on the
// subject's namespace.
func TestSniffTruncatedWindow(t *testing.T) {
	line := "<http://example.org/s> <http://example.org/p> \"o\" .\n"
	quadLine := "<http://example.org/s> <http://example.org/p> \"o\" <http://example.org/g> .\n"
	tests := []struct {
		name  string
		input string
		size  int
		want  Format
	}{
		{"quad beyond window", strings.Repeat(line, 100) + quadLine, 16 + len(line)*3, FormatNTriples},
		{"quad within window", line + quadLine + strings.Repeat(line, 100), 16 + len(line)*3, FormatNQuads},
		{"long freebase line", "<http://rdf.freebase.com/ns/m.0d3k14> <http://rdf.freebase.com/ns/common.topic.description> \"" + strings.Repeat("x", 9000) + "\"@en .\n", 4096, FormatFreebase},
		{"long truthy line", "<http://www.wikidata.org/entity/Q64> <http://schema.org/description> \"" + strings.Repeat("x", 9000) + "\"@en .\n", 4096, FormatWikidataTruthy},
		{"long plain line", "<http://example.org/s> <http://example.org/p> \"" + strings.Repeat("x", 9000) + "\" .\n", 4096, FormatNTriples},
	}
	for _, tc := range tests {
		got, err := Sniff(bufio.NewReaderSize(strings.NewReader(tc.input), tc.size))
		if err != nil || got != tc.want {
			t.Errorf("%s: Sniff = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestSniffName(t *testing.T) {
	tests := []struct {
		input, name string
		want        Format
	}{
		{"<http://e/s> <http://e/p> <http://e/o> .\n", "kg.ttl.gz", FormatTurtle},
		{"<http://e/s> <http://e/p> <http://e/o> .\n", "kg.nt", FormatNTriples},
		{"<Ontology xmlns=\"http://www.w3.org/2002/07/owl#\"/>", "onto.owl", FormatRDFXML},
		{"<foaf:Person xmlns:foaf=\"http://xmlns.com/foaf/0.1/\"/>", "me.rdf.xz", FormatRDFXML},
		{"{\"paper_nodes\": {}}", "graph.ttl", FormatGRBench},
	}
	for _, tc := range tests {
		got, err := SniffName(bufio.NewReaderSize(strings.NewReader(tc.input), 4096), tc.name)
		if err != nil || got != tc.want {
			t.Errorf("%s: SniffName = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range FormatNames() {
		f, err := ParseFormat(name)
		if err != nil || f.String() != name {
			t.Errorf("ParseFormat(%q) = %v, %v", name, f, err)
		}
	}
	aliases := map[string]Format{
		"": FormatAuto, "NT": FormatNTriples, "n-quads": FormatNQuads, " wikidata ": FormatWikidataJSON,
		"truthy": FormatWikidataTruthy, "fb": FormatFreebase, "mb": FormatMusicBrainz, "json": FormatWikidataJSON,
		"ttl": FormatTurtle, "rdf/xml": FormatRDFXML, "owl": FormatRDFXML,
	}
	for s, want := range aliases {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", s, f, err, want)
		}
	}
	if _, err := ParseFormat("n3"); !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "wikidata-truthy") {
		t.Errorf("ParseFormat(n3) error %v", err)
	}
	if s := Format(99).String(); s != "Format(99)" {
		t.Errorf("Format(99).String() = %q", s)
	}
}

// FuzzSniff checks that classification never panics and that every
// failure wraps ErrUnknownFormat.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("<a> <b> <c> .\n"))
	f.Add([]byte("[{\"type\":\"item\",\"id\":\"Q1\"}"))
	f.Add([]byte("{\"a_nodes\": {}}"))
	f.Add(tarOf(f, "mbdump/artist"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, eof := range []bool{true, false} {
			if _, err := classify(data, eof); err != nil && !errors.Is(err, ErrUnknownFormat) {
				t.Fatalf("classify(%q): unexpected error %v", data, err)
			}
		}
	})
}
