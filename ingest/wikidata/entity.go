package wikidata

import (
	"errors"
	"fmt"
	"strings"
)

// Entity types in the dump.
const (
	typeItem     = "item"
	typeProperty = "property"
	typeLexeme   = "lexeme"
)

// mulLanguage is Wikidata's "default for all languages" label language,
// used as a fallback when none of the chosen languages has a label.
const mulLanguage = "mul"

// langText is a text in one language.
type langText struct {
	Lang, Text string
}

// entity is the decoded part of one dump line (see decoder). The
// language maps keep only the chosen languages.
type entity struct {
	Type            string
	ID              string
	Datatype        string // properties
	LexicalCategory string // lexemes
	Language        string // lexemes
	Labels          langMap
	Lemmas          langMap // lexemes
	Descriptions    langMap
	Aliases         langMap
	Sitelinks       langMap
	Claims          claims
}

// fieldError is a decoding error at a named field of an entity.
type fieldError struct {
	Field string
	Err   error
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *fieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error) error { return &fieldError{Field: field, Err: err} }

// langSet is the chosen languages with their sitelink site ids.
type langSet struct {
	langs     []string
	sites     []string // "enwiki", "zh_yuewiki"
	sitelinks bool
}

func newLangSet(langs []string, sitelinks bool) *langSet {
	ls := &langSet{langs: langs, sitelinks: sitelinks}
	for _, l := range langs {
		ls.sites = append(ls.sites, strings.ReplaceAll(l, "-", "_")+"wiki")
	}
	return ls
}

// index returns the position of the raw key among names, or -1.
func index(key []byte, names []string) int {
	for i, n := range names {
		if keyIs(key, n) {
			return i
		}
	}
	return -1
}

// parseEntity decodes one entity line with d and checks it.
func parseEntity(d *decoder, line []byte) (*entity, error) {
	e, err := d.decode(line)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, fmt.Errorf("invalid entity JSON: %w", err)
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	if e.Type == typeLexeme && len(e.Labels.texts) == 0 {
		e.Labels = e.Lemmas
	}
	return e, nil
}

// Kinds of language maps.
const (
	kindLabels = iota
	kindDescriptions
	kindAliases
	kindSitelinks
)

// langMap is one language-keyed member (labels, lemmas, descriptions,
// aliases or sitelinks), decoded to the chosen languages only.
type langMap struct {
	ls    *langSet
	kind  int
	texts []langText
}

var mapFields = [...]string{"labels", "descriptions", "aliases", "sitelinks"}

// decode reads the member at the start of raw (the rest of the line)
// according to its kind and returns the index after it. Syntax error
// offsets count from the start of raw.
func (m *langMap) decode(raw []byte) (int, error) {
	if i := skipSpace(raw, 0); len(raw)-i >= 4 && string(raw[i:i+4]) == "null" {
		return i + 4, nil
	}
	var end int
	var err error
	switch m.kind {
	case kindLabels:
		m.texts, end, err = parseLangMap(raw, m.ls.langs, true)
	case kindDescriptions:
		m.texts, end, err = parseLangMap(raw, m.ls.langs, true)
	case kindAliases:
		m.texts, end, err = parseAliases(raw, m.ls.langs)
	case kindSitelinks:
		if !m.ls.sitelinks {
			return skipValue(raw, skipSpace(raw, 0))
		}
		m.texts, end, err = parseSitelinks(raw, m.ls)
	}
	if err != nil {
		return 0, fieldErr(mapFields[m.kind], err)
	}
	return end, nil
}

// validate checks the type and id.
func (e *entity) validate() error {
	var kind byte
	switch e.Type {
	case typeItem:
		kind = 'Q'
	case typeProperty:
		kind = 'P'
	case typeLexeme:
		kind = 'L'
	case "":
		return fieldErr("type", errors.New("missing"))
	default:
		return fieldErr("type", fmt.Errorf("unsupported entity type %q", e.Type))
	}
	if !isEntityID(e.ID, kind) {
		return fieldErr("id", fmt.Errorf("%q is not a valid %s id", e.ID, e.Type))
	}
	return nil
}

// parseLangMap reads {"en": {"language": "en", "value": "..."}, ...} and
// returns the chosen languages in their order. With fallback (labels and
// descriptions), an entity that has none of them still gets one, chosen
// by fallbackRank whatever the member order, so that every labelled
// entity has a name (many Wikidata items have no English label).
func parseLangMap(raw []byte, langs []string, fallback bool) ([]langText, int, error) {
	found := make([]string, len(langs))
	other := langCandidate{langs: langs}
	end, err := walkMembers(raw, 0, func(key, val []byte, voff int) error {
		i := index(key, langs)
		if i < 0 {
			if fallback {
				other.offer(key, val, voff)
			}
			return nil
		}
		s, err := memberString(val, voff, "value")
		found[i] = s
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	var out []langText
	for i, l := range langs {
		if found[i] != "" {
			out = append(out, langText{Lang: l, Text: found[i]})
		}
	}
	if len(out) == 0 && other.key != nil {
		s, err := memberString(other.val, other.off, "value")
		if err != nil {
			return nil, 0, err
		}
		if s != "" {
			out = append(out, langText{Lang: string(other.key[1 : len(other.key)-1]), Text: s})
		}
	}
	return out, end, nil
}

// langCandidate is the best text outside the chosen languages seen so far
// (see parseLangMap).
type langCandidate struct {
	langs    []string // the chosen languages
	key, val []byte   // raw key (quoted) and value
	off      int
}

// offer considers the member key: val, keeping only keys that are plain
// language codes (a-z, 0-9 and "-"), usable as a language tag, and of
// those the one fallbackRank puts first, the smallest code between equals.
func (c *langCandidate) offer(key, val []byte, off int) {
	if len(key) < 3 || !langCode(key[1:len(key)-1]) {
		return
	}
	r := fallbackRank(key, c.langs)
	if c.key == nil || r < fallbackRank(c.key, c.langs) ||
		r == fallbackRank(c.key, c.langs) && string(key) < string(c.key) {
		c.key, c.val, c.off = key, val, off
	}
}

// fallbackRank orders the fallback languages of a raw (quoted) key: "mul"
// first, then a regional variant of a chosen language ("en-gb" for "en",
// in the order of langs), then "en", then any English variant, then any
// other language.
func fallbackRank(key []byte, langs []string) int {
	code := string(key[1 : len(key)-1])
	if code == mulLanguage {
		return 0
	}
	for i, l := range langs {
		if strings.HasPrefix(code, l+"-") {
			return 1 + i
		}
	}
	switch {
	case code == "en":
		return 1 + len(langs)
	case strings.HasPrefix(code, "en-"):
		return 2 + len(langs)
	}
	return 3 + len(langs)
}

// langCode reports whether b looks like a Wikidata language code.
func langCode(b []byte) bool {
	for _, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return len(b) > 0 && b[0] != '-'
}

// parseAliases reads {"en": [{"language": "en", "value": "..."}, ...]}.
func parseAliases(raw []byte, langs []string) ([]langText, int, error) {
	byLang := make([][]string, len(langs))
	end, err := walkMembers(raw, 0, func(key, val []byte, voff int) error {
		i := index(key, langs)
		if i < 0 {
			return nil
		}
		return eachElement(val, voff, func(el []byte, eoff int) error {
			s, err := memberString(el, eoff, "value")
			if s != "" {
				byLang[i] = append(byLang[i], s)
			}
			return err
		})
	})
	if err != nil {
		return nil, 0, err
	}
	var out []langText
	for i, l := range langs {
		for _, s := range byLang[i] {
			out = append(out, langText{Lang: l, Text: s})
		}
	}
	return out, end, nil
}

// parseSitelinks reads {"enwiki": {"site": "enwiki", "title": "Berlin"}}.
func parseSitelinks(raw []byte, ls *langSet) ([]langText, int, error) {
	found := make([]string, len(ls.langs))
	end, err := walkMembers(raw, 0, func(key, val []byte, voff int) error {
		i := index(key, ls.sites)
		if i < 0 {
			return nil
		}
		s, err := memberString(val, voff, "title")
		found[i] = s
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	var out []langText
	for i, l := range ls.langs {
		if found[i] != "" {
			out = append(out, langText{Lang: l, Text: found[i]})
		}
	}
	return out, end, nil
}

// memberString returns the string member name of the object obj.
func memberString(obj []byte, off int, name string) (string, error) {
	var s string
	err := eachMember(obj, off, func(key, val []byte, voff int) error {
		if !keyIs(key, name) {
			return nil
		}
		v, err := unquote(val)
		if err != nil {
			return synErr(voff, "%s: %v", name, err)
		}
		s = v
		return nil
	})
	return s, err
}
