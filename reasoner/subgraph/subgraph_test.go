package subgraph

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
)

func ent(id, label string) store.Entity { return store.Entity{ID: id, Label: label} }

func edge(s, rel, label string, o store.Entity, graph string) store.Edge {
	return store.Edge{Subject: ent(s, labels[s]), Relation: rel, RelationLabel: label, Object: o, Graph: graph}
}

var labels = map[string]string{"Q392": "Bob Dylan", "Q2": "Beatrice Stone", "Q3": "Florence Stone", "Q4": "Abram Zimmerman"}

// dylan builds a small local graph: Bob Dylan's mother fetched forwards,
// Beatrice's child fetched backwards (the same fact, stored once), her
// mother, a literal and a qualifier.
func dylan() *Graph {
	g := New()
	g.AddEntity(store.Entity{ID: "Q392", Label: "Bob Dylan", Description: "American singer-songwriter"}, "wikidata")
	g.AddEdge(edge("Q392", "P25", "mother", ent("Q2", "Beatrice Stone"), "wikidata"), store.Out, "is mother of")
	g.AddEdge(edge("Q392", "P25", "mother", ent("Q2", "Beatrice Stone"), "wikidata"), store.In, "is mother of")
	g.AddEdge(edge("Q2", "P25", "mother", ent("Q3", "Florence Stone"), "wikidata"), store.Out, "is mother of")
	g.AddEdge(edge("Q392", "P22", "father", ent("Q4", "Abram Zimmerman"), "wikidata"), store.Out, "")
	lit := store.Entity{ID: `"1941-05-24"^^<date>`, Label: "24 May 1941", Literal: true}
	e := edge("Q392", "P569", "date of birth", lit, "wikidata")
	e.Qualifiers = []store.Feature{{Name: "precision", Value: "day"}}
	g.AddEdge(e, store.Out, "")
	return g
}

func TestRender(t *testing.T) {
	want := `Entities:
  Q392: Bob Dylan - American singer-songwriter
  Q2: Beatrice Stone
  Q3: Florence Stone
  Q4: Abram Zimmerman
Edges:
  Bob Dylan:
    mother:
      Beatrice Stone
    father:
      Abram Zimmerman
    date of birth:
      24 May 1941 (precision: day)
  Beatrice Stone:
    mother:
      Florence Stone
`
	if got := dylan().Render(); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderInverseAndMultiGraph(t *testing.T) {
	g := New()
	g.AddEntity(ent("/en/ridley_scott", "Ridley\nScott"), "film")
	for _, f := range []string{"Gladiator", "Alien"} {
		id := "/en/" + strings.ToLower(f)
		e := store.Edge{Subject: ent(id, f), Relation: "/film/film/directed_by", RelationLabel: "directed by",
			Object: ent("/en/ridley_scott", "Ridley Scott"), Graph: "film"}
		g.AddEdge(e, store.In, "directed")
	}
	g.AddEdge(store.Edge{Subject: ent("/en/alien", "Alien"), Relation: "starring", RelationLabel: "starring",
		Object: ent("_:film/7", ""), Graph: "film"}, store.In, "")
	g.AddLink("/en/ridley_scott", ent("Q56005", "Ridley Scott"), "wikidata", store.GroveSameAs)
	want := `Entities:
  /en/ridley_scott: Ridley Scott [film] (same as Q56005)
  /en/gladiator: Gladiator [film]
  /en/alien: Alien [film]
  _:film/7 (no label in the KG) [film]
  Q56005: Ridley Scott [wikidata] (same as /en/ridley_scott)
Edges:
  Ridley Scott (/en/ridley_scott):
    directed [film]:
      Gladiator
      Alien
  _:film/7 (no label in the KG):
    is starring of [film]:
      Alien
`
	if got := g.Render(); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	if got := g.Triples(); !slices.Equal(got, []string{
		"Gladiator -> directed by -> Ridley Scott (/en/ridley_scott)",
		"Alien -> directed by -> Ridley Scott (/en/ridley_scott)",
		"Alien -> starring -> _:film/7 (no label in the KG)",
	}) {
		t.Errorf("triples = %q", got)
	}
}

func TestEmpty(t *testing.T) {
	if got, want := New().Render(), "Entities:\n  (none)\nEdges:\n  (none)\n"; got != want {
		t.Errorf("render = %q", got)
	}
}

func TestDedupe(t *testing.T) {
	g := dylan()
	if g.NumEdges() != 4 {
		t.Fatalf("edges = %d, want 4 (the inverse fetch of Bob -> Beatrice is the same fact)", g.NumEdges())
	}
	e := edge("Q392", "P25", "mother", ent("Q2", "Beatrice Stone"), "other")
	if !g.AddEdge(e, store.Out, "") {
		t.Error("the same fact in another graph is a different edge")
	}
	if g.AddEntity(ent("Q392", "x"), "wikidata") {
		t.Error("re-adding an entity reported new")
	}
	if got, _ := g.Entity("Q392"); got.Label != "Bob Dylan" || !slices.Equal(got.Graphs, []string{"wikidata", "other"}) {
		t.Errorf("entity = %+v", got)
	}
	if ids := entityIDs(g.Expandable()); slices.Contains(ids, `"1941-05-24"^^<date>`) {
		t.Errorf("literal offered for expansion: %v", ids)
	}
}

func entityIDs(es []Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestClone(t *testing.T) {
	g := dylan()
	c := g.Clone()
	c.AddEdge(edge("Q4", "P25", "mother", ent("Q5", "Anna"), "wikidata"), store.Out, "")
	c.AddEntity(ent("Q392", ""), "musicbrainz")
	if g.NumEdges() != 4 || g.Has("Q5") || len(g.Graphs()) != 1 {
		t.Errorf("clone changed the original: %d edges, graphs %v", g.NumEdges(), g.Graphs())
	}
	if c.NumEdges() != 5 || !c.Has("Q5") || !c.MultiGraph() {
		t.Errorf("clone: %d edges", c.NumEdges())
	}
}

func TestResolve(t *testing.T) {
	g := dylan()
	g.AddEntity(ent("Q3012", "Q30 fan club"), "wikidata")
	g.AddEntity(ent("Q30", "United States"), "wikidata")
	g.AddEntity(ent("Q31", "Washington, D.C."), "wikidata")
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Florence Stone", []string{"Q3"}},
		{"florence stone.", []string{"Q3"}},
		{`"Florence Stone"`, []string{"Q3"}},
		{"Q30", []string{"Q30"}},
		{"Q3", []string{"Q3"}},
		{"Q301", nil},
		{"Washington, D.C.", []string{"Q31"}},
		{"[Florence Stone, Beatrice Stone]", []string{"Q3", "Q2"}},
		{"Florence Stone and Abram Zimmerman", []string{"Q3", "Q4"}},
		{"Florence Stone; Q392", []string{"Q3", "Q392"}},
		{"Florence", nil},
		{"24 May 1941", []string{`"1941-05-24"^^<date>`}},
		{"", nil},
	} {
		if got := g.Resolve(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestNamesDisambiguate(t *testing.T) {
	g := New()
	g.AddEntity(ent("Q1", "John Smith"), "w")
	g.AddEntity(ent("Q2", "john smith"), "w")
	g.AddEntity(ent("Q3", ""), "w")
	if got := g.Names([]string{"Q1", "Q2", "Q3", "Q9"}); !slices.Equal(got, []string{"John Smith (Q1)", "john smith (Q2)", "Q3 (no label in the KG)", "Q9"}) {
		t.Errorf("names = %q", got)
	}
	if got := g.Resolve("John Smith (Q2)"); !slices.Equal(got, []string{"Q2"}) {
		t.Errorf("resolve display name = %v", got)
	}
	if got := g.Resolve("John Smith"); !slices.Equal(got, []string{"Q1", "Q2"}) {
		t.Errorf("resolve shared label = %v", got)
	}
}

func TestEdgesAbout(t *testing.T) {
	g := dylan()
	got := g.EdgeTriples(g.EdgesAbout([]string{"Q3"}))
	if !slices.Equal(got, []string{"Beatrice Stone -> mother -> Florence Stone"}) {
		t.Errorf("edges about Q3 = %q", got)
	}
}

// FuzzResolve checks that Resolve never panics and only returns ids of
// the graph, without duplicates.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"Florence Stone", "[a, b] and c", "Q3;Q392", "", ",,,", "and and", "\"'`*.[]()"} {
		f.Add(s)
	}
	g := dylan()
	f.Fuzz(func(t *testing.T, s string) {
		ids := g.Resolve(s)
		seen := map[string]bool{}
		for _, id := range ids {
			if !g.Has(id) || seen[id] {
				t.Fatalf("Resolve(%q) = %v", s, ids)
			}
			seen[id] = true
		}
	})
}

// TestQualifiersPerStatement: a fact made by several statements lists
// each statement's qualifiers in its own bracket, numbered with the total,
// in the graph text and in the triples; one statement keeps one plain
// bracket.
func TestQualifiersPerStatement(t *testing.T) {
	q := func(stmt, name, value string) store.Feature {
		return store.Feature{Relation: "pq:" + name, Name: name, Value: value, Statement: stmt}
	}
	for _, tc := range []struct {
		name string
		qs   []store.Feature
		want string
	}{
		{"one statement", []store.Feature{q("s1", "start time", "1789"), q("s1", "end time", "1797")},
			"President (start time: 1789; end time: 1797)"},
		{"two statements", []store.Feature{q("s1", "start time", "15 June 1775"), q("s1", "end time", "23 December 1788"),
			q("s2", "replaces", "John Hancock"), q("s2", "start time", "13 July 1798")},
			"President (statement 1 of 2: start time: 15 June 1775; end time: 23 December 1788) " +
				"(statement 2 of 2: replaces: John Hancock; start time: 13 July 1798)"},
		{"two statements interleaved", []store.Feature{q("s1", "start time", "1775"), q("s2", "start time", "1798"),
			q("s1", "end time", "1788")},
			"President (statement 1 of 2: start time: 1775; end time: 1788) (statement 2 of 2: start time: 1798)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			e := store.Edge{Subject: ent("Q23", "George Washington"), Relation: "P39", RelationLabel: "position held",
				Object: ent("Q1", "President"), Graph: "wikidata", Qualifiers: tc.qs}
			g.AddEdge(e, store.Out, "")
			if out := g.Render(); !strings.Contains(out, "\n      "+tc.want+"\n") {
				t.Errorf("render lacks %q:\n%s", tc.want, out)
			}
			if tr := g.Triples(); len(tr) != 1 || tr[0] != "George Washington -> position held -> "+tc.want {
				t.Errorf("triples = %q", tr)
			}
		})
	}
}

// TestUnlabelledInWords: a node, relation or qualifier the KG has no
// label for is written as its id followed by "(no label in the KG)",
// never as a bare id, in the entity list, the edge groups and the
// triples; labelled ones (words spelled like their id included) keep
// their labels.
func TestUnlabelledInWords(t *testing.T) {
	for _, tc := range []struct {
		name string
		edge store.Edge
		dir  store.Direction
		inv  string
		// text are fragments of the rendered graph; triple the one triple.
		text   []string
		triple string
	}{
		{"type node without a name (film)",
			store.Edge{Subject: ent("/en/blade_runner", "Blade Runner"), Relation: "type", RelationLabel: "type",
				Object: ent("/film/film", ""), Graph: "film"}, store.Out, "",
			[]string{"  /film/film (no label in the KG)\n", "    type:\n      /film/film (no label in the KG)\n"},
			"Blade Runner -> type -> /film/film (no label in the KG)"},
		{"Wikidata relation, object and qualifiers without labels",
			store.Edge{Subject: ent("Q23", "George Washington"), Relation: "P39", RelationLabel: "P39",
				Object: ent("Q1115127", ""), Graph: "wikidata", Qualifiers: []store.Feature{
					{Relation: "pq:P580", Name: "P580", Value: "15 June 1775", Statement: "s1"},
					{Relation: "pq:P1365", Name: "P1365", Value: "Q888614", ValueID: "Q888614", Statement: "s1"},
					{Relation: "pq:P1366", Name: "succeeded by", Value: "John Adams", ValueID: "Q11806", Statement: "s1"}}},
			store.Out, "",
			[]string{"  Q1115127 (no label in the KG)\n", "    P39 (no label in the KG):\n"},
			"George Washington -> P39 (no label in the KG) -> Q1115127 (no label in the KG) (P580 (no label in the KG): " +
				"15 June 1775; P1365 (no label in the KG): Q888614 (no label in the KG); succeeded by: John Adams)"},
		{"relation without a label followed backwards",
			store.Edge{Subject: ent("Q1115127", ""), Relation: "P39", RelationLabel: "P39", Object: ent("Q23", "George Washington"),
				Graph: "wikidata"}, store.In, "is P39 of",
			[]string{"  George Washington:\n    inverse of P39 (no label in the KG):\n      Q1115127 (no label in the KG)\n"},
			"Q1115127 (no label in the KG) -> P39 (no label in the KG) -> George Washington"},
		{"labels spelled like ids are labels",
			store.Edge{Subject: ent("book/1", "Demelza"), Relation: "author", RelationLabel: "author",
				Object: ent("author/2", "Winston Graham"), Graph: "goodreads"}, store.Out, "",
			[]string{"    author:\n      Winston Graham\n"},
			"Demelza -> author -> Winston Graham"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			g.AddEdge(tc.edge, tc.dir, tc.inv)
			out := g.Render()
			for _, want := range tc.text {
				if !strings.Contains(out, want) {
					t.Errorf("render lacks %q:\n%s", want, out)
				}
			}
			if tr := g.Triples(); len(tr) != 1 || tr[0] != tc.triple {
				t.Errorf("triples = %q, want %q", tr, tc.triple)
			}
		})
	}
}

// TestMediatorNamedByOtherMembers: a mediator reached from John Wayne is
// named, in an edge whose other end is the film, by its other members,
// never by the film itself.
func TestMediatorNamedByOtherMembers(t *testing.T) {
	g := New()
	m := store.Entity{ID: "_:film/9"}
	wayne, film := ent("/en/john_wayne", "John Wayne"), ent("/en/fort_apache", "Fort Apache")
	g.AddEdge(store.Edge{Subject: m, Relation: "actor", RelationLabel: "actor", Object: wayne, Graph: "film"}, store.In, "is actor of")
	g.AddContentEdge(store.Edge{Subject: film, Relation: "starring", RelationLabel: "starring", Object: m, Graph: "film"}, store.In, "")
	g.AddContentEdge(store.Edge{Subject: m, Relation: "character", RelationLabel: "character", Object: ent("/c/york", "Kirby York"), Graph: "film"}, store.Out, "")
	g.SetContents(m.ID, "(is starring of: Fort Apache; character: Kirby York)")
	for _, tc := range []struct{ triple string }{
		{"(is starring of: Fort Apache; character: Kirby York) -> actor -> John Wayne"},
		{"Fort Apache -> starring -> (actor: John Wayne; character: Kirby York)"},
		{"(actor: John Wayne; is starring of: Fort Apache) -> character -> Kirby York"},
	} {
		if tr := g.Triples(); !slices.Contains(tr, tc.triple) {
			t.Errorf("triples lack %q: %q", tc.triple, tr)
		}
	}
}

func TestHasLabel(t *testing.T) {
	for _, c := range []struct {
		id, label string
		want      bool
	}{
		{"P580", "P580", false},
		{"pq:P580", "P580", false},
		{"http://www.wikidata.org/entity/Q23", "Q23", false},
		{"Q123", "Q23", true}, // another id's text is a label
		{"http://www.wikidata.org/entity/Q123", "Q23", true},
		{"/film/film", "", false},
		{"author", "author", true},
		{"Q23", "George Washington", true},
	} {
		if got := HasLabel(c.id, c.label); got != c.want {
			t.Errorf("HasLabel(%q, %q) = %v, want %v", c.id, c.label, got, c.want)
		}
	}
}

// TestResolveReachedFirst: when entities share the answer's name, those
// the reasoning reached through an edge come before those it started
// from (GrailQA 2101960008000: the company "The Illusion" produces the
// play "The Illusion").
func TestResolveReachedFirst(t *testing.T) {
	company, play, other := ent("m.0yrlqjm", "The Illusion"), ent("m.0yrltsn", "The Illusion"), ent("m.x", "The Illusion")
	produced := func(s, o store.Entity) store.Edge {
		return store.Edge{Subject: s, Relation: "produced", RelationLabel: "produced", Object: o, Graph: "fb"}
	}
	for _, tc := range []struct {
		name  string
		build func(g *Graph)
		want  []string
	}{
		{"reached forwards", func(g *Graph) {
			g.AddEdge(produced(company, play), store.Out, "")
		}, []string{"m.0yrltsn", "m.0yrlqjm"}},
		{"reached backwards", func(g *Graph) {
			g.AddEdge(produced(play, company), store.In, "")
		}, []string{"m.0yrltsn", "m.0yrlqjm"}},
		{"an edge back to the topic entity", func(g *Graph) {
			g.AddEdge(produced(company, play), store.Out, "")
			g.AddEdge(produced(play, company), store.Out, "")
		}, []string{"m.0yrltsn", "m.0yrlqjm"}},
		{"two starts keep insertion order", func(g *Graph) {
			g.AddEntity(play, "fb")
		}, []string{"m.0yrlqjm", "m.0yrltsn"}},
		{"two reached keep insertion order", func(g *Graph) {
			g.AddEdge(produced(company, other), store.Out, "")
			g.AddEdge(produced(company, play), store.Out, "")
		}, []string{"m.x", "m.0yrltsn", "m.0yrlqjm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			g.AddEntity(company, "fb")
			tc.build(g)
			if got := g.Resolve("The Illusion"); !slices.Equal(got, tc.want) {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
			if g.Reached(company.ID) {
				t.Errorf("the topic entity counts as reached")
			}
		})
	}
}

// TestResolveStartsLast: entities marked as starts rank after the
// entities reached from them whatever the direction of the edges, linked
// ones before the question's topic entities (GrailQA 2101960008000 with
// explore-cot: the play linked from the mention and expanded forwards,
// the production given as the topic entity).
func TestResolveStartsLast(t *testing.T) {
	production, play := ent("m.0yrlqjm", "The Illusion"), ent("m.0yrltsn", "The Illusion")
	comedy := ent("m.0comedy", "Comedy")
	productions := store.Edge{Subject: play, Relation: "theater.play.productions", Object: production, Graph: "fb"}
	type mark struct {
		id    string
		start Start
	}
	for _, tc := range []struct {
		name        string
		marks       []mark
		want        []string
		wantReached []string
	}{
		{"no marks: the edge direction decides", nil,
			[]string{"m.0yrlqjm", "m.0yrltsn"}, []string{"m.0yrlqjm"}},
		{"the linked expanded entity is a start", []mark{{"m.0yrltsn", StartLinked}},
			[]string{"m.0yrlqjm", "m.0yrltsn"}, []string{"m.0yrlqjm"}},
		{"the topic ranks after the linked entity", []mark{{"m.0yrlqjm", StartTopic}, {"m.0yrltsn", StartLinked}},
			[]string{"m.0yrltsn", "m.0yrlqjm"}, nil},
		{"a topic reached by an edge stays last", []mark{{"m.0yrlqjm", StartTopic}},
			[]string{"m.0yrltsn", "m.0yrlqjm"}, nil},
		{"a weaker mark keeps the topic", []mark{{"m.0yrlqjm", StartTopic}, {"m.0yrltsn", StartLinked}, {"m.0yrlqjm", StartLinked}},
			[]string{"m.0yrltsn", "m.0yrlqjm"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			g.AddEntity(production, "fb")
			g.AddEntity(play, "fb")
			g.AddEdge(productions, store.Out, "")
			g.AddEdge(store.Edge{Subject: play, Relation: "theater.play.genre", Object: comedy, Graph: "fb"}, store.Out, "")
			for _, m := range tc.marks {
				g.MarkStart(m.id, m.start)
			}
			c := g.Clone()
			if got := c.Resolve("The Illusion"); !slices.Equal(got, tc.want) {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
			for _, id := range []string{"m.0yrlqjm", "m.0yrltsn"} {
				if got, want := c.Reached(id), slices.Contains(tc.wantReached, id); got != want {
					t.Errorf("Reached(%s) = %v, want %v", id, got, want)
				}
			}
		})
	}
}
