package labelindex

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"github.com/blevesearch/vellum"
)

// MatchKind says how a hit's key matched the query. Smaller is better.
type MatchKind uint8

const (
	// Exact: the key equals the normalized query.
	Exact MatchKind = iota
	// Prefix: the normalized query is a proper prefix of the key.
	Prefix
	// Fuzzy: the key is within the fuzzy edit distance of the query.
	Fuzzy
)

// String returns "exact", "prefix" or "fuzzy", the strings of
// store.Candidate.Match.
func (m MatchKind) String() string {
	switch m {
	case Exact:
		return "exact"
	case Prefix:
		return "prefix"
	case Fuzzy:
		return "fuzzy"
	}
	return fmt.Sprintf("MatchKind(%d)", uint8(m))
}

// Hit is one search result: entity ID matched through the normalized label
// Key. Distance is the edit distance in runes between the normalized query
// and Key: 0 for Exact, the number of extra runes for Prefix.
type Hit struct {
	ID       uint64
	Key      string
	Match    MatchKind
	Distance int
}

// MaxFuzzy is the largest edit distance Search uses.
const MaxFuzzy = 2

// DefaultMaxVisit is the default cap on keys visited per search phase.
const DefaultMaxVisit = 2048

// maxMaxVisit caps SearchOptions.MaxVisit, which keeps step budgets and
// automaton tables far from overflow.
const maxMaxVisit = 1 << 20

// stepsPerVisit scales MaxVisit into the budget of automaton steps (FST
// transitions considered) per phase.
const stepsPerVisit = 64

// SearchOptions tune Search. The zero value runs every phase with the
// default fuzziness and caps.
type SearchOptions struct {
	// NoPrefix and NoFuzzy switch off the prefix and fuzzy phases.
	NoPrefix, NoFuzzy bool
	// MaxDistance, if positive, replaces the length-based fuzzy distance
	// (see FuzzyDistance); it is capped at MaxFuzzy.
	MaxDistance int
	// MaxVisit caps the keys visited by the prefix and by the fuzzy phase
	// (DefaultMaxVisit if <= 0, at most 1<<20); each phase also stops after
	// 64*MaxVisit automaton steps (FST transitions considered).
	MaxVisit int
}

// FuzzyDistance is the edit distance Search allows for a normalized query
// of n runes: 0 below 4 runes (short queries match too much), 1 for 4-7,
// and 2 from 8 on.
func FuzzyDistance(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// Search finds entities whose labels match text; see the package
// documentation for the phases and the ranking. It returns at most one hit
// per id (its best) and at most limit hits; limit <= 0 returns every hit the
// visit caps allow. An empty normalized query has no hits. Hit keys are
// normalized labels; the caller maps ids back to display labels. On a
// corrupt index Search returns the hits found before the damage, which
// Verify reports.
func (ix *Index) Search(text string, limit int, opts SearchOptions) []Hit {
	hits, _ := ix.search(text, limit, opts)
	return hits
}

// searchStats reports the work of one search, for tests.
type searchStats struct {
	prefixKeys, fuzzyKeys int
	passes                int  // prefix deepening passes
	steps                 int  // automaton steps, both phases
	truncated             bool // a visit or step cap cut a phase short
	err                   error
}

// searcher holds the state of one Search call.
type searcher struct {
	ix       *Index
	q        string
	qRunes   int
	limit    int
	opts     SearchOptions
	maxVisit int
	best     map[uint64]ranked
	ids      []uint64
	stats    searchStats
	// dead, if set, drops (key, id) pairs that a later layer of a View
	// deletes; extra more ids of each key are then decoded, one for each
	// pair dead could drop.
	dead  func(key string, id uint64) bool
	extra int
}

// ranked is a hit with its rank key precomputed.
type ranked struct {
	Hit
	lenDiff int
}

func (ix *Index) search(text string, limit int, opts SearchOptions) ([]Hit, searchStats) {
	hits, st := ix.searchLive(text, limit, opts, nil, 0)
	return hits, st
}

// searchLive is Search that skips the pairs dead reports, decoding extra
// more ids per key to make up for them.
func (ix *Index) searchLive(text string, limit int, opts SearchOptions, dead func(string, uint64) bool, extra int) ([]Hit, searchStats) {
	q := Normalize(text)
	if q == "" {
		return nil, searchStats{}
	}
	s := &searcher{
		ix: ix, q: q, qRunes: utf8.RuneCountInString(q), limit: limit, opts: opts,
		maxVisit: opts.MaxVisit, best: map[uint64]ranked{}, dead: dead, extra: extra,
	}
	if s.maxVisit <= 0 {
		s.maxVisit = DefaultMaxVisit
	}
	s.maxVisit = min(s.maxVisit, maxMaxVisit)
	s.stats.err = s.run()
	return s.results(), s.stats
}

func (s *searcher) run() (err error) {
	defer recoverCorrupt(&err, "search")
	s.ids, err = s.ix.lookup(s.ids[:0], s.q, s.decodeLimit())
	if err != nil {
		return err
	}
	s.addIDs(Hit{Key: s.q, Match: Exact}, s.ids)
	if !s.opts.NoPrefix && !s.full() {
		if err := s.prefix(); err != nil {
			return err
		}
	}
	if !s.opts.NoFuzzy && !s.full() {
		return s.fuzzy()
	}
	return nil
}

// decodeLimit is how many ids of one key to decode (0: all).
func (s *searcher) decodeLimit() int {
	if s.limit <= 0 {
		return 0
	}
	return s.limit + s.extra
}

// full reports whether limit distinct ids were found, so that a later phase
// cannot change the result.
func (s *searcher) full() bool {
	return s.limit > 0 && len(s.best) >= s.limit
}

// prefix collects keys that extend the query by iterative deepening: pass k
// walks keys up to 2^k runes longer than the query and reports the ones the
// previous pass could not reach. It stops once a complete pass leaves limit
// ids: every key not reached yet is longer, so it ranks after them all.
func (s *searcher) prefix() error {
	budget := &bounded{left: s.maxVisit * stepsPerVisit}
	room := int(s.ix.h.maxKeyLen) - len(s.q)
	for lo, hi := 0, 1; lo < room; lo, hi = hi, 2*hi {
		s.stats.passes++
		budget.inner = &prefixAutomaton{prefix: s.q, minExtra: lo, maxExtra: hi}
		stop, err := s.walk(budget, []byte(s.q), &s.stats.prefixKeys)
		if err != nil || stop || s.full() {
			return err
		}
	}
	return nil
}

// fuzzy collects keys within the fuzzy distance of the query.
func (s *searcher) fuzzy() error {
	d := FuzzyDistance(s.qRunes)
	if s.opts.MaxDistance > 0 {
		d = min(s.opts.MaxDistance, MaxFuzzy)
	}
	if d <= 0 {
		return nil
	}
	lev := newLevAutomaton(s.q, d)
	_, err := s.walk(&bounded{inner: lev, left: s.maxVisit * stepsPerVisit}, nil, &s.stats.fuzzyKeys)
	return err
}

// walk runs aut over the FST from start, adding a hit for every id of every
// matching key, until the walk ends or a cap is hit (stop is then true).
// visited counts the keys across calls.
func (s *searcher) walk(aut *bounded, start []byte, visited *int) (stop bool, err error) {
	defer func(left int) { s.stats.steps += left - aut.left }(aut.left)
	it, err := s.ix.fst.Search(aut, start, nil)
	for ; err == nil; err = it.Next() {
		if *visited >= s.maxVisit {
			s.stats.truncated = true
			return true, nil
		}
		*visited++
		key, off := it.Current()
		if err := s.addKey(key, off); err != nil {
			return true, err
		}
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return true, fmt.Errorf("%w: search: %w", ErrCorrupt, err)
	}
	if aut.exhausted {
		s.stats.truncated = true
	}
	return aut.exhausted, nil
}

// Classify says how the normalized key matches the normalized query q,
// as Search classifies its hits: Exact (distance 0), Prefix (q is a
// proper prefix of key; the distance is the number of extra runes) or
// otherwise Fuzzy, at the Levenshtein distance in runes (however large:
// Search keeps only keys within FuzzyDistance, the remote backends rank
// their word-index hits by it). The distance is the edit distance in
// every case, so a Prefix hit is also the Fuzzy hit of that distance.
func Classify(q, key string) (MatchKind, int) {
	switch {
	case key == q:
		return Exact, 0
	case strings.HasPrefix(key, q):
		return Prefix, utf8.RuneCountInString(key) - utf8.RuneCountInString(q)
	}
	return Fuzzy, levenshtein.ComputeDistance(q, key)
}

// addKey classifies key against the query (Classify) and adds its ids.
func (s *searcher) addKey(key []byte, off uint64) error {
	h := Hit{Key: string(key)}
	h.Match, h.Distance = Classify(s.q, h.Key)
	switch {
	case h.Match == Exact:
		return nil // the exact phase has it
	case h.Match == Prefix && s.opts.NoPrefix:
		h.Match = Fuzzy // the same distance: a prefix's edit distance is its extra runes
	}
	var err error
	s.ids, _, err = decodePostings(s.ids[:0], s.ix.post, off, s.decodeLimit())
	if err != nil {
		return err
	}
	s.addIDs(h, s.ids)
	return nil
}

// addIDs adds hit h for every id of one key, keeping each id's best hit.
// Callers decode only the first limit ids of a key: the hits of one key
// differ only by id, so an id after them has limit hits ranked before it,
// from this key or from better ones.
func (s *searcher) addIDs(h Hit, ids []uint64) {
	r := ranked{Hit: h, lenDiff: abs(utf8.RuneCountInString(h.Key) - s.qRunes)}
	for _, id := range ids {
		if s.dead != nil && s.dead(h.Key, id) {
			continue
		}
		r.ID = id
		if old, ok := s.best[id]; !ok || compareRanked(r, old) < 0 {
			s.best[id] = r
		}
	}
}

// results returns the best hits in rank order, at most limit.
func (s *searcher) results() []Hit {
	all := make([]ranked, 0, len(s.best))
	for _, r := range s.best {
		all = append(all, r)
	}
	slices.SortFunc(all, compareRanked)
	if s.limit > 0 && len(all) > s.limit {
		all = all[:s.limit]
	}
	hits := make([]Hit, len(all))
	for i, r := range all {
		hits[i] = r.Hit
	}
	return hits
}

// compareRanked orders by match kind, distance, label length difference,
// key and id.
func compareRanked(a, b ranked) int {
	return cmp.Or(
		cmp.Compare(a.Match, b.Match),
		cmp.Compare(a.Distance, b.Distance),
		cmp.Compare(a.lenDiff, b.lenDiff),
		strings.Compare(a.Key, b.Key),
		cmp.Compare(a.ID, b.ID),
	)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
