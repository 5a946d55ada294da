// Package remote holds what the non-embedded backends (store/sparqlkg,
// store/sqlkg) share: folding label-like literals into an entity's name,
// and ranking search hits the way the embedded engine does.
package remote

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/labelindex"
)

// Names collects the label, aliases and description of one node.
// Earlier label predicates and English (or untagged) text win.
type Names struct {
	label, desc         string
	labelRank, descRank int
	aliases             []string
}

// LangRank is 0 for English or untagged text, 1 otherwise.
func LangRank(lang string) int {
	if lang == "" || lang == "en" || strings.HasPrefix(lang, "en-") {
		return 0
	}
	return 1
}

// AddLabel offers a label from the i-th of n label predicates.
func (s *Names) AddLabel(i, n int, lang, text string) {
	rank := 1 + LangRank(lang)*n + i
	if s.label == "" || rank < s.labelRank || rank == s.labelRank && text < s.label {
		s.label, s.labelRank = text, rank
	}
}

// AddDescription offers a description from the i-th of n predicates.
func (s *Names) AddDescription(i, n int, lang, text string) {
	rank := 1 + LangRank(lang)*n + i
	if s.desc == "" || rank < s.descRank || rank == s.descRank && text < s.desc {
		s.desc, s.descRank = text, rank
	}
}

// AddAlias adds an English or untagged alias.
func (s *Names) AddAlias(lang, text string) {
	if LangRank(lang) == 0 && !slices.Contains(s.aliases, text) {
		s.aliases = append(s.aliases, text)
		slices.Sort(s.aliases)
	}
}

// Entity is a fresh entity (its slices belong to the caller).
func (s Names) Entity(id string) store.Entity {
	return store.Entity{ID: id, Label: s.label, Description: s.desc, Aliases: slices.Clone(s.aliases)}
}

// Score classifies a label that a search for the normalized text norm hit,
// with the distance and score the engine gives it (labelindex.Classify,
// the engine's kind score minus the distance; remote backends have no
// popularity term): exact 30 at distance 0, prefix 20 minus the number of
// extra runes, and any other hit "word" (the endpoint's word index found
// the text's words in it: "John Ridley" for "ridley"), 10 minus the edit
// distance, which ranks such hits as the engine ranks its fuzzy ones. No
// remote backend matches by edit distance, so no hit is "fuzzy". An exact
// hit always ranks first; a prefix over 11 runes longer than the text can
// rank below a close word hit, as a long prefix ranks below a fuzzy hit in
// the engine.
func Score(label, norm string) (match string, distance int, score float64) {
	kind, d := labelindex.Classify(norm, labelindex.Normalize(label))
	switch kind {
	case labelindex.Exact:
		return "exact", 0, 30
	case labelindex.Prefix:
		return "prefix", d, 20 - float64(d)
	}
	return "word", d, 10 - float64(d)
}

// Rank orders candidates best first (score, then id, then graph) and cuts
// them to limit (limit <= 0: all).
func Rank(cs []store.Candidate, limit int) []store.Candidate {
	slices.SortStableFunc(cs, func(a, b store.Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Graph, b.Graph))
	})
	if limit > 0 && len(cs) > limit {
		cs = cs[:limit]
	}
	return cs
}

// Hit is a label that a search matched: the id of the node it names, the
// node's graph and the label's text.
type Hit struct{ ID, Graph, Label string }

// RankHits makes candidates of hits as the engine ranks them: each is
// scored against the normalized search text norm (Score), the best hit
// of each id in each graph is kept (the earliest of equal scores), and
// the rest are ordered and cut to limit (Rank). The candidates are new
// and the caller's; of their Entity only the ID is set, for the caller to
// fill the rest for the survivors alone.
func RankHits(hits []Hit, norm string, limit int) []store.Candidate {
	type key struct{ id, graph string }
	best := map[key]int{} // index in out
	var out []store.Candidate
	for _, h := range hits {
		c := store.Candidate{Graph: h.Graph, Matched: h.Label}
		c.ID = h.ID
		c.Match, c.Distance, c.Score = Score(h.Label, norm)
		k := key{h.ID, h.Graph}
		if i, ok := best[k]; !ok {
			best[k] = len(out)
			out = append(out, c)
		} else if c.Score > out[i].Score {
			out[i] = c
		}
	}
	return Rank(out, limit)
}

// CleanText is search text fit for a remote query: invalid UTF-8 and
// control characters (NUL above all, which PostgreSQL text and SPARQL
// string literals cannot hold) become spaces, so that a mention
// with stray bytes is searched for, as the engine does, rather than
// failing with the server's encoding error.
func CleanText(s string) string {
	s = strings.ToValidUTF8(s, " ")
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// Directions expands Both into Out and In and rejects invalid values.
func Directions(dir store.Direction) ([]store.Direction, error) {
	switch dir {
	case store.Out, store.In:
		return []store.Direction{dir}, nil
	case store.Both:
		return []store.Direction{store.Out, store.In}, nil
	}
	return nil, fmt.Errorf("invalid direction %d", dir)
}

// SortLinks orders SameAs results by graph, then target id.
func SortLinks(ls []store.Link) {
	slices.SortFunc(ls, func(a, b store.Link) int {
		return cmp.Or(cmp.Compare(a.Graph, b.Graph), cmp.Compare(a.Target.ID, b.Target.ID))
	})
}
