package kgtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// Film ids the suite asks about.
const (
	BladeRunner = "/en/blade_runner"
	RidleyScott = "/en/ridley_scott"
	DirectedBy  = "/film/film/directed_by"
	Starring    = "/film/film/starring"
	Actor       = "/film/performance/actor"
	TypePred    = "type"
	FilmType    = "/film/film" // the hub: 30,000 films point at it
	NoSuchID    = "/en/no_such_film_kgtest"
)

// Harness is a backend under test. KG must hold the film sample in graph
// "film" and ExtraNQuads in graph "extra", loaded the way its users load
// data.
type Harness struct {
	KG store.KG
	// Write adds quads to a graph. Nil for a read-only backend: the suite
	// then skips the writes-during-reads check and Run's caller must show
	// elsewhere that writes fail with store.ErrReadOnly.
	Write func(ctx context.Context, graph string, qs []quad.Quad) error
	// OpenClosed, when set, returns a second handle on the same store that
	// the suite closes to check the Close/ErrClosed rule.
	OpenClosed func(t *testing.T) store.KG
	// NoFuzzy says Search has no fuzzy phase (exact and prefix only).
	NoFuzzy bool
	// Statements says KG also holds StatementsNQuads in graph
	// StatementsGraph, loaded the way its users load data; the suite
	// then checks statement qualifiers, relation names from relation
	// nodes and grove:hidden. The engine, SQL and SPARQL backends all
	// set it (the SPARQL test's dialect names the fixture's p:, ps: and
	// pq: prefixes); a backend that cannot hold that layout leaves it
	// false.
	Statements bool
}

// Run checks the store.KG contract on h.
func Run(t *testing.T, h Harness) {
	facts, err := FilmFacts()
	if err != nil {
		t.Fatalf("film data: %v", err)
	}
	s := &suite{h: h, kg: h.KG, f: facts}
	t.Run("Graphs", s.graphs)
	t.Run("Search", s.search)
	t.Run("Entity", s.entity)
	t.Run("Relations", s.relations)
	t.Run("Edges", s.edges)
	t.Run("CVT", s.cvt)
	t.Run("Degree", s.degree)
	t.Run("Neighbors", s.neighbors)
	t.Run("HubLimits", s.hubLimits)
	t.Run("Features", s.features)
	t.Run("SameAs", s.sameAs)
	if h.Statements {
		t.Run("Statements", s.statements)
	}
	t.Run("UnknownIDs", s.unknown)
	t.Run("Ownership", s.ownership)
	t.Run("Cancelled", s.cancelled)
	t.Run("ConcurrentReaders", s.concurrent)
	t.Run("Close", s.close)
}

type suite struct {
	h  Harness
	kg store.KG
	f  Facts
}

func ctx() context.Context { return context.Background() }

func (s *suite) graphs(t *testing.T) {
	gs, err := s.kg.Graphs(ctx())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(gs, func(a, b store.GraphInfo) int { return cmp.Compare(a.Name, b.Name) }) {
		t.Errorf("graphs not sorted by name: %+v", gs)
	}
	i := slices.IndexFunc(gs, func(g store.GraphInfo) bool { return g.Name == FilmGraph })
	if i < 0 {
		t.Fatalf("graphs %+v lack %q", gs, FilmGraph)
	}
	if gs[i].Quads != s.f.Quads {
		t.Errorf("film graph quads = %d, want %d (distinct triples in %s)", gs[i].Quads, s.f.Quads, FilmPath())
	}
}

func (s *suite) search(t *testing.T) {
	cases := []struct {
		name, graph, text string
		limit             int
		wantID, wantMatch string
		wantMatched       string
	}{
		{"exact", FilmGraph, "Blade Runner", 5, BladeRunner, "exact", "Blade Runner"},
		{"exact any graph", "", "Ridley Scott", 5, RidleyScott, "exact", "Ridley Scott"},
		{"case and accents", FilmGraph, "blade runner", 5, BladeRunner, "exact", "Blade Runner"},
		{"alias", ExtraGraph, "Fab Four", 5, "beatles", "exact", "Fab Four"},
		{"prefix", ExtraGraph, "Paul McCart", 5, "mccartney", "prefix", "Paul McCartney"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.kg.Search(ctx(), c.graph, c.text, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || len(got) > c.limit {
				t.Fatalf("search %q: %d candidates (limit %d): %+v", c.text, len(got), c.limit, got)
			}
			top := got[0]
			if top.ID != c.wantID || top.Match != c.wantMatch || top.Matched != c.wantMatched {
				t.Errorf("search %q top = id %q match %q matched %q; want %q %q %q",
					c.text, top.ID, top.Match, top.Matched, c.wantID, c.wantMatch, c.wantMatched)
			}
			if c.graph != "" && top.Graph != c.graph {
				t.Errorf("candidate graph = %q, want %q", top.Graph, c.graph)
			}
			for _, cd := range got {
				if !slices.Equal(cd.Graphs, []string{cd.Graph}) {
					t.Errorf("candidate %s of graph %q has graphs %q, want its graph", cd.ID, cd.Graph, cd.Graphs)
				}
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Errorf("candidates not best first: %+v", got)
				}
			}
		})
	}
	t.Run("limit", func(t *testing.T) {
		one, err := s.kg.Search(ctx(), FilmGraph, "Blade", 1)
		if err != nil || len(one) != 1 {
			t.Fatalf("limit 1: %d candidates, %v", len(one), err)
		}
		all, err := s.kg.Search(ctx(), FilmGraph, "Blade", 0)
		if err != nil || len(all) <= 1 {
			t.Fatalf("limit 0 (no limit): %d candidates, %v", len(all), err)
		}
	})
	t.Run("stray bytes", func(t *testing.T) {
		// A mention with a NUL, a control character or invalid UTF-8 is
		// searched for, not an error of the backend's encoding.
		for _, text := range []string{"Blade\x00Runner", "Blade\x01Runner", "Blade Runner\xff"} {
			got, err := s.kg.Search(ctx(), FilmGraph, text, 5)
			if err != nil {
				t.Errorf("search %q: %v", text, err)
			} else if !slices.ContainsFunc(got, func(c store.Candidate) bool { return c.ID == BladeRunner }) {
				t.Errorf("search %q = %+v; want Blade Runner among them", text, got)
			}
		}
	})
	t.Run("unknown graph", func(t *testing.T) {
		if _, err := s.kg.Search(ctx(), "no-such-graph", "Blade Runner", 5); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("search in an unknown graph: %v, want ErrNotFound", err)
		}
	})
	if !s.h.NoFuzzy {
		t.Run("fuzzy", func(t *testing.T) {
			got, err := s.kg.Search(ctx(), FilmGraph, "Blade Runnr", 5)
			if err != nil || !slices.ContainsFunc(got, func(c store.Candidate) bool { return c.ID == BladeRunner }) {
				t.Errorf("fuzzy search = %+v, %v", got, err)
			}
		})
	}
}

func (s *suite) entity(t *testing.T) {
	cases := []struct {
		id    string
		label string
		desc  string
		alias []string
		graph string
	}{
		{BladeRunner, "Blade Runner", "", nil, FilmGraph},
		{RidleyScott, "Ridley Scott", "", nil, FilmGraph},
		{"beatles", "The Beatles", "English rock band", []string{"Fab Four", "The Fab Four"}, ExtraGraph},
	}
	for _, c := range cases {
		e, err := s.kg.Entity(ctx(), c.id)
		if err != nil {
			t.Fatalf("entity %s: %v", c.id, err)
		}
		aliases := slices.Sorted(slices.Values(e.Aliases))
		if e.ID != c.id || e.Label != c.label || e.Description != c.desc || !slices.Equal(aliases, c.alias) ||
			!slices.Equal(e.Graphs, []string{c.graph}) || e.Literal {
			t.Errorf("entity %s = %+v; want label %q desc %q aliases %q graphs [%s]", c.id, e, c.label, c.desc, c.alias, c.graph)
		}
	}
}

// relation finds one relation in a listing.
func relation(rels []store.Relation, id string, dir store.Direction) (store.Relation, bool) {
	i := slices.IndexFunc(rels, func(r store.Relation) bool { return r.ID == id && r.Dir == dir })
	if i < 0 {
		return store.Relation{}, false
	}
	return rels[i], true
}

func (s *suite) relations(t *testing.T) {
	rels, err := s.kg.Relations(ctx(), []string{BladeRunner}, store.Both)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id            string
		dir           store.Direction
		label, invLbl string
		count         int64
		hidden        bool
	}{
		{DirectedBy, store.Out, "directed by", "directed", 1, false},
		{Starring, store.Out, "starring", "is starring of", s.f.Degree(BladeRunner, Starring, "out"), false},
		{TypePred, store.Out, "type", "is type of", 1, false},
		{"name", store.Out, "name", "is name of", 1, true},
	}
	for _, c := range cases {
		r, ok := relation(rels, c.id, c.dir)
		if !ok {
			t.Errorf("relations of %s lack %s %v: %+v", BladeRunner, c.id, c.dir, rels)
			continue
		}
		if r.Label != c.label || r.InverseLabel != c.invLbl || r.Count != c.count || r.Hidden != c.hidden ||
			r.Graph != FilmGraph || r.AtLeast {
			t.Errorf("relation %s = %+v; want label %q inverse %q count %d hidden %v", c.id, r, c.label, c.invLbl, c.count, c.hidden)
		}
	}
	if c := s.f.Degree(BladeRunner, Starring, "out"); c != 12 {
		t.Errorf("film data: Blade Runner has %d starring edges, want 12", c)
	}
	// Counts add up over a batch.
	two, err := s.kg.Relations(ctx(), []string{BladeRunner, "/en/gladiator_2000"}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := relation(two, DirectedBy, store.Out); r.Count != 2 {
		t.Errorf("directed_by count over two films = %d, want 2", r.Count)
	}
	in, err := s.kg.Relations(ctx(), []string{RidleyScott}, store.In)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := relation(in, DirectedBy, store.In); r.Count != s.f.Degree(RidleyScott, DirectedBy, "in") || r.DisplayLabel() != "directed" {
		t.Errorf("Ridley Scott in-relation directed_by = %+v, want count %d", r, s.f.Degree(RidleyScott, DirectedBy, "in"))
	}
	again, err := s.kg.Relations(ctx(), []string{BladeRunner}, store.Both)
	if err != nil || !slices.Equal(again, rels) {
		t.Errorf("relations are not deterministic:\n%+v\n%+v (%v)", rels, again, err)
	}
	if _, err := s.kg.Relations(ctx(), []string{BladeRunner}, store.Direction(7)); err == nil {
		t.Error("invalid direction accepted")
	}
}

func (s *suite) edges(t *testing.T) {
	es, err := s.kg.Edges(ctx(), []string{BladeRunner}, DirectedBy, store.Out, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Subject.ID != BladeRunner || es[0].Subject.Label != "Blade Runner" ||
		es[0].Object.ID != RidleyScott || es[0].Object.Label != "Ridley Scott" ||
		es[0].Relation != DirectedBy || es[0].RelationLabel != "directed by" || es[0].Graph != FilmGraph {
		t.Fatalf("Blade Runner directed by = %+v", es)
	}
	want := s.f.Degree(RidleyScott, DirectedBy, "in")
	back, err := s.kg.Edges(ctx(), []string{RidleyScott}, DirectedBy, store.In, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(back)) != want {
		t.Errorf("films directed by Ridley Scott (limit 0 = all): %d, want %d", len(back), want)
	}
	for _, title := range []string{"Gladiator", "Blade Runner", "Alien"} {
		if !slices.ContainsFunc(back, func(e store.Edge) bool { return e.Subject.Label == title && e.Object.ID == RidleyScott }) {
			t.Errorf("Ridley Scott's films lack %s", title)
		}
	}
	two, err := s.kg.Edges(ctx(), []string{RidleyScott}, DirectedBy, store.In, 2)
	if err != nil || len(two) != 2 {
		t.Errorf("limit 2: %d edges, %v", len(two), err)
	}
	again, err := s.kg.Edges(ctx(), []string{RidleyScott}, DirectedBy, store.In, 0)
	if err != nil || !slices.EqualFunc(again, back, func(a, b store.Edge) bool { return a.Subject.ID == b.Subject.ID }) {
		t.Errorf("edges are not deterministic (%v)", err)
	}
	if _, err := s.kg.Edges(ctx(), []string{BladeRunner}, DirectedBy, store.Both, 0); err == nil {
		t.Error("edges in direction both accepted")
	}
}

func (s *suite) cvt(t *testing.T) {
	star, err := s.kg.Edges(ctx(), []string{BladeRunner}, Starring, store.Out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(star)) != s.f.Degree(BladeRunner, Starring, "out") {
		t.Fatalf("starring edges = %d, want %d", len(star), s.f.Degree(BladeRunner, Starring, "out"))
	}
	var cvts []string
	for _, e := range star {
		if e.Object.Label != "" || e.Object.Literal {
			t.Errorf("CVT node has a label or is a literal: %+v", e.Object)
		}
		cvts = append(cvts, e.Object.ID)
	}
	actors, err := s.kg.Edges(ctx(), cvts, Actor, store.Out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range actors {
		names = append(names, e.Object.Label)
	}
	slices.Sort(names)
	want := []string{"Brion James", "Daryl Hannah", "Edward James Olmos", "Harrison Ford", "James Hong", "Joanna Cassidy",
		"Joe Turkel", "M. Emmet Walsh", "Morgan Paull", "Rutger Hauer", "Sean Young", "William Sanderson"}
	if !slices.Equal(names, want) {
		t.Errorf("Blade Runner actors via CVT nodes = %q, want %q", names, want)
	}
	// And back: from a CVT node to its film.
	film, err := s.kg.Edges(ctx(), cvts[:1], Starring, store.In, 0)
	if err != nil || len(film) != 1 || film[0].Subject.ID != BladeRunner {
		t.Errorf("CVT back to film = %+v, %v", film, err)
	}
}

func (s *suite) degree(t *testing.T) {
	cases := []struct {
		id, rel string
		dir     store.Direction
		want    int64
	}{
		{BladeRunner, Starring, store.Out, s.f.Degree(BladeRunner, Starring, "out")},
		{BladeRunner, DirectedBy, store.Out, 1},
		{BladeRunner, "name", store.Out, 1}, // a named hidden relation is followed
		{RidleyScott, DirectedBy, store.In, s.f.Degree(RidleyScott, DirectedBy, "in")},
		{RidleyScott, DirectedBy, store.Both, s.f.Degree(RidleyScott, DirectedBy, "in")},
		// "" = every non-hidden relation: starring, directed_by, type (not name).
		{BladeRunner, "", store.Out, s.f.Degree(BladeRunner, Starring, "out") + 2},
		{FilmType, TypePred, store.In, s.f.Degree(FilmType, TypePred, "in")},
		{"beatles", "", store.Out, 3}, // two members and a literal; not labels, not sameAs
		{BladeRunner, "/no/such/relation", store.Out, 0},
	}
	for _, c := range cases {
		got, err := s.kg.Degree(ctx(), c.id, c.rel, c.dir)
		if err != nil || got != c.want {
			t.Errorf("Degree(%s, %q, %v) = %d, %v; want %d", c.id, c.rel, c.dir, got, err, c.want)
		}
	}
	// Degree("") agrees with the non-hidden relation counts.
	rels, err := s.kg.Relations(ctx(), []string{BladeRunner}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range rels {
		if !r.Hidden {
			sum += r.Count
		}
	}
	if got, _ := s.kg.Degree(ctx(), BladeRunner, "", store.Out); got != sum {
		t.Errorf("Degree(\"\") = %d, non-hidden relation counts add to %d", got, sum)
	}
}

func (s *suite) neighbors(t *testing.T) {
	ns, err := s.kg.Neighbors(ctx(), BladeRunner, "", store.Out, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Ridley Scott, the film type and 12 CVT nodes; never the name literal.
	if want := s.f.Degree(BladeRunner, Starring, "out") + 2; int64(len(ns)) != want {
		t.Errorf("neighbors of Blade Runner = %d, want %d: %+v", len(ns), want, ns)
	}
	seen := map[string]bool{}
	for _, n := range ns {
		if n.Literal || seen[n.ID] {
			t.Errorf("neighbor %+v is a literal or a duplicate", n)
		}
		seen[n.ID] = true
	}
	if !seen[RidleyScott] || !seen[FilmType] {
		t.Errorf("neighbors lack %s or %s", RidleyScott, FilmType)
	}
	members, err := s.kg.Neighbors(ctx(), "beatles", "", store.Out, 0)
	if err != nil || len(members) != 2 {
		t.Errorf("beatles neighbors = %+v, %v; want the two members (no literal, no sameAs target)", members, err)
	}
	dir, err := s.kg.Neighbors(ctx(), RidleyScott, DirectedBy, store.In, 3)
	if err != nil || len(dir) != 3 {
		t.Errorf("Neighbors(limit 3) = %d, %v", len(dir), err)
	}
	if none, err := s.kg.Neighbors(ctx(), BladeRunner, "/no/such/relation", store.Out, 0); err != nil || len(none) != 0 {
		t.Errorf("unknown relation: %+v, %v; want none, no error", none, err)
	}
}

// hubLimits: 30,000 films point at /film/film; limited calls return the
// limit (backends must not read the whole posting list, which the
// benchmarks measure).
func (s *suite) hubLimits(t *testing.T) {
	want := s.f.Degree(FilmType, TypePred, "in")
	if want < 30000 {
		t.Fatalf("film data: %d films, want 30000", want)
	}
	for _, c := range []struct {
		rel string
		dir store.Direction
	}{{"", store.In}, {TypePred, store.In}, {"", store.Both}} {
		ns, err := s.kg.Neighbors(ctx(), FilmType, c.rel, c.dir, 10)
		if err != nil || len(ns) != 10 {
			t.Errorf("Neighbors(hub, %q, %v, 10) = %d, %v", c.rel, c.dir, len(ns), err)
		}
	}
	es, err := s.kg.Edges(ctx(), []string{FilmType}, TypePred, store.In, 10)
	if err != nil || len(es) != 10 {
		t.Errorf("Edges(hub, 10) = %d, %v", len(es), err)
	}
	rels, err := s.kg.Relations(ctx(), []string{FilmType}, store.In)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := relation(rels, TypePred, store.In); !ok || (r.Count != want && !(r.AtLeast && r.Count > 0 && r.Count < want)) {
		t.Errorf("hub relation = %+v, want count %d (or a lower bound marked AtLeast)", r, want)
	}
	if d, err := s.kg.Degree(ctx(), FilmType, TypePred, store.In); err != nil || d != want {
		t.Errorf("hub degree = %d, %v; want %d", d, err, want)
	}
}

func (s *suite) features(t *testing.T) {
	fs, err := s.kg.Features(ctx(), "beatles")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		if f.Graph != ExtraGraph {
			t.Errorf("feature %+v in graph %q", f, f.Graph)
		}
		got = append(got, f.Name+"="+f.Value)
	}
	slices.Sort(got)
	if want := []string{"description=English rock band", "formed=1960"}; !slices.Equal(got, want) {
		t.Errorf("features of beatles = %q, want %q (labels and aliases are not features)", got, want)
	}
	// A quantity's unit reads as its label, or as its id marked as
	// having none: the backend looks the unit up.
	for id, want := range map[string]string{"lennon": "height=1.79 metre", "mccartney": "height=1.8 Q99999 (no label in the KG)"} {
		fs, err := s.kg.Features(ctx(), id)
		if err != nil || !slices.ContainsFunc(fs, func(f store.Feature) bool { return f.Name+"="+f.Value == want }) {
			t.Errorf("features of %s = %+v, %v; want %q", id, fs, err, want)
		}
	}
	film, err := s.kg.Features(ctx(), BladeRunner)
	if err != nil || len(film) != 0 {
		t.Errorf("features of Blade Runner = %+v, %v; want none (its only literal is its name)", film, err)
	}
}

func (s *suite) sameAs(t *testing.T) {
	// The sameAs target has no edges of its own in any graph, so it is in no
	// other graph: no link.
	ls, err := s.kg.SameAs(ctx(), "beatles", "")
	if err != nil || len(ls) != 0 {
		t.Errorf("SameAs(beatles) = %+v, %v; want none", ls, err)
	}
	ls, err = s.kg.SameAs(ctx(), BladeRunner, "")
	if err != nil || len(ls) != 0 {
		t.Errorf("SameAs(Blade Runner) = %+v, %v; want none", ls, err)
	}
}

func (s *suite) unknown(t *testing.T) {
	single := map[string]func() error{
		"Entity":    func() error { _, err := s.kg.Entity(ctx(), NoSuchID); return err },
		"Features":  func() error { _, err := s.kg.Features(ctx(), NoSuchID); return err },
		"Degree":    func() error { _, err := s.kg.Degree(ctx(), NoSuchID, "", store.Out); return err },
		"Neighbors": func() error { _, err := s.kg.Neighbors(ctx(), NoSuchID, "", store.Out, 5); return err },
		"SameAs":    func() error { _, err := s.kg.SameAs(ctx(), NoSuchID, ""); return err },
		"Empty id":  func() error { _, err := s.kg.Entity(ctx(), ""); return err },
	}
	for name, call := range single {
		if err := call(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s(unknown id) = %v, want ErrNotFound", name, err)
		}
	}
	// A relation id occurs in the database (as a predicate): it is an
	// entity, with no edges of its own in the film sample.
	if e, err := s.kg.Entity(ctx(), DirectedBy); err != nil || e.ID != DirectedBy {
		t.Errorf("Entity(a relation id) = %+v, %v; want the entity (it occurs as a predicate)", e, err)
	}
	if n, err := s.kg.Degree(ctx(), DirectedBy, "", store.Both); err != nil || n != 0 {
		t.Errorf("Degree(a relation id) = %d, %v; want 0", n, err)
	}
	if fs, err := s.kg.Features(ctx(), DirectedBy); err != nil || len(fs) != 0 {
		t.Errorf("Features(a relation id) = %+v, %v; want none", fs, err)
	}
	rels, err := s.kg.Relations(ctx(), []string{NoSuchID, BladeRunner}, store.Out)
	if err != nil {
		t.Fatalf("one unknown id failed the batch: %v", err)
	}
	if r, _ := relation(rels, DirectedBy, store.Out); r.Count != 1 {
		t.Errorf("relations with an unknown id in the batch = %+v", rels)
	}
	es, err := s.kg.Edges(ctx(), []string{NoSuchID, BladeRunner}, DirectedBy, store.Out, 0)
	if err != nil || len(es) != 1 {
		t.Errorf("edges with an unknown id in the batch = %+v, %v", es, err)
	}
	for _, ids := range [][]string{{NoSuchID}, nil} {
		if rels, err := s.kg.Relations(ctx(), ids, store.Out); err != nil || len(rels) != 0 {
			t.Errorf("relations of %q = %+v, %v; want none", ids, rels, err)
		}
		if es, err := s.kg.Edges(ctx(), ids, DirectedBy, store.Out, 0); err != nil || len(es) != 0 {
			t.Errorf("edges of %q = %+v, %v; want none", ids, es, err)
		}
	}
	if es, err := s.kg.Edges(ctx(), []string{BladeRunner}, "/no/such/relation", store.Out, 0); err != nil || len(es) != 0 {
		t.Errorf("edges of an unknown relation = %+v, %v; want none", es, err)
	}
}

// ownership: results belong to the caller; changing them changes nothing
// in the store.
func (s *suite) ownership(t *testing.T) {
	e, err := s.kg.Entity(ctx(), "beatles")
	if err != nil || len(e.Aliases) == 0 || len(e.Graphs) == 0 {
		t.Fatalf("entity = %+v, %v", e, err)
	}
	e.Aliases[0], e.Graphs[0] = "scribbled", "scribbled"
	for _, call := range []func() (store.Entity, error){
		func() (store.Entity, error) { return s.kg.Entity(ctx(), "beatles") },
		func() (store.Entity, error) {
			cs, err := s.kg.Search(ctx(), ExtraGraph, "The Beatles", 1)
			if err != nil || len(cs) == 0 {
				return store.Entity{}, fmt.Errorf("search: %d, %w", len(cs), err)
			}
			cs[0].Aliases[0] = "scribbled again"
			return cs[0].Entity, nil
		},
		func() (store.Entity, error) { return s.kg.Entity(ctx(), "beatles") },
	} {
		got, err := call()
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(got.Aliases, "scribbled") || slices.Contains(got.Graphs, "scribbled") {
			t.Fatalf("a caller's change to a returned slice reached the store: %+v", got)
		}
	}
	es, err := s.kg.Edges(ctx(), []string{"beatles"}, "member", store.Out, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("members = %+v, %v", es, err)
	}
	es[0].Subject.Aliases[0] = "scribbled"
	if e, _ := s.kg.Entity(ctx(), "beatles"); slices.Contains(e.Aliases, "scribbled") {
		t.Error("an edge's subject aliases are shared with the store")
	}
	ids := []string{BladeRunner}
	if _, err := s.kg.Relations(ctx(), ids, store.Out); err != nil || ids[0] != BladeRunner {
		t.Errorf("Relations changed its input: %q, %v", ids, err)
	}
}

func (s *suite) cancelled(t *testing.T) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Search":    func() error { _, err := s.kg.Search(c, FilmGraph, "Blade Runner", 5); return err },
		"Entity":    func() error { _, err := s.kg.Entity(c, BladeRunner); return err },
		"Relations": func() error { _, err := s.kg.Relations(c, []string{BladeRunner}, store.Out); return err },
		"Edges":     func() error { _, err := s.kg.Edges(c, []string{BladeRunner}, DirectedBy, store.Out, 0); return err },
		"Degree":    func() error { _, err := s.kg.Degree(c, BladeRunner, "", store.Out); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want context.Canceled", name, err)
		}
	}
}

// concurrent: readers keep getting whole answers while a writer adds a new
// graph; afterwards the new facts are visible.
func (s *suite) concurrent(t *testing.T) {
	if s.h.Write == nil {
		t.Skip("read-only backend")
	}
	const g = "kgtest-writes"
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				es, err := s.kg.Edges(ctx(), []string{BladeRunner}, DirectedBy, store.Out, 0)
				if err != nil || len(es) != 1 || es[0].Object.Label != "Ridley Scott" {
					errs <- fmt.Errorf("reader during write: %+v, %v", es, err)
					return
				}
				n, err := s.kg.Degree(ctx(), "kgtest:film", "kgtest:sequel", store.Out)
				if err != nil && !errors.Is(err, store.ErrNotFound) || n != 0 && n != 1 {
					errs <- fmt.Errorf("reader saw a partial write: degree %d, %v", n, err)
					return
				}
			}
		}()
	}
	var qs []quad.Quad
	for i := range 200 {
		qs = append(qs, quad.Make(quad.IRI(fmt.Sprintf("kgtest:n%d", i)), quad.IRI(store.RDFSLabel), quad.String(fmt.Sprintf("Node %d", i)), nil))
	}
	qs = append(qs, quad.Make(quad.IRI("kgtest:film"), quad.IRI("kgtest:sequel"), quad.IRI(BladeRunner), nil),
		quad.Make(quad.IRI("kgtest:film"), quad.IRI(store.RDFSLabel), quad.String("Blade Runner 2049"), nil))
	werr := s.h.Write(ctx(), g, qs)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if werr != nil {
		t.Fatalf("write: %v", werr)
	}
	es, err := s.kg.Edges(ctx(), []string{"kgtest:film"}, "kgtest:sequel", store.Out, 0)
	if err != nil || len(es) != 1 || es[0].Object.Label != "Blade Runner" || es[0].Graph != g {
		t.Errorf("written edge = %+v, %v", es, err)
	}
	cs, err := s.kg.Search(ctx(), g, "Blade Runner 2049", 1)
	if err != nil || len(cs) != 1 || cs[0].ID != "kgtest:film" {
		t.Errorf("written label not searchable: %+v, %v", cs, err)
	}
}

func (s *suite) close(t *testing.T) {
	if s.h.OpenClosed == nil {
		t.Skip("backend has no second handle to close")
	}
	kg := s.h.OpenClosed(t)
	c, ok := kg.(io.Closer)
	if !ok {
		t.Fatalf("%T holds resources but is not an io.Closer", kg)
	}
	if _, err := kg.Graphs(ctx()); err != nil {
		t.Fatalf("before Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v (Close is idempotent)", err)
	}
	calls := map[string]func() error{
		"Graphs":    func() error { _, err := kg.Graphs(ctx()); return err },
		"Search":    func() error { _, err := kg.Search(ctx(), FilmGraph, "Blade Runner", 5); return err },
		"Entity":    func() error { _, err := kg.Entity(ctx(), BladeRunner); return err },
		"Relations": func() error { _, err := kg.Relations(ctx(), []string{BladeRunner}, store.Out); return err },
		"Edges":     func() error { _, err := kg.Edges(ctx(), []string{BladeRunner}, DirectedBy, store.Out, 0); return err },
		"Neighbors": func() error { _, err := kg.Neighbors(ctx(), BladeRunner, "", store.Out, 0); return err },
		"Degree":    func() error { _, err := kg.Degree(ctx(), BladeRunner, "", store.Out); return err },
		"Features":  func() error { _, err := kg.Features(ctx(), BladeRunner); return err },
		"SameAs":    func() error { _, err := kg.SameAs(ctx(), BladeRunner, ""); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// statements checks what a model is shown of Wikidata-style statements
// (StatementsNQuads): relations named by their own nodes, relations that
// grove:hidden hides (from listings, "" degrees and neighbours), and the
// qualifiers of every statement behind an edge or a literal feature,
// grouped per statement and named in words.
func (s *suite) statements(t *testing.T) {
	const w = "washington"
	rels, err := s.kg.Relations(ctx(), []string{w}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, label, inverse string
		hidden             bool
	}{
		{"heldPosition", "position held", "holder of position", false},
		{"extId", "external id", "", true},
		{"height", "height", "", false},
		{"p:heldPosition", "", "", true},
	} {
		r, ok := relation(rels, c.id, store.Out)
		if !ok {
			t.Errorf("relations of %s lack %s: %+v", w, c.id, rels)
			continue
		}
		if r.Hidden != c.hidden || c.label != "" && r.Label != c.label || c.inverse != "" && r.InverseLabel != c.inverse {
			t.Errorf("relation %s = %+v; want label %q inverse %q hidden %v", c.id, r, c.label, c.inverse, c.hidden)
		}
	}
	// "" follows the visible relations only: heldPosition and height.
	if n, err := s.kg.Degree(ctx(), w, "", store.Out); err != nil || n != 2 {
		t.Errorf("degree of %s along every visible relation = %d, %v; want 2 (external ids and statements hidden)", w, n, err)
	}
	if ns, err := s.kg.Neighbors(ctx(), w, "", store.Out, 0); err != nil || len(ns) != 1 || ns[0].ID != "commander" {
		t.Errorf("neighbors of %s = %+v, %v; want [commander]", w, ns, err)
	}
	// Both statements of the one fact, each with its own dates.
	want := map[string][]string{
		"washington-s1": {"end time=1783", "start time=1775"},
		"washington-s2": {"replaces=Charles Cotesworth Pinckney", "start time=1798"},
	}
	for _, c := range []struct {
		id  string
		dir store.Direction
	}{{w, store.Out}, {"commander", store.In}} {
		es, err := s.kg.Edges(ctx(), []string{c.id}, "heldPosition", c.dir, 0)
		if err != nil || len(es) != 1 {
			t.Fatalf("edges of %s = %+v, %v; want one", c.id, es, err)
		}
		e := es[0]
		if e.RelationLabel != "position held" || e.Object.Label != "Commander-in-Chief" || e.Subject.ID != w {
			t.Errorf("edge %+v; want %s -position held-> Commander-in-Chief", e, w)
		}
		checkStatements(t, "edge "+c.id+" "+c.dir.String(), e.Qualifiers, want)
		for _, q := range e.Qualifiers {
			if q.Relation == "pq:replaces" && q.ValueID != "pinckney" {
				t.Errorf("a node-valued qualifier names its node: %+v", q)
			}
		}
	}
	fs, err := s.kg.Features(ctx(), w)
	if err != nil {
		t.Fatal(err)
	}
	var height, ext *store.Feature
	for i := range fs {
		switch fs[i].Relation {
		case "height":
			height = &fs[i]
		case "extId":
			ext = &fs[i]
		}
	}
	if height == nil || height.Value != "1.88 m" {
		t.Fatalf("features of %s = %+v; want height 1.88 m", w, fs)
	}
	checkStatements(t, "feature height", height.Qualifiers, map[string][]string{"washington-s3": {"point in time=1799"}})
	if ext == nil || ext.Name != "external id" || len(ext.Qualifiers) != 0 {
		t.Errorf("external-id feature = %+v; want named \"external id\", its statements not read (hidden)", ext)
	}
}

// checkStatements compares qualifiers with "name=value" lists per
// statement node: every qualifier names its statement, and each
// statement's qualifiers are consecutive.
func checkStatements(t *testing.T, what string, qs []store.Feature, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	for _, g := range store.GroupQualifiers(qs) {
		st := g[0].Statement
		if _, seen := got[st]; seen {
			t.Errorf("%s: the qualifiers of statement %q are not consecutive: %+v", what, st, qs)
		}
		var xs []string
		for _, q := range g {
			xs = append(xs, q.Name+"="+q.Value)
		}
		slices.Sort(xs)
		got[st] = xs
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: qualifiers by statement = %v; want %v", what, got, want)
	}
}
