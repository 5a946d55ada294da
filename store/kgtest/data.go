// Package kgtest is the conformance suite of the store.KG contract. Every
// backend (the embedded engine, the SPARQL client, the SQL store) runs the
// same checks against the same data: the Freebase film sample shipped in
// data/film.nq.gz (graph "film") plus a small graph of hand-written facts
// (graph "extra": aliases, a description, literal features, a hidden link).
//
// A backend test loads both graphs into its store, then calls Run:
//
//	kgtest.Run(t, kgtest.Harness{KG: kg, Write: write, OpenClosed: reopen})
//
// The suite never builds the expected answers from the backend under test:
// counts come from the data file itself (see Facts), names are fixed.
package kgtest

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"
)

// Graph names the suite expects.
const (
	FilmGraph  = "film"
	ExtraGraph = "extra"
)

// ExtraNQuads is the "extra" graph: features (quantities whose unit has a
// label and has none among them), aliases and a hidden link that the film
// sample lacks. Ids without a scheme are relative like the film
// sample's.
const ExtraNQuads = `<beatles> <http://www.w3.org/2000/01/rdf-schema#label> "The Beatles"@en .
<beatles> <http://www.w3.org/2004/02/skos/core#altLabel> "Fab Four" .
<beatles> <http://www.w3.org/2004/02/skos/core#altLabel> "The Fab Four" .
<beatles> <http://schema.org/description> "English rock band" .
<beatles> <formed> "1960"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<beatles> <member> <lennon> .
<beatles> <member> <mccartney> .
<beatles> <http://www.w3.org/2002/07/owl#sameAs> <https://musicbrainz.org/artist/b10bbbfc> .
<lennon> <http://www.w3.org/2000/01/rdf-schema#label> "John Lennon" .
<lennon> <born> "1940"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<mccartney> <http://www.w3.org/2000/01/rdf-schema#label> "Paul McCartney" .
<lennon> <height> "1.79 Q11573"^^<grove:quantity> .
<mccartney> <height> "1.8 Q99999"^^<grove:quantity> .
<Q11573> <http://www.w3.org/2000/01/rdf-schema#label> "metre" .
`

// FilmPath is the path of data/film.nq.gz in this repository.
func FilmPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "data", "film.nq.gz")
}

var (
	filmOnce  sync.Once
	filmQuads []quad.Quad
	filmErr   error
)

// FilmQuads returns the film sample's quads (labels cleared, blank nodes
// scoped to the graph as "_:film/<id>", as Grove's ingest does), read once
// per test binary. Callers must not modify the slice.
func FilmQuads() ([]quad.Quad, error) {
	filmOnce.Do(func() {
		f, err := os.Open(FilmPath())
		if err != nil {
			filmErr = err
			return
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			filmErr = fmt.Errorf("%s: %w", FilmPath(), err)
			return
		}
		filmQuads, filmErr = ParseNQuads(FilmGraph, gz)
		if filmErr != nil {
			filmErr = fmt.Errorf("%s: %w", FilmPath(), filmErr)
		}
	})
	return filmQuads, filmErr
}

// ExtraQuads returns the "extra" graph's quads.
func ExtraQuads() []quad.Quad {
	qs, err := ParseNQuads(ExtraGraph, strings.NewReader(ExtraNQuads))
	if err != nil {
		panic(err) // a constant: covered by every test
	}
	return qs
}

// ParseNQuads reads N-Quads, clearing labels and scoping blank nodes to
// graph.
func ParseNQuads(graph string, r io.Reader) ([]quad.Quad, error) {
	nr := nquads.NewReader(r, false)
	var out []quad.Quad
	for {
		q, err := nr.ReadQuad()
		if errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			if b, ok := q.Get(d).(quad.BNode); ok {
				q.Set(d, quad.BNode(graph+"/"+string(b)))
			}
		}
		q.Label = nil
		out = append(out, q)
	}
}

// Facts are counts read from the film file itself, independent of any
// backend.
type Facts struct {
	// Quads is the number of distinct triples in the film graph.
	Quads int64
	// Degree counts distinct (subject, predicate, object) triples per
	// "id|predicate|dir" key, for the ids the suite asks about.
	degree map[string]int64
}

var (
	factsOnce sync.Once
	facts     Facts
)

// FilmFacts computes the suite's expected counts from the data file.
func FilmFacts() (Facts, error) {
	qs, err := FilmQuads()
	if err != nil {
		return Facts{}, err
	}
	factsOnce.Do(func() {
		seen := make(map[[3]string]bool, len(qs))
		facts.degree = map[string]int64{}
		for _, q := range qs {
			k := [3]string{quad.StringOf(q.Subject), quad.StringOf(q.Predicate), quad.StringOf(q.Object)}
			if seen[k] {
				continue
			}
			seen[k] = true
			facts.Quads++
			p := iriID(q.Predicate)
			facts.degree[nodeKey(q.Subject)+"|"+p+"|out"]++
			facts.degree[nodeKey(q.Object)+"|"+p+"|in"]++
		}
	})
	return facts, nil
}

// Degree is the number of distinct edges of id along predicate p in
// direction dir ("out" or "in") in the film file.
func (f Facts) Degree(id, p, dir string) int64 { return f.degree[id+"|"+p+"|"+dir] }

func iriID(v quad.Value) string {
	if i, ok := v.(quad.IRI); ok {
		return string(i)
	}
	return quad.StringOf(v)
}

func nodeKey(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.BNode:
		return "_:" + string(v)
	}
	return quad.StringOf(v)
}

// StatementsGraph is the graph of StatementsNQuads.
const StatementsGraph = "statements"

// StatementsNQuads is a graph laid out as Grove's Wikidata ingest lays out
// statements (see store.StatementPrefix): a fact held twice (two
// statements with their own dates), a qualified literal feature, a
// relation named by its own node, and an external id that grove:hidden
// hides.
const StatementsNQuads = `<washington> <http://www.w3.org/2000/01/rdf-schema#label> "George Washington" .
<washington> <heldPosition> <commander> .
<washington> <p:heldPosition> <washington-s1> .
<washington-s1> <ps:heldPosition> <commander> .
<washington-s1> <pq:startTime> "1775"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<washington-s1> <pq:endTime> "1783"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<washington> <p:heldPosition> <washington-s2> .
<washington-s2> <ps:heldPosition> <commander> .
<washington-s2> <pq:startTime> "1798"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<washington-s2> <pq:replaces> <pinckney> .
<washington> <height> "1.88 m" .
<washington> <p:height> <washington-s3> .
<washington-s3> <ps:height> "1.88 m" .
<washington-s3> <pq:pointInTime> "1799"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<washington> <extId> "n79-1234" .
<washington> <p:extId> <washington-s4> .
<washington-s4> <ps:extId> "n79-1234" .
<washington-s4> <pq:pointInTime> "2020"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<extId> <grove:hidden> "true" .
<extId> <http://www.w3.org/2000/01/rdf-schema#label> "external id" .
<heldPosition> <http://www.w3.org/2000/01/rdf-schema#label> "position held" .
<heldPosition> <grove:inverseLabel> "holder of position" .
<startTime> <http://www.w3.org/2000/01/rdf-schema#label> "start time" .
<commander> <http://www.w3.org/2000/01/rdf-schema#label> "Commander-in-Chief" .
<pinckney> <http://www.w3.org/2000/01/rdf-schema#label> "Charles Cotesworth Pinckney" .
`

// StatementsQuads returns the StatementsGraph's quads.
func StatementsQuads() []quad.Quad {
	qs, err := ParseNQuads(StatementsGraph, strings.NewReader(StatementsNQuads))
	if err != nil {
		panic(err) // a constant: covered by every test that loads it
	}
	return qs
}
