package server

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	_ "github.com/cayleygraph/quad/jsonld" // the jsonld format of /read
	"github.com/piprate/json-gold/ld"
)

// JSON-LD write bodies are read here rather than by Cayley's jsonld reader,
// which runs json-gold with its default document loader: a body naming a
// context by reference ("@context": "http://..." or a file path), an
// "@import", or a body that is itself a string made the server fetch any URL
// or open any local file, with no timeout. Here the document loader refuses
// every load, so a JSON-LD body must carry its context inline; a body that
// is not a JSON object or array, or has data after it, is a 400 too.
//
// A JSON-LD document's blank nodes are its own: json-gold names them _:b0,
// _:b1, ... afresh in every document, so stored as named they merged the
// unnamed nodes of separate requests (one person's address became every
// person's). Each request's blank nodes are named in a scope of their own,
// "jsonld-<random>-b0" (see newBlankScope), as grove ingest names a
// stream's anonymous nodes after its run; the N-Quads and JSON bodies of
// the write routes keep their blank node names as sent, as Cayley does.

// errRemoteContext answers a JSON-LD body that needs a document loaded.
const errRemoteContext = "remote JSON-LD contexts are not loaded; inline the context"

// refusingLoader is a json-gold DocumentLoader that loads nothing and
// remembers the first reference it was asked for (json-gold replaces the
// loader's error by a text of its own).
type refusingLoader struct {
	asked string
	tried bool
}

// LoadDocument refuses every load.
func (l *refusingLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if !l.tried {
		l.tried, l.asked = true, u
	}
	return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, errRemoteContext)
}

// newBlankScope returns a new scope for one JSON-LD body's blank nodes:
// "jsonld-" and 26 random base32 characters (128 bits), so that no two
// requests share one. It holds no '/', so grove ingest treats the names as
// unscoped (and scopes them to its target graph) if a dump is loaded.
func newBlankScope() string { return "jsonld-" + rand.Text() }

// jsonldQuads reads a JSON-LD document into quads, loading no document.
// Its blank nodes are named within scope ("<scope>-b0", a label N-Quads allows; see
// newBlankScope), so the same body read twice with one scope gives the
// same quads. The returned error is an apiError (400) whose message names
// what was wrong with the body.
func jsonldQuads(rd io.Reader, scope string) (qs []quad.Quad, err error) {
	dec := json.NewDecoder(rd)
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, badRequest("jsonld body: the body is empty; want a JSON-LD object or array")
		}
		return nil, jsonldError("invalid JSON: %v", err)
	}
	switch doc.(type) {
	case map[string]any, []any:
	default:
		return nil, badRequest("jsonld body: the body is %s; want a JSON-LD object or array", jsonKindOf(doc))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRequest("jsonld body: unexpected data after the JSON-LD document")
	}
	loader := &refusingLoader{}
	defer func() {
		// json-gold is not hardened against every malformed document.
		if v := recover(); v != nil {
			qs, err = nil, jsonldError("the document could not be processed (%v)", v)
		}
	}()
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = loader
	data, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
	if loader.tried {
		return nil, badRequest("jsonld body: %s (the body refers to %q)", errRemoteContext, clip(loader.asked))
	}
	if err != nil {
		return nil, jsonldError("%v", err)
	}
	ds, ok := data.(*ld.RDFDataset)
	if !ok {
		return nil, jsonldError("the document gave no RDF dataset")
	}
	return datasetQuads(ds, scope)
}

// jsonldError is a 400 about a JSON-LD body, on one line.
func jsonldError(format string, args ...any) error {
	msg := oneLine(fmt.Sprintf(format, args...))
	if len(msg) > 300 {
		msg = strings.ToValidUTF8(msg[:300], "") + "..."
	}
	return badRequest("jsonld body: %s", msg)
}

// jsonKindOf names the JSON kind of a decoded value for error messages.
func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "not an object or array"
}

// datasetQuads converts a json-gold dataset to quads, graph by graph in
// name order, as Cayley's jsonld reader converts them, except that blank
// nodes (a graph named by one included) are named within scope.
func datasetQuads(ds *ld.RDFDataset, scope string) ([]quad.Quad, error) {
	var out []quad.Quad
	for _, name := range slices.Sorted(maps.Keys(ds.Graphs)) {
		var label quad.Value
		switch {
		case name == "@default":
		case strings.HasPrefix(name, "_:"):
			label = scopedBNode(scope, name)
		default:
			label = quad.IRI(name)
		}
		for _, q := range ds.Graphs[name] {
			s, err1 := ldValue(q.Subject, scope)
			p, err2 := ldValue(q.Predicate, scope)
			o, err3 := ldValue(q.Object, scope)
			if err := errors.Join(err1, err2, err3); err != nil {
				return nil, jsonldError("%v", err)
			}
			out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: label})
		}
	}
	return out, nil
}

// xsdString is the datatype of plain literals.
const xsdString = "http://www.w3.org/2001/XMLSchema#string"

// scopedBNode names the document's blank node label ("_:b0") within
// scope: quad.BNode("<scope>-b0").
func scopedBNode(scope, label string) quad.BNode {
	return quad.BNode(scope + "-" + strings.TrimPrefix(label, "_:"))
}

// ldValue converts one json-gold term as Cayley's jsonld reader does,
// except that a blank node is named within scope and a typed literal
// stays the typed literal it is: Cayley's reader turns it into a native
// value when jsonld.AutoConvertTypedString is set and it parses, which
// changed its text ("01"^^xsd:integer stored as "1", a dateTime with a
// zone moved to UTC, xsd:float read as a double), so the JSON-LD /read
// gives out could not be deleted or written back as the same quads.
func ldValue(n ld.Node, scope string) (quad.Value, error) {
	switch t := n.(type) {
	case *ld.IRI:
		return quad.IRI(t.Value), nil
	case *ld.BlankNode:
		return scopedBNode(scope, t.Attribute), nil
	case *ld.Literal:
		switch {
		case t.Language != "":
			return quad.LangString{Value: quad.String(t.Value), Lang: t.Language}, nil
		case t.Datatype != "" && t.Datatype != xsdString:
			return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}, nil
		}
		return quad.String(t.Value), nil
	case nil:
		return nil, errors.New("a term is missing")
	}
	return nil, fmt.Errorf("unexpected term of type %T", n)
}

// sliceReader serves quads read beforehand.
type sliceReader struct {
	qs []quad.Quad
}

func (r *sliceReader) ReadQuad() (quad.Quad, error) {
	if len(r.qs) == 0 {
		return quad.Quad{}, io.EOF
	}
	q := r.qs[0]
	r.qs = r.qs[1:]
	return q, nil
}

func (r *sliceReader) Close() error { return nil }

// errReader fails its first read with err.
type errReader struct{ err error }

func (r errReader) ReadQuad() (quad.Quad, error) { return quad.Quad{}, r.err }
func (r errReader) Close() error                 { return nil }

// newJSONLDReader reads a JSON-LD body, its blank nodes named within scope
// (see jsonldQuads).
func newJSONLDReader(rd io.Reader, scope string) quad.ReadCloser {
	qs, err := jsonldQuads(rd, scope)
	if err != nil {
		return errReader{err}
	}
	return &sliceReader{qs: qs}
}
