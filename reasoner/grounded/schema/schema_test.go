package schema

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// goodreads opens the GRBench-shaped fixture of package grounded.
func goodreads(t testing.TB) *engine.DB {
	t.Helper()
	nq, err := os.ReadFile("../testdata/goodreads.nq")
	if err != nil {
		t.Fatal(err)
	}
	return storetest.Open(t, map[string]string{"goodreads": string(nq)})
}

func typeNamed(d *Definition, name string) (NodeType, bool) {
	i := slices.IndexFunc(d.Types, func(t NodeType) bool { return t.Name == name })
	if i < 0 {
		return NodeType{}, false
	}
	return d.Types[i], true
}

func edgeNamed(t NodeType, name string, dir store.Direction) (EdgeType, bool) {
	i := slices.IndexFunc(t.Edges, func(e EdgeType) bool { return e.Name == name && e.Dir == dir })
	if i < 0 {
		return EdgeType{}, false
	}
	return t.Edges[i], true
}

func TestDeriveTypedGraph(t *testing.T) {
	db := goodreads(t)
	d, err := Derive(context.Background(), db, "goodreads", nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + d.Text())
	if !d.Typed() {
		t.Fatal("goodreads declares node types")
	}
	for _, name := range []string{"book", "author", "publisher", "series"} {
		if _, ok := typeNamed(d, name); !ok {
			t.Errorf("type %s missing from %+v", name, d.Types)
		}
	}
	book, _ := typeNamed(d, "book")
	if book.TextFeature != "title" {
		t.Errorf("book text feature = %q", book.TextFeature)
	}
	for _, f := range []string{"title", "num pages", "language code"} {
		if !slices.Contains(book.Features, f) {
			t.Errorf("book features %v lack %q", book.Features, f)
		}
	}
	for edge, target := range map[string]string{"author": "author", "series": "series", "similar books": "book", "publisher": "publisher"} {
		e, ok := edgeNamed(book, edge, store.Out)
		if !ok || e.Target != target {
			t.Errorf("book edge %s = %+v, %v; want target %s", edge, e, ok, target)
		}
	}
	if slices.ContainsFunc(book.Edges, func(e EdgeType) bool { return e.Relation == "num_pages" || e.Relation == store.GroveNodeType }) {
		t.Errorf("features or hidden relations listed as edges: %+v", book.Edges)
	}
	author, _ := typeNamed(d, "author")
	if !slices.Equal(author.Features, []string{"average rating"}) {
		t.Errorf("author features %v: names are labels, not features", author.Features)
	}
	if e, ok := edgeNamed(author, "author (inverse)", store.In); !ok || e.Target != "book" {
		t.Errorf("author incoming edge = %+v, %v", e, ok)
	}
	text := d.Text()
	for _, want := range []string{"Graph goodreads: 4 node types", "book nodes (found by their title):",
		"series -> series nodes", "features: title"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestDeriveBudgetAndSeeds(t *testing.T) {
	db := goodreads(t)
	ctx := context.Background()
	d, err := Derive(ctx, db, "goodreads", []string{"series/40990", "no/such"}, Options{MaxNodes: 1, Probes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Nodes != 1 || len(d.Types) != 1 || d.Types[0].Name != "series" {
		t.Fatalf("one seed, budget 1: %+v", d)
	}
	if e, ok := edgeNamed(d.Types[0], "book", store.Out); !ok || e.Target != "" || e.Example != "InuYasha -> Inu Yasha, Volume 1" {
		t.Errorf("series edge = %+v, %v (target unknown: the book was not inspected)", e, ok)
	}
	if !strings.Contains(d.Text(), "book (e.g. InuYasha -> Inu Yasha, Volume 1)") {
		t.Errorf("edge of unknown target shows no example:\n%s", d.Text())
	}
	empty, err := Derive(ctx, db, "goodreads", nil, Options{Probes: []string{"zzzz"}})
	if err != nil || len(empty.Types) != 0 || !strings.Contains(empty.Text(), "no node with visible relations") {
		t.Errorf("nothing found: %+v, %v", empty, err)
	}
}

// failingKG fails every Relations call.
type failingKG struct {
	store.KG
}

func (f *failingKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	return nil, errors.New("disk on fire")
}

func TestDeriveErrors(t *testing.T) {
	db := goodreads(t)
	_, err := Derive(context.Background(), &failingKG{KG: db}, "goodreads", nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "schema of goodreads") {
		t.Fatalf("error = %v", err)
	}
	if _, err := Derive(context.Background(), db, "nosuchgraph", nil, Options{}); err == nil {
		t.Fatal("unknown graph: no error")
	}
}

// filmNQ is a tiny graph in the shape of the Freebase film sample: no node
// types, the bare <name> label predicate, performances as blank nodes.
const filmNQ = `
</en/blade_runner> <name> "Blade Runner" .
</en/ridley_scott> <name> "Ridley Scott" .
</en/harrison_ford> <name> "Harrison Ford" .
</en/blade_runner> </film/film/directed_by> </en/ridley_scott> .
</en/blade_runner> </film/film/starring> _:p1 .
_:p1 </film/performance/actor> </en/harrison_ford> .
_:p1 </film/performance/character> "Rick Deckard" .
</en/blade_runner> </film/film/initial_release_date> "1982-06-25" .
`

func TestDeriveUntyped(t *testing.T) {
	db := storetest.Open(t, map[string]string{"film": filmNQ})
	d, err := Derive(context.Background(), db, "film", []string{"/en/blade_runner"}, Options{Probes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + d.Text())
	if d.Typed() || len(d.Types) != 1 {
		t.Fatalf("the graph declares no types: %+v", d.Types)
	}
	u := d.Types[0]
	if e, ok := edgeNamed(u, "directed by", store.Out); !ok || e.Example != "Blade Runner -> Ridley Scott" {
		t.Errorf("directed by = %+v, %v", e, ok)
	}
	if e, ok := edgeNamed(u, "actor", store.Out); !ok || e.Example != "(unnamed node) -> Harrison Ford" {
		t.Errorf("actor (two hops from the seed) = %+v, %v", e, ok)
	}
	if _, ok := edgeNamed(u, "directed", store.In); !ok {
		t.Errorf("incoming directed missing: %+v", u.Edges)
	}
	if !slices.Equal(u.Features, []string{"initial release date", "character"}) {
		t.Errorf("features %v", u.Features)
	}
	if slices.ContainsFunc(u.Edges, func(e EdgeType) bool { return e.Name == "character" }) {
		t.Errorf("literal relation listed as an edge type: %+v", u.Edges)
	}
	text := d.Text()
	for _, want := range []string{"Graph film: node types are not declared (sampled from 4 nodes).",
		"edge types: directed by (e.g. Blade Runner -> Ridley Scott)", "incoming edge types: directed (e.g. Ridley Scott -> Blade Runner)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestDeriveCompletesFromSummaries: the sampled performance has no
// character; another performance has one. The completion over the
// members' relation summaries lists it anyway, and the unnamed
// performance never appears by its id.
func TestDeriveCompletesFromSummaries(t *testing.T) {
	const nq = `
</en/blade_runner> <name> "Blade Runner" .
</en/harrison_ford> <name> "Harrison Ford" .
</en/rutger_hauer> <name> "Rutger Hauer" .
</en/blade_runner> </film/film/starring> _:p1 .
</en/blade_runner> </film/film/starring> _:p2 .
_:p1 </film/performance/actor> </en/harrison_ford> .
_:p2 </film/performance/actor> </en/rutger_hauer> .
_:p2 </film/performance/character> "Roy Batty" .
_:p2 </film/performance/special_performance_type> </en/voice> .
</en/voice> <name> "Voice" .
`
	db := storetest.Open(t, map[string]string{"film": nq})
	for _, tc := range []struct {
		name     string
		maxNodes int
	}{{"one sampled node", 1}, {"default budget", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Derive(context.Background(), db, "film", []string{"/en/blade_runner"},
				Options{MaxNodes: tc.maxNodes, Probes: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			u := d.Types[0]
			if !slices.Contains(u.Features, "character") {
				t.Errorf("features %v lack character\n%s", u.Features, d.Text())
			}
			if _, ok := edgeNamed(u, "special performance type", store.Out); !ok {
				t.Errorf("edge types lack special performance type\n%s", d.Text())
			}
			if strings.Contains(d.Text(), "_:film/") {
				t.Errorf("definition shows a mediator id:\n%s", d.Text())
			}
		})
	}
}

// TestDeriveUnlabelled: a feature or edge type without a label is named
// by its id followed by subgraph.NoLabel, never by its bare id, in either
// direction.
func TestDeriveUnlabelled(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Paris" .
<Q1> <P131> <Q2> .
<Q1> <P1036> "944.361" .
<Q2> <http://www.w3.org/2000/01/rdf-schema#label> "Ile-de-France" .
<Q2> <P131> <Q3> .
<Q3> <http://www.w3.org/2000/01/rdf-schema#label> "France" .
`})
	d, err := Derive(context.Background(), db, "wd", []string{"Q1", "Q2"}, Options{Probes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	text := d.Text()
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"P1036 (no label in the KG)", true},
		{"P131 (no label in the KG)", true},
		{"inverse of P131 (no label in the KG)", true},
		{"features: P1036\n", false},
		{"is P131 of", false},
	} {
		if strings.Contains(text, tc.text) != tc.want {
			t.Errorf("definition contains %q = %v, want %v:\n%s", tc.text, !tc.want, tc.want, text)
		}
	}
}

// TestDeriveOtherGraphsTypes: a type node is named by the bare type name,
// which graphs share (Wikidata's "item" and Amazon's), and one node may
// carry a type in several graphs. Only the described graph's
// grove:nodeType and grove:textFeature count, whichever graph was loaded
// first.
func TestDeriveOtherGraphsTypes(t *testing.T) {
	const wd = `<Q1> <grove:nodeType> "item" .
<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "London" .
<Q1> <P17> <Q2> .
<Q2> <grove:nodeType> "item" .
<Q2> <http://www.w3.org/2000/01/rdf-schema#label> "United Kingdom" .
`
	const amazon = `<item> <grove:textFeature> "title" .
<Q1> <grove:nodeType> "product" .
<product> <grove:textFeature> "name" .
<item/7> <grove:nodeType> "item" .
<item/7> <http://www.w3.org/2000/01/rdf-schema#label> "A kettle" .
<item/7> <also_bought> <Q1> .
`
	for _, tc := range []struct {
		name  string
		order []string
	}{{"other graph loaded first", []string{"amazon", "wd"}}, {"other graph loaded last", []string{"wd", "amazon"}}} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, nil)
			for _, g := range tc.order {
				qs, err := storetest.Parse(g, strings.NewReader(map[string]string{"wd": wd, "amazon": amazon}[g]))
				if err != nil {
					t.Fatal(err)
				}
				storetest.Load(t, db, g, qs)
			}
			d, err := Derive(context.Background(), db, "wd", []string{"Q1"}, Options{Probes: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Types) != 1 || d.Types[0].Name != "item" || d.Types[0].TextFeature != "" {
				t.Errorf("types = %+v, want item without a text feature", d.Types)
			}
			if text := d.Text(); !strings.Contains(text, "  item nodes:\n") {
				t.Errorf("definition shows another graph's type or search field:\n%s", text)
			}
		})
	}
}

// TestDerivePartlyTyped: in a graph where only some nodes have a type (a
// Wikidata sample's items outside the sample have no type, no label and
// no outgoing edge), the untyped section lists the untyped nodes' own
// edges only, not those of the typed items next to them, and a typed node
// reached only through an untyped one (George Washington, whose spouse
// no inspected item shares) still gives its edges to its own type.
func TestDerivePartlyTyped(t *testing.T) {
	const rdfsLabel = "<http://www.w3.org/2000/01/rdf-schema#label>"
	db := storetest.Open(t, map[string]string{"wd": strings.NewReplacer("LABEL", rdfsLabel).Replace(`
<P17> LABEL "country" .
<P131> LABEL "located in" .
<P102> LABEL "party" .
<P26> LABEL "spouse" .
<Q1> <grove:nodeType> "item" .
<Q1> LABEL "London" .
<Q1> <P17> <Q2> .
<Q1> <P131> <Q9> .
<Q2> <grove:nodeType> "item" .
<Q2> LABEL "United Kingdom" .
<Q3> <grove:nodeType> "item" .
<Q3> LABEL "George Washington" .
<Q3> <P102> <Q9> .
<Q3> <P26> <Q10> .
`)})
	d, err := Derive(context.Background(), db, "wd", []string{"Q1"}, Options{MaxNodes: 3, Probes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	text := d.Text()
	for _, tc := range []struct {
		typ, rel string
		dir      store.Direction
		want     bool
	}{
		{"", "P131", store.In, true},
		{"", "P102", store.In, true},
		{"", "P17", store.Out, false},
		{"", "P102", store.Out, false},
		{"", "P26", store.Out, false},
		{"item", "P17", store.Out, true},
		{"item", "P102", store.Out, true},
		{"item", "P26", store.Out, true},
	} {
		typ, ok := typeNamed(d, tc.typ)
		if !ok {
			t.Fatalf("no type %q:\n%s", tc.typ, text)
		}
		got := slices.ContainsFunc(typ.Edges, func(e EdgeType) bool { return e.Relation == tc.rel && e.Dir == tc.dir })
		if got != tc.want {
			t.Errorf("type %q lists %s edge type %s = %v, want %v:\n%s", tc.typ, tc.dir, tc.rel, got, tc.want, text)
		}
	}
}

// TestDeriveExamplesOfTheGraph: a node and a relation both graphs have
// (the same film with a "directed by" in each) give the example of the
// described graph, whichever graph was loaded first, both for an edge
// type the sample follows and for one the completion adds (Y1's "next",
// reached with MaxNodes 1 only through the relation summaries).
func TestDeriveExamplesOfTheGraph(t *testing.T) {
	const rdfsLabel = "<http://www.w3.org/2000/01/rdf-schema#label>"
	nq := func(s string) string { return strings.ReplaceAll(s, "LABEL", rdfsLabel) }
	other := nq(`<X> LABEL "X" .
<X> <directed_by> <W1> .
<X> <directed_by> <W2> .
<W1> LABEL "Other one" .
<W2> LABEL "Other two" .
<Y1> <next> <W3> .
<W3> LABEL "Other three" .
`)
	film := nq(`<X> LABEL "X" .
<X> <directed_by> <Y1> .
<Y1> LABEL "Film one" .
<Y1> <next> <Y2> .
<Y2> LABEL "Film two" .
`)
	for _, tc := range []struct {
		name     string
		order    []string
		maxNodes int
		rel      string
		want     string
	}{
		{"followed, other graph loaded first", []string{"other", "film"}, 0, "directed_by", "X -> Film one"},
		{"followed, other graph loaded last", []string{"film", "other"}, 0, "directed_by", "X -> Film one"},
		{"completed, other graph loaded first", []string{"other", "film"}, 1, "next", "Film one -> Film two"},
		{"completed, other graph loaded last", []string{"film", "other"}, 1, "next", "Film one -> Film two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, nil)
			for _, g := range tc.order {
				qs, err := storetest.Parse(g, strings.NewReader(map[string]string{"other": other, "film": film}[g]))
				if err != nil {
					t.Fatal(err)
				}
				storetest.Load(t, db, g, qs)
			}
			d, err := Derive(context.Background(), db, "film", []string{"X"}, Options{MaxNodes: tc.maxNodes, Probes: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(d.Types[0].Edges, func(e EdgeType) bool { return e.Relation == tc.rel && e.Dir == store.Out })
			if i < 0 {
				t.Fatalf("no edge type %s:\n%s", tc.rel, d.Text())
			}
			if got := d.Types[0].Edges[i].Example; got != tc.want {
				t.Errorf("example of %s = %q, want %q:\n%s", tc.rel, got, tc.want, d.Text())
			}
		})
	}
}

// TestDeriveEdgeTypeBeyondTheScan: when another graph has more edges of a
// relation from the node than an example reads (maxExampleScan), the
// described graph's edge type is still listed: with the example of a
// later node of the type when one has it, else without example, both for
// an edge type the sample follows and for one the completion adds.
func TestDeriveEdgeTypeBeyondTheScan(t *testing.T) {
	const rdfsLabel = "<http://www.w3.org/2000/01/rdf-schema#label>"
	var big strings.Builder
	big.WriteString(`<X> ` + rdfsLabel + ` "Ex" .` + "\n")
	for i := range maxExampleScan + 76 {
		fmt.Fprintf(&big, "<X> <p> <b%d> .\n<b%d> %s \"Beta %d\" .\n", i, i, rdfsLabel, i)
	}
	small := strings.ReplaceAll(`<X> LABEL "Ex" .
<X> <p> <a1> .
<a1> LABEL "Alpha" .
<a1> <q> <a2> .
<a2> LABEL "Alpha Two" .
<Z> LABEL "Zed" .
<Z> <p> <a3> .
<a3> LABEL "Alpha Three" .
`, "LABEL", rdfsLabel)
	db := storetest.Open(t, nil)
	for _, g := range []struct{ name, nt string }{{"gb", big.String()}, {"ga", small}} {
		qs, err := storetest.Parse(g.name, strings.NewReader(g.nt))
		if err != nil {
			t.Fatal(err)
		}
		storetest.Load(t, db, g.name, qs)
	}
	for _, tc := range []struct {
		name     string
		seeds    []string
		maxNodes int
		want     string
	}{
		{"followed, no other node", []string{"X"}, 0, ""},
		{"followed, a later node gives the example", []string{"X", "Z"}, 0, "Zed -> Alpha Three"},
		{"completed", []string{"a1"}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Derive(context.Background(), db, "ga", tc.seeds, Options{MaxNodes: tc.maxNodes, Probes: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(d.Types[0].Edges, func(e EdgeType) bool { return e.Relation == "p" && e.Dir == store.Out })
			if i < 0 {
				t.Fatalf("edge type p is missing:\n%s", d.Text())
			}
			e := d.Types[0].Edges[i]
			if e.Example != tc.want {
				t.Errorf("example of p = %q, want %q:\n%s", e.Example, tc.want, d.Text())
			}
			if tc.want == "" && !strings.Contains(d.Text(), e.Name+" ("+NoExample+")") {
				t.Errorf("text does not say p has no example:\n%s", d.Text())
			}
		})
	}
}
