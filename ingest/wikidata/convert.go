package wikidata

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Wikidata URIs and values the converter recognises.
const (
	entityNS        = "http://www.wikidata.org/entity/"
	julianCalendar  = entityNS + "Q1985786"
	earthGlobe      = entityNS + "Q2"
	inverseProperty = "P1696"
	hiddenTrue      = "true"
	// SitelinkPredicate links an entity to the Wikipedia article of one of
	// the chosen languages (an xsd:anyURI literal). Readers of the graph
	// find it hidden and labelled "Wikipedia article".
	SitelinkPredicate = "http://schema.org/subjectOf"
	// LexicalCategoryPredicate and LanguagePredicate carry a lexeme's
	// lexical category and language (Wikibase RDF names).
	LexicalCategoryPredicate = "http://wikiba.se/ontology#lexicalCategory"
	LanguagePredicate        = "http://purl.org/dc/terms/language"
)

// musicBrainzTypes maps the MusicBrainz identifier properties to the
// MusicBrainz entity type used in "mb:<type>/<mbid>" ids.
var musicBrainzTypes = map[string]string{
	"P434": "artist", "P435": "work", "P436": "release-group", "P966": "label",
	"P982": "area", "P1004": "place", "P1330": "instrument", "P1407": "series",
	"P4404": "recording", "P5813": "release", "P6423": "event", "P8052": "genre",
}

// Predicates as quad values, built once.
var (
	predLabel    = quad.IRI(store.RDFSLabel)
	predDesc     = quad.IRI(store.SchemaDesc)
	predAlias    = quad.IRI(store.SKOSAltLabel)
	predNodeType = quad.IRI(store.GroveNodeType)
	predSameAs   = quad.IRI(store.GroveSameAs)
	predSitelink = quad.IRI(SitelinkPredicate)
)

// propInfo is what the end-of-stream pass needs about a property entity.
type propInfo struct {
	ID       string
	Labels   []langText
	Inverse  string
	External bool
}

// lineInfo is the converter's side output for one entity.
type lineInfo struct {
	kind       string
	statements int
	prop       *propInfo
	hidden     []string // properties seen with datatype external-id
	sitelinks  bool
}

// converter turns decoded entities into quads. One per worker; its
// buffers and predicate cache are reused from entity to entity.
type converter struct {
	opts   *Options
	out    []quad.Quad
	info   lineInfo
	id     string
	subj   quad.Value // the entity's IRI, boxed once per entity
	seen   dedup
	keep   []bool   // keepRanks buffer
	order  []string // qualifierOrder buffer
	preds  predCache
	dec    decoder // the worker's entity decoder
	logger func(msg string, args ...any)
}

func (c *converter) add(s quad.Value, p quad.Value, o quad.Value) {
	c.out = append(c.out, quad.Quad{Subject: s, Predicate: p, Object: o})
}

// convert appends the quads of e to c.out.
func (c *converter) convert(e *entity) error {
	c.info = lineInfo{kind: e.Type}
	c.id, c.subj = e.ID, quad.IRI(e.ID)
	if c.preds == nil {
		c.preds = predCache{}
	}
	c.add(c.subj, predNodeType, quad.String(e.Type))
	c.texts(predLabel, e.Labels.texts)
	c.texts(predDesc, e.Descriptions.texts)
	c.texts(predAlias, e.Aliases.texts)
	if e.Type == typeLexeme {
		c.lexeme(e)
	}
	if err := c.claims(e); err != nil {
		return err
	}
	c.sitelinks(e.Sitelinks.texts)
	if e.Type == typeProperty {
		c.info.prop = &propInfo{ID: e.ID, Labels: e.Labels.texts, External: e.Datatype == "external-id",
			Inverse: firstInverse(e.Claims)}
	}
	return nil
}

func (c *converter) texts(p quad.IRI, ts []langText) {
	for _, t := range ts {
		c.add(c.subj, p, quad.LangString{Value: quad.String(t.Text), Lang: t.Lang})
	}
}

// lexeme adds a lexeme's category and language edges.
func (c *converter) lexeme(e *entity) {
	if e.LexicalCategory != "" {
		c.add(c.subj, quad.IRI(LexicalCategoryPredicate), quad.IRI(e.LexicalCategory))
	}
	if e.Language != "" {
		c.add(c.subj, quad.IRI(LanguagePredicate), quad.IRI(e.Language))
	}
}

// sitelinks adds the Wikipedia article URLs.
func (c *converter) sitelinks(ts []langText) {
	for _, t := range ts {
		u := "https://" + t.Lang + ".wikipedia.org/wiki/" + titleEscaper.Replace(t.Text)
		c.add(c.subj, predSitelink, quad.TypedString{Value: quad.String(u), Type: xsdAnyURI})
		c.info.sitelinks = true
	}
}

// xsdAnyURI is the datatype of URL literals.
const xsdAnyURI = quad.IRI(store.XSDAnyURI)

var titleEscaper = strings.NewReplacer(" ", "_", "%", "%25", "?", "%3F", "#", "%23", `"`, "%22")

// claims adds the kept statements, property by property in id order.
func (c *converter) claims(e *entity) error {
	for i := range e.Claims {
		p := e.Claims[i].Prop
		if !isEntityID(p, 'P') {
			return fieldErr("claims", fmt.Errorf("%q is not a property id", p))
		}
		if err := c.property(p, e.Claims[i].Stmts); err != nil {
			return err
		}
	}
	return nil
}

// property adds the kept statements of one property.
func (c *converter) property(p string, stmts []statement) error {
	if i, ok := badRank(stmts); !ok {
		return fieldErr("claims."+p+"["+strconv.Itoa(i)+"].rank", fmt.Errorf("unknown rank %q", stmts[i].Rank))
	}
	c.keep = keepRanks(c.keep, stmts, c.opts.AllRanks)
	c.seen.reset()
	pred := c.preds.get(predDirect, p)
	for i := range stmts {
		if !c.keep[i] {
			continue
		}
		if err := c.statement(p, pred, &stmts[i], i); err != nil {
			return err
		}
	}
	return nil
}

// Kinds of predicates derived from a property id.
const (
	predDirect    = iota // P17
	predStatement        // p:P17
	predValue            // ps:P17
	predQualifier        // pq:P17
)

var predPrefixes = [...]string{"", store.StatementPrefix, store.StatementValuePrefix, store.QualifierPrefix}

// predCache holds the predicate IRIs of properties (one per kind), boxed
// once per worker.
type predCache map[string]*[len(predPrefixes)]quad.Value

// predCacheMax bounds the cache (Wikidata has about 12,000 properties).
const predCacheMax = 1 << 16

func (pc predCache) get(kind int, p string) quad.Value {
	ps := pc[p]
	if ps == nil {
		if len(pc) >= predCacheMax {
			clear(pc)
		}
		ps = new([len(predPrefixes)]quad.Value)
		pc[p] = ps
	}
	if ps[kind] == nil {
		ps[kind] = quad.IRI(predPrefixes[kind] + p)
	}
	return ps[kind]
}

// badRank returns the index of the first statement with an unknown rank.
func badRank(stmts []statement) (int, bool) {
	for i := range stmts {
		switch stmts[i].Rank {
		case "preferred", "normal", "deprecated":
		default:
			return i, false
		}
	}
	return 0, true
}

// selectRanks marks the kept statements: those of the best rank present
// (preferred over normal), or every non-deprecated one with all.
func selectRanks(stmts []statement, all bool) []bool { return keepRanks(nil, stmts, all) }

// keepRanks is selectRanks into dst's storage.
func keepRanks(dst []bool, stmts []statement, all bool) []bool {
	keep := slices.Grow(dst[:0], len(stmts))[:len(stmts)]
	clear(keep)
	preferred := false
	for i := range stmts {
		preferred = preferred || stmts[i].Rank == "preferred"
	}
	for i := range stmts {
		switch r := stmts[i].Rank; {
		case r == "deprecated":
		case all || !preferred:
			keep[i] = true
		default:
			keep[i] = r == "preferred"
		}
	}
	return keep
}

// statement adds the direct edge, MusicBrainz link and statement node of
// one kept statement.
func (c *converter) statement(p string, pred quad.Value, s *statement, i int) error {
	c.noteHidden(p, &s.Mainsnak)
	ref, err := c.unknownRef(p, s, i)
	if err != nil {
		return fieldErr(stmtField(p, i)+".id", err)
	}
	v, ok, err := snakValue(&s.Mainsnak, ref)
	if err != nil {
		return fieldErr(stmtField(p, i)+".mainsnak", err)
	}
	if !ok {
		return nil
	}
	c.info.statements++
	if c.fresh(v) {
		c.add(c.subj, pred, v)
		c.musicBrainz(p, v)
	}
	if len(s.Qualifiers) == 0 {
		return nil
	}
	return c.qualifiers(p, v, s, i)
}

// unknownRef names the main snak of statement i of property p when it is
// a somevalue, for its grove:unknown literal: the statement id, or without
// one "<entity> <property> <index>". It is "" for other snaks.
func (c *converter) unknownRef(p string, s *statement, i int) (string, error) {
	if s.Mainsnak.Snaktype != snakSomeValue {
		return "", nil
	}
	id, err := unquote(s.IDToken)
	if s.IDToken != nil && err != nil {
		return "", err
	}
	if id == "" {
		id = c.id + " " + p + " " + strconv.Itoa(i)
	}
	return id, nil
}

// stmtField names statement i of property p ("claims.P17[0]").
func stmtField(p string, i int) string { return "claims." + p + "[" + strconv.Itoa(i) + "]" }

// fresh reports whether v is new among the direct edges of the current
// property (duplicate values are emitted once).
func (c *converter) fresh(v quad.Value) bool { return c.seen.add(v) }

// dedup is a set of values: a slice while small, a map once large.
type dedup struct {
	vals []quad.Value
	set  map[quad.Value]struct{}
}

const dedupSliceMax = 16

func (d *dedup) reset() { d.vals, d.set = d.vals[:0], nil }

// add inserts v and reports whether it was absent.
func (d *dedup) add(v quad.Value) bool {
	if d.set != nil {
		if _, dup := d.set[v]; dup {
			return false
		}
		d.set[v] = struct{}{}
		return true
	}
	for _, x := range d.vals {
		if x == v {
			return false
		}
	}
	d.vals = append(d.vals, v)
	if len(d.vals) > dedupSliceMax {
		d.set = make(map[quad.Value]struct{}, 2*len(d.vals))
		for _, x := range d.vals {
			d.set[x] = struct{}{}
		}
	}
	return true
}

// qualifiers adds the statement node when at least one qualifier has a
// value.
func (c *converter) qualifiers(p string, v quad.Value, s *statement, i int) error {
	id, err := unquote(s.IDToken)
	switch {
	case s.IDToken != nil && err != nil:
		return fieldErr(stmtField(p, i)+".id", err)
	case id == "":
		return fieldErr(stmtField(p, i)+".id", errors.New("missing statement id (needed for qualifiers)"))
	}
	node := quad.Value(quad.IRI(id))
	start := len(c.out)
	c.add(c.subj, c.preds.get(predStatement, p), node)
	c.add(node, c.preds.get(predValue, p), v)
	n := 0
	c.order = qualifierOrder(c.order, s)
	for _, q := range c.order {
		snaks, _ := s.qualifier(q)
		for j := range snaks {
			c.noteHidden(q, &snaks[j])
			qv, ok, err := snakValue(&snaks[j], id+" "+q+" "+strconv.Itoa(j))
			if err != nil {
				return fieldErr(stmtField(p, i)+".qualifiers."+q+"["+strconv.Itoa(j)+"]", err)
			}
			if ok {
				c.add(node, c.preds.get(predQualifier, q), qv)
				n++
			}
		}
	}
	if n == 0 {
		c.out = c.out[:start]
	}
	return nil
}

// qualifierOrder lists qualifier properties in "qualifiers-order" order,
// then any others by id, into dst's storage.
func qualifierOrder(dst []string, s *statement) []string {
	order := dst[:0]
	for _, q := range s.QualifiersOrder {
		if _, ok := s.qualifier(q); ok && !slices.Contains(order, q) {
			order = append(order, q)
		}
	}
	listed := len(order)
	for i := range s.Qualifiers {
		if q := s.Qualifiers[i].Prop; !slices.Contains(order[:listed], q) {
			order = append(order, q)
		}
	}
	sortIDs(order[listed:])
	return order
}

// noteHidden records properties whose datatype is external-id.
func (c *converter) noteHidden(p string, s *snak) {
	if s.Datatype != "external-id" {
		return
	}
	for _, h := range c.info.hidden {
		if h == p {
			return
		}
	}
	c.info.hidden = append(c.info.hidden, p)
}

// musicBrainz adds the cross-KG link for MusicBrainz identifier values.
func (c *converter) musicBrainz(p string, v quad.Value) {
	typ, ok := musicBrainzTypes[p]
	if !ok {
		return
	}
	s, ok := v.(quad.String)
	if !ok {
		return
	}
	mbid, ok := normalizeMBID(string(s))
	if !ok {
		c.logger("wikidata: ignoring malformed MusicBrainz id", "entity", c.id, "property", p, "value", string(s))
		return
	}
	c.add(c.subj, predSameAs, quad.IRI(store.MusicBrainzPrefix+typ+"/"+mbid))
}

// normalizeMBID lower-cases a MusicBrainz id and checks the UUID shape.
func normalizeMBID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	b := []byte(strings.ToLower(s))
	for i, ch := range b {
		switch i {
		case 8, 13, 18, 23:
			if ch != '-' {
				return "", false
			}
		default:
			if (ch < '0' || ch > '9') && (ch < 'a' || ch > 'f') {
				return "", false
			}
		}
	}
	return string(b), true
}

// firstInverse returns the first inverse-property (P1696) value.
func firstInverse(cs claims) string {
	stmts := cs.get(inverseProperty)
	keep := selectRanks(stmts, false)
	for i := range stmts {
		if v, ok, err := snakValue(&stmts[i].Mainsnak, ""); keep[i] && ok && err == nil {
			if iri, isIRI := v.(quad.IRI); isIRI {
				return string(iri)
			}
		}
	}
	return ""
}

// Snak types (a value, an unknown value, no value).
const (
	snakValueType = "value"
	snakSomeValue = "somevalue"
	snakNoValue   = "novalue"
)

// snakValue converts a snak to a quad value; ok is false for novalue. A
// somevalue snak becomes a grove:unknown literal whose lexical form is
// ref, which names the snak, so that two unknown values stay two and never
// read as the string "unknown value" (store.GroveUnknown).
func snakValue(s *snak, ref string) (quad.Value, bool, error) {
	switch s.Snaktype {
	case snakNoValue:
		return nil, false, nil
	case snakSomeValue:
		return quad.TypedString{Value: quad.String(ref), Type: store.GroveUnknown}, true, nil
	case snakValueType:
	default:
		return nil, false, fmt.Errorf("snaktype: unknown %q", s.Snaktype)
	}
	if !s.HasValue {
		return nil, false, errors.New("datavalue: missing")
	}
	var u valueUnion
	if err := u.decode(s.Value); err != nil {
		return nil, false, fmt.Errorf("datavalue: %w", err)
	}
	v, err := dataValue(s.ValueType, &u, s.Datatype)
	if err != nil {
		return nil, false, fmt.Errorf("datavalue: %w", err)
	}
	return v, true, nil
}

// dataValue converts by the datavalue type; the snak datatype only
// refines strings (url).
func dataValue(typ string, u *valueUnion, datatype string) (quad.Value, error) {
	if u.IsString != (typ == "string") {
		return nil, fmt.Errorf("value of type %q has the wrong JSON form", typ)
	}
	switch typ {
	case "string":
		if datatype == "url" {
			return quad.TypedString{Value: quad.String(u.Str), Type: xsdAnyURI}, nil
		}
		return quad.String(u.Str), nil
	case "wikibase-entityid":
		id, err := entityIDOf(&u.Obj)
		return quad.IRI(id), err
	case "monolingualtext":
		if u.Obj.Language == "" {
			return nil, errors.New("monolingualtext without language")
		}
		return quad.LangString{Value: quad.String(u.Obj.Text), Lang: u.Obj.Language}, nil
	case "time":
		return timeValue(&u.Obj)
	case "quantity":
		return quantityValue(&u.Obj)
	case "globecoordinate":
		return globeValue(&u.Obj)
	}
	return nil, fmt.Errorf("unsupported datavalue type %q", typ)
}

// entityIDOf returns the id of an entity value ("Q183", "L7-F1").
func entityIDOf(o *valueObject) (string, error) {
	id := o.ID
	if id == "" && o.NumericID > 0 {
		prefix := map[string]string{"item": "Q", "property": "P", "lexeme": "L"}[o.EntityType]
		if prefix != "" {
			id = prefix + strconv.FormatInt(o.NumericID, 10)
		}
	}
	if id == "" {
		return "", errors.New("entity value without id")
	}
	for i := 0; i < len(id); i++ {
		ch := id[i]
		if (ch < '0' || ch > '9') && (ch < 'A' || ch > 'Z') && (ch < 'a' || ch > 'z') && ch != '-' {
			return "", fmt.Errorf("invalid entity id %q", id)
		}
	}
	return id, nil
}

// timeValue renders "<time> <precision>[ julian]".
func timeValue(o *valueObject) (quad.Value, error) {
	if o.Precision == nil {
		return nil, errors.New("time without precision")
	}
	p := *o.Precision
	if p != math.Trunc(p) || p < literal.PrecisionGigayear || p > literal.PrecisionSecond {
		return nil, fmt.Errorf("time precision %v out of range 0-14", p)
	}
	s := o.Time + " " + strconv.Itoa(int(p))
	if o.CalendarModel == julianCalendar && p >= literal.PrecisionMonth {
		s += " " + literal.JulianMark
	}
	if _, err := literal.ParseTime(s); err != nil {
		return nil, err
	}
	return quad.TypedString{Value: quad.String(s), Type: store.GroveTime}, nil
}

// quantityValue renders "<amount> [<lower>,<upper>] <unit id>", the
// bounds only when they differ from the amount and the unit only when
// there is one (see literal.ParseQuantity).
func quantityValue(o *valueObject) (quad.Value, error) {
	if (o.LowerBound == "") != (o.UpperBound == "") {
		return nil, errors.New("quantity with only one bound")
	}
	q := literal.Quantity{Amount: strings.TrimPrefix(o.Amount, "+"),
		Lower: strings.TrimPrefix(o.LowerBound, "+"), Upper: strings.TrimPrefix(o.UpperBound, "+")}
	if q.Lower == q.Amount && q.Upper == q.Amount {
		q.Lower, q.Upper = "", "" // ±0: Wikidata's default, no range
	}
	switch unit := strings.TrimPrefix(o.Unit, entityNS); unit {
	case "1", "":
	default:
		q.Unit = unit
	}
	s := q.String()
	if _, err := literal.ParseQuantity(s); err != nil {
		return nil, err
	}
	return quad.TypedString{Value: quad.String(s), Type: store.GroveQuantity}, nil
}

// globeValue renders "Point(lon lat)", with the globe IRI first when it
// is not Earth.
func globeValue(o *valueObject) (quad.Value, error) {
	if o.Latitude == nil || o.Longitude == nil {
		return nil, errors.New("globecoordinate without latitude or longitude")
	}
	lat, lon := *o.Latitude, *o.Longitude
	if math.Abs(lat) > 90 || math.Abs(lon) > 360 {
		return nil, fmt.Errorf("coordinates (%v, %v) out of range", lat, lon)
	}
	s := "Point(" + strconv.FormatFloat(lon, 'f', -1, 64) + " " + strconv.FormatFloat(lat, 'f', -1, 64) + ")"
	if o.Globe != "" && o.Globe != earthGlobe {
		if strings.ContainsAny(o.Globe, "<> ") {
			return nil, fmt.Errorf("invalid globe %q", o.Globe)
		}
		s = "<" + o.Globe + "> " + s
	}
	return quad.TypedString{Value: quad.String(s), Type: store.WKTLiteral}, nil
}

// sortIDs sorts entity ids by letter, then number (P17 < P131).
func sortIDs(ids []string) {
	slices.SortFunc(ids, compareIDs)
}

// compareIDs orders entity ids by letter, then number (P17 < P131); ids
// that are not a letter and a number compare as strings.
func compareIDs(a, b string) int {
	na, oka := idNumber(a)
	nb, okb := idNumber(b)
	return compareNumbered(a, na, oka, b, nb, okb)
}

// compareNumbered is compareIDs with the ids' numbers already parsed
// (idNumber).
func compareNumbered(a string, na uint64, oka bool, b string, nb uint64, okb bool) int {
	if oka && okb && a[0] == b[0] {
		return cmp.Compare(na, nb)
	}
	return strings.Compare(a, b)
}
