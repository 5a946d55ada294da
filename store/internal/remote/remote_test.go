package remote

import "testing"

// TestScore: a label that is neither the text nor starts with it is a hit
// of the endpoint's word index ("John Ridley" for "ridley"), not an edit
// distance match: its kind is "word", ranked below prefix by distance.
func TestScore(t *testing.T) {
	cases := []struct {
		label, norm string
		match       string
		distance    int
		score       float64
	}{
		{"Ridley Scott", "ridley scott", "exact", 0, 30},
		{"Ridley Scott", "ridley", "prefix", 0, 19.94},
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
