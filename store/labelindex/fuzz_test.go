package labelindex

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// FuzzOpen feeds random blobs to Open, and, resealed with a valid checksum
// so that the damage reaches the FST and postings, to every read method. It
// fails on a panic or a hang.
func FuzzOpen(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(magic))
	for _, pairs := range [][]pair{nil, {{"a", 1}}, filmPairs} {
		blob := build(f, pairs...)
		f.Add(blob)
		f.Add(blob[:len(blob)/2])
	}
	f.Fuzz(func(t *testing.T, blob []byte) {
		exercise(t, blob)
		exercise(t, reseal(blob))
	})
}

// FuzzDamage builds a valid blob from fuzzed labels, damages two bytes of
// its body, reseals it and runs every read method: a panic or hang fails.
func FuzzDamage(f *testing.F) {
	f.Add("alpha\nalpine\nbeta\nbetamax", uint16(3), byte(0x01), uint16(9), byte(0x80))
	f.Add("Blade Runner\nAlien\nAliens\n東京", uint16(40), byte(0xff), uint16(0), byte(0))
	f.Fuzz(func(t *testing.T, text string, off1 uint16, x1 byte, off2 uint16, x2 byte) {
		var pairs []pair
		for i, l := range strings.Split(text, "\n") {
			pairs = append(pairs, pair{l, uint64(i)})
		}
		blob := build(t, pairs...)
		body := blob[headerSize:]
		body[int(off1)%len(body)] ^= x1
		body[int(off2)%len(body)] ^= x2
		exercise(t, reseal(blob))
	})
}

// FuzzBuild builds an index from newline-separated labels and checks that
// Iterate, Lookup and exact Search give back exactly what was added.
func FuzzBuild(f *testing.F) {
	f.Add("Blade Runner\nblade-runner\nAlien\n\nÆon Flux")
	f.Add("a\nb\na\nab\nabc")
	f.Fuzz(func(t *testing.T, text string) {
		var pairs []pair
		for i, l := range strings.Split(text, "\n") {
			pairs = append(pairs, pair{l, uint64(i % 5)})
		}
		ix := open(t, pairs...)
		// A spilling Builder with a tiny budget writes the same bytes.
		sb := NewSpillingBuilder(SpillOptions{Dir: t.TempDir(), Budget: 64})
		defer sb.Close()
		if spilled := buildWith(t, sb, pairs); !bytes.Equal(spilled, build(t, pairs...)) {
			t.Fatalf("spilled blob (%d runs) differs from the in-memory blob", sb.Runs())
		}
		want := reference(pairs)
		if got := contents(t, ix); !maps.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("Iterate = %v, want %v", got, want)
		}
		for k, ids := range want {
			if got := ix.Lookup(k); !slices.Equal(got, ids) {
				t.Fatalf("Lookup(%q) = %v, want %v", k, got, ids)
			}
			exact := ix.Search(k, 0, SearchOptions{NoPrefix: true, NoFuzzy: true})
			if len(exact) != len(ids) || exact[0].Key != k {
				t.Fatalf("Search(%q) = %v, want ids %v", k, exact, ids)
			}
		}
	})
}

// TestLevAutomatonMatchesVellumDFA runs the package's Levenshtein automaton
// and vellum's Levenshtein DFA over the same FST: both must accept the same
// keys, at the distance agnivade/levenshtein computes.
func TestLevAutomatonMatchesVellumDFA(t *testing.T) {
	labels := append(genLabels(2000, 3), "Ärger", "Ärgér", "arger", "東京", "東京都", "京都", "naïve", "naive", "nave")
	var pairs []pair
	for i, l := range labels {
		pairs = append(pairs, pair{l, uint64(i)})
	}
	ix := open(t, pairs...)
	builders := levBuilders(t)
	queries := []string{"arger", "ärgar", "東京", "東都", "naive", "kalomi", "ren tabu", "quepra sto", "x"}
	queries = append(queries, labels[:30]...)
	for _, q := range queries {
		q = Normalize(q)
		for d := uint8(1); d <= MaxFuzzy; d++ {
			dfa, err := builders[d].BuildDfa(q, d)
			if err != nil {
				t.Fatal(err)
			}
			want := walkKeys(t, ix, dfa, nil)
			lev := newLevAutomaton(q, int(d))
			got := walkKeys(t, ix, lev, func(k string, s int) {
				if dist := levenshtein.ComputeDistance(q, k); lev.distance(s) != dist {
					t.Errorf("%q ~ %q: automaton distance %d, levenshtein %d", q, k, lev.distance(s), dist)
				}
			})
			// vellum's DFA misses matches of long queries at distance 1
			// (a query of 15 runes does not even match itself), so for
			// those only check that it finds nothing the automaton misses;
			// the distance check above vouches for the automaton's keys.
			short := utf8.RuneCountInString(q) <= 12
			if short && !slices.Equal(got, want) || !short && !isSubset(want, got) {
				t.Errorf("query %q, distance %d: automaton keys %q, vellum DFA keys %q", q, d, got, want)
			}
		}
	}
}

// isSubset reports whether every element of sorted a is in sorted b.
func isSubset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// walkKeys returns the keys an automaton accepts; check, if set, is called
// with each key and the automaton state that accepted it.
func walkKeys(t *testing.T, ix *Index, aut interface {
	Start() int
	IsMatch(int) bool
	CanMatch(int) bool
	WillAlwaysMatch(int) bool
	Accept(int, byte) int
}, check func(key string, state int)) []string {
	t.Helper()
	var keys []string
	it, err := ix.fst.Search(aut, nil, nil)
	for ; err == nil; err = it.Next() {
		k, _ := it.Current()
		keys = append(keys, string(k))
		if check != nil {
			check(string(k), replayState(aut, k))
		}
	}
	return keys
}

// replayState runs aut over key and returns the final state.
func replayState(aut interface{ Accept(int, byte) int }, key []byte) int {
	s := 0
	for _, b := range key {
		s = aut.Accept(s, b)
	}
	return s
}

// FuzzLevAutomaton checks the automaton against agnivade/levenshtein on
// arbitrary query and key bytes, valid UTF-8 or not.
func FuzzLevAutomaton(f *testing.F) {
	f.Add("kitten", []byte("sitting"), uint8(2))
	f.Add("東京", []byte("東京都"), uint8(1))
	f.Add("ab", []byte("a\x80b"), uint8(1))
	f.Add("ab", []byte("\xe6a"), uint8(2))
	f.Fuzz(func(t *testing.T, q string, key []byte, dist uint8) {
		if utf8.RuneCountInString(q) > 64 || len(key) > 256 {
			return
		}
		d := int(dist%MaxFuzzy) + 1
		a := newLevAutomaton(q, d)
		s := replayState(a, key)
		want := levenshtein.ComputeDistance(q, string(key))
		switch {
		case s < 0:
			if want <= d {
				t.Fatalf("%q ~ %q: automaton died, distance %d <= %d", q, key, want, d)
			}
		case a.states[s].npen > 0:
			// key ends inside a UTF-8 sequence: no match either way.
			if a.IsMatch(s) {
				t.Fatalf("%q ~ %q: match inside a rune", q, key)
			}
		case a.distance(s) != min(want, d+1) || a.IsMatch(s) != (want <= d):
			t.Fatalf("%q ~ %q: automaton distance %d (match %v), levenshtein %d, max %d", q, key, a.distance(s), a.IsMatch(s), want, d)
		}
	})
}
