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
