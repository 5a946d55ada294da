package rdf

import (
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/grove-kg/grove/ingest/source"
)

// TestParseScopedLabels: the labels Grove's own scoped names use (and the
// other IRI characters of the extension) are read as one label, with
// the N-Triples rules on '.' and on what follows a label kept.
func TestParseScopedLabels(t *testing.T) {
	p := quad.IRI("p")
	tests := []struct {
		name string
		line string
		want quad.Quad
	}{
		{"graph scope", `_:film/1 <p> <o> <film> .`, quad.Quad{Subject: quad.BNode("film/1"), Predicate: p, Object: quad.IRI("o"), Label: quad.IRI("film")}},
		{"turtle anonymous", `<s> <p> _:film/anon.ttl@ef10db003eea#1 .`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.BNode("film/anon.ttl@ef10db003eea#1")}},
		{"musicbrainz", `_:musicbrainz/mbrel-0a1b2c3d4e5f60718293a4b5 <p> "x" .`, quad.Quad{Subject: quad.BNode("musicbrainz/mbrel-0a1b2c3d4e5f60718293a4b5"), Predicate: p, Object: quad.String("x")}},
		{"stdin document", `_:g/stdin-ABCDEFGH234567@x#12 <p> <o> .`, quad.Quad{Subject: quad.BNode("g/stdin-ABCDEFGH234567@x#12"), Predicate: p, Object: quad.IRI("o")}},
		{"iri graph", `_:http://ex.org/g?a=1&b=%20+c~d!$*/7 <p> <o> .`, quad.Quad{Subject: quad.BNode("http://ex.org/g?a=1&b=%20+c~d!$*/7"), Predicate: p, Object: quad.IRI("o")}},
		{"graph label", `<s> <p> <o> _:g/x .`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.IRI("o"), Label: quad.BNode("g/x")}},
		{"final dot", `<s> <p> _:film/a.b#1.`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.BNode("film/a.b#1")}},
		{"final dots then comment", `<s> <p> _:film/1.#c`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.BNode("film/1")}},
		{"dot hash ends the label", `<s> <p> _:o.#x .`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.BNode("o")}},
		{"followed by iri", `_:film/1<p>_:film/2<g>.`, quad.Quad{Subject: quad.BNode("film/1"), Predicate: p, Object: quad.BNode("film/2"), Label: quad.IRI("g")}},
		{"hash without dot", `<s> <p> _:a#b .`, quad.Quad{Subject: quad.IRI("s"), Predicate: p, Object: quad.BNode("a#b")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := NewParser("", false).Parse([]byte(tc.line))
			if err != nil || !ok {
				t.Fatalf("Parse(%q) = ok %v, err %v", tc.line, ok, err)
			}
			if got != tc.want {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", tc.line, got, tc.want)
			}
		})
	}
}

// TestParseBlankLabelErrors: a character that may not be in a label is an
// error of the label's own term, at that character.
func TestParseBlankLabelErrors(t *testing.T) {
	tests := []struct {
		name string
		line string
		term string
		col  int
		msg  string
	}{
		{"scope char first", `_:/film <p> <o> .`, TermSubject, 3, "empty or invalid blank node label"},
		{"hash first", `<s> <p> _:#1 .`, TermObject, 11, "empty or invalid blank node label"},
		{"brace", `_:film/x{y} <p> <o> .`, TermSubject, 9, `character '{' not allowed in blank node label`},
		{"comma", `<s> <p> _:b1, _:b2 .`, TermObject, 13, `character ',' not allowed in blank node label`},
		{"semicolon", `<s> <p> _:b1; <q> _:b2 .`, TermObject, 13, `character ';' not allowed`},
		{"bracket", `_:a[ <p> <o> .`, TermSubject, 4, `character '[' not allowed`},
		{"paren after dot", `<s> <p> <o> _:g.) .`, TermGraph, 17, `character ')' not allowed`},
		{"single quote", `_:a'b <p> <o> .`, TermSubject, 4, `character '\'' not allowed`},
		{"greater than", `<s> <p> _:a> .`, TermObject, 12, `character '>' not allowed`},
		{"non-label unicode", "_:a\u00d7b <p> <o> .", TermSubject, 4, `character '×' not allowed`},
		{"comment without final dot", `<s> <p> _:o #x .`, "", 13, "expected '.', found '#'"},
		{"hash label without dot", `<s> <p> _:o#x`, "", 14, "missing '.'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := NewParser("", false).Parse([]byte(tc.line))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want a SyntaxError", tc.line, err)
			}
			if se.Term != tc.term || se.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("Parse(%q) = %v (term %q, column %d), want %q at column %d: %q",
					tc.line, err, se.Term, se.Column, tc.term, tc.col, tc.msg)
			}
		})
	}
}

// TestParseScopeKeepsScoped: a label already scoped to the parser's scope
// is kept, other labels are scoped; with SetKeepScoped every label holding
// '/' is kept.
func TestParseScopeKeepsScoped(t *testing.T) {
	tests := []struct {
		label, scope string
		keepAll      bool
		want         string
	}{
		{"b1", "film", false, "film/b1"},
		{"film/b1", "film", false, "film/b1"},
		{"film/anon.ttl@ef10db003eea#1", "film", false, "film/anon.ttl@ef10db003eea#1"},
		{"music/b1", "film", false, "film/music/b1"},
		{"filmx/b1", "film", false, "film/filmx/b1"},
		{"film", "film", false, "film/film"},
		{"http://ex.org/g/1", "http://ex.org/g", false, "http://ex.org/g/1"},
		{"http://ex.org/g/1", "http://ex.org", false, "http://ex.org/g/1"},
		{"b1", "film", true, "film/b1"},
		{"film/b1", "film", true, "film/b1"},
		{"music/b1", "film", true, "music/b1"},
		{"a@b#1", "film", true, "film/a@b#1"},
		{"music/b1", "", false, "music/b1"},
	}
	for _, tc := range tests {
		p := NewParser(tc.scope, false)
		p.SetKeepScoped(tc.keepAll)
		line := "_:" + tc.label + " <p> _:" + tc.label + " _:" + tc.label + " ."
		q, _, err := p.Parse([]byte(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		want := quad.BNode(tc.want)
		if q.Subject != want || q.Object != want || q.Label != want {
			t.Errorf("scope %q, keep all %v: %q read as %v, want %v in every place", tc.scope, tc.keepAll, line, q, want)
		}
	}
}

// TestReaderReadsBackScopedLabels: the reader keeps the labels scoped to
// its graph, and with Options.KeepLabels every scoped label.
func TestReaderReadsBackScopedLabels(t *testing.T) {
	text := "_:film/1 <p> _:music/2 <music> .\n_:b <p> <o> .\n"
	for _, tc := range []struct {
		keep bool
		want [2]quad.Quad
	}{
		{false, [2]quad.Quad{
			{Subject: quad.BNode("film/1"), Predicate: quad.IRI("p"), Object: quad.BNode("film/music/2")},
			{Subject: quad.BNode("film/b"), Predicate: quad.IRI("p"), Object: quad.IRI("o")}}},
		{true, [2]quad.Quad{
			{Subject: quad.BNode("film/1"), Predicate: quad.IRI("p"), Object: quad.BNode("music/2"), Label: quad.IRI("music")},
			{Subject: quad.BNode("film/b"), Predicate: quad.IRI("p"), Object: quad.IRI("o")}}},
	} {
		got, err := readAll(t, Options{Options: source.Options{Graph: "film"}, KeepLabels: tc.keep}, text)
		if err != nil || len(got) != 2 || got[0] != tc.want[0] || got[1] != tc.want[1] {
			t.Errorf("keep labels %v: got %v, %v; want %v", tc.keep, got, err, tc.want)
		}
	}
}
