package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

func TestFilmKG(t *testing.T) {
	db := filmDB(t)
	ctx := context.Background()
	st := db.Counts()
	if st.Quads != 471705 {
		t.Errorf("quads = %d, want 471705", st.Quads)
	}
	cands, err := db.Search(ctx, "film", "Blade Runner", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 || cands[0].ID != "/en/blade_runner" || cands[0].Match != "exact" {
		t.Fatalf("search Blade Runner = %+v", cands)
	}
	e, err := db.Entity(ctx, "/en/blade_runner")
	if err != nil || e.Label != "Blade Runner" || !slices.Equal(e.Graphs, []string{"film"}) {
		t.Fatalf("entity = %+v, %v", e, err)
	}
	rels, err := db.Relations(ctx, []string{"/en/blade_runner"}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	var directed *store.Relation
	for i := range rels {
		if rels[i].ID == "/film/film/directed_by" {
			directed = &rels[i]
		}
	}
	if directed == nil || directed.Label != "directed by" || directed.InverseLabel != "directed" || directed.Count != 1 {
		t.Fatalf("relations = %+v", rels)
	}
	edges, err := db.Edges(ctx, []string{"/en/blade_runner"}, "/film/film/directed_by", store.Out, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != 1 || edges[0].Object.Label != "Ridley Scott" {
		t.Fatalf("edges = %+v", edges)
	}
	// Films directed by Ridley Scott, through the inverse index.
	back, err := db.Edges(ctx, []string{edges[0].Object.ID}, "/film/film/directed_by", store.In, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(back, func(e store.Edge) bool { return e.Subject.Label == "Gladiator" }) {
		t.Errorf("Ridley Scott's films lack Gladiator: %d edges", len(back))
	}
	// Actors are two hops away through starring CVT nodes.
	star, err := db.Edges(ctx, []string{"/en/blade_runner"}, "/film/film/starring", store.Out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cvts []string
	for _, e := range star {
		cvts = append(cvts, e.Object.ID)
	}
	actors, err := db.Edges(ctx, cvts, "/film/performance/actor", store.Out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(actors, func(e store.Edge) bool { return e.Object.Label == "Harrison Ford" }) {
		t.Errorf("Blade Runner actors lack Harrison Ford: %+v", actors)
	}
	deg, err := db.Degree(ctx, "/en/blade_runner", "/film/film/starring", store.Out)
	if err != nil || deg != int64(len(star)) {
		t.Errorf("degree = %d, %v; want %d", deg, err, len(star))
	}
	if _, err := db.Entity(ctx, "/en/no_such_film"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown entity error = %v", err)
	}
}

func TestFeaturesNeighborsSameAs(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(s, p string, o quad.Value) quad.Quad {
		return quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(p), Object: o}
	}
	loadQuads(t, db, "wd", []quad.Quad{
		q("Q1299", store.RDFSLabel, quad.LangString{Value: "The Beatles", Lang: "en"}),
		q("Q1299", store.SchemaDesc, quad.LangString{Value: "English rock band", Lang: "en"}),
		q("Q1299", "P571", quad.TypedString{Value: "1960", Type: store.XSDGYear}),
		q("Q1299", "P527", quad.IRI("Q1203")),
		q("Q1203", store.RDFSLabel, quad.String("John Lennon")),
		q("Q1299", store.GroveSameAs, quad.IRI("mb:artist/b10bbbfc")),
	})
	loadQuads(t, db, "mb", []quad.Quad{
		q("mb:artist/b10bbbfc", store.RDFSLabel, quad.String("The Beatles")),
		q("mb:artist/b10bbbfc", "member", quad.IRI("mb:artist/4d5447d7")),
	})
	ctx := context.Background()
	fs, err := db.Features(ctx, "Q1299")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Name+"="+f.Value)
	}
	slices.Sort(got)
	if want := []string{"P571=1960", "description=English rock band"}; !slices.Equal(got, want) {
		t.Errorf("features = %v, want %v", got, want)
	}
	ns, err := db.Neighbors(ctx, "Q1299", "", store.Out, 0)
	if err != nil || len(ns) != 1 || ns[0].Label != "John Lennon" {
		t.Errorf("neighbors = %+v, %v (sameAs links are hidden)", ns, err)
	}
	links, err := db.SameAs(ctx, "Q1299", "mb")
	if err != nil || len(links) != 1 || links[0].Target.ID != "mb:artist/b10bbbfc" || links[0].Graph != "mb" {
		t.Fatalf("sameAs = %+v, %v", links, err)
	}
	back, err := db.SameAs(ctx, "mb:artist/b10bbbfc", "")
	if err != nil || len(back) != 1 || back[0].Target.ID != "Q1299" || back[0].Graph != "wd" {
		t.Fatalf("sameAs back = %+v, %v", back, err)
	}
}

// TestInMemorySearchSurvivesLaterLoads: loading a second graph keeps the
// first graph's label index (in memory there is no file to reread).
func TestInMemorySearchSurvivesLaterLoads(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	label := func(s, text string) quad.Quad {
		return quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String(text)}
	}
	loadQuads(t, db, "a", []quad.Quad{label("x", "Xylophone")})
	loadQuads(t, db, "b", []quad.Quad{label("y", "Yodel")})
	for _, c := range []struct{ graph, text, id string }{{"a", "xylophone", "x"}, {"b", "yodel", "y"}} {
		got, err := db.Search(context.Background(), c.graph, c.text, 1)
		if err != nil || len(got) != 1 || got[0].ID != c.id {
			t.Errorf("search %s in %s = %+v, %v", c.text, c.graph, got, err)
		}
	}
}

func TestSearchMatchedIsOriginalText(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQuads(t, db, "g", []quad.Quad{
		{Subject: quad.IRI("e"), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String("Amélie")},
		{Subject: quad.IRI("e"), Predicate: quad.IRI(store.SKOSAltLabel), Object: quad.String("Le Fabuleux Destin d'Amélie Poulain")},
	})
	for _, c := range []struct{ query, matched string }{
		{"amelie", "Amélie"},
		{"le fabuleux destin d amelie poulain", "Le Fabuleux Destin d'Amélie Poulain"},
	} {
		got, err := db.Search(context.Background(), "g", c.query, 1)
		if err != nil || len(got) != 1 || got[0].Matched != c.matched {
			t.Errorf("search %q = %+v, %v; want matched %q", c.query, got, err, c.matched)
		}
	}
}

// laterCancelled is a context whose Err turns Canceled after n calls: a
// request abandoned while a long read loop runs.
type laterCancelled struct {
	context.Context
	n int
}

func (c *laterCancelled) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestLongReadsStopWhenCancelled: the read loops over a hub's edges and
// over search hits notice a context cancelled while they run.
func TestLongReadsStopWhenCancelled(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var qs []quad.Quad
	for i := range 2000 {
		n := quad.IRI(fmt.Sprintf("n%d", i))
		qs = append(qs, quad.Quad{Subject: n, Predicate: quad.IRI("type"), Object: quad.IRI("hub")},
			quad.Quad{Subject: n, Predicate: quad.IRI(store.RDFSLabel), Object: quad.String(fmt.Sprintf("the thing %d", i))})
	}
	loadQuads(t, db, "g", qs)
	for _, c := range []struct {
		name string
		call func(ctx context.Context) (int, error)
	}{
		{"edges of a hub", func(ctx context.Context) (int, error) {
			es, err := db.Edges(ctx, []string{"hub"}, "type", store.In, 0)
			return len(es), err
		}},
		{"search hits", func(ctx context.Context) (int, error) {
			cs, err := db.Search(ctx, "g", "the", 0)
			return len(cs), err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n, err := c.call(context.Background()); err != nil || n < 1000 {
				t.Fatalf("uncancelled: %d results, %v", n, err)
			}
			if n, err := c.call(&laterCancelled{Context: context.Background(), n: 3}); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled during the loop: %d results, err %v; want context.Canceled", n, err)
			}
		})
	}
}
