package rdf

import (
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// Freebase namespaces and the predicate rdf:type is mapped to.
const (
	FreebaseNS    = "http://rdf.freebase.com/ns/"
	FreebaseKeyNS = "http://rdf.freebase.com/key/"
	FreebaseType  = "type.object.type"
	// FreebaseMediator marks CVT (mediator) types; it is kept although the
	// rest of the freebase.* domain is dropped.
	FreebaseMediator = "freebase.type_hints.mediator"
)

// Freebase is the dialect of the Freebase RDF dump
// (freebase-rdf-latest.gz). It
//
//   - shortens http://rdf.freebase.com/ns/ IRIs to Freebase ids: "m.0f8l9c",
//     "film.film.directed_by" (the form of the MIDs in the KG-QA data sets);
//   - drops every triple with a http://rdf.freebase.com/key/ IRI (namespace
//     keys such as key:wikipedia.en);
//   - maps rdf:type to type.object.type and drops repeated type triples of
//     the same subject (the dump states every type with both predicates);
//   - keeps type.object.name, common.topic.alias, common.topic.description
//     and rdfs:label only in the configured languages (untagged literals are
//     kept); these stay under their own ids, which store.DefaultLabelConfig
//     treats as label, alias and description predicates;
//   - drops bookkeeping predicates that carry no facts (see FreebaseDropped);
//   - keeps CVT (mediator) nodes and freebase.type_hints.mediator.
//
// Relation labels are not emitted: the engine derives them from predicate
// ids ("film.film.directed_by" -> "directed by").
type Freebase struct {
	// Drop lists more predicates (short ids) to drop.
	Drop []string
	// KeepAll keeps the predicates of FreebaseDropped; key namespaces are
	// dropped regardless.
	KeepAll bool
}

// FreebaseDropped returns the predicates (exact ids, or prefixes ending in
// ".") that the Freebase dialect drops by default: namespace keys,
// permissions and other write-side bookkeeping, the reverse index
// type.type.instance (a copy of every type.object.type), web page, image and
// article pointers, notability statistics, and the freebase.*/dataworld.*
// system domains (except freebase.type_hints.mediator).
func FreebaseDropped() []string {
	return []string{
		"type.object.key", "type.object.permission", "type.object.guid",
		"type.object.attribution", "type.object.timestamp", "type.object.creator",
		"type.type.instance",
		"common.topic.webpage", "common.topic.topic_equivalent_webpage",
		"common.topic.notable_for", "common.topic.article", "common.topic.image",
		"freebase.", "dataworld.", "common.webpage.", "common.notable_for.",
		"common.document.", "common.image.", "type.content.", "type.content_import.",
	}
}

// NewMapper implements Dialect.
func (f Freebase) NewMapper(langs []string) Mapper {
	m := &freebaseMapper{
		langs: newLangFilter(langs),
		exact: make(map[string]bool),
		preds: make(map[quad.Value]fbPred),
		types: make(map[quad.Value]struct{}),
	}
	var drop []string
	if !f.KeepAll {
		drop = FreebaseDropped()
	}
	for _, d := range append(drop, f.Drop...) {
		if strings.HasSuffix(d, ".") {
			m.prefixes = append(m.prefixes, d)
		} else {
			m.exact[d] = true
		}
	}
	return m
}

// fbPred is the cached decision for one predicate.
type fbPred struct {
	value quad.Value // the short predicate
	drop  bool
	label bool // a label/alias/description predicate, filtered by language
	typ   bool // type.object.type
}

type freebaseMapper struct {
	langs    langFilter
	exact    map[string]bool
	prefixes []string
	preds    map[quad.Value]fbPred

	// subject shortening cache and per-subject type set
	lastIn, lastOut quad.Value
	types           map[quad.Value]struct{}
}

// Map implements Mapper.
func (m *freebaseMapper) Map(q quad.Quad, emit func(quad.Quad) error) error {
	pr := m.pred(q.Predicate)
	if pr.drop || isKeyIRI(q.Subject) || isKeyIRI(q.Object) {
		return nil
	}
	s := m.subject(q.Subject)
	o := shortFreebase(q.Object)
	if pr.label && !m.langs.keep(o) {
		return nil
	}
	if pr.typ && m.seenType(o) {
		return nil
	}
	return emit(quad.Quad{Subject: s, Predicate: pr.value, Object: o, Label: q.Label})
}

func (m *freebaseMapper) pred(p quad.Value) fbPred {
	if pr, ok := m.preds[p]; ok {
		return pr
	}
	pr := m.classify(p)
	if len(m.preds) < maxInterned {
		m.preds[p] = pr
	}
	return pr
}

func (m *freebaseMapper) classify(p quad.Value) fbPred {
	if isKeyIRI(p) {
		return fbPred{drop: true}
	}
	v := shortFreebase(p)
	id := idOf(v)
	if id == store.RDFType {
		id, v = FreebaseType, quad.IRI(FreebaseType)
	}
	if m.dropped(id) {
		return fbPred{drop: true}
	}
	switch id {
	case store.FreebaseName, store.FreebaseAlias, store.FreebaseDesc, store.RDFSLabel:
		return fbPred{value: v, label: true}
	case FreebaseType:
		return fbPred{value: v, typ: true}
	}
	return fbPred{value: v}
}

func (m *freebaseMapper) dropped(id string) bool {
	if id == FreebaseMediator {
		return false
	}
	if m.exact[id] {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// subject shortens the subject, reusing the previous result for the runs of
// one subject that sorted dumps have, and resets the per-subject type set
// when the subject changes.
func (m *freebaseMapper) subject(s quad.Value) quad.Value {
	if m.lastIn != nil && s == m.lastIn {
		return m.lastOut
	}
	m.lastIn, m.lastOut = s, shortFreebase(s)
	clear(m.types)
	return m.lastOut
}

// seenType records a type of the current subject and reports whether it
// was already emitted. The set is bounded; beyond the bound duplicates pass.
func (m *freebaseMapper) seenType(t quad.Value) bool {
	if _, ok := m.types[t]; ok {
		return true
	}
	if len(m.types) < 1024 {
		m.types[t] = struct{}{}
	}
	return false
}

// shortFreebase turns <http://rdf.freebase.com/ns/x> into <x>; other values
// are returned unchanged.
func shortFreebase(v quad.Value) quad.Value {
	if iri, ok := v.(quad.IRI); ok && strings.HasPrefix(string(iri), FreebaseNS) {
		return quad.IRI(iri[len(FreebaseNS):])
	}
	return v
}

func isKeyIRI(v quad.Value) bool {
	iri, ok := v.(quad.IRI)
	return ok && strings.HasPrefix(string(iri), FreebaseKeyNS)
}

// idOf returns an IRI's string, or "" for other values.
func idOf(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return ""
}
