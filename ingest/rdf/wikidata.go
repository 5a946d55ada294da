package rdf

import (
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// Wikidata RDF namespaces.
const (
	WikidataEntityNS = "http://www.wikidata.org/entity/"
	WikidataDirectNS = "http://www.wikidata.org/prop/direct/"
	WikidataNormNS   = "http://www.wikidata.org/prop/direct-normalized/"
	WikidataGenidNS  = "http://www.wikidata.org/.well-known/genid/"
	WikibaseNS       = "http://wikiba.se/ontology#"
)

const (
	xsdDecimal = "http://www.w3.org/2001/XMLSchema#decimal"
	// inverseProperty is Wikidata's "inverse property" (P1696).
	inverseProperty = "P1696"
	// mulLanguage is Wikidata's language-independent label code, the
	// fallback for inverse labels.
	mulLanguage = "mul"
)

// WikidataTruthy is the dialect of the Wikidata truthy N-Triples dump
// (latest-truthy.nt): best-rank statements as wdt: triples plus labels. It
//
//   - shortens entity IRIs (wd:Q64 -> "Q64") and direct-claim predicates
//     (wdt:P17 -> "P17"), the ids the Wikidata JSON reader uses;
//   - keeps rdfs:label (also skos:prefLabel and schema:name, which repeat
//     it and are folded into one rdfs:label per value), schema:description
//     and skos:altLabel in the configured languages;
//   - turns rdf:type wikibase:Item/Property/Lexeme/Form/Sense into
//     grove:nodeType "item"/"property"/...;
//   - turns wikibase:propertyType wikibase:ExternalId into
//     <P> grove:hidden "true"; other property types and
//     wikibase:directClaim are dropped (wd:Pn and wdt:Pn share the id Pn);
//   - for the MusicBrainz id properties (see MusicBrainzProperty) also emits
//     <Qx> grove:sameAs <mb:<type>/<mbid>>;
//   - keeps owl:sameAs (redirects) with shortened ids;
//   - at the end of the stream emits <P> grove:inverseLabel "label of Q"
//     for every property P with an inverse property Q (P1696), in each
//     configured language where both have a label ("mul" labels serve as
//     fallback), as the Wikidata JSON reader does;
//   - rewrites statement values as the JSON reader does: "some value" blank
//     nodes and .well-known/genid IRIs become grove:unknown literals (one
//     per value, each reading "unknown value"), xsd:decimal
//     quantities become grove:quantity (truthy dumps carry no unit), and
//     IRIs outside Wikidata (URLs, Commons files) become xsd:anyURI literals
//     so they do not turn into nodes;
//   - drops wdtn: (normalized external ids, copies of wdt: values), other
//     wikibase: metadata, and triples whose subject is not an entity
//     (sitelinks, dump and entity-data metadata, p:/wdno: declarations).
//
// Other predicates (lexeme data such as dct:language) pass through with
// entity ids shortened.
type WikidataTruthy struct{}

// MusicBrainzProperty returns the MusicBrainz entity type identified by a
// Wikidata property ("P434" -> "artist"), or "".
func MusicBrainzProperty(pid string) string {
	switch pid {
	case "P434":
		return "artist"
	case "P435":
		return "work"
	case "P436":
		return "release-group"
	case "P966":
		return "label"
	case "P982":
		return "area"
	case "P1004":
		return "place"
	case "P1330":
		return "instrument"
	case "P1407":
		return "series"
	case "P4404":
		return "recording"
	case "P5813":
		return "release"
	case "P6423":
		return "event"
	case "P8052":
		return "genre"
	}
	return ""
}

// NewMapper implements Dialect.
func (WikidataTruthy) NewMapper(langs []string) Mapper {
	return &truthyMapper{
		langs:  newLangFilter(langs),
		preds:  make(map[quad.Value]wdPred),
		labels: make(map[quad.Value]struct{}),
		props:  make(map[string]*propInfo),
	}
}

type wdKind int

const (
	wdPass wdKind = iota
	wdDrop
	wdClaim
	wdLabel
	wdText // description or alias: language-filtered
	wdType
	wdPropType
)

// wdPred is the cached decision for one predicate.
type wdPred struct {
	kind  wdKind
	value quad.Value
	mb    string // MusicBrainz entity type for claims of MB id properties
}

type truthyMapper struct {
	langs langFilter
	preds map[quad.Value]wdPred

	lastIn, lastOut quad.Value
	labels          map[quad.Value]struct{} // labels emitted for lastIn

	props map[string]*propInfo // property labels and inverses, for Finish
}

// propInfo is what Finish needs about a property.
type propInfo struct {
	labels  map[string]string // language -> first label
	inverse string
}

// Map implements Mapper.
func (m *truthyMapper) Map(q quad.Quad, emit func(quad.Quad) error) error {
	s := m.subject(q.Subject)
	if s == nil {
		return nil
	}
	pr := m.pred(q.Predicate)
	m.noteProperty(s, pr, q.Object)
	out := quad.Quad{Subject: s, Predicate: pr.value, Label: q.Label}
	switch pr.kind {
	case wdDrop:
		return nil
	case wdClaim:
		return m.claim(out, pr, q.Object, emit)
	case wdLabel:
		if !m.langs.keep(q.Object) || m.seenLabel(q.Object) {
			return nil
		}
	case wdText:
		if !m.langs.keep(q.Object) {
			return nil
		}
	case wdType:
		kind := wikibaseNodeType(q.Object)
		if kind == "" {
			out.Object = shortWikidata(q.Object)
			return emit(out)
		}
		out.Predicate, out.Object = quad.IRI(store.GroveNodeType), quad.String(kind)
		return emit(out)
	case wdPropType:
		if idOf(q.Object) != WikibaseNS+"ExternalId" {
			return nil
		}
		out.Predicate, out.Object = quad.IRI(store.GroveHidden), quad.String("true")
		return emit(out)
	}
	out.Object = shortWikidata(q.Object)
	return emit(out)
}

// noteProperty records the labels and inverse of property subjects.
func (m *truthyMapper) noteProperty(s quad.Value, pr wdPred, o quad.Value) {
	id := idOf(s)
	if !strings.HasPrefix(id, "P") || (pr.kind != wdLabel && pr.value != quad.IRI(inverseProperty)) {
		return
	}
	info := m.props[id]
	if info == nil {
		info = &propInfo{labels: make(map[string]string)}
		m.props[id] = info
	}
	if pr.kind == wdClaim {
		if inv, ok := entityID(o); ok && info.inverse == "" {
			info.inverse = inv
		}
		return
	}
	ls, ok := o.(quad.LangString)
	if !ok || (!m.langs.keep(ls) && ls.Lang != mulLanguage) {
		return
	}
	tag := strings.ToLower(ls.Lang)
	if _, seen := info.labels[tag]; !seen {
		info.labels[tag] = string(ls.Value)
	}
}

// Finish implements Finisher: it emits the inverse labels.
func (m *truthyMapper) Finish(emit func(quad.Quad) error) error {
	ids := make([]string, 0, len(m.props))
	for id, p := range m.props {
		if p.inverse != "" {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, compareIDs)
	for _, id := range ids {
		p := m.props[id]
		inv := m.props[p.inverse]
		if inv == nil {
			continue
		}
		for _, lang := range m.inverseLanguages(p) {
			own, invLabel := p.label(lang), inv.label(lang)
			if own == "" || invLabel == "" {
				continue
			}
			q := quad.Quad{Subject: quad.IRI(id), Predicate: quad.IRI(store.GroveInverseLabel),
				Object: quad.LangString{Value: quad.String(invLabel), Lang: lang}}
			if err := emit(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// inverseLanguages is the configured languages, or with "*" every language
// the property has a label in, sorted.
func (m *truthyMapper) inverseLanguages(p *propInfo) []string {
	if !m.langs.all {
		return m.langs.langs
	}
	out := make([]string, 0, len(p.labels))
	for l := range p.labels {
		if l != mulLanguage {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// label returns the label in lang, falling back to "mul".
func (p *propInfo) label(lang string) string {
	if l, ok := p.labels[lang]; ok {
		return l
	}
	return p.labels[mulLanguage]
}

// compareIDs orders "P2" before "P10".
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// claim emits a wdt: statement and, for MusicBrainz id properties, the
// cross-graph link.
func (m *truthyMapper) claim(out quad.Quad, pr wdPred, o quad.Value, emit func(quad.Quad) error) error {
	out.Object = claimValue(o)
	if err := emit(out); err != nil {
		return err
	}
	if pr.mb == "" {
		return nil
	}
	mbid, ok := normalizeMBID(o)
	if !ok {
		return nil
	}
	out.Predicate = quad.IRI(store.GroveSameAs)
	out.Object = quad.IRI(store.MusicBrainzPrefix + pr.mb + "/" + mbid)
	return emit(out)
}

// subject shortens an entity subject and returns nil for subjects that are
// not entities.
func (m *truthyMapper) subject(s quad.Value) quad.Value {
	if m.lastIn != nil && s == m.lastIn {
		return m.lastOut
	}
	m.lastIn, m.lastOut = s, nil
	clear(m.labels)
	if id, ok := entityID(s); ok {
		m.lastOut = quad.IRI(id)
	}
	return m.lastOut
}

func (m *truthyMapper) seenLabel(v quad.Value) bool {
	if _, ok := m.labels[v]; ok {
		return true
	}
	if len(m.labels) < 4096 {
		m.labels[v] = struct{}{}
	}
	return false
}

func (m *truthyMapper) pred(p quad.Value) wdPred {
	if pr, ok := m.preds[p]; ok {
		return pr
	}
	pr := classifyTruthy(p)
	if len(m.preds) < maxInterned {
		m.preds[p] = pr
	}
	return pr
}

func classifyTruthy(p quad.Value) wdPred {
	id := idOf(p)
	switch id {
	case store.RDFSLabel, store.SKOSPrefLabel, store.SchemaName:
		return wdPred{kind: wdLabel, value: quad.IRI(store.RDFSLabel)}
	case store.SchemaDesc, store.SKOSAltLabel:
		return wdPred{kind: wdText, value: p}
	case store.RDFType:
		return wdPred{kind: wdType, value: p}
	case WikibaseNS + "propertyType":
		return wdPred{kind: wdPropType}
	case WikibaseNS + "lemma", WikibaseNS + "lexicalCategory", WikibaseNS + "grammaticalFeature":
		return wdPred{kind: wdPass, value: p}
	}
	switch {
	case strings.HasPrefix(id, WikidataDirectNS):
		pid := id[len(WikidataDirectNS):]
		return wdPred{kind: wdClaim, value: quad.IRI(pid), mb: MusicBrainzProperty(pid)}
	case strings.HasPrefix(id, WikidataNormNS), strings.HasPrefix(id, WikibaseNS),
		strings.HasPrefix(id, "http://schema.org/"):
		return wdPred{kind: wdDrop}
	}
	return wdPred{kind: wdPass, value: p}
}

// claimValue rewrites the object of a wdt: statement.
func claimValue(o quad.Value) quad.Value {
	switch v := o.(type) {
	case quad.BNode:
		return unknown(string(v))
	case quad.IRI:
		if g, ok := strings.CutPrefix(string(v), WikidataGenidNS); ok {
			return unknown(g)
		}
		if id, ok := entityID(v); ok {
			return quad.IRI(id)
		}
		return quad.TypedString{Value: quad.String(v), Type: store.XSDAnyURI}
	case quad.TypedString:
		if v.Type == xsdDecimal {
			return quad.TypedString{Value: quad.String(strings.TrimPrefix(string(v.Value), "+")), Type: store.GroveQuantity}
		}
	}
	return o
}

// unknown is a "some value" object, as the Wikidata JSON reader writes
// it: a grove:unknown literal that reads "unknown value", its lexical form
// the blank node's or genid's name, so that two unknown values of one
// property stay two values (and none equals a string "unknown value").
func unknown(name string) quad.Value {
	return quad.TypedString{Value: quad.String(name), Type: store.GroveUnknown}
}

// entityID returns "Q64" for <http://www.wikidata.org/entity/Q64>. IRIs with
// a further path (entity/statement/...) are not entity ids.
func entityID(v quad.Value) (string, bool) {
	iri, ok := v.(quad.IRI)
	if !ok || !strings.HasPrefix(string(iri), WikidataEntityNS) {
		return "", false
	}
	id := string(iri[len(WikidataEntityNS):])
	if id == "" || strings.ContainsAny(id, "/#?") {
		return "", false
	}
	return id, true
}

// shortWikidata shortens entity IRIs and leaves other values unchanged.
func shortWikidata(v quad.Value) quad.Value {
	if id, ok := entityID(v); ok {
		return quad.IRI(id)
	}
	return v
}

func wikibaseNodeType(o quad.Value) string {
	switch idOf(o) {
	case WikibaseNS + "Item":
		return "item"
	case WikibaseNS + "Property":
		return "property"
	case WikibaseNS + "Lexeme":
		return "lexeme"
	case WikibaseNS + "Form":
		return "form"
	case WikibaseNS + "Sense":
		return "sense"
	}
	return ""
}

// normalizeMBID returns the lower-case MBID of a literal holding a UUID.
func normalizeMBID(o quad.Value) (string, bool) {
	var s string
	switch v := o.(type) {
	case quad.String:
		s = string(v)
	case quad.TypedString:
		s = string(v.Value)
	default:
		return "", false
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 36 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return "", false
			}
			continue
		}
		if !isDigit(c) && (c < 'a' || c > 'f') {
			return "", false
		}
	}
	return s, true
}
