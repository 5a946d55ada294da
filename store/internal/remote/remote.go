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

// Score classifies a label that a search for the normalized text norm hit:
// exact 30, prefix 20 (longer labels slightly lower), and any other hit
// "word" (the endpoint's word index found the text's words in it: "John
// Ridley" for "ridley"), 10 minus the edit distance, which ranks such hits
// as the engine ranks its fuzzy ones. No remote backend matches by edit
// distance, so no hit is "fuzzy".
func Score(label, norm string) (match string, distance int, score float64) {
	ln := labelindex.Normalize(label)
	switch {
	case ln == norm:
		return "exact", 0, 30
	case strings.HasPrefix(ln, norm):
		return "prefix", 0, 20 - float64(len(ln)-len(norm))/100
	}
	d := EditDistance(norm, ln)
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

// EditDistance is the Levenshtein distance in runes.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := prev[j-1]
			if ra[i-1] != rb[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
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
