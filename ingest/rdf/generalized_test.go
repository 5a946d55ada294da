package rdf

import (
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestParseGeneralized: with SetGeneralized the parser reads the quads
// Cayley stores and writes but RDF does not allow (a literal subject,
// predicate or graph label, a blank node predicate), as Grove's Cayley
// write routes need to delete what /read gave; without it every one of
// them is refused as before, so grove ingest stays standard.
func TestParseGeneralized(t *testing.T) {
	o, p := quad.IRI("o"), quad.IRI("p")
	cases := []struct {
		name, line string
		want       quad.Quad
		strict     string // the error without SetGeneralized
	}{
		{"literal subject and label", `"litsubj" <p> <o> "litlabel" .`,
			quad.Quad{Subject: quad.String("litsubj"), Predicate: p, Object: o, Label: quad.String("litlabel")}, "subject at column 1: a literal cannot be the subject"},
		{"literal label", `<s> <p> <o> "g"@en .`,
			quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: o, Label: quad.LangString{Value: "g", Lang: "en"}}, "expected '.', found '\"'"},
		{"typed literal subject", `"1"^^<http://www.w3.org/2001/XMLSchema#integer> <p> "x" .`,
			quad.Quad{Subject: quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#integer"}, Predicate: p, Object: quad.String("x")}, "a literal cannot be the subject"},
		{"literal subject with a space", `"a b" <p> <o> .`,
			quad.Quad{Subject: quad.String("a b"), Predicate: p, Object: o}, "a literal cannot be the subject"},
		{"literal predicate", `<s> "lp" <o> .`,
			quad.Quad{Subject: quad.IRI("s"), Predicate: quad.String("lp"), Object: o}, "predicate at column 5: expected IRI"},
		{"blank predicate", `<s> _:p <o> <g> .`,
			quad.Quad{Subject: quad.IRI("s"), Predicate: quad.BNode("p"), Object: o, Label: quad.IRI("g")}, "predicate at column 5: expected IRI"},
		{"escaped literal subject", `"a\"b\u00e9" <p> <o> .`,
			quad.Quad{Subject: quad.String(`a"bé`), Predicate: p, Object: o}, "a literal cannot be the subject"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := NewParser("", false).Parse([]byte(c.line)); err == nil || !strings.Contains(err.Error(), c.strict) {
				t.Errorf("standard parser: %v, want an error saying %q", err, c.strict)
			}
			gp := NewParser("", false)
			gp.SetGeneralized(true)
			for range 2 { // the second parse takes the cached subject
				got, ok, err := gp.Parse([]byte(c.line))
				if err != nil || !ok || got != c.want {
					t.Fatalf("generalized: %#v ok %v err %v, want %#v", got, ok, err, c.want)
				}
			}
		})
	}
	// An error inside a generalized literal names its term.
	for _, c := range []struct{ line, want string }{
		{`"abc <p> <o> .`, "subject at column 1: unterminated literal"},
		{`<s> "a\zb" <o> .`, `predicate at column 7: bad escape \z`},
		{`<s> <p> <o> "g"@1 .`, "graph at column 17: bad language tag"},
		{`<s> <p> <o> "g" "h" .`, "expected '.'"},
	} {
		gp := NewParser("", false)
		gp.SetGeneralized(true)
		if _, _, err := gp.Parse([]byte(c.line)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.line, err, c.want)
		}
	}
}

// FuzzParseGeneralized: the generalized parser never panics, accepts every
// line the standard parser accepts with the same quad, and reads back the
// N-Quads rendering of what it accepts.
func FuzzParseGeneralized(f *testing.F) {
	for _, s := range []string{
		`"litsubj" <p> <o> "litlabel" .`,
		`<s> "lp"@en _:o "1"^^<t> .`,
		`<s> _:p <o> .`,
		`_:film/1 </film/performance/actor> </en/milla_jovovich> <film> .`,
		`"a\"b" <p> "c\n" .`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return
		}
		gp := NewParser("", false)
		gp.SetGeneralized(true)
		got, ok, err := gp.Parse([]byte(line))
		if std, sok, serr := NewParser("", false).Parse([]byte(line)); serr == nil && sok && (err != nil || !ok || got != std) {
			t.Fatalf("%q: standard %v, generalized %v ok %v err %v", line, std, got, ok, err)
		}
		if err != nil || !ok {
			return
		}
		text := got.Subject.String() + " " + got.Predicate.String() + " " + got.Object.String()
		if got.Label != nil {
			text += " " + got.Label.String()
		}
		back, ok, err := gp.Parse([]byte(text + " ."))
		if err != nil || !ok {
			// quad.String renders control characters with Go escapes that
			// are not N-Triples escapes; only check lines without them.
			if !strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 }) && !strings.Contains(line, `\`) {
				t.Fatalf("%q parsed as %v but its rendering %q fails: %v", line, got, text, err)
			}
			return
		}
		if back != got {
			t.Fatalf("%q: round trip changed %v into %v", line, got, back)
		}
	})
}
