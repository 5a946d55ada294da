package labelindex

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

var filmPairs = []pair{
	{"Blade Runner", 1}, {"Blade Runner: The Final Cut", 1}, {"Blade Runner", 13},
	{"Blade Runner 2049", 2}, {"Bladerunner", 3}, {"Blade", 4},
	{"Harrison Ford", 5}, {"Harrison", 6}, {"Café Society", 7}, {"Straße", 8},
	{"Alien", 9}, {"Aliens", 10}, {"Alien 3", 11}, {"Москва", 12}, {"東京", 14},
}

// hits renders hits compactly: "id key kind distance" each.
func hits(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%d %s %s %d", h.ID, h.Key, h.Match, h.Distance)
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := open(t, filmPairs...)
	bladeRunner := []string{"1 blade runner exact 0", "13 blade runner exact 0", "2 blade runner 2049 prefix 5", "3 bladerunner fuzzy 1"}
	tests := []struct {
		name  string
		q     string
		limit int
		opts  SearchOptions
		want  []string
	}{
		{"exact then prefix then fuzzy", "blade runner", 10, SearchOptions{}, bladeRunner},
		{"query normalized", "  BLADE-RUNNER!! ", 10, SearchOptions{}, bladeRunner},
		{"no limit", "blade runner", 0, SearchOptions{}, bladeRunner},
		{"limit cuts duplicates by id", "blade runner", 1, SearchOptions{}, bladeRunner[:1]},
		{"limit", "blade runner", 3, SearchOptions{}, bladeRunner[:3]},
		{"shortest prefix first", "blade", 10, SearchOptions{}, []string{
			"4 blade exact 0", "3 bladerunner prefix 6", "1 blade runner prefix 7",
			"13 blade runner prefix 7", "2 blade runner 2049 prefix 12"}},
		{"fuzzy distance 2 for 8+ runes", "blade runer", 10, SearchOptions{}, []string{
			"1 blade runner fuzzy 1", "13 blade runner fuzzy 1", "3 bladerunner fuzzy 2"}},
		{"prefix beats fuzzy", "alien", 10, SearchOptions{}, []string{
			"9 alien exact 0", "10 aliens prefix 1", "11 alien 3 prefix 2"}},
		{"length difference breaks distance ties", "alienz", 10, SearchOptions{}, []string{
			"10 aliens fuzzy 1", "9 alien fuzzy 1"}},
		{"no fuzzy below 4 runes", "alx", 10, SearchOptions{}, nil},
		{"short prefix", "ali", 10, SearchOptions{}, []string{
			"9 alien prefix 2", "10 aliens prefix 3", "11 alien 3 prefix 4"}},
		{"accent folded prefix", "CAFE", 10, SearchOptions{}, []string{"7 cafe society prefix 8"}},
		{"sharp s", "STRASSE", 10, SearchOptions{}, []string{"8 strasse exact 0"}},
		{"cyrillic", "МОСКВА", 10, SearchOptions{}, []string{"12 москва exact 0"}},
		{"cyrillic fuzzy", "москво", 10, SearchOptions{}, []string{"12 москва fuzzy 1"}},
		{"cjk prefix", "東", 10, SearchOptions{}, []string{"14 東京 prefix 1"}},
		{"empty", "", 10, SearchOptions{}, nil},
		{"only punctuation", "?!", 10, SearchOptions{}, nil},
		{"no match", "zzzzzzzz", 10, SearchOptions{}, nil},
		{"no prefix", "blade", 10, SearchOptions{NoPrefix: true}, []string{"4 blade exact 0"}},
		{"no prefix keeps fuzzy", "harrison for", 10, SearchOptions{NoPrefix: true}, []string{"5 harrison ford fuzzy 1"}},
		{"prefix", "harrison for", 10, SearchOptions{}, []string{"5 harrison ford prefix 1"}},
		{"no fuzzy", "blade runer", 10, SearchOptions{NoFuzzy: true}, nil},
		{"max distance lowers", "blade runer", 10, SearchOptions{MaxDistance: 1}, []string{
			"1 blade runner fuzzy 1", "13 blade runner fuzzy 1"}},
		{"max distance raises", "alienz", 10, SearchOptions{MaxDistance: 2}, []string{
			"10 aliens fuzzy 1", "9 alien fuzzy 1", "11 alien 3 fuzzy 2"}},
		{"max distance capped", "blxde rxnner", 10, SearchOptions{MaxDistance: 9}, []string{
			"1 blade runner fuzzy 2", "13 blade runner fuzzy 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hits(ix.Search(tt.q, tt.limit, tt.opts))
			if !slices.Equal(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Errorf("Search(%q, %d, %+v) =\n%s\nwant\n%s", tt.q, tt.limit, tt.opts,
					strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestMatchKindString(t *testing.T) {
	for k, want := range map[MatchKind]string{Exact: "exact", Prefix: "prefix", Fuzzy: "fuzzy", 7: "MatchKind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestFuzzyDistance(t *testing.T) {
	for n, want := range []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2} {
		if got := FuzzyDistance(n); got != want {
			t.Errorf("FuzzyDistance(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestSearchConcurrent runs searches from several goroutines on one Index
// (run with -race) and checks they agree with a sequential search.
func TestSearchConcurrent(t *testing.T) {
	ix := open(t, filmPairs...)
	queries := []string{"blade runner", "blade", "alienz", "москва", "harrison for"}
	want := make([][]string, len(queries))
	for i, q := range queries {
		want[i] = hits(ix.Search(q, 10, SearchOptions{}))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(queries))
	for range 8 {
		wg.Go(func() {
			for i, q := range queries {
				if got := hits(ix.Search(q, 10, SearchOptions{})); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("Search(%q) = %v, want %v", q, got, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSearchSkipsLaterPhases checks that a phase does not run once limit ids
// are found, and that a full exact key is cut to limit ids.
func TestSearchSkipsLaterPhases(t *testing.T) {
	var pairs []pair
	for id := range uint64(50) {
		pairs = append(pairs, pair{"common", 100 - id}, pair{"commons", id})
	}
	ix := open(t, pairs...)
	got, st := ix.search("common", 3, SearchOptions{})
	if want := []string{"51 common exact 0", "52 common exact 0", "53 common exact 0"}; !slices.Equal(hits(got), want) {
		t.Errorf("hits = %v, want %v", hits(got), want)
	}
	if st.passes != 0 || st.fuzzyKeys != 0 {
		t.Errorf("later phases ran: %+v", st)
	}
}

// TestSearchShortestPrefixBounded puts 5000 long keys lexicographically
// before two short ones: iterative deepening must still find the short ones
// first, within a small visit cap.
func TestSearchShortestPrefixBounded(t *testing.T) {
	var pairs []pair
	for i := range 5000 {
		pairs = append(pairs, pair{fmt.Sprintf("a%05d", i), uint64(i)})
	}
	pairs = append(pairs, pair{"azz", 90001}, pair{"az", 90000}, pair{"aé", 90002})
	ix := open(t, pairs...)
	const visit = 100
	got, st := ix.search("a", 3, SearchOptions{MaxVisit: visit})
	want := []string{"90002 ae prefix 1", "90000 az prefix 1", "90001 azz prefix 2"}
	if !slices.Equal(hits(got), want) {
		t.Errorf("hits = %v, want %v", hits(got), want)
	}
	if st.prefixKeys > visit || st.truncated {
		t.Errorf("visited %d keys (truncated %v), want the short keys found within %d", st.prefixKeys, st.truncated, visit)
	}

	all, st := ix.search("a", 0, SearchOptions{MaxVisit: visit})
	if st.prefixKeys != visit || !st.truncated || len(all) != visit {
		t.Errorf("unlimited search: %d hits, %d keys visited, truncated %v; want the %d-key cap", len(all), st.prefixKeys, st.truncated, visit)
	}
	if st.steps > 2*visit*stepsPerVisit {
		t.Errorf("%d automaton steps exceed the budget", st.steps)
	}
}

// TestSearchStepBudget makes the step budget, not the visit cap, end a
// fuzzy walk: every key is a near miss of the query.
func TestSearchStepBudget(t *testing.T) {
	var pairs []pair
	for i := range 3000 {
		pairs = append(pairs, pair{fmt.Sprintf("q%04dxyz", i), uint64(i)})
	}
	ix := open(t, pairs...)
	const visit = 4
	_, st := ix.search("q0000xyy", 0, SearchOptions{MaxVisit: visit, NoPrefix: true})
	if !st.truncated || st.steps > visit*stepsPerVisit {
		t.Errorf("stats %+v: want a walk cut by the %d-step budget", st, visit*stepsPerVisit)
	}
}

// TestSearchMatchesBruteForce compares Search with an exhaustive scan of
// every key on a few thousand generated labels, for many queries, limits and
// options.
func TestSearchMatchesBruteForce(t *testing.T) {
	labels := append(genLabels(3000, 7), "Ärger", "arg", "argé", "東京タワー", "東京")
	var pairs []pair
	for i, l := range labels {
		pairs = append(pairs, pair{l, uint64(i % 2500)})
	}
	ix := open(t, pairs...)
	keys := reference(pairs)
	queries := []string{"ka", "kalo", "kalomi", "ren ta", "ren tabu sel", "vi", "quepra", "isyaon",
		"sto li", "arg", "arger", "東京", "東", "maro gufen", "x", "tal ber is on"}
	r := rand.New(rand.NewPCG(5, 6))
	for _, q := range labels[:25] {
		queries = append(queries, q, q[:len(q)/2], typo(r, q))
	}
	optsList := []SearchOptions{{}, {NoPrefix: true}, {NoFuzzy: true}, {MaxDistance: 2}, {MaxDistance: 1, NoPrefix: true}}
	for _, q := range queries {
		for _, opts := range optsList {
			opts.MaxVisit = 1 << 20
			for _, limit := range []int{0, 1, 5} {
				got := hits(ix.Search(q, limit, opts))
				if want := hits(bruteSearch(keys, q, limit, opts)); !slices.Equal(got, want) {
					t.Fatalf("Search(%q, %d, %+v) =\n%s\nbrute force:\n%s", q, limit, opts,
						strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}

// bruteSearch is the specification of Search without caps: classify every
// key, keep each id's best hit, rank, cut.
func bruteSearch(keys map[string][]uint64, text string, limit int, opts SearchOptions) []Hit {
	q := Normalize(text)
	if q == "" {
		return nil
	}
	qn := utf8.RuneCountInString(q)
	d := FuzzyDistance(qn)
	if opts.MaxDistance > 0 {
		d = min(opts.MaxDistance, MaxFuzzy)
	}
	if opts.NoFuzzy {
		d = -1
	}
	best := map[uint64]ranked{}
	for k, ids := range keys {
		kn := utf8.RuneCountInString(k)
		h := Hit{Key: k}
		switch {
		case k == q:
			h.Match = Exact
		case !opts.NoPrefix && strings.HasPrefix(k, q):
			h.Match, h.Distance = Prefix, kn-qn
		case abs(kn-qn) <= d: // a cheap bound on the distance
			h.Match, h.Distance = Fuzzy, levenshtein.ComputeDistance(q, k)
			if h.Distance > d {
				continue
			}
		default:
			continue
		}
		for _, id := range ids {
			r := ranked{Hit: h, lenDiff: abs(kn - qn)}
			r.ID = id
			if old, ok := best[id]; !ok || compareRanked(r, old) < 0 {
				best[id] = r
			}
		}
	}
	all := slices.SortedFunc(maps.Values(best), compareRanked)
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]Hit, len(all))
	for i, r := range all {
		out[i] = r.Hit
	}
	return out
}

func FuzzSearch(f *testing.F) {
	for _, q := range []string{"kalo", "ren tabu", "blade", "東", "ärger", "", "a b c d e f"} {
		f.Add(q, 5, false, false, 0)
	}
	labels := append(genLabels(1500, 11), "Ärger", "arg", "東京")
	var pairs []pair
	for i, l := range labels {
		pairs = append(pairs, pair{l, uint64(i % 1200)})
	}
	ix := open(f, pairs...)
	keys := reference(pairs)
	f.Fuzz(func(t *testing.T, q string, limit int, noPrefix, noFuzzy bool, maxDist int) {
		opts := SearchOptions{NoPrefix: noPrefix, NoFuzzy: noFuzzy, MaxDistance: maxDist % 4, MaxVisit: 1 << 20}
		limit %= 20
		got := hits(ix.Search(q, limit, opts))
		if want := hits(bruteSearch(keys, q, limit, opts)); !slices.Equal(got, want) {
			t.Fatalf("Search(%q, %d, %+v) =\n%s\nbrute force:\n%s", q, limit, opts,
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// With the default caps the hits must still be correct, if fewer.
		for _, h := range ix.Search(q, limit, SearchOptions{}) {
			if !slices.Contains(keys[h.Key], h.ID) {
				t.Fatalf("hit %+v: key does not hold id", h)
			}
		}
	})
}
