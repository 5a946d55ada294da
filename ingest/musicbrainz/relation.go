package musicbrainz

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// phrase is how a relationship reads forwards (entity0 to entity1) and
// backwards.
type phrase struct{ forward, backward string }

// phrases are Grove's short English readings of common MusicBrainz
// relationship types, oriented from entity0 to entity1 as MusicBrainz
// stores them (the person is entity0 of "member of band", the recording
// entity0 of "performance"). Other types read as their name forwards and
// "<name> (inverse)" backwards.
var phrases = map[string]phrase{
	"member of band":                   {"member of band", "has member"},
	"subgroup":                         {"subgroup of", "has subgroup"},
	"collaboration":                    {"collaborated on", "has collaborator"},
	"founder":                          {"founded", "founded by"},
	"sibling":                          {"sibling of", "sibling of"},
	"married":                          {"married to", "married to"},
	"parent":                           {"parent of", "child of"},
	"teacher":                          {"taught", "taught by"},
	"composer":                         {"composed", "composed by"},
	"lyricist":                         {"wrote lyrics for", "lyrics by"},
	"writer":                           {"wrote", "written by"},
	"arranger":                         {"arranged", "arranged by"},
	"producer":                         {"produced", "produced by"},
	"performer":                        {"performed on", "performed by"},
	"instrument":                       {"played on", "instrument by"},
	"vocal":                            {"sang on", "vocals by"},
	"conductor":                        {"conducted", "conducted by"},
	"mix":                              {"mixed", "mixed by"},
	"engineer":                         {"engineered", "engineered by"},
	"supporting musician":              {"supporting musician for", "has supporting musician"},
	"vocal supporting musician":        {"vocal supporting musician for", "has vocal supporting musician"},
	"instrumental supporting musician": {"instrumental supporting musician for", "has instrumental supporting musician"},
	"performance":                      {"is a performance of", "has performance"},
	"recording contract":               {"signed to", "has signed"},
	"part of":                          {"part of", "has part"},
	"tribute":                          {"tribute to", "has tribute"},
	"named after":                      {"named after", "namesake of"},
	"wikidata":                         {"Wikidata page", "Wikidata page of"},
	"official homepage":                {"official homepage", "official homepage of"},
}

// phraseOf returns the readings of a relationship type.
func phraseOf(typ string) phrase {
	if p, ok := phrases[typ]; ok {
		return p
	}
	return phrase{typ, typ + " (inverse)"}
}

// flagAttributes are relationship attributes that qualify the link itself
// rather than naming an instrument or a voice.
var flagAttributes = map[string]bool{
	"additional": true, "guest": true, "solo": true, "minor": true, "original": true,
	"founding": true, "co": true, "executive": true, "assistant": true, "associate": true,
	"live": true, "partial": true, "instrumental": true, "cover": true, "medley": true,
	"karaoke": true, "translated": true, "parody": true, "bonus": true, "cancelled": true,
	"eponymous": true, "pre-production": true, "demo": true, "remaster": true, "remix": true,
}

// instrumentRelations are the relationship types whose other attributes
// are instruments.
var instrumentRelations = map[string]bool{
	"member of band": true, "instrument": true, "instrumental supporting musician": true,
	"instrument arranger": true, "instrument technician": true, "teacher": true,
	"performing orchestra": true, "supporting musician": true,
}

// qualifier is one statement qualifier: predicate id and value.
type qualifier struct {
	pred  string
	value quad.Value
}

// Qualifier predicates, "mb:qual/<name>".
const qualPrefix = store.MusicBrainzPrefix + "qual/"

// attributeQualifier classifies one relationship attribute: a valued
// attribute ("number": "BWV 1") keeps its own name, vocals ("lead vocals")
// are "vocals", flags ("additional") are "attribute", and the rest of the
// attributes of instrument-bearing relationships ("guitar") are
// "instrument".
func attributeQualifier(relType, attr string, values map[string]string) qualifier {
	if v := values[attr]; v != "" {
		return qualifier{qualPrefix + slug(attr), quad.String(v)}
	}
	switch {
	case flagAttributes[attr]:
		return qualifier{qualPrefix + "attribute", quad.String(attr)}
	case strings.HasSuffix(attr, "vocals") || strings.HasSuffix(attr, "vocal"):
		return qualifier{qualPrefix + "vocals", quad.String(attr)}
	case instrumentRelations[relType]:
		return qualifier{qualPrefix + "instrument", quad.String(attr)}
	}
	return qualifier{qualPrefix + "attribute", quad.String(attr)}
}

// link is a relationship in canonical orientation, entity0 to entity1.
type link struct {
	subj, obj  quad.Value
	pred       string
	quals      []qualifier
	urlTarget  bool   // obj is a URL literal
	sameAs     string // Wikidata item of a wikidata URL relationship
	targetType string // URL form of the embedded entity's type
	target     *entityRef
	targetID   quad.IRI
}

// relationPredicate names a relationship type between two entity types:
// "mb:rel/artist-artist/member_of_band". MusicBrainz reuses type names
// across entity pairs ("owner" of a label, "owner" of a place), so the pair
// is part of the id.
func relationPredicate(e0, e1, typ string) string {
	return store.MusicBrainzPrefix + "rel/" + wsType(e0) + "-" + wsType(e1) + "/" + slug(typ)
}

// buildLink turns relations[i] of an entity of type self with id selfID
// into a canonical link. field prefixes error fields.
func buildLink(self string, selfID quad.IRI, rel *relation) (*link, *fieldErr) {
	if slug(rel.Type) == "" {
		return nil, &fieldErr{"type", errors.New("missing relationship type")}
	}
	if rel.Direction != "forward" && rel.Direction != "backward" {
		return nil, &fieldErr{"direction", fmt.Errorf("want forward or backward, got %q", rel.Direction)}
	}
	l := &link{}
	if rel.TargetType == "url" {
		if err := l.url(self, selfID, rel); err != nil {
			return nil, err
		}
	} else if err := l.entity(self, selfID, rel); err != nil {
		return nil, err
	}
	quals, err := relationQualifiers(rel)
	if err != nil {
		return nil, err
	}
	l.quals = quals
	return l, nil
}

// url fills a link to a URL: always from the entity to a literal URL, the
// only way MusicBrainz links URLs.
func (l *link) url(self string, selfID quad.IRI, rel *relation) *fieldErr {
	if rel.URL == nil || rel.URL.Resource == "" {
		return &fieldErr{"url.resource", errors.New("missing URL")}
	}
	l.subj, l.urlTarget = selfID, true
	l.obj = quad.TypedString{Value: quad.String(rel.URL.Resource), Type: quad.IRI(store.XSDAnyURI)}
	l.pred = relationPredicate(self, "url", rel.Type)
	if rel.Type == "wikidata" {
		q, err := wikidataItem(rel.URL.Resource)
		if err != nil {
			return &fieldErr{"url.resource", err}
		}
		l.sameAs = q
	}
	return nil
}

// entity fills a link to an embedded entity, oriented by direction.
func (l *link) entity(self string, selfID quad.IRI, rel *relation) *fieldErr {
	target := rel.target()
	if target == nil {
		if !entityTypes[urlType(rel.TargetType)] {
			return &fieldErr{"target-type", fmt.Errorf("unknown target type %q", rel.TargetType)}
		}
		return &fieldErr{rel.TargetType, errors.New("missing the target entity")}
	}
	tt := urlType(rel.TargetType)
	id, err := entityID(tt, target.ID)
	if err != nil {
		return &fieldErr{rel.TargetType + ".id", err}
	}
	l.target, l.targetType, l.targetID = target, tt, id
	if rel.Direction == "forward" {
		l.subj, l.obj = selfID, id
		l.pred = relationPredicate(self, tt, rel.Type)
	} else {
		l.subj, l.obj = id, selfID
		l.pred = relationPredicate(tt, self, rel.Type)
	}
	return nil
}

// relationQualifiers collects attributes, dates, the credited names of
// both ends and the ordering key, sorted for a stable statement id.
func relationQualifiers(rel *relation) ([]qualifier, *fieldErr) {
	var qs []qualifier
	for _, a := range rel.Attributes {
		if a == "" {
			return nil, &fieldErr{"attributes", errors.New("empty attribute")}
		}
		qs = append(qs, attributeQualifier(rel.Type, a, rel.AttributeValues))
	}
	for _, d := range []struct{ name, value string }{{"begin", rel.Begin}, {"end", rel.End}} {
		v, err := dateLiteral(d.value)
		if err != nil {
			return nil, &fieldErr{d.name, err}
		}
		if v != nil {
			qs = append(qs, qualifier{qualPrefix + d.name, v})
		}
	}
	if rel.Ended && rel.End == "" {
		qs = append(qs, qualifier{qualPrefix + "ended", quad.Bool(true)})
	}
	// source-credit is the credited name of the document's entity,
	// target-credit that of the other end. The document's entity is the
	// edge's subject when the relationship is forward and always for URLs
	// (written from the entity), its object otherwise; naming the credits
	// by edge end makes both documents' copies identical.
	subj, obj := rel.SourceCredit, rel.TargetCredit
	if rel.Direction == "backward" && rel.TargetType != "url" {
		subj, obj = obj, subj
	}
	for _, c := range []struct{ name, value string }{{"subject_credited_as", subj}, {"object_credited_as", obj}} {
		if c.value != "" {
			qs = append(qs, qualifier{qualPrefix + c.name, quad.String(c.value)})
		}
	}
	if rel.OrderingKey != "" {
		v, err := numberLiteral(string(rel.OrderingKey))
		if err != nil {
			return nil, &fieldErr{"ordering-key", err}
		}
		qs = append(qs, qualifier{qualPrefix + "order", v})
	}
	slices.SortFunc(qs, func(a, b qualifier) int {
		return strings.Compare(a.pred+"\x00"+quad.StringOf(a.value), b.pred+"\x00"+quad.StringOf(b.value))
	})
	return qs, nil
}

// key identifies the relationship by content: the same relationship read
// from both of its entities' documents has the same key.
func (l *link) key() [16]byte {
	h := sha256.New()
	for _, s := range []string{quad.StringOf(l.subj), l.pred, quad.StringOf(l.obj)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, q := range l.quals {
		h.Write([]byte(q.pred))
		h.Write([]byte{0})
		h.Write([]byte(quad.StringOf(q.value)))
		h.Write([]byte{0})
	}
	var k [16]byte
	copy(k[:], h.Sum(nil))
	return k
}

// statementNode is the blank node of a qualified relationship, scoped by
// graph and named by content so both ends produce the same node.
func statementNode(scope string, key [16]byte) quad.BNode {
	return quad.BNode(scope + "/mbrel-" + hex.EncodeToString(key[:12]))
}
