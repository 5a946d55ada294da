package rdf

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest/cputime"
)

// TestTurtleMatchesSerdi converts the fixtures with serdi and with the
// Turtle reader and compares the graphs: people.ttl is a realistic export,
// edge.ttl the corners of the grammar (IRI resolution against changing
// bases, escapes in names, numbers, nested and empty collections).
func TestTurtleMatchesSerdi(t *testing.T) {
	for _, name := range []string{"people.ttl", "edge.ttl"} {
		t.Run(name, func(t *testing.T) {
			fixture := "testdata/" + name
			want := referenceNTriples(t, "serdi", "serdi", "-i", "turtle", "-o", "ntriples", fixture)
			got, err := readWith(t, NewTurtle(Options{Strict: true}), name, fixtureBytes(t, fixture))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%d triples, serdi %d", len(got), len(want))
			}
			sameGraph(t, got, want)
		})
	}
}

// TestTurtleOneByteReads reads the fixture one byte per Read call: the
// window refills must not change the result.
func TestTurtleOneByteReads(t *testing.T) {
	data := fixtureBytes(t, "testdata/people.ttl")
	want, err := readWith(t, NewTurtle(Options{}), "people.ttl", data)
	if err != nil {
		t.Fatal(err)
	}
	var got []quad.Quad
	err = NewTurtle(Options{}).Read(t.Context(), "people.ttl", iotest.OneByteReader(strings.NewReader(string(data))),
		source.WriterFunc(func(q quad.Quad) error { got = append(got, q); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("one-byte reads gave %d triples, whole reads %d (or they differ)", len(got), len(want))
	}
}

// TestTurtleBlankScopes: labelled blank nodes are scoped by the graph,
// anonymous ones by the graph and the document (Options.Document, else the
// name read).
func TestTurtleBlankScopes(t *testing.T) {
	doc := "_:x <http://e/p> [ <http://e/q> ( 1 ) ] .\n"
	tests := []struct {
		name, document, anon string
	}{
		{"name read", "", "_:kg/a.ttl#"},
		{"document", "/data/a.ttl", "_:kg//data/a.ttl#"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readWith(t, NewTurtle(Options{Options: source.Options{Graph: "kg"}, Document: tc.document}), "a.ttl", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				tc.anon + `2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
				tc.anon + `2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
				tc.anon + `1 <http://e/q> ` + tc.anon + `2 .`,
				`_:kg/x <http://e/p> ` + tc.anon + `1 .`,
			}
			if len(qs) != len(want) {
				t.Fatalf("got %v", qs)
			}
			for i, q := range qs {
				if q.NQuad() != want[i] {
					t.Errorf("quad %d = %s, want %s", i, q.NQuad(), want[i])
				}
			}
		})
	}
}

func TestTurtleIRIResolution(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		{"http://a/b/c/d;p?q", "g", "http://a/b/c/g"},
		{"http://a/b/c/d;p?q", "./g", "http://a/b/c/g"},
		{"http://a/b/c/d;p?q", "g/", "http://a/b/c/g/"},
		{"http://a/b/c/d;p?q", "/g", "http://a/g"},
		{"http://a/b/c/d;p?q", "//g", "http://g"},
		{"http://a/b/c/d;p?q", "?y", "http://a/b/c/d;p?y"},
		{"http://a/b/c/d;p?q", "g?y", "http://a/b/c/g?y"},
		{"http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"},
		{"http://a/b/c/d;p?q", "g#s", "http://a/b/c/g#s"},
		{"http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"},
		{"http://a/b/c/d;p?q", ".", "http://a/b/c/"},
		{"http://a/b/c/d;p?q", "..", "http://a/b/"},
		{"http://a/b/c/d;p?q", "../g", "http://a/b/g"},
		{"http://a/b/c/d;p?q", "../..", "http://a/"},
		{"http://a/b/c/d;p?q", "../../../g", "http://a/g"},
		{"http://a/b/c/d;p?q", "/./g", "http://a/g"},
		{"http://a/b/c/d;p?q", "g.", "http://a/b/c/g."},
		{"http://a/b/c/d;p?q", "./g/.", "http://a/b/c/g/"},
		{"http://a/b/c/d;p?q", "g;x=1/../y", "http://a/b/c/y"},
		{"http://example.org", "x", "http://example.org/x"},
		{"http://example.org/a/b", "?q=1", "http://example.org/a/b?q=1"},
		{"http://example.org/a/b#f", "", "http://example.org/a/b"},
		{"http://example.org/a/b", "#g", "http://example.org/a/b#g"},
	}
	for _, tt := range tests {
		if got := resolveIRI(tt.base, tt.ref); got != tt.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tt.base, tt.ref, got, tt.want)
		}
	}
}

// TestTurtleErrors checks that bad documents fail with the file and line.
func TestTurtleErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"undefined prefix", "@prefix a: <http://a/> .\n\nfoaf:x a:p a:o .\n", `bad.ttl:3: column 1: undefined prefix "foaf"`},
		{"missing dot", "<http://a/s> <http://a/p> <http://a/o>\n<http://a/s> <http://a/p> <http://a/o> .\n", "bad.ttl:2: column 1: expected '.'"},
		{"unterminated string", "<http://a/s> <http://a/p> \"\"\"abc\n\n", "unterminated string"},
		{"newline in short string", "<http://a/s> <http://a/p> \"ab\nc\" .\n", "bad.ttl:1: column 30: line break in a single-quoted string"},
		{"literal subject", "\"x\" <http://a/p> <http://a/o> .\n", "a literal cannot be a subject"},
		{"bad escape", "<http://a/s> <http://a/p> \"\\q\" .\n", "bad escape"},
		{"bad IRI", "<http://a/s t> <http://a/p> <http://a/o> .\n", "not allowed in IRI"},
		{"escaped space in IRI", "<http://a/s\\u0020t> <http://a/p> <http://a/o> .\n", "escaped character U+0020 not allowed in IRI"},
		{"escaped quote in IRI", "@prefix a: <http://a/\\u0022> .\n", "escaped character U+0022 not allowed in IRI"},
		{"unclosed list", "<http://a/s> <http://a/p> [ <http://a/q> 1 .\n", "']' closing"},
		{"unclosed collection", "<http://a/s> <http://a/p> ( 1 2\n", "')' closing the collection"},
		{"relative without base", "<s> <p> <o> .\n", "relative IRI <s> without a base IRI"},
		{"deep nesting", "<http://a/s> <http://a/p> " + strings.Repeat("[ <http://a/p> ", maxNesting+1), "nesting deeper"},
		{"bad directive", "@prefx a: <http://a/> .\n", "unknown directive @prefx"},
		{"invalid utf8", "<http://a/s> <http://a/p> \"\xff\" .\n", "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readWith(t, NewTurtle(Options{Strict: true}), "bad.ttl", []byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var se *source.Error
			if !errors.As(err, &se) || se.File != "bad.ttl" || se.Line == 0 {
				t.Errorf("error %v is not a positioned *source.Error", err)
			}
		})
	}
}

// TestTurtleSkipInvalid skips a bad statement and keeps the rest.
func TestTurtleSkipInvalid(t *testing.T) {
	doc := "@prefix e: <http://e/> .\ne:a e:p e:b .\ne:a e:p undefined:x .\ne:c e:p e:d .\n"
	var skipped []string
	opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) { skipped = append(skipped, e.Error()) }}}
	qs, err := readWith(t, NewTurtle(opts), "s.ttl", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || len(skipped) != 1 || !strings.HasPrefix(skipped[0], "s.ttl:3:") {
		t.Errorf("quads %v, skipped %q", qs, skipped)
	}
}

// TestTurtleLongTerm bounds the size of one term.
func TestTurtleLongTerm(t *testing.T) {
	doc := "<http://a/s> <http://a/p> \"" + strings.Repeat("x", 5000) + "\" .\n"
	_, err := readWith(t, NewTurtle(Options{MaxLineBytes: 1000}), "big.ttl", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "term too long") {
		t.Fatalf("error %v, want term too long", err)
	}
	qs, err := readWith(t, NewTurtle(Options{MaxLineBytes: 10000}), "big.ttl", []byte(doc))
	if err != nil || len(qs) != 1 {
		t.Fatalf("%v %v", qs, err)
	}
}

func FuzzTurtle(f *testing.F) {
	f.Add(string(fixtureBytes(f, "testdata/people.ttl")))
	f.Add(string(fixtureBytes(f, "testdata/edge.ttl")))
	for _, s := range []string{
		"@prefix : <http://e/> . :a :b :c .",
		"PREFIX e: <http://e/>\ne:a e:b ( 1 2.5 -3e4 [ e:c true ] ) .",
		"<s> <p> \"\"\"a\n\"b\"\"\"\"@en .",
		"[] <http://e/p> [ <http://e/q> \"x\"^^<http://e/t> ] .",
		"_:a.b <http://e/p> 'x\\u00e9' .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		qs, err := readWith(t, NewTurtle(Options{MaxLineBytes: 1 << 16}), "fuzz.ttl", []byte(doc))
		if err != nil {
			var se *source.Error
			if !errors.As(err, &se) || se.File != "fuzz.ttl" {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, q := range qs {
			if q.Subject == nil || q.Predicate == nil || q.Object == nil {
				t.Fatalf("incomplete quad %v", q)
			}
			if _, ok := q.Predicate.(quad.IRI); !ok {
				t.Fatalf("predicate %v is not an IRI", q.Predicate)
			}
		}
	})
}

// BenchmarkTurtle parses the same synthetic graph as N-Triples with the
// N-Triples reader (baseline), as N-Triples with the Turtle reader, and
// as grouped Turtle (prefixes, ';' and ',') with the Turtle reader.
func BenchmarkTurtle(b *testing.B) {
	var nt, ttl strings.Builder
	ttl.WriteString("@prefix e: <http://example.org/entity/> .\n@prefix p: <http://example.org/prop/> .\n")
	for s := 0; s < 20000; s++ {
		fmt.Fprintf(&ttl, "e:Q%d p:label \"Entity %d\"@en ;\n  p:P31 e:Q%d , e:Q%d ;\n  p:P577 \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", s, s, s%10, s%97, 1900+s%100)
		fmt.Fprintf(&nt, "<http://example.org/entity/Q%d> <http://example.org/prop/label> \"Entity %d\"@en .\n", s, s)
		fmt.Fprintf(&nt, "<http://example.org/entity/Q%d> <http://example.org/prop/P31> <http://example.org/entity/Q%d> .\n", s, s%10)
		fmt.Fprintf(&nt, "<http://example.org/entity/Q%d> <http://example.org/prop/P31> <http://example.org/entity/Q%d> .\n", s, s%97)
		fmt.Fprintf(&nt, "<http://example.org/entity/Q%d> <http://example.org/prop/P577> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", s, 1900+s%100)
	}
	cases := []struct {
		name string
		rd   source.Reader
		data string
	}{
		{"baseline=ntriples-reader", New(Options{}), nt.String()},
		{"turtle-reader/ntriples-input", NewTurtle(Options{}), nt.String()},
		{"turtle-reader/turtle-input", NewTurtle(Options{}), ttl.String()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var n int
			sink := source.WriterFunc(func(quad.Quad) error { n++; return nil })
			b.SetBytes(int64(len(c.data)))
			cpu := cputime.Process()
			for b.Loop() {
				if err := c.rd.Read(b.Context(), "bench", strings.NewReader(c.data), sink); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "quads/s")
			b.ReportMetric(float64(n)/(cputime.Process()-cpu).Seconds(), "quads/cpu-s")
		})
	}
}
