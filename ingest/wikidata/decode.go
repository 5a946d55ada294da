package wikidata

import (
	"errors"
	"slices"
	"strconv"
)

// This file decodes an entity line with the package's scanner, in one pass
// over the bytes: every object and array is walked from a cursor, each
// member's value is parsed where it starts and the walk goes on where it
// ends. Nothing is decoded through reflection; the only allocations are
// the strings and slices the converter needs, and each worker's decoder
// reuses its entity and statement storage from line to line. A datavalue's
// value is kept as raw bytes (a sub-slice of the line) and decoded by
// snakValue when its statement is kept, so values of dropped statements are
// checked for syntax only.
//
// Offsets in syntax errors are bytes from the start of the line, except
// inside a language map (labels, descriptions, aliases, sitelinks) or a
// datavalue, where they count from the start of that value.

// scan is a cursor-based walk over one entity line.
type scan struct{ b []byte }

// object walks the object starting at b[i] (after space) and returns the
// index after it. fn parses the value of each member starting at vi and
// returns the index after that value. "[]" is accepted as an empty object
// (old dumps serialise empty maps so) and null as no object, as
// encoding/json does.
func (s scan) object(i int, fn func(key []byte, vi int) (int, error)) (int, error) {
	i = skipSpace(s.b, i)
	if i < len(s.b) && s.b[i] == '[' {
		if j := skipSpace(s.b, i+1); j < len(s.b) && s.b[j] == ']' {
			return j + 1, nil
		}
	}
	i, done, err := s.open(i, '{', '}', "an object")
	if done || err != nil {
		return i, err
	}
	for {
		key, vi, err := s.key(i)
		if err != nil {
			return 0, err
		}
		if i, err = fn(key, vi); err != nil {
			return 0, err
		}
		if i, err = s.next(i, '}'); err != nil || i < 0 {
			return -i, err
		}
	}
}

// open reads the start of an object or array at b[i]: it returns the
// index of the first member or element, or (done) the index after a null
// or empty value.
func (s scan) open(i int, opening, closing byte, what string) (int, bool, error) {
	b := s.b
	i = skipSpace(b, i)
	if s.isNull(i) {
		return i + 4, true, nil
	}
	if i >= len(b) || b[i] != opening {
		return 0, false, synErr(i, "want %s", what)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, true, nil
	}
	return i, false, nil
}

// key reads `"key":` at b[i] and returns the raw key and where its value
// starts.
func (s scan) key(i int) ([]byte, int, error) {
	b := s.b
	if i >= len(b) || b[i] != '"' {
		return nil, 0, synErr(i, "want a member name")
	}
	end, err := skipString(b, i)
	if err != nil {
		return nil, 0, err
	}
	j := skipSpace(b, end)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, synErr(j, "want ':' after a member name")
	}
	return b[i:end], skipSpace(b, j+1), nil
}

// next reads the ',' or closing bracket after a value ending at i. It
// returns the start of the next value, or minus the index after the
// closing bracket.
func (s scan) next(i int, closing byte) (int, error) {
	b := s.b
	i = skipSpace(b, i)
	switch {
	case i >= len(b):
		return 0, eofErr(i)
	case b[i] == ',':
		return skipSpace(b, i+1), nil
	case b[i] == closing:
		return -(i + 1), nil
	}
	return 0, synErr(i, "want ',' or %q, got %q", closing, b[i])
}

// array walks the array starting at b[i] (null: no array); fn parses each
// element starting at ei and returns the index after it.
func (s scan) array(i int, fn func(ei int) (int, error)) (int, error) {
	i, done, err := s.open(i, '[', ']', "an array")
	if done || err != nil {
		return i, err
	}
	for {
		if i, err = fn(i); err != nil {
			return 0, err
		}
		if i, err = s.next(i, ']'); err != nil || i < 0 {
			return -i, err
		}
	}
}

// skip returns the index after the value at b[i].
func (s scan) skip(i int) (int, error) { return skipValue(s.b, i) }

// isNull reports whether the value at b[i] is null.
func (s scan) isNull(i int) bool {
	return len(s.b)-i >= 4 && string(s.b[i:i+4]) == "null"
}

// str reads a string (or null, as "") at b[i]. Tokens equal to one of
// known return that constant without allocating.
func (s scan) str(i int, known []string) (string, int, error) {
	if s.isNull(i) {
		return "", i + 4, nil
	}
	tok, end, err := s.token(i)
	if err != nil {
		return "", 0, err
	}
	for _, k := range known {
		if keyIs(tok, k) {
			return k, end, nil
		}
	}
	v, err := unquote(tok)
	if err != nil {
		return "", 0, synErr(i, "%v", err)
	}
	return v, end, nil
}

// token returns the raw string token at b[i] (quotes included), nil for
// null; unquote decodes it.
func (s scan) token(i int) ([]byte, int, error) {
	if s.isNull(i) {
		return nil, i + 4, nil
	}
	if i >= len(s.b) || s.b[i] != '"' {
		return nil, 0, synErr(i, "want a string")
	}
	end, err := skipString(s.b, i)
	if err != nil {
		return nil, 0, err
	}
	return s.b[i:end], end, nil
}

// raw returns the value at b[i] as bytes (nil for null).
func (s scan) raw(i int) ([]byte, int, error) {
	end, err := s.skip(i)
	if err != nil || s.isNull(i) {
		return nil, end, err
	}
	return s.b[i:end], end, nil
}

// Values the reader compares often, returned by scan.str without
// allocating.
var (
	knownTypes     = []string{typeItem, typeProperty, typeLexeme}
	knownRanks     = []string{"normal", "preferred", "deprecated"}
	knownSnaktypes = []string{"value", "somevalue", "novalue"}
	knownDatatypes = []string{"wikibase-item", "external-id", "string", "time", "quantity", "monolingualtext",
		"commonsMedia", "url", "globe-coordinate", "wikibase-property", "math", "wikibase-lexeme",
		"wikibase-form", "wikibase-sense", "musical-notation", "geo-shape", "tabular-data", "entity-schema"}
	knownValueTypes = []string{"wikibase-entityid", "string", "time", "quantity", "monolingualtext",
		"globecoordinate"}
)

// decoder decodes entity lines for one worker. The entity it returns and
// its claims are valid until the next decode; the strings in them are not
// shared with the line.
type decoder struct {
	ls    *langSet
	e     entity
	stmts []statement // storage of every property's statements
}

// decode reads one entity line, keeping only the languages of d.ls.
func (d *decoder) decode(line []byte) (*entity, error) {
	d.e = entity{Claims: d.e.Claims[:0]}
	d.stmts = d.stmts[:0]
	for i, m := range d.e.langMaps() {
		m.ls, m.kind = d.ls, langMapKinds[i]
	}
	s := scan{b: line}
	end, err := s.object(0, func(key []byte, vi int) (int, error) { return d.member(s, key, vi) })
	if err != nil {
		return nil, err
	}
	if err := trailing(line, end, 0); err != nil {
		return nil, err
	}
	d.e.Claims = d.e.Claims.sorted()
	return &d.e, nil
}

// The string and language-map members of an entity, in the order of
// entity.strings and entity.langMaps.
var (
	stringMembers  = []string{"type", "id", "datatype", "lexicalCategory", "language"}
	langMapMembers = []string{"labels", "lemmas", "descriptions", "aliases", "sitelinks"}
	langMapKinds   = [...]int{kindLabels, kindLabels, kindDescriptions, kindAliases, kindSitelinks}
)

func (e *entity) strings() [5]*string {
	return [...]*string{&e.Type, &e.ID, &e.Datatype, &e.LexicalCategory, &e.Language}
}

func (e *entity) langMaps() [5]*langMap {
	return [...]*langMap{&e.Labels, &e.Lemmas, &e.Descriptions, &e.Aliases, &e.Sitelinks}
}

// member decodes one top-level member of an entity. String members
// return the entity type constants without allocating.
func (d *decoder) member(s scan, key []byte, vi int) (int, error) {
	if i := index(key, stringMembers); i >= 0 {
		v, end, err := s.str(vi, knownTypes)
		*d.e.strings()[i] = v
		return end, err
	}
	i := index(key, langMapMembers)
	switch {
	case i >= 0:
		n, err := d.e.langMaps()[i].decode(s.b[vi:])
		if errors.Is(err, errEOF) {
			return 0, eofErr(len(s.b)) // a truncated line, not a bad map
		}
		return vi + n, err
	case keyIs(key, "claims"):
		return d.claims(s, vi)
	}
	return s.skip(vi)
}

// claims decodes {"P17": [statement, ...], ...} into d.e.Claims. The
// statements of a property are a run of d.stmts; a run made before the
// storage grew keeps the old storage, which holds the same values.
func (d *decoder) claims(s scan, i int) (int, error) {
	return s.object(i, func(key []byte, vi int) (int, error) {
		p, err := unquote(key)
		if err != nil {
			return 0, synErr(vi, "%v", err)
		}
		lo := len(d.stmts)
		end, err := s.array(vi, func(ei int) (int, error) {
			d.stmts = growStatement(d.stmts)
			return s.statement(ei, &d.stmts[len(d.stmts)-1])
		})
		d.e.Claims = append(d.e.Claims, propClaims{Prop: p, Stmts: d.stmts[lo:len(d.stmts):len(d.stmts)]})
		return end, err
	})
}

// growStatement appends an empty statement, reusing the qualifier storage
// of the one that was there before.
func growStatement(ss []statement) []statement {
	if len(ss) < cap(ss) {
		ss = ss[:len(ss)+1]
		st := &ss[len(ss)-1]
		*st = statement{Qualifiers: st.Qualifiers[:0], QualifiersOrder: st.QualifiersOrder[:0]}
		return ss
	}
	return append(ss, statement{})
}

// statement decodes one claim.
func (s scan) statement(i int, st *statement) (int, error) {
	return s.object(i, func(key []byte, vi int) (int, error) {
		var err error
		end := 0
		switch string(key[1 : len(key)-1]) {
		case "id":
			st.IDToken, end, err = s.token(vi)
		case "rank":
			st.Rank, end, err = s.str(vi, knownRanks)
		case "mainsnak":
			st.Mainsnak = snak{}
			end, err = s.snak(vi, &st.Mainsnak)
		case "qualifiers":
			st.Qualifiers = st.Qualifiers[:0]
			end, err = s.qualifiers(vi, &st.Qualifiers)
		case "qualifiers-order":
			st.QualifiersOrder = st.QualifiersOrder[:0]
			end, err = s.strings(vi, &st.QualifiersOrder)
		default:
			end, err = s.skip(vi)
		}
		return end, err
	})
}

// qualifiers decodes {"P580": [snak, ...], ...}; a repeated property
// replaces the earlier one.
func (s scan) qualifiers(i int, qs *[]propSnaks) (int, error) {
	return s.object(i, func(key []byte, vi int) (int, error) {
		p, err := unquote(key)
		if err != nil {
			return 0, synErr(vi, "%v", err)
		}
		var snaks []snak
		end, err := s.array(vi, func(ei int) (int, error) {
			snaks = append(snaks, snak{})
			return s.snak(ei, &snaks[len(snaks)-1])
		})
		if k := slices.IndexFunc(*qs, func(q propSnaks) bool { return q.Prop == p }); k >= 0 {
			(*qs)[k].Snaks = snaks
		} else {
			*qs = append(*qs, propSnaks{Prop: p, Snaks: snaks})
		}
		return end, err
	})
}

// strings decodes an array of strings (null: none).
func (s scan) strings(i int, out *[]string) (int, error) {
	return s.array(i, func(ei int) (int, error) {
		v, end, err := s.str(ei, nil)
		*out = append(*out, v)
		return end, err
	})
}

// snak decodes a main snak or qualifier; the datavalue stays raw.
func (s scan) snak(i int, sn *snak) (int, error) {
	return s.object(i, func(key []byte, vi int) (int, error) {
		var err error
		end := 0
		switch string(key[1 : len(key)-1]) {
		case "snaktype":
			sn.Snaktype, end, err = s.str(vi, knownSnaktypes)
		case "datatype":
			sn.Datatype, end, err = s.str(vi, knownDatatypes)
		case "datavalue":
			end, err = s.datavalue(vi, sn)
		default:
			end, err = s.skip(vi)
		}
		return end, err
	})
}

// datavalue reads {"value": ..., "type": ...} into sn, the value raw.
func (s scan) datavalue(i int, sn *snak) (int, error) {
	sn.HasValue, sn.ValueType, sn.Value = false, "", nil
	if s.isNull(i) {
		return i + 4, nil
	}
	sn.HasValue = true
	return s.object(i, func(key []byte, vi int) (int, error) {
		var err error
		end := 0
		switch string(key[1 : len(key)-1]) {
		case "type":
			sn.ValueType, end, err = s.str(vi, knownValueTypes)
		case "value":
			sn.Value, end, err = s.raw(vi)
		default:
			end, err = s.skip(vi)
		}
		return end, err
	})
}

// sorted orders the claims by property id (letter, then number) and keeps
// the last of properties given twice, as a map would.
func (cs claims) sorted() claims {
	for i := range cs {
		cs[i].num, cs[i].numOK = idNumber(cs[i].Prop)
	}
	if !slices.IsSortedFunc(cs, comparePropClaims) {
		slices.SortStableFunc(cs, comparePropClaims)
	}
	out := cs[:0]
	for _, c := range cs {
		if n := len(out); n > 0 && out[n-1].Prop == c.Prop {
			out[n-1] = c
			continue
		}
		out = append(out, c)
	}
	return out
}

// idNumber returns the number of an id such as P17 (ok: a letter and a
// number).
func idNumber(s string) (uint64, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 64)
	return n, err == nil
}

// comparePropClaims orders claims by property like compareIDs.
func comparePropClaims(a, b propClaims) int {
	return compareNumbered(a.Prop, a.num, a.numOK, b.Prop, b.num, b.numOK)
}

// get returns the statements of property p.
func (cs claims) get(p string) []statement {
	for i := range cs {
		if cs[i].Prop == p {
			return cs[i].Stmts
		}
	}
	return nil
}
