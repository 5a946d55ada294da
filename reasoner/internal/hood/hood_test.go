package hood

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/internal/kgfixture"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

func fixture(t *testing.T) store.KG {
	t.Helper()
	return kgfixture.Open(t)
}

func relation(t *testing.T, kg store.KG, id, rel string, dir store.Direction) store.Relation {
	t.Helper()
	rels, err := kg.Relations(context.Background(), []string{id}, dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rels, func(r store.Relation) bool { return r.ID == rel && r.Dir == dir })
	if i < 0 {
		t.Fatalf("%s has no relation %s (%s)", id, rel, dir)
	}
	return rels[i]
}

// TestFetchRanksTheLastEdgeFirst: the needed edge is the last of 61 in
// the store's order, beyond any first-N cap, and ranks first.
func TestFetchRanksTheLastEdgeFirst(t *testing.T) {
	kg := fixture(t)
	ctx := context.Background()
	rel := relation(t, kg, kgfixture.RidleyScott, kgfixture.DirectedBy, store.In)
	plain, err := kg.Edges(ctx, []string{kgfixture.RidleyScott}, rel.ID, rel.Dir, 50)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(plain, func(e store.Edge) bool { return e.Subject.ID == kgfixture.Gladiator }) {
		t.Fatal("fixture broken: Gladiator is among the store's first 50 edges")
	}
	tests := []struct {
		question string
		first    string
	}{
		{"When was Gladiator by Ridley Scott released?", kgfixture.Gladiator},
		{"Which film did Ridley Scott direct with Scott Picture 07 in its title?", "/m/a_scott_film_07"},
	}
	for _, tc := range tests {
		p, err := Fetch(ctx, kg, []string{kgfixture.RidleyScott}, rel, 0, 10, Options{Question: tc.question})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Edges) != 10 || p.Edges[0].Far.ID != tc.first || p.Total != kgfixture.ScottFilms || !p.More() {
			t.Fatalf("%q: page %d edges, first %s, total %d, more %v", tc.question, len(p.Edges), p.Edges[0].Far.ID,
				p.Total, p.More())
		}
		if note := p.Note(); !strings.Contains(note, "1-10 of 61") {
			t.Errorf("note %q", note)
		}
	}
}

// TestFetchPagesCoverEverything: consecutive pages never repeat an edge
// and together reach every edge.
func TestFetchPagesCoverEverything(t *testing.T) {
	kg := fixture(t)
	rel := relation(t, kg, kgfixture.RidleyScott, kgfixture.DirectedBy, store.In)
	seen := map[string]bool{}
	for off := 0; ; off += 25 {
		p, err := Fetch(context.Background(), kg, []string{kgfixture.RidleyScott}, rel, off, 25, Options{Question: "films?"})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Edges {
			if seen[e.Far.ID] {
				t.Fatalf("%s on two pages", e.Far.ID)
			}
			seen[e.Far.ID] = true
		}
		if !p.More() {
			break
		}
	}
	if len(seen) != kgfixture.ScottFilms {
		t.Fatalf("pages reached %d of %d edges", len(seen), kgfixture.ScottFilms)
	}
}

// TestFetchMediators: performance CVTs are described by their contents,
// rank by them (the needed one is the last of 133), and land in a local
// graph under their contents with the true total.
func TestFetchMediators(t *testing.T) {
	kg := fixture(t)
	rel := relation(t, kg, kgfixture.BladeRunner, kgfixture.Starring, store.Out)
	p, err := Fetch(context.Background(), kg, []string{kgfixture.BladeRunner}, rel, 0, 5,
		Options{Question: "Who played Rick Deckard in Blade Runner?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Edges[0].Text(); got != "(actor: Harrison Ford; character: Rick Deckard)" {
		t.Fatalf("first performance %q", got)
	}
	for _, e := range p.Edges {
		if !e.IsMediator() || len(e.Contents) != 2 {
			t.Errorf("performance %s contents %+v", e.Far.ID, e.Contents)
		}
	}
	g := subgraph.New()
	g.AddEntity(store.Entity{ID: kgfixture.BladeRunner, Label: "Blade Runner"}, kgfixture.Graph)
	AddTo(g, p, rel)
	text := g.Render()
	for _, want := range []string{"starring (133 in all, 5 shown):", "      (actor: Harrison Ford; character: Rick Deckard)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("graph text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "_:film/perf132\n") {
		t.Errorf("graph text shows a bare mediator id as a name:\n%s", text)
	}
	if ids := g.Resolve("Harrison Ford"); len(ids) != 1 || ids[0] != kgfixture.HarrisonFord {
		t.Errorf("Harrison Ford resolves to %v", ids)
	}
}

// TestFetchSharesPagesBetweenEntities: with two entities, the one with
// 61 edges cannot use up a page of 10.
func TestFetchSharesPagesBetweenEntities(t *testing.T) {
	kg := fixture(t)
	ids := []string{kgfixture.RidleyScott, kgfixture.JerryLewis}
	rels, err := kg.Relations(context.Background(), ids, store.In)
	if err != nil {
		t.Fatal(err)
	}
	rel := rels[slices.IndexFunc(rels, func(r store.Relation) bool { return r.ID == kgfixture.DirectedBy })]
	p, err := Fetch(context.Background(), kg, ids, rel, 0, 10, Options{Question: "films?"})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, e := range p.Edges {
		per[e.From]++
	}
	if per[kgfixture.RidleyScott] != 5 || per[kgfixture.JerryLewis] != 5 {
		t.Errorf("page split %v, want 5 each", per)
	}
	if p.Total != kgfixture.ScottFilms+kgfixture.LewisFilms || p.Totals[kgfixture.JerryLewis] != kgfixture.LewisFilms {
		t.Errorf("totals %d %v", p.Total, p.Totals)
	}
}

func TestSimilarity(t *testing.T) {
	q := Terms("Who directed the films Gladiator and Alien?")
	tests := []struct {
		text string
		want bool
	}{
		{"Gladiator", true}, {"The Alien", true}, {"Scott Picture 01", false}, {"", false}, {"the of", false},
	}
	for _, tc := range tests {
		if got := Similarity(q, tc.text) > 0; got != tc.want {
			t.Errorf("Similarity(%q) > 0 = %v", tc.text, got)
		}
	}
	if Similarity(q, "Gladiator") <= Similarity(q, "Gladiator Two") {
		t.Error("a wholly matched text should outrank a partly matched one")
	}
}

// countingKG counts the edges Edges returns.
type countingKG struct {
	store.KG
	edges int
}

func (c *countingKG) Edges(ctx context.Context, ids []string, rel string, dir store.Direction, limit int) ([]store.Edge, error) {
	es, err := c.KG.Edges(ctx, ids, rel, dir, limit)
	c.edges += len(es)
	return es, err
}

// TestContentsOfAHubAreBounded: an unnamed hub (a type node without a
// label) looks like a mediator; describing it reads a few edges, not all
// of its members, and it gets no contents.
func TestContentsOfAHubAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<hub_owner> <name> \"Owner\" .\n<hub_owner> <kind> <hub> .\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "<m%04d> <kind> <hub> .\n", i)
	}
	kg := &countingKG{KG: storetest.Open(t, map[string]string{"g": b.String()})}
	parts, err := Contents(context.Background(), kg, []string{"hub"}, map[string]string{"hub": "hub_owner"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts["hub"]) != 0 || kg.edges > 2*DefaultMaxParts+1 {
		t.Errorf("contents %v read %d edges", parts["hub"], kg.edges)
	}
}

// TestTextNamesUnlabelledInWords: a far end or a mediator part without a
// label is its id followed by "(no label in the KG)", never a bare id.
func TestTextNamesUnlabelledInWords(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Edge
		want string
	}{
		{"type node", Edge{Far: store.Entity{ID: "/film/film"}}, "/film/film (no label in the KG)"},
		{"labelled", Edge{Far: store.Entity{ID: "/en/ridley_scott", Label: "Ridley Scott"}}, "Ridley Scott"},
		{"literal", Edge{Far: store.Entity{ID: `"1982"`, Label: "1982", Literal: true}}, "1982"},
		{"mediator part without labels", Edge{Far: store.Entity{ID: "stmt1"}, Contents: []Part{
			{Label: label(store.Relation{ID: "P642", Label: "P642"}), Value: store.Entity{ID: "Q5"}},
			{Label: label(store.Relation{ID: "actor", Label: "actor"}), Value: store.Entity{ID: "Q7", Label: "Harrison Ford"}}}},
			"(P642 (no label in the KG): Q5 (no label in the KG); actor: Harrison Ford)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.Text(); got != tc.want {
				t.Errorf("Text() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoteSaysWhatWasRanked: when the fetch cap stops the read, the note
// says that only the first edges in the store's order were ranked, never
// that the listed ones are the most relevant of all.
func TestNoteSaysWhatWasRanked(t *testing.T) {
	kg := fixture(t)
	ctx := context.Background()
	rel := relation(t, kg, kgfixture.RidleyScott, kgfixture.DirectedBy, store.In)
	for _, tc := range []struct {
		name, question string
		fetchCap       int
		want, not      string
		first          string // the far end ranked first ("" = any)
	}{
		{"every edge ranked", "When was Gladiator released?", 0,
			"1-10 of 61, ranked by relevance to the question", "store's order", "Gladiator"},
		{"cap stops the read", "Which films did he direct after 1990?", 20,
			"1-10 of 61; only the first 20 in the store's order were read and ranked by " +
				"relevance to the question, the other 41 cannot be listed", "most relevant", ""},
		// Gladiator is past the first 20: found because the question names it.
		{"named past the cap", "When was Gladiator released?", 20,
			"1-10 of 61; only the first 20 in the store's order and 1 whose entity the question names were read " +
				"and ranked by relevance to the question, the other 40 cannot be listed", "most relevant", "Gladiator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Fetch(ctx, kg, []string{kgfixture.RidleyScott}, rel, 0, 10,
				Options{Question: tc.question, FetchCap: tc.fetchCap})
			if err != nil {
				t.Fatal(err)
			}
			if note := p.Note(); note != tc.want || strings.Contains(note, tc.not) {
				t.Errorf("note = %q, want %q", note, tc.want)
			}
			if tc.first != "" && (len(p.Edges) == 0 || p.Edges[0].Far.Name() != tc.first) {
				t.Errorf("first edge %+v, want %s", p.Edges[:min(1, len(p.Edges))], tc.first)
			}
		})
	}
}

func TestWordRuns(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"Who played Rick Deckard in Blade Runner?", []string{
			"played Rick Deckard in", "Rick Deckard in Blade", "Deckard in Blade Runner",
			"Who played Rick Deckard", "played Rick Deckard", "Rick Deckard in", "Deckard in Blade", "in Blade Runner", "in Blade",
			"Who played Rick", "played Rick", "Rick Deckard", "Deckard in", "Blade Runner",
			"Who played", "played", "Rick", "Deckard", "Blade", "Runner"}},
		{"Who is it?", nil},
		{"Thelma & Louise", []string{"Thelma & Louise", "Thelma &", "& Louise", "Thelma", "Louise"}},
	} {
		got := wordRuns(tc.q)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", tc.q, got, want)
		}
	}
}

func TestQuestionNamesCapitalisedFirst(t *testing.T) {
	got := questionNames("Who played Rick Deckard in the film Blade Runner directed by Ridley Scott in 1982?")
	if len(got) != maxNameLookups {
		t.Fatalf("%d lookups, want the cap %d: %q", len(got), maxNameLookups, got)
	}
	for _, want := range []string{"Blade Runner", "Rick Deckard", "Ridley Scott", "1982"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q not looked up: %q", want, got)
		}
	}
	for i, r := range got {
		if !capitalised(r) && i+1 < len(got) && capitalised(got[i+1]) {
			t.Errorf("%q before the capitalised %q", r, got[i+1])
		}
	}
}

func FuzzQuestionNames(f *testing.F) {
	for _, q := range []string{"Who played Rick Deckard in Blade Runner?", "", "Thelma & Louise", "l'Amélie d'O'Brien", "\xff\xfe 1982 ..."} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		names := questionNames(q)
		if len(names) > maxNameLookups {
			t.Fatalf("%d lookups for %q", len(names), q)
		}
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || seen[n] || len(strings.Fields(n)) > maxNameWords || len(Terms(n)) == 0 {
				t.Fatalf("bad name %q of %q (all: %q)", n, q, names)
			}
			seen[n] = true
		}
	})
}

// halfOtherGraph puts every other edge it returns in another graph.
type halfOtherGraph struct{ store.KG }

func (k halfOtherGraph) Edges(ctx context.Context, ids []string, rel string, dir store.Direction, limit int) ([]store.Edge, error) {
	es, err := k.KG.Edges(ctx, ids, rel, dir, limit)
	for i := range es {
		if i%2 == 1 {
			es[i].Graph = "other"
		}
	}
	return es, err
}

// TestCappedReadTotalsWithGraphFilter: an entity whose read the fetch cap
// stopped gets its true number of edges, even when the graph filter kept
// fewer than the cap of those read.
func TestCappedReadTotalsWithGraphFilter(t *testing.T) {
	kg := halfOtherGraph{fixture(t)}
	rel := relation(t, kg, kgfixture.RidleyScott, kgfixture.DirectedBy, store.In)
	p, err := Fetch(context.Background(), kg, []string{kgfixture.RidleyScott, kgfixture.JerryLewis}, rel, 0, 10,
		Options{Question: "Which films?", Graphs: []string{kgfixture.Graph}, FetchCap: 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Totals[kgfixture.RidleyScott]; got != kgfixture.ScottFilms {
		t.Errorf("Ridley Scott's total %d, want his %d films (the cap stopped the read)", got, kgfixture.ScottFilms)
	}
}

// twinCities is a Wikidata-like graph: London and Berlin are twinned with
// Q1486 and Q1490, items outside the loaded subset (no label, no edges of
// their own); stmt1 is a statement node (no label, edges of its own).
const twinCities = `<London> <name> "London" .
<Berlin> <name> "Berlin" .
<SaoPaulo> <name> "São Paulo" .
<London> <P190> <Q1486> .
<Berlin> <P190> <Q1486> .
<SaoPaulo> <P190> <Q1490> .
<London> <P190> <Q1490> .
<London> <P190> <Berlin> .
<London> <P6> <stmt1> .
<stmt1> <value> <Berlin> .
<stmt1> <start> "2016" .
`

// TestOnlyNodesWithEdgesOfTheirOwnAreMediators: an unlabelled item that
// only other entities' edges point at is no mediator: it has no
// contents, so it is never named after them ("(inverse of P190: Berlin)"
// would read as Berlin), and reads "Q1486 (no label in the KG)"; an
// unlabelled node with edges of its own (a statement or CVT node) is
// described by them.
func TestOnlyNodesWithEdgesOfTheirOwnAreMediators(t *testing.T) {
	kg := storetest.Open(t, map[string]string{"wd": twinCities})
	for _, tc := range []struct {
		name, rel, question string
		limit               int
		want                []string
	}{
		{"unranked page", "P190", "", 10, []string{"Berlin", "Q1486 (no label in the KG)", "Q1490 (no label in the KG)"}},
		{"ranked page", "P190", "Which cities are twinned with Berlin?", 1, []string{"Berlin"}},
		{"ranked past the page", "P190", "Which cities are twinned with Berlin?", 3,
			[]string{"Berlin", "Q1486 (no label in the KG)", "Q1490 (no label in the KG)"}},
		{"statement node", "P6", "", 10, []string{"(start: 2016; value: Berlin)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := relation(t, kg, "London", tc.rel, store.Out)
			p, err := Fetch(context.Background(), kg, []string{"London"}, rel, 0, tc.limit, Options{Question: tc.question})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p.Edges {
				got = append(got, e.Text())
				if e.IsMediator() != strings.HasPrefix(e.Far.ID, "stmt") {
					t.Errorf("%s: IsMediator() = %v, contents %+v", e.Far.ID, e.IsMediator(), e.Contents)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("texts %q, want %q", got, tc.want)
			}
		})
	}
}

// TestContentsWhenTheBatchLimitHidesOwnEdges: when a hub fills the
// limit of an Edges call for a batch, a node whose own edges it hid is
// still a mediator (its outgoing edges are counted), and an item without
// any is still none.
func TestContentsWhenTheBatchLimitHidesOwnEdges(t *testing.T) {
	var b strings.Builder
	b.WriteString(twinCities + "<London> <P6> <stmt2> .\n<stmt2> <value> <Berlin> .\n")
	for i := range 100 {
		fmt.Fprintf(&b, "<hub> <value> <m%03d> .\n", i)
	}
	kg := storetest.Open(t, map[string]string{"wd": b.String()})
	ids := []string{"hub", "stmt2", "Q1486"}
	parts, err := Contents(context.Background(), kg, ids, map[string]string{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"hub": false, "stmt2": true, "Q1486": false} {
		if got := len(parts[id]) > 0; got != want {
			t.Errorf("%s: contents %+v, want a mediator: %v", id, parts[id], want)
		}
	}
}
