package rdf

import (
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// TestRDFXMLMatchesRapper converts the fixtures with rapper and with the
// RDF/XML reader and compares the graphs: people.rdf is a realistic
// export, edge.rdf the corners of the syntax (xml:base and xml:lang
// scoping, rdf:li numbering, nested parseType, typed nodes in collections).
func TestRDFXMLMatchesRapper(t *testing.T) {
	for _, name := range []string{"people.rdf", "edge.rdf"} {
		t.Run(name, func(t *testing.T) {
			fixture := "testdata/" + name
			want := referenceNTriples(t, "raptor2-utils", "rapper", "-q", "-i", "rdfxml", "-o", "ntriples", fixture)
			got, err := readWith(t, NewRDFXML(Options{Strict: true}), name, fixtureBytes(t, fixture))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%d triples, rapper %d", len(got), len(want))
			}
			sameGraph(t, got, want)
		})
	}
}

// TestRDFXMLEncoding reads a Latin-1 document.
func TestRDFXMLEncoding(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:e=\"http://e/\">" +
		"<rdf:Description rdf:about=\"http://e/s\"><e:p>caf\xe9</e:p></rdf:Description></rdf:RDF>"
	qs, err := readWith(t, NewRDFXML(Options{}), "l1.rdf", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Object != quad.String("café") {
		t.Errorf("got %v", qs)
	}
}

// TestRDFXMLByteOrderMark: a UTF-8 byte order mark opening the document
// is skipped, before an XML declaration or the root element, and a
// document error after it is still on its line; one elsewhere is text.
func TestRDFXMLByteOrderMark(t *testing.T) {
	const (
		bom  = "\xef\xbb\xbf"
		root = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex.org/">` + "\n" +
			`<rdf:Description rdf:about="http://ex.org/a"><ex:p>x</ex:p></rdf:Description>` + "\n</rdf:RDF>\n"
	)
	tests := []struct{ name, doc, err string }{
		{"before the declaration", bom + `<?xml version="1.0"?>` + "\n" + root, ""},
		{"before the root", bom + root, ""},
		{"error after it", bom + "<?xml version=\"1.0\"?>\n" + strings.Replace(root, "<ex:p>x</ex:p>", "<p>x</p>", 1), "bom.rdf:3: element <p> has no namespace"},
		{"after the root", root + bom, "text outside of any element"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readWith(t, NewRDFXML(Options{}), "bom.rdf", []byte(tc.doc))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 1 || qs[0].NQuad() != `<http://ex.org/a> <http://ex.org/p> "x" .` {
				t.Errorf("got %v", qs)
			}
		})
	}
}

// TestRDFXMLPropertyAttributeLanguage: property attributes take the
// in-scope xml:lang (W3C grammar 7.2.11), where rapper differs.
func TestRDFXMLPropertyAttributeLanguage(t *testing.T) {
	doc := `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/" xml:lang="de">
<rdf:Description rdf:about="http://e/s" e:p="kurz"/></rdf:RDF>`
	qs, err := readWith(t, NewRDFXML(Options{}), "l.rdf", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Object != (quad.LangString{Value: "kurz", Lang: "de"}) {
		t.Errorf("got %v", qs)
	}
}

// TestRDFXMLBlankScopes: rdf:nodeID values are scoped by the graph, nodes
// without an id by the graph and the document (Options.Document, else the
// name read).
func TestRDFXMLBlankScopes(t *testing.T) {
	doc := `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/">
<rdf:Description rdf:nodeID="x"><e:p><rdf:Description/></e:p></rdf:Description></rdf:RDF>`
	tests := []struct {
		name, document, want string
	}{
		{"name read", "", `_:kg/x <http://e/p> _:kg/a.rdf#1 .`},
		{"document", "/data/a.rdf", `_:kg/x <http://e/p> _:kg//data/a.rdf#1 .`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readWith(t, NewRDFXML(Options{Options: source.Options{Graph: "kg"}, Document: tc.document}), "a.rdf", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 1 || qs[0].NQuad() != tc.want {
				t.Errorf("got %v, want %s", qs, tc.want)
			}
		})
	}
}

func TestRDFXMLErrors(t *testing.T) {
	const head = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/">` + "\n"
	tests := []struct{ name, doc, want string }{
		{"not closed", head + `<rdf:Description rdf:about="http://e/s">` + "\n<e:p>x</e:p>\n", "bad.rdf:4: XML: unexpected EOF"},
		{"mismatched", head + `<rdf:Description rdf:about="http://e/s"><e:p>x</e:q></rdf:Description></rdf:RDF>`, "bad.rdf:2: XML: element <p> closed by </q>"},
		{"text and element", head + "<rdf:Description rdf:about=\"http://e/s\">\n<e:p>x<e:C/></e:p></rdf:Description></rdf:RDF>", "bad.rdf:3: a property element holds either text or one node element"},
		{"unknown entity", head + `<rdf:Description rdf:about="&foo;s"/></rdf:RDF>`, "invalid character entity &foo;"},
		{"relative", head + `<rdf:Description rdf:about="s"><e:p>x</e:p></rdf:Description></rdf:RDF>`, "relative IRI <s> without a base IRI"},
		{"deep", head + strings.Repeat(`<e:C><e:p>`, maxNesting), "nested deeper"},
		{"no namespace", head + `<rdf:Description rdf:about="http://e/s"><p>x</p></rdf:Description></rdf:RDF>`, "element <p> has no namespace"},
		{"resource with parseType Literal", head + "<rdf:Description rdf:about=\"http://e/s\">\n<e:p rdf:parseType=\"Literal\" rdf:resource=\"http://e/o\"><e:x/></e:p></rdf:Description></rdf:RDF>",
			`bad.rdf:3: attribute rdf:resource cannot be used with rdf:parseType="Literal"`},
		{"resource with parseType Resource", head + "<rdf:Description rdf:about=\"http://e/s\">\n<e:p rdf:resource=\"http://e/o\"\n rdf:parseType=\"Resource\"><e:x/></e:p></rdf:Description></rdf:RDF>",
			`bad.rdf:4: attribute rdf:resource cannot be used with rdf:parseType="Resource"`},
		{"nodeID with parseType Collection", head + "<rdf:Description rdf:about=\"http://e/s\">\n<e:p rdf:parseType=\"Collection\" rdf:nodeID=\"n\"/></rdf:Description></rdf:RDF>",
			`bad.rdf:3: attribute rdf:nodeID cannot be used with rdf:parseType="Collection"`},
		{"property attribute with parseType Literal", head + "<rdf:Description rdf:about=\"http://e/s\">\n<e:p rdf:parseType=\"Literal\" e:q=\"v\"><e:x/></e:p></rdf:Description></rdf:RDF>",
			`bad.rdf:3: property attribute <http://e/q> cannot be used with rdf:parseType="Literal"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readWith(t, NewRDFXML(Options{Strict: true}), "bad.rdf", []byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var se *source.Error
			if !errors.As(err, &se) || se.File != "bad.rdf" || se.Line == 0 {
				t.Errorf("error %v is not a positioned *source.Error", err)
			}
		})
	}
}

func FuzzRDFXML(f *testing.F) {
	f.Add(string(fixtureBytes(f, "testdata/people.rdf")))
	f.Add(string(fixtureBytes(f, "testdata/edge.rdf")))
	f.Add(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><e:T rdf:about="http://e/s" e:a="1"><e:p rdf:parseType="Collection"><e:T/></e:p><rdf:li>x</rdf:li></e:T></rdf:RDF>`)
	f.Add("\ufeff<?xml version=\"1.0\"?><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>")
	f.Fuzz(func(t *testing.T, doc string) {
		qs, err := readWith(t, NewRDFXML(Options{MaxLineBytes: 1 << 16}), "fuzz.rdf", []byte(doc))
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.Subject == nil || q.Predicate == nil || q.Object == nil {
				t.Fatalf("incomplete quad %v", q)
			}
		}
	})
}

// TestRDFXMLTextLimit: the text limit counts entity references at their
// expanded size and is enforced on the input, before encoding/xml builds
// the text node (a 200 KB document of references took 4 GB); text within
// the limit, references expanded, still loads.
func TestRDFXMLTextLimit(t *testing.T) {
	doc := func(value string, refs int, text string) []byte {
		return []byte(`<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY big "` + value + `"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex/">
<rdf:Description rdf:about="http://ex/a"><ex:q>` + strings.Repeat("&big;", refs) + text + `</ex:q></rdf:Description>
</rdf:RDF>
`)
	}
	const max = 1 << 16
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr string
		wantLen int
	}{
		{"references over the limit", doc(strings.Repeat("x", 1000), 100, ""), "entities expanded", 0},
		{"plain text over the limit", doc("x", 0, strings.Repeat("y", 2*max)), "between two tags", 0},
		{"references within the limit", doc(strings.Repeat("x", 1000), 60, ""), "", 60000},
		{"just under the limit", doc(strings.Repeat("x", 1024), 63, strings.Repeat("y", 1024-len("<ex:q>"))), "", 64*1024 - 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readWith(t, NewRDFXML(Options{MaxLineBytes: max}), "t.rdf", tc.data)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "t.rdf:") {
					t.Fatalf("error %v, want one naming the file and %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(qs) != 1 || len(string(qs[0].Object.(quad.String))) != tc.wantLen {
				t.Fatalf("%d quads, %v", len(qs), err)
			}
		})
	}
}

// TestRDFXMLNamesAndEntities: entity values are expanded as an XML
// processor expands them (nested entities, character references), and what
// rapper refuses is an error naming the line: an entity loop, an
// undeclared prefix, a bad rdf:nodeID, an attribute given twice.
func TestRDFXMLNamesAndEntities(t *testing.T) {
	const head = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
<!ENTITY ex "http://ex/">
<!ENTITY ns "&ex;ns#">
<!ENTITY cafe "caf&#233; &amp; cr&#xE8;me">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex/">
`
	for _, tc := range []struct {
		name, body string
		want       []string // N-Triples lines, or
		wantErr    string
	}{
		{"nested entities and character references", `<rdf:Description rdf:about="&ns;thing"><ex:q>&cafe;</ex:q></rdf:Description>`,
			[]string{`<http://ex/ns#thing> -- <http://ex/q> -> "café & crème"`}, ""},
		{"undeclared element prefix", `<rdf:Description rdf:about="&ns;a"><nope:p>x</nope:p></rdf:Description>`,
			nil, `t.rdf:8: namespace prefix "nope" of <nope:p> is not declared`},
		{"undeclared attribute prefix", `<rdf:Description rdf:about="&ns;a" nope:p="x"/>`,
			nil, `t.rdf:8: namespace prefix "nope" of attribute nope:p is not declared`},
		{"nodeID not a name", `<rdf:Description rdf:nodeID="a:b"><ex:p>x</ex:p></rdf:Description>`,
			nil, `t.rdf:8: rdf:nodeID "a:b" is not an XML name`},
		{"nodeID with a leading digit, as rapper writes it", `<rdf:Description rdf:nodeID="100000"><ex:p>x</ex:p></rdf:Description>`,
			[]string{`_:100000 -- <http://ex/p> -> "x"`}, ""},
		{"object nodeID not a name", `<rdf:Description rdf:about="&ns;a"><ex:p rdf:nodeID="a b"/></rdf:Description>`,
			nil, `rdf:nodeID "a b" is not an XML name`},
		{"attribute twice", `<rdf:Description rdf:about="&ns;a" rdf:about="&ns;b"><ex:p>x</ex:p></rdf:Description>`,
			nil, `t.rdf:8: attribute {http://www.w3.org/1999/02/22-rdf-syntax-ns#}about given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readWith(t, NewRDFXML(Options{}), "t.rdf", []byte(head+tc.body+"\n</rdf:RDF>\n"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range qs {
				got = append(got, q.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	loop := `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY a "&b;"> <!ENTITY b "&a;"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>
`
	if _, err := readWith(t, NewRDFXML(Options{}), "loop.rdf", []byte(loop)); err == nil ||
		!strings.Contains(err.Error(), "entity a: refers to &b;, which is not declared before it") {
		t.Errorf("entity loop: %v", err)
	}
}
