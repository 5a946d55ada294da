package remote

import (
	"bytes"
	"testing"

	"github.com/grove-kg/grove/store/labelindex"
)

// TestScore: an exact hit is at distance 0; a prefix hit is at the number
// of extra runes (as on badger: "Scotland, Pa." is 3 from "scotland", not
// 0), scored 20 minus it; a label that is neither the text nor starts
// with it is a hit of the endpoint's word index ("John Ridley" for
// "ridley"), not an edit distance match: its kind is "word", scored 10
// minus the edit distance.
func TestScore(t *testing.T) {
	cases := []struct {
		label, norm string
		match       string
		distance    int
		score       float64
	}{
		{"Ridley Scott", "ridley scott", "exact", 0, 30},
		{"Ridley Scott", "ridley", "prefix", 6, 14},
		{"Scotland, Pa.", "scotland", "prefix", 3, 17},
		{"Amélie Poulain", "amelie", "prefix", 8, 12},
		{"Ωmega Ωne", "ωmega", "prefix", 4, 16}, // runes, not bytes
		{"Scotland", "scotland", "exact", 0, 30},
		{"John Ridley", "ridley", "word", 5, 5},
		{"Blade Runner 2049", "runner", "word", 11, -1},
	}
	for _, c := range cases {
		t.Run(c.label+"/"+c.norm, func(t *testing.T) {
			m, d, s := Score(c.label, c.norm)
			if m != c.match || d != c.distance || s < c.score-1e-9 || s > c.score+1e-9 {
				t.Errorf("Score(%q, %q) = %s %d %v, want %s %d %v", c.label, c.norm, m, d, s, c.match, c.distance, c.score)
			}
		})
	}
}

// TestRankHits: each id keeps its best hit in each graph (the earliest of
// equal scores), and the survivors are ranked and cut.
func TestRankHits(t *testing.T) {
	type want struct{ id, graph, matched, match string }
	cases := []struct {
		name  string
		hits  []Hit
		limit int
		want  []want
	}{
		{name: "none"},
		{name: "best of an id kept", hits: []Hit{{"a", "g", "Ridley Scott Jr"}, {"a", "g", "Ridley"}, {"a", "g", "Ridley Scott"}},
			want: []want{{"a", "g", "Ridley", "exact"}}},
		{name: "earliest of equals kept", hits: []Hit{{"a", "g", "RIDLEY"}, {"a", "g", "ridley"}},
			want: []want{{"a", "g", "RIDLEY", "exact"}}},
		{name: "graphs apart", hits: []Hit{{"a", "h", "Ridley Scott"}, {"a", "g", "Ridley"}},
			want: []want{{"a", "g", "Ridley", "exact"}, {"a", "h", "Ridley Scott", "prefix"}}},
		{name: "ranked by score then id", hits: []Hit{{"c", "g", "John Ridley"}, {"b", "g", "Ridley"}, {"a", "g", "Ridley"}},
			want: []want{{"a", "g", "Ridley", "exact"}, {"b", "g", "Ridley", "exact"}, {"c", "g", "John Ridley", "word"}}},
		{name: "cut to limit", hits: []Hit{{"c", "g", "John Ridley"}, {"b", "g", "Ridley"}, {"a", "g", "Ridley"}}, limit: 2,
			want: []want{{"a", "g", "Ridley", "exact"}, {"b", "g", "Ridley", "exact"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := RankHits(c.hits, "ridley", c.limit)
			if len(got) != len(c.want) {
				t.Fatalf("RankHits = %+v, want %+v", got, c.want)
			}
			for i, w := range c.want {
				g := got[i]
				if g.ID != w.id || g.Graph != w.graph || g.Matched != w.matched || g.Match != w.match {
					t.Errorf("candidate %d = %s %s %q %s, want %+v", i, g.ID, g.Graph, g.Matched, g.Match, w)
				}
				if m, d, s := Score(w.matched, "ridley"); g.Distance != d || g.Score != s || g.Match != m {
					t.Errorf("candidate %d scored %s %d %v, want %s %d %v", i, g.Match, g.Distance, g.Score, m, d, s)
				}
			}
		})
	}
}

// TestScoreDistanceAsBadger: the distance of an exact or prefix hit is the
// one the embedded store's label index gives the same label.
func TestScoreDistanceAsBadger(t *testing.T) {
	labels := []string{"Scotland", "Scotland, Pa.", "Scotland Yard", "Ωmega Ωne", "Ridley Scott"}
	b := labelindex.NewBuilder()
	for i, l := range labels {
		b.Add(l, uint64(i))
	}
	var buf bytes.Buffer
	if err := b.Build(&buf); err != nil {
		t.Fatal(err)
	}
	ix, err := labelindex.Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"scotland", "scot", "ωmega", "ridley"} {
		hits := ix.Search(q, 0, labelindex.SearchOptions{NoFuzzy: true})
		if len(hits) == 0 {
			t.Fatalf("the index finds nothing for %q", q)
		}
		for _, h := range hits {
			label := labels[h.ID]
			if m, d, _ := Score(label, q); m != h.Match.String() || d != h.Distance {
				t.Errorf("Score(%q, %q) = %s %d; the label index says %s %d", label, q, m, d, h.Match, h.Distance)
			}
		}
	}
}

// TestRankHitsExactFirst: an exact hit ranks before every prefix and word
// hit, and prefix hits rank by their distance, shortest first.
func TestRankHitsExactFirst(t *testing.T) {
	hits := []Hit{
		{"d", "g", "New Scotland"},
		{"c", "g", "Scotland Yard"},
		{"b", "g", "Scotland, Pa."},
		{"z", "g", "Scotland"},
	}
	got := RankHits(hits, "scotland", 0)
	want := []struct {
		id, match string
		distance  int
	}{{"z", "exact", 0}, {"b", "prefix", 3}, {"c", "prefix", 5}, {"d", "word", 4}}
	if len(got) != len(want) {
		t.Fatalf("RankHits = %+v", got)
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Match != w.match || got[i].Distance != w.distance {
			t.Errorf("candidate %d = %s %s %d, want %+v", i, got[i].ID, got[i].Match, got[i].Distance, w)
		}
	}
}
