package llm

// Parsers for the canonical reply formats documented on the Kind constants.
//
// Every reasoner parses every reply (real model, scripted model or lexical
// policy) with these functions, so they are deliberately strict about the
// things that matter (an id is matched exactly, an action must lead the
// reply, a score comes from the "Score:" line only) and lenient about
// decoration real models add (markdown emphasis, bullets, labels, case).

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrUnparseable is wrapped by every parser error, so callers can tell a
// malformed reply (worth a re-ask) from other failures.
var ErrUnparseable = errors.New("unparseable model reply")

// maxQuoted bounds how much of a reply is echoed in an error message.
const maxQuoted = 80

func parseErr(what, format string, args ...any) error {
	return fmt.Errorf("parse %s: %s: %w", what, fmt.Sprintf(format, args...), ErrUnparseable)
}

// Quote shortens s to about 80 bytes (at a rune boundary, marked "…") and
// quotes it: the form in which error messages and warnings echo a model's
// reply, or anything derived from one, so that a runaway reply cannot
// flood a log or a trace.
func Quote(s string) string { return quoteN(s, maxQuoted) }

// quoteN shortens s to about n bytes and quotes it.
func quoteN(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// lines splits text into lines with surrounding blanks removed.
func lines(text string) []string {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = strings.TrimSpace(strings.ReplaceAll(l, "\r", ""))
	}
	return out
}

// stripDecoration removes leading markdown and list decoration: "**", "#",
// ">", "`", "- ", "* ", "1. ", "1) ".
func stripDecoration(s string) string {
	for {
		t := strings.TrimLeft(s, " \t*#>`")
		t = trimListMarker(t)
		if t == s {
			return t
		}
		s = t
	}
}

// trimListMarker removes one leading "- ", "• ", "1. " or "1) ".
func trimListMarker(s string) string {
	for _, m := range []string{"- ", "• ", "+ "} {
		if strings.HasPrefix(s, m) {
			return s[len(m):]
		}
	}
	i := 0
	for i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[i+2:]
	}
	return s
}

// trimTrailingDecoration removes trailing markdown emphasis and blanks.
func trimTrailingDecoration(s string) string {
	return strings.TrimRight(s, " \t*_`")
}

// trimLeadingEmphasis removes leading blanks and markdown emphasis ("*",
// "`", "_") and, when colons is set, stray ":" separators. An underscore
// followed by a colon is never removed: it starts a blank node ("_:film/6873").
func trimLeadingEmphasis(s string, colons bool) string {
	cut := " \t\n*`"
	if colons {
		cut += ":"
	}
	for {
		t := strings.TrimLeft(s, cut)
		if strings.HasPrefix(t, "_") && !strings.HasPrefix(t, "_:") {
			t = t[1:]
		}
		if t == s {
			return t
		}
		s = t
	}
}

// cutLabel reports whether line (already decoration-stripped) starts with
// one of labels followed by ':' (markdown emphasis between label and colon
// allowed, as in "**Score:**" or "**Score**:"), and returns what follows.
func cutLabel(line string, labels ...string) (string, bool) {
	for _, l := range labels {
		if len(line) < len(l) || !strings.EqualFold(line[:len(l)], l) {
			continue
		}
		rest := strings.TrimLeft(line[len(l):], " \t*_`")
		if strings.HasPrefix(rest, ":") {
			return strings.TrimSpace(trimLeadingEmphasis(rest[1:], false)), true
		}
	}
	return "", false
}

// lastLabelled returns the content after the last line labelled with one of
// labels. When that line has nothing after the colon, the following
// non-empty lines are returned instead ("Answer:\nParis").
func lastLabelled(text string, labels ...string) (string, bool) {
	ls := lines(text)
	for i := len(ls) - 1; i >= 0; i-- {
		rest, ok := cutLabel(stripDecoration(ls[i]), labels...)
		if !ok {
			continue
		}
		if rest != "" {
			return rest, true
		}
		return strings.TrimSpace(strings.Join(ls[i+1:], "\n")), true
	}
	return "", false
}

// firstNonEmpty returns the index of the first non-empty line, or -1.
func firstNonEmpty(ls []string) int {
	for i, l := range ls {
		if stripDecoration(l) != "" {
			return i
		}
	}
	return -1
}

// ---------------------------------------------------------------------------
// Selection

// selectionLabels introduce the list of chosen ids when a model reasons first.
var selectionLabels = []string{"final answer", "final selection", "selection", "selected", "answer",
	"choices", "choice", "chosen"}

// noneWords are replies meaning "nothing fits".
var noneWords = map[string]bool{"none": true, "nothing": true, "n/a": true, "[]": true, "empty": true, "no": true}

// ParseSelection parses a KindSelect reply ("Q42, Q5" or "none") against the
// offered options and returns the chosen option ids, best first, without
// duplicates, at most max of them (max <= 0: no limit).
//
// If the reply has a line labelled "Selection:", "Selected:", "Answer:" (and
// similar), only the text after the last such label is read; otherwise the
// whole reply. Options are recognised by id or by their exact text
// (case-insensitive), always as whole tokens: "Q30" never matches inside
// "Q3012" or "wdt:Q30"; when options overlap, the longest match wins. When
// no option is named, 1-based option numbers ("2, 3", "#2", "[2]") are
// accepted; a number outside 1..len(opts) is an error. A reply whose first
// word is "none" (or "nothing", "n/a") is an empty selection, unless an
// option's text starts there ("No Country for Old Men"). An option named
// in a clause that rules it out ("I don't think starring is relevant",
// "neither X nor Y", "X fits; Y doesn't") is not chosen; a reply whose
// named options are all ruled out is an empty selection.
func ParseSelection(text string, opts []Option, max int) ([]string, error) {
	region := text
	if r, ok := lastLabelled(text, selectionLabels...); ok {
		region = r
	}
	spans := optionSpans(region, opts)
	startsWithOption := len(spans) > 0 && stripDecoration(strings.TrimSpace(region[:spans[0].start])) == ""
	if isNone(region) && !startsWithOption {
		return []string{}, nil
	}
	ids := affirmed(region, spans)
	if len(ids) == 0 && len(spans) > 0 {
		// Every option named is named to be ruled out ("I don't think
		// starring or directed by is relevant"): nothing is chosen.
		return []string{}, nil
	}
	if len(ids) == 0 {
		var err error
		if ids, err = numberedOptions(region, opts); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		return nil, parseErr("selection", "no offered option named in %s", Quote(region))
	}
	ids = dedupe(ids)
	if max > 0 && len(ids) > max {
		ids = ids[:max]
	}
	return ids, nil
}

// UnofferedIDs returns the words of a KindSelect reply that look like ids
// (see IDLike: "Q999", "R12", "mb:artist/4d54", "/en/blade_runner",
// "not_offered_thing") but are no offered option's id nor a word of an
// option's text, in
// order and without duplicates, read where ParseSelection reads. They are
// what ParseSelection ignores without a word ("Q999, Q23" selects Q23), so
// that a caller can say so.
func UnofferedIDs(text string, opts []Option) []string {
	region := text
	if r, ok := lastLabelled(text, selectionLabels...); ok {
		region = r
	}
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(",;()[]{}\"'`*", r)
		})
	}
	known := map[string]bool{}
	for _, o := range opts {
		known[strings.ToLower(strings.TrimSpace(o.ID))] = true
		for _, w := range split(o.Text) {
			known[strings.ToLower(trimWord(w))] = true
		}
	}
	var out []string
	for _, w := range split(region) {
		w = trimWord(w)
		if IDLike(w) && !known[strings.ToLower(w)] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// trimWord strips a reply word of its trailing punctuation and of the
// underscores of markdown emphasis ("_Q5_"), which are no part of an id.
func trimWord(w string) string {
	w = strings.TrimRight(w, ".:!?")
	if len(w) > 2 && strings.HasPrefix(w, "_") && strings.HasSuffix(w, "_") {
		w = strings.Trim(w, "_")
	}
	return w
}

// Unoffered says which ids of a KindSelect reply no option offered
// ("names Q999, R7, not offered: ignored"), "" when there are none (see
// UnofferedIDs): every selection step warns with it.
func Unoffered(text string, opts []Option) string {
	bad := UnofferedIDs(text, opts)
	if len(bad) == 0 {
		return ""
	}
	return "names " + strings.Join(bad, ", ") + ", not offered: ignored"
}

// IDLike reports whether w looks like an entity id of one of Grove's
// graphs rather than a word, a number or a name: one word (no space, at
// most 200 bytes) holding a letter and at least one of a digit ("Q64",
// "author/123"), a ':' ("mb:artist/x", "_:film/12"), a '_'
// ("ridley_scott"), a leading '/' ("/en/ridley_scott") or two '/'
// ("film/film/producer"). Ordinary answers and words ("Paris", "1982",
// "yes", "and/or") are not ids, so that callers can skip a KG lookup for
// them. It is the one rule for "looks like an id" of answers
// (reasoner.NameAnswer) and of selection replies (UnofferedIDs) when a KG
// lookup decides; without a KG, KGIDLike is the rule.
func IDLike(w string) bool {
	if w == "" || len(w) > 200 || strings.ContainsFunc(w, unicode.IsSpace) || !strings.ContainsFunc(w, unicode.IsLetter) {
		return false
	}
	return strings.ContainsFunc(w, unicode.IsDigit) || strings.ContainsAny(w, ":_") ||
		strings.HasPrefix(w, "/") || strings.Count(w, "/") >= 2
}

// KGIDLike reports whether w is unmistakably the id of a KG node or
// relation, not a name that merely looks like a code ("B12", "COVID-19",
// "MP3", "F-16", "R2-D2", "7-Eleven" are names): a Freebase MID
// ("m.0jw67", "g.11b6ddw9n5", "/m/0jw67"), a Wikidata item, property or
// lexeme id ("Q42", "P31", "L7", "L7-F1"), an IRI ("http://..."), a
// prefixed id ("mb:artist/x", "wd:Q42", "_:film/12"), a Freebase key
// ("/en/ridley_scott", "/film/film/directed_by") or a dotted Freebase
// relation id ("film.film.directed_by", not a web host such as
// "bbc.co.uk"). It is the rule when no KG is at
// hand to settle an answer (reasoner.NameModelAnswer): IDLike is broader
// because a KG lookup then decides.
func KGIDLike(w string) bool {
	w = strings.TrimSpace(w)
	if w == "" || len(w) > 200 {
		return false
	}
	for _, re := range []*regexp.Regexp{freebaseMID, wikidataID, iri, prefixedID, freebaseKey} {
		if re.MatchString(w) {
			return true
		}
	}
	return dottedRelation.MatchString(w) && !hostName(w)
}

// hostName reports whether a dotted name is a web host rather than a
// Freebase relation id: it starts with "www.", ends in a generic
// top-level domain ("news.google.com", "node.js.org") or a two-letter
// country code ("bbc.co.uk"), or its second-level domain is one such as
// "co" ("detik.co.id"). Freebase relation ids end in a property name,
// never a domain; "type.object.id" and "type.object.name" stay ids.
func hostName(w string) bool {
	segs := strings.Split(w, ".")
	if len(segs) < 3 {
		return strings.HasPrefix(w, "www.")
	}
	last, second := segs[len(segs)-1], segs[len(segs)-2]
	return strings.HasPrefix(w, "www.") || genericTLD(last) || secondLevel(second) ||
		(len(last) == 2 && last != "id")
}

// genericTLD reports whether s is a generic top-level domain.
func genericTLD(s string) bool {
	switch s {
	case "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "app", "dev":
		return true
	}
	return false
}

// secondLevel reports whether s is a country's second-level domain such
// as "co" in "bbc.co.uk".
func secondLevel(s string) bool {
	switch s {
	case "co", "com", "ac", "gov", "org", "net", "edu":
		return true
	}
	return false
}

// The forms of KGIDLike; a compiled regexp is safe for concurrent use.
var (
	freebaseMID = regexp.MustCompile(`^(?:[mg]\.|/[mg]/)[0-9a-z_]*[0-9][0-9a-z_]*$`)
	wikidataID  = regexp.MustCompile(`^(?:[QPL][1-9][0-9]*|L[1-9][0-9]*-[FS][1-9][0-9]*)$`)
	iri         = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://\S+$`)
	prefixedID  = regexp.MustCompile(`^(?:_|[a-z][a-z0-9_-]*):[^\s:]\S*$`)
	freebaseKey = regexp.MustCompile(`^/[a-z][a-z0-9_]*(?:/[^\s/]+)+$`)
	// dottedRelation has three or more lower-case segments of two
	// characters or more ("film.film.directed_by", not "a.k.a"); a web
	// host ("www.example.com", "bbc.co.uk") is left out by KGIDLike
	// (hostName).
	dottedRelation = regexp.MustCompile(`^[a-z_][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+){2,}$`)
)

// isNone reports whether the first word of s says "none".
func isNone(s string) bool {
	s = strings.ToLower(stripDecoration(strings.TrimSpace(s)))
	if s == "" {
		return false
	}
	w := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",.;:!*\"'`()", r)
	})
	return len(w) > 0 && noneWords[w[0]]
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// optionKey is one string that names an option in a reply.
type optionKey struct {
	key string
	id  string
	// exact is true for the id itself (preferred over a text).
	exact bool
}

func optionKeys(opts []Option) []optionKey {
	keys := make([]optionKey, 0, 2*len(opts))
	for _, o := range opts {
		if id := strings.TrimSpace(o.ID); id != "" {
			keys = append(keys, optionKey{key: id, id: o.ID, exact: true})
		}
		if t := strings.TrimSpace(o.Text); t != "" && t != strings.TrimSpace(o.ID) {
			keys = append(keys, optionKey{key: t, id: o.ID})
		}
	}
	return keys
}

// matchOptions scans s left to right and returns the ids of the options
// named in it, in order of appearance. At each position the longest key
// wins; among equally long keys a case-exact match beats a case-folded one,
// then an id beats a text, then the earlier option.
func matchOptions(s string, opts []Option) []string {
	spans := optionSpans(s, opts)
	ids := make([]string, len(spans))
	for i, sp := range spans {
		ids[i] = sp.id
	}
	return ids
}

// optionSpan is an option named in a reply, at s[start:end].
type optionSpan struct {
	id         string
	start, end int
}

// optionSpans is matchOptions with the position of each match.
func optionSpans(s string, opts []Option) []optionSpan {
	idx := newKeyIndex(optionKeys(opts))
	var spans []optionSpan
	for i := 0; i < len(s); {
		best, bestRank := -1, [3]int{}
		if boundaryBefore(s, i) {
			best, bestRank = idx.bestAt(s, i)
		}
		if best < 0 {
			i += runeLen(s, i)
			continue
		}
		spans = append(spans, optionSpan{id: idx.keys[best].id, start: i, end: i + bestRank[0]})
		i += bestRank[0]
	}
	return spans
}

// negations are the words that rule out the options of their clause
// ("not", "neither ... nor", "irrelevant", "doesn't").
var negations = map[string]bool{"not": true, "no": true, "never": true, "neither": true, "nor": true,
	"none": true, "without": true, "irrelevant": true, "unrelated": true, "unhelpful": true, "cannot": true,
	"exclude": true, "excluding": true, "except": true}

// affirmed returns the ids of spans (options named in s) that are not
// ruled out: an option is ruled out when the clause it stands in (text
// between sentence or clause marks: . ; ! ? , newline, "but") holds a
// negation outside the option names. A bare list ("Q30, Q5") has none.
func affirmed(s string, spans []optionSpan) []string {
	var ids []string
	for _, sp := range spans {
		if !negated(s, spans, sp) {
			ids = append(ids, sp.id)
		}
	}
	return ids
}

// negated reports whether the clause around sp holds a negation word
// outside every option name.
func negated(s string, spans []optionSpan, sp optionSpan) bool {
	from, to := clauseAround(s, sp.start, sp.end)
	var b strings.Builder
	at := from
	for _, o := range spans {
		if o.end <= from || o.start >= to {
			continue
		}
		b.WriteString(s[at:max(at, o.start)])
		b.WriteByte(' ')
		at = max(at, o.end)
	}
	b.WriteString(s[min(at, to):to])
	for _, w := range strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		if negations[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// clauseAround returns the bounds of the clause holding s[start:end].
func clauseAround(s string, start, end int) (int, int) {
	isMark := func(r rune) bool { return strings.ContainsRune(".;!?,\n", r) }
	from := strings.LastIndexFunc(s[:start], isMark) + 1
	if i := lastWord(s[from:start], "but"); i >= 0 {
		from += i
	}
	to := len(s)
	if j := strings.IndexFunc(s[end:], isMark); j >= 0 {
		to = end + j
	}
	if j := firstWord(s[end:to], "but"); j >= 0 {
		to = end + j
	}
	return from, to
}

// firstWord and lastWord find w as a whole word in s (case-insensitive),
// or -1.
func firstWord(s, w string) int {
	for _, f := range wordStarts(s) {
		if strings.EqualFold(f.w, w) {
			return f.at
		}
	}
	return -1
}

func lastWord(s, w string) int {
	fs := wordStarts(s)
	for i := len(fs) - 1; i >= 0; i-- {
		if strings.EqualFold(fs[i].w, w) {
			return fs[i].at
		}
	}
	return -1
}

type wordAt struct {
	w  string
	at int
}

func wordStarts(s string) []wordAt {
	var out []wordAt
	start := -1
	for i, r := range s + " " {
		if unicode.IsLetter(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, wordAt{s[start:i], start})
			start = -1
		}
	}
	return out
}

// keyIndex narrows the keys worth comparing at a position: keys starting
// with an ASCII byte are grouped by that byte lowercased; keys starting
// with another rune are always compared (some fold to ASCII, like the
// Kelvin sign).
type keyIndex struct {
	keys     []optionKey
	byASCII  [128][]int
	nonASCII []int
	all      []int
}

func newKeyIndex(keys []optionKey) *keyIndex {
	x := &keyIndex{keys: keys}
	for k, ok := range keys {
		x.all = append(x.all, k)
		if c := ok.key[0]; c < utf8.RuneSelf {
			l := lowerASCII(c)
			x.byASCII[l] = append(x.byASCII[l], k)
		} else {
			x.nonASCII = append(x.nonASCII, k)
		}
	}
	return x
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// bestAt returns the best key matching s at byte i and its rank
// (length, case-exact, is-id).
func (x *keyIndex) bestAt(s string, i int) (int, [3]int) {
	best, bestRank := -1, [3]int{}
	try := func(cands []int) {
		for _, k := range cands {
			ok := x.keys[k]
			n := len(ok.key)
			if i+n > len(s) || !strings.EqualFold(s[i:i+n], ok.key) || !boundaryAfter(s, i+n) {
				continue
			}
			rank := [3]int{n, b2i(s[i:i+n] == ok.key), b2i(ok.exact)}
			if best < 0 || slices.Compare(rank[:], bestRank[:]) > 0 || (slices.Equal(rank[:], bestRank[:]) && k < best) {
				best, bestRank = k, rank
			}
		}
	}
	if c := s[i]; c < utf8.RuneSelf {
		try(x.byASCII[lowerASCII(c)])
		try(x.nonASCII)
	} else {
		try(x.all)
	}
	return best, bestRank
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func runeLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// joiners continue a token when a word character is on their other side:
// "Q30.5", "Q30-1", "wdt:Q30", "x/Q30", "Q30#a".
const joiners = "-./:#"

// boundaryBefore reports whether a token may start at byte i of s.
func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, n := utf8.DecodeLastRuneInString(s[:i])
	if isWordRune(r) {
		return false
	}
	if strings.ContainsRune(joiners, r) && i-n > 0 {
		p, _ := utf8.DecodeLastRuneInString(s[:i-n])
		return !isWordRune(p)
	}
	return true
}

// boundaryAfter reports whether a token may end at byte j of s.
func boundaryAfter(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	if !utf8.RuneStart(s[j]) {
		return false
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	if isWordRune(r) {
		return false
	}
	if strings.ContainsRune(joiners, r) && j+n < len(s) {
		q, _ := utf8.DecodeRuneInString(s[j+n:])
		return !isWordRune(q)
	}
	return true
}

// numberedOptions reads 1-based option numbers from s. It returns an error
// for a number outside 1..len(opts).
func numberedOptions(s string, opts []Option) ([]string, error) {
	var ids []string
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' || !boundaryBefore(s, i) {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if !boundaryAfter(s, j) {
			i = j
			continue
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil || n < 1 || n > len(opts) {
			return nil, parseErr("selection", "option number %s out of range 1..%d", s[i:j], len(opts))
		}
		ids = append(ids, opts[n-1].ID)
		i = j
	}
	return ids, nil
}

// ---------------------------------------------------------------------------
// Action

// actionLabels may precede the action word ("Action: ANSWER").
var actionLabels = []string{"next action", "action"}

// ParseAction parses a KindAction reply. The action must be the first word
// of the first non-empty line (after markdown decoration and an optional
// "Action:" label); it is matched case-insensitively against allowed, with
// spaces and hyphens read as underscores ("Expand KG" is EXPAND_KG), and
// returned in its allowed spelling. rest is the remainder of that line plus
// any following lines, with stray ":" / "-" separators removed.
func ParseAction(text string, allowed []string) (action, rest string, err error) {
	if len(allowed) == 0 {
		return "", "", parseErr("action", "no allowed actions")
	}
	ls := lines(text)
	first := firstNonEmpty(ls)
	if first < 0 {
		return "", "", parseErr("action", "empty reply")
	}
	line := stripDecoration(ls[first])
	if r, ok := cutLabel(line, actionLabels...); ok {
		line = stripDecoration(r)
	}
	action, n := leadingAction(line, allowed)
	if action == "" {
		return "", "", parseErr("action", "first line %s does not start with one of %s", Quote(ls[first]), strings.Join(allowed, ", "))
	}
	tail := []string{line[n:]}
	tail = append(tail, ls[first+1:]...)
	return action, trimSeparators(strings.Join(tail, "\n")), nil
}

// leadingAction returns the longest allowed action that line starts with
// (followed by a non-word character) and its byte length in line.
func leadingAction(line string, allowed []string) (string, int) {
	best, bestLen := "", 0
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		n := len(a)
		if n == 0 || n <= bestLen || n > len(line) || !sameAction(line[:n], a) {
			continue
		}
		if n < len(line) {
			r, _ := utf8.DecodeRuneInString(line[n:])
			if isWordRune(r) {
				continue
			}
		}
		best, bestLen = a, n
	}
	return best, bestLen
}

// sameAction compares case-insensitively, treating ' ', '-' and '_' alike.
func sameAction(a, b string) bool {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == ' ' || r == '-' {
				return '_'
			}
			return unicode.ToUpper(r)
		}, s)
	}
	return norm(a) == norm(b)
}

// trimSeparators removes leading ":" "-" and emphasis runs ("**: : x" -> "x")
// and surrounding blanks, but not the "_" of a blank node ("_:b1").
func trimSeparators(s string) string {
	for {
		t := trimLeadingEmphasis(s, true)
		for _, d := range []string{"- ", "— ", "– ", "-\n"} {
			t = strings.TrimPrefix(t, d)
		}
		if t == s {
			return strings.TrimSpace(trimTrailingDecoration(t))
		}
		s = t
	}
}

// ---------------------------------------------------------------------------
// Score

// ParseScore reads the last "Score: X" line of a KindScore reply. X may be
// a decimal ("0.8"), a fraction ("7/10", "7 out of 10") or a percentage
// ("80%"); the result is clamped to [0, 1]. A reply without a Score line, or
// whose Score line has no number, is an error (numbers elsewhere are never
// used).
func ParseScore(text string) (float64, error) {
	val, ok := lastLabelled(text, "score", "final score")
	if !ok {
		return 0, parseErr("score", "no \"Score:\" line in %s", Quote(text))
	}
	if i := strings.IndexByte(val, '\n'); i >= 0 {
		val = val[:i]
	}
	x, err := parseScoreValue(val)
	if err != nil {
		return 0, err
	}
	return math.Max(0, math.Min(1, x)), nil
}

// parseScoreValue parses "0.8", "7/10", "7 / 10", "7 out of 10", "80%".
func parseScoreValue(s string) (float64, error) {
	s = strings.TrimSpace(trimTrailingDecoration(s))
	num, rest, ok := leadingNumber(s)
	if !ok {
		return 0, parseErr("score", "no number on the Score line %s", Quote(s))
	}
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(rest, "%"):
		return num / 100, nil
	case strings.HasPrefix(rest, "/"):
		return divide(num, strings.TrimSpace(rest[1:]), s)
	case len(rest) >= 6 && strings.EqualFold(rest[:6], "out of"):
		return divide(num, strings.TrimSpace(rest[6:]), s)
	}
	return num, nil
}

func divide(num float64, rest, line string) (float64, error) {
	den, _, ok := leadingNumber(rest)
	if !ok || den <= 0 {
		return 0, parseErr("score", "bad fraction on the Score line %s", Quote(line))
	}
	return num / den, nil
}

// leadingNumber parses an optionally signed decimal at the start of s.
func leadingNumber(s string) (float64, string, bool) {
	j := 0
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	start, dot := j, false
	for j < len(s) && ((s[j] >= '0' && s[j] <= '9') || (s[j] == '.' && !dot)) {
		dot = dot || s[j] == '.'
		j++
	}
	if j == start || (j == start+1 && s[start] == '.') {
		return 0, s, false
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s[:j], "."), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, s, false
	}
	return f, s[j:], true
}

// ---------------------------------------------------------------------------
// Vote, answer, yes/no, lines

// ParseVote reads the "Best: ID" line of a KindVote reply and returns the
// option id it names (by id, exact text, or 1-based number, as
// ParseSelection). A reply without a Best line is accepted only if the whole
// reply names exactly one option.
func ParseVote(text string, opts []Option) (string, error) {
	region, labelled := lastLabelled(text, "best", "best choice", "best option")
	if !labelled {
		region = text
	}
	ids := dedupe(matchOptions(region, opts))
	if len(ids) == 0 && labelled {
		var err error
		if ids, err = numberedOptions(region, opts); err != nil {
			return "", fmt.Errorf("parse vote: %w", err)
		}
	}
	switch {
	case len(ids) == 0:
		return "", parseErr("vote", "no offered option named in %s", Quote(region))
	case !labelled && len(ids) > 1:
		return "", parseErr("vote", "no \"Best:\" line and several options named in %s", Quote(text))
	}
	return ids[0], nil
}

// ParseAnswer returns the text of the last "Answer:" (or "Final answer:")
// line of a KindAnswer reply, without markdown emphasis. Only emphasis is
// removed: a blank-node answer such as "_:film/6873" keeps its "_:".
func ParseAnswer(text string) (string, error) {
	a, ok := lastLabelled(text, "final answer", "answer")
	if !ok {
		return "", parseErr("answer", "no \"Answer:\" line in %s", Quote(text))
	}
	a = strings.TrimSpace(trimTrailingDecoration(trimLeadingEmphasis(a, false)))
	if a == "" {
		return "", parseErr("answer", "empty \"Answer:\" line in %s", Quote(text))
	}
	return a, nil
}

// ParseYesNo parses a KindYesNo reply: "Yes" or "No" as the first word of
// the first non-empty line (an "Answer:" label and markdown are allowed).
// reason is the rest of the reply.
func ParseYesNo(text string) (yes bool, reason string, err error) {
	action, rest, err := ParseAction(text, []string{"YES", "NO"})
	if err != nil {
		ls := lines(text)
		if i := firstNonEmpty(ls); i >= 0 {
			if r, ok := cutLabel(stripDecoration(ls[i]), "answer", "judgement", "judgment", "verdict"); ok {
				action, rest, err = ParseAction(r+"\n"+strings.Join(ls[i+1:], "\n"), []string{"YES", "NO"})
			}
		}
	}
	if err != nil {
		return false, "", parseErr("yes/no", "first line of %s is not Yes or No", Quote(text))
	}
	return action == "YES", strings.TrimSpace(strings.TrimLeft(rest, ".,;! \n\t")), nil
}

// noneLines are whole-line replies meaning "no items".
var noneLines = map[string]bool{"none": true, "n/a": true, "nothing": true, "no entities": true, "no mentions": true}

// ParseLines parses a one-item-per-line reply (KindExtract): list markers,
// markdown and surrounding quotes are removed, blank lines, bare labels
// ("Entities:") and a lone "none" are dropped, and duplicates
// (case-insensitive) are removed keeping the first.
func ParseLines(text string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, l := range lines(text) {
		l = strings.TrimSpace(trimTrailingDecoration(stripDecoration(l)))
		l = strings.TrimSpace(strings.Trim(l, "\"'“”‘’`"))
		if l == "" || strings.HasSuffix(l, ":") || noneLines[strings.ToLower(strings.TrimRight(l, ".!"))] {
			continue
		}
		k := strings.ToLower(l)
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// MatchOptions returns the ids of the options named in s, in order of
// appearance, with the matcher ParseSelection uses (longest key first,
// whole words only). Baseline policies use it to tell which options a
// question already names.
func MatchOptions(s string, opts []Option) []string { return matchOptions(s, opts) }
