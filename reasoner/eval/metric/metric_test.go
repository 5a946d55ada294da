package metric

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEMIn(t *testing.T) {
	tests := []struct {
		name  string
		pred  string
		golds []string
		want  float64
	}{
		{"exact", "Christopher Nolan", []string{"Christopher Nolan"}, 1},
		{"inside a sentence", "The director is Christopher Nolan.", []string{"christopher nolan"}, 1},
		{"wrong", "Steven Spielberg", []string{"Christopher Nolan"}, 0},
		{"thousands separator", "about 1,000 people", []string{"1000"}, 1},
		{"thousands separator in gold", "1000", []string{"1,000"}, 1},
		{"spelled number is not a digit", "one thousand", []string{"1000"}, 0},
		{"substring of a longer number", "in 2012", []string{"12"}, 1},
		{"date as ToT formats it", "He died on April 05, 1997.", []string{"April 05, 1997"}, 0.0 + 1},
		{"unpadded day misses", "He died on April 5, 1997.", []string{"April 05, 1997"}, 0},
		{"year inside a date", "April 5, 1997", []string{"1997"}, 1},
		{"BCE", "around 7000 BCE", []string{"7000 BCE"}, 1},
		{"list all found", "Alice, Bob and Carol", []string{"Alice", "Bob", "Carol"}, 1},
		{"list partly found", "Alice and Bob", []string{"Alice", "Bob", "Carol"}, 2.0 / 3},
		{"list in brackets", "[Harry Potter, Ron Weasley]", []string{"Harry Potter", "Hermione Granger", "Ron Weasley", "Neville"}, 0.5},
		{"duplicate golds count once", "Alice", []string{"Alice", "alice", "ALICE!", "Bob"}, 0.5},
		{"article-only gold dropped", "B and C", []string{"A", "B", "C"}, 1},
		{"no answer", "no answer", []string{"Paris"}, 0},
		{"cannot find", "Cannot find answer", []string{"Paris"}, 0},
		{"empty prediction", "", []string{"Paris"}, 0},
		{"no golds", "Paris", nil, 0},
		{"only empty golds", "Paris", []string{"", "the", "?"}, 0},
		{"unicode casefold", "STRASSE", []string{"Straße"}, 1},
		{"accents kept", "Gödel", []string{"Godel"}, 0},
		{"curly apostrophe kept", "Shaquille O'Neal", []string{"Shaquille O’Neal"}, 0},
		{"articles ignored", "The Beatles", []string{"Beatles"}, 1},
		{"boolean gold: yes inside yesterday is no match", "yesterday", []string{"Yes"}, 0},
		{"boolean gold: no inside cannot is no match", "I cannot determine the answer", []string{"No"}, 0},
		{"boolean gold: no inside unknown is no match", "unknown", []string{"No"}, 0},
		{"boolean gold: no inside not is no match", "It is not.", []string{"No"}, 0},
		{"boolean gold as a word", "No, it is not.", []string{"No"}, 1},
		{"boolean gold as a word at the end", "The answer is yes.", []string{"Yes"}, 1},
		{"boolean gold case folded", "NO", []string{"no"}, 1},
		{"boolean gold with punctuation", "Definitely no!", []string{"No."}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EMIn(tt.pred, tt.golds); !near(got, tt.want) {
				t.Errorf("EMIn(%q, %q) = %v, want %v", tt.pred, tt.golds, got, tt.want)
			}
		})
	}
}

func TestEM(t *testing.T) {
	tests := []struct {
		pred  string
		golds []string
		want  float64
	}{
		{"The Beatles!", []string{"beatles"}, 1},
		{"1,000", []string{"1000"}, 1},
		{"The director is Christopher Nolan", []string{"Christopher Nolan"}, 0},
		{"Bob", []string{"Alice", "Bob"}, 1},
		{"Alice, Bob", []string{"Alice", "Bob"}, 0},
		{"", []string{"Paris"}, 0},
		{"", []string{""}, 0},
		{"Paris", nil, 0},
		{"ÉCOLE", []string{"école"}, 1},
	}
	for _, tt := range tests {
		if got := EM(tt.pred, tt.golds); got != tt.want {
			t.Errorf("EM(%q, %q) = %v, want %v", tt.pred, tt.golds, got, tt.want)
		}
	}
}

func TestF1(t *testing.T) {
	tests := []struct {
		pred  string
		golds []string
		want  float64
	}{
		{"Christopher Nolan", []string{"Christopher Nolan"}, 1},
		// 2 shared of 4 predicted and 2 gold tokens: P 1/2, R 1, F1 2/3.
		{"director Christopher Nolan himself", []string{"Christopher Nolan"}, 2.0 / 3},
		{"Nolan", []string{"Christopher Nolan", "Jonathan Nolan"}, 2.0 / 3},
		{"Nolan Nolan", []string{"Christopher Nolan"}, 0.5},
		{"1,000 people", []string{"1000"}, 2.0 / 3},
		// 1 shared of 4 predicted tokens and 1 gold token: P 1/4, R 1.
		{"Alice, Bob and Carol", []string{"Alice", "Bob"}, 0.4},
		{"", []string{"Paris"}, 0},
		{"Paris", []string{"the"}, 0},
		{"Rome", []string{"Paris"}, 0},
	}
	for _, tt := range tests {
		if got := F1(tt.pred, tt.golds); !near(got, tt.want) {
			t.Errorf("F1(%q, %q) = %v, want %v", tt.pred, tt.golds, got, tt.want)
		}
	}
}

func TestHits1(t *testing.T) {
	tests := []struct {
		ranked, golds []string
		want          float64
	}{
		{[]string{"/en/paris", "/en/rome"}, []string{"/en/paris"}, 1},
		{[]string{"/en/rome", "/en/paris"}, []string{"/en/paris"}, 0},
		{[]string{"m.0_12"}, []string{"m.012"}, 0}, // punctuation counts in ids
		{[]string{"q64"}, []string{"Q64"}, 0},      // so does case
		{[]string{" Q64 "}, []string{"Q64"}, 1},
		{[]string{"m.0f8l9c"}, []string{"m.0f8l9c", "m.05qhw"}, 1},
		{[]string{"Q64"}, []string{"Q640"}, 0},
		{nil, []string{"Paris"}, 0},
		{[]string{""}, []string{"Paris"}, 0},
		{[]string{"Paris"}, nil, 0},
	}
	for _, tt := range tests {
		if got := Hits1(tt.ranked, tt.golds); got != tt.want {
			t.Errorf("Hits1(%q, %q) = %v, want %v", tt.ranked, tt.golds, got, tt.want)
		}
	}
}

func TestRougeL(t *testing.T) {
	tests := []struct {
		pred, gold string
		want       float64
	}{
		{"Christopher Nolan", "Christopher Nolan", 1},
		// LCS "police killed gunman" = 3 of 4 tokens each side (Lin 2004's example).
		{"police killed the gunman", "police kill the gunman", 2.0 / 3},
		{"police killed the gunman", "the gunman kill police", 1.0 / 3},
		// LCS 2 ("nolan", "inception") of 3 predicted and 4 gold tokens.
		{"Nolan directed Inception", "Inception by Christopher Nolan", 2 * (1.0 / 3 * 1.0 / 4) / (1.0/3 + 1.0/4)},
		{"Yang Yang, Chris Pugh", "Yang Yang, Chris Pugh, Kate Niehaus", 2 * (1 * 4.0 / 6) / (1 + 4.0/6)},
		{"", "Paris", 0},
		{"Paris", "", 0},
		{"Rome", "Paris", 0},
		{"THE END.", "end", 1},
	}
	for _, tt := range tests {
		if got := RougeL(tt.pred, tt.gold); !near(got, tt.want) {
			t.Errorf("RougeL(%q, %q) = %v, want %v", tt.pred, tt.gold, got, tt.want)
		}
	}
}

func TestLCS(t *testing.T) {
	tests := []struct {
		a, b []string
		want int
	}{
		{[]string{"a", "b", "c", "b", "d", "a", "b"}, []string{"b", "d", "c", "a", "b", "a"}, 4},
		{nil, []string{"x"}, 0},
		{[]string{"x", "y"}, []string{"y", "x"}, 1},
	}
	for _, tt := range tests {
		if got := lcs(tt.a, tt.b); got != tt.want {
			t.Errorf("lcs(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func BenchmarkMetrics(b *testing.B) {
	pred := "The answer is Yang Yang, Chris Pugh, Kate Niehaus, Clare MacEwen and Glen W. Colopy."
	gold := "Yang Yang, Chris Pugh, Kate Niehaus, Clare MacEwen, Glen W. Colopy, D Clifton, Tingting Zhu"
	golds := []string{"Yang Yang", "Chris Pugh", "Kate Niehaus", "Clare MacEwen", "Glen W. Colopy", "D Clifton", "Tingting Zhu"}
	b.Run("EMIn", func(b *testing.B) {
		for b.Loop() {
			EMIn(pred, golds)
		}
	})
	b.Run("F1", func(b *testing.B) {
		for b.Loop() {
			F1(pred, golds)
		}
	})
	b.Run("RougeL", func(b *testing.B) {
		for b.Loop() {
			RougeL(pred, gold)
		}
	})
}
