package musicbrainz

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// fieldErr is a bad value at a field of the document.
type fieldErr struct {
	field string
	err   error
}

// at prefixes the field with the path of its container.
func (e *fieldErr) at(prefix string) *fieldErr {
	if e.field == "" {
		return &fieldErr{prefix, e.err}
	}
	return &fieldErr{prefix + "." + e.field, e.err}
}

// Entity property predicates, "mb:prop/<name>".
const propPrefix = store.MusicBrainzPrefix + "prop/"

// hiddenProps are external identifiers, hidden from reasoners by default.
var hiddenProps = map[string]bool{
	"isni": true, "ipi": true, "isrc": true, "iswc": true, "barcode": true,
	"iso_3166_1": true, "iso_3166_2": true,
}

// doc builds the quads of one document into the run's buffer.
type doc struct {
	r    *run
	typ  string
	id   quad.IRI
	self quad.Value
}

// build validates rec, an entity of type typ, and buffers its quads.
func (r *run) build(typ string, rec *record) *fieldErr {
	id, err := entityID(typ, rec.ID)
	if err != nil {
		return &fieldErr{"id", err}
	}
	d := &doc{r: r, typ: typ, id: id, self: id}
	d.names(rec)
	if err := d.props(rec); err != nil {
		return err
	}
	if err := d.refs(rec); err != nil {
		return err
	}
	for i := range rec.Relations {
		if err := d.relation(&rec.Relations[i]); err != nil {
			return err.at(fmt.Sprintf("relations[%d]", i))
		}
	}
	return nil
}

// quad buffers one quad.
func (d *doc) quad(s quad.Value, p string, o quad.Value) {
	d.r.buf = append(d.r.buf, quad.Quad{Subject: s, Predicate: quad.IRI(p), Object: o})
}

// once reports whether the metadata keyed k is still to be written, and
// marks it written when the document commits.
func (d *doc) once(k string) bool {
	if d.r.said[k] {
		return false
	}
	return d.r.pending.say(k)
}

// names writes type, label, sort name, aliases and descriptions. The type,
// label and disambiguation are left out when another document of this read
// already wrote them for the entity it embeds, as they are the same.
func (d *doc) names(rec *record) {
	label := rec.Name
	if label == "" {
		label = rec.Title
	}
	if d.described(string(d.id), label, rec.Disambiguation) {
		d.quad(d.self, store.GroveNodeType, quad.String(d.typ))
		if label != "" {
			d.quad(d.self, store.RDFSLabel, quad.String(label))
		}
		if rec.Disambiguation != "" {
			d.quad(d.self, store.SchemaDesc, quad.String(rec.Disambiguation))
		}
	}
	alt := map[string]bool{label: true, "": true}
	if !alt[rec.SortName] {
		alt[rec.SortName] = true
		d.quad(d.self, store.SKOSAltLabel, quad.String(rec.SortName))
	}
	for _, a := range rec.Aliases {
		if a.Name == "" || alt[a.Name] || !keepLocale(a.Locale, d.r.opts.Languages) {
			continue
		}
		alt[a.Name] = true
		var v quad.Value = quad.String(a.Name)
		if a.Locale != "" {
			v = quad.LangString{Value: quad.String(a.Name), Lang: langTag(a.Locale)}
		}
		d.quad(d.self, store.SKOSAltLabel, v)
	}
	if rec.Description != "" {
		d.quad(d.self, store.SchemaDesc, quad.String(rec.Description))
	}
}

// described records that the entity id has the given label and
// disambiguation, and reports whether they still have to be written: false
// when this read recently wrote exactly these for id.
func (d *doc) described(id, label, disambiguation string) bool {
	v := label + "\x00" + disambiguation
	if old, ok := d.r.labelled.get(id); ok && old == v {
		return false
	}
	return d.r.pending.label(id, v)
}

// prop writes one literal property and, once, the property's label.
func (d *doc) prop(name string, v quad.Value) {
	if v == nil {
		return
	}
	if s, ok := v.(quad.String); ok && s == "" {
		return
	}
	p := propPrefix + name
	if d.once(p) {
		d.quad(quad.IRI(p), store.RDFSLabel, quad.String(strings.ReplaceAll(name, "_", " ")))
		if hiddenProps[name] {
			d.quad(quad.IRI(p), store.GroveHidden, quad.String("true"))
		}
	}
	d.quad(d.self, p, v)
}

// props writes the literal properties of rec.
func (d *doc) props(rec *record) *fieldErr {
	for _, p := range []struct{ name, value string }{
		{"type", rec.Type}, {"gender", rec.Gender}, {"country", rec.Country},
		{"status", rec.Status}, {"packaging", rec.Packaging}, {"primary_type", rec.PrimaryType},
		{"language", rec.Language}, {"address", rec.Address}, {"time", rec.Time}, {"barcode", rec.Barcode},
	} {
		d.prop(p.name, quad.String(p.value))
	}
	for _, p := range []struct {
		name   string
		values []string
	}{
		{"secondary_type", rec.SecondaryTypes}, {"language", rec.Languages}, {"isni", rec.ISNIs},
		{"ipi", rec.IPIs}, {"isrc", rec.ISRCs}, {"iswc", rec.ISWCs},
		{"iso_3166_1", rec.ISO31661}, {"iso_3166_2", rec.ISO31662},
	} {
		for _, v := range p.values {
			d.prop(p.name, quad.String(v))
		}
	}
	if err := d.dates(rec); err != nil {
		return err
	}
	if err := d.numbers(rec); err != nil {
		return err
	}
	if rec.Video {
		d.prop("video", quad.Bool(true))
	}
	if rec.Cancelled {
		d.prop("cancelled", quad.Bool(true))
	}
	if rec.Coordinates != nil && (rec.Coordinates.Latitude != "" || rec.Coordinates.Longitude != "") {
		v, err := pointLiteral(rec.Coordinates)
		if err != nil {
			return &fieldErr{"coordinates", err}
		}
		d.prop("coordinates", v)
	}
	return nil
}

// dates writes the life span, first release date and release date.
func (d *doc) dates(rec *record) *fieldErr {
	var ls lifeSpan
	if rec.LifeSpan != nil {
		ls = *rec.LifeSpan
	}
	for _, p := range []struct{ name, field, value string }{
		{"begin", "life-span.begin", ls.Begin}, {"end", "life-span.end", ls.End},
		{"first_release_date", "first-release-date", rec.FirstReleaseDate}, {"date", "date", rec.Date},
	} {
		v, err := dateLiteral(p.value)
		if err != nil {
			return &fieldErr{p.field, err}
		}
		d.prop(p.name, v)
	}
	if ls.Ended && ls.End == "" {
		d.prop("ended", quad.Bool(true))
	}
	return nil
}

// numbers writes length (milliseconds), label code and rating.
func (d *doc) numbers(rec *record) *fieldErr {
	for _, p := range []struct{ name, field, value string }{
		{"length_ms", "length", string(rec.Length)}, {"label_code", "label-code", string(rec.LabelCode)},
	} {
		if p.value == "" {
			continue
		}
		v, err := numberLiteral(p.value)
		if err != nil {
			return &fieldErr{p.field, err}
		}
		d.prop(p.name, v)
	}
	if rec.Rating != nil && rec.Rating.Votes > 0 && rec.Rating.Value != "" {
		v, err := numberLiteral(string(rec.Rating.Value))
		if err != nil {
			return &fieldErr{"rating.value", err}
		}
		d.prop("rating", v)
	}
	return nil
}

// refs writes the links to embedded entities that are fields rather than
// relationships: areas, genres, artist credits, release group, labels and
// track recordings.
func (d *doc) refs(rec *record) *fieldErr {
	for _, a := range []struct {
		name  string
		field string
		ref   *entityRef
	}{{"area", "area", rec.Area}, {"begin_area", "begin-area", rec.BeginArea}, {"end_area", "end-area", rec.EndArea}} {
		if err := d.ref(a.name, "area", a.ref, a.field); err != nil {
			return err
		}
	}
	if err := d.ref("release_group", "release-group", rec.ReleaseGroup, "release-group"); err != nil {
		return err
	}
	for i := range rec.Genres {
		if err := d.ref("genre", "genre", &rec.Genres[i], fmt.Sprintf("genres[%d]", i)); err != nil {
			return err
		}
	}
	for i := range rec.ArtistCredit {
		if err := d.ref("artist", "artist", &rec.ArtistCredit[i].Artist, fmt.Sprintf("artist-credit[%d].artist", i)); err != nil {
			return err
		}
	}
	for i, li := range rec.LabelInfo {
		d.prop("catalog_number", quad.String(li.CatalogNumber))
		if err := d.ref("label", "label", li.Label, fmt.Sprintf("label-info[%d].label", i)); err != nil {
			return err
		}
	}
	for i, m := range rec.Media {
		d.prop("format", quad.String(m.Format))
		for j, t := range m.Tracks {
			if err := d.ref("track", "recording", t.Recording, fmt.Sprintf("media[%d].tracks[%d].recording", i, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ref writes <self> mb:prop/<name> <mb:typ/id> for an embedded entity (nil
// is skipped) and the entity's label and type.
func (d *doc) ref(name, typ string, e *entityRef, field string) *fieldErr {
	if e == nil {
		return nil
	}
	id, err := entityID(typ, e.ID)
	if err != nil {
		return &fieldErr{field + ".id", err}
	}
	p := propPrefix + name
	if d.once(p) {
		d.quad(quad.IRI(p), store.RDFSLabel, quad.String(strings.ReplaceAll(name, "_", " ")))
	}
	d.quad(d.self, p, id)
	d.describe(typ, id, e)
	return nil
}

// describe writes the type, label and disambiguation of an embedded
// entity, unless they were written recently.
func (d *doc) describe(typ string, id quad.IRI, e *entityRef) {
	label := e.label()
	if label == "" || id == d.id || !d.described(string(id), label, e.Disambiguation) {
		return
	}
	d.quad(id, store.GroveNodeType, quad.String(typ))
	d.quad(id, store.RDFSLabel, quad.String(label))
	if e.Disambiguation != "" {
		d.quad(id, store.SchemaDesc, quad.String(e.Disambiguation))
	}
}

// relation writes one relationship: the direct edge, its statement node
// when qualified, the predicate's labels and, for Wikidata URLs, the
// cross-graph link.
func (d *doc) relation(rel *relation) *fieldErr {
	if d.r.opts.ForwardOnly && rel.Direction == "backward" {
		return nil
	}
	l, ferr := buildLink(d.typ, d.id, rel)
	if ferr != nil {
		return ferr
	}
	if l.sameAs != "" {
		d.quad(d.self, store.GroveSameAs, quad.IRI(l.sameAs))
	}
	if !l.urlTarget {
		if d.duplicate(l) {
			return nil
		}
		d.describe(l.targetType, l.targetID, l.target)
	}
	d.describeRelation(l.pred, rel.Type, l.urlTarget)
	d.quad(l.subj, l.pred, l.obj)
	if len(l.quals) == 0 {
		return nil
	}
	st := statementNode(d.r.opts.Graph, l.key())
	d.quad(l.subj, store.StatementPrefix+l.pred, st)
	d.quad(st, store.StatementValuePrefix+l.pred, l.obj)
	for _, q := range l.quals {
		if d.once(q.pred) {
			name := strings.TrimPrefix(q.pred, qualPrefix)
			d.quad(quad.IRI(q.pred), store.RDFSLabel, quad.String(strings.ReplaceAll(name, "_", " ")))
		}
		d.quad(st, store.QualifierPrefix+q.pred, q.value)
	}
	return nil
}

// duplicate reports whether l, a relationship between two entities of the
// document's type, was already written from its other end in this read.
// Such relationships appear in both documents of one dump; the first copy
// is written and the second dropped.
func (d *doc) duplicate(l *link) bool {
	if l.targetType != d.typ || d.r.opts.ForwardOnly {
		return false
	}
	k := l.key()
	if _, ok := d.r.halfSeen[k]; ok {
		d.r.pending.unseen = append(d.r.pending.unseen, k)
		return true
	}
	d.r.pending.seen = append(d.r.pending.seen, k)
	return false
}

// describeRelation writes a relationship predicate's labels once: the
// forward reading as rdfs:label, the backward one as grove:inverseLabel,
// the MusicBrainz type name as skos:altLabel when it differs, and
// grove:hidden for links to URLs.
func (d *doc) describeRelation(pred, typ string, url bool) {
	if !d.once(pred) {
		return
	}
	ph := phraseOf(typ)
	p := quad.IRI(pred)
	d.quad(p, store.RDFSLabel, quad.String(ph.forward))
	d.quad(p, store.GroveInverseLabel, quad.String(ph.backward))
	if ph.forward != typ {
		d.quad(p, store.SKOSAltLabel, quad.String(typ))
	}
	if url {
		d.quad(p, store.GroveHidden, quad.String("true"))
	}
}
