package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kgTextDump is a small Wikidata JSON dump: Rome (Q1) with an unlabelled
// class (Q5119) qualified by an unlabelled item (Q38) through an
// unlabelled property (P642), an inception whose determination method
// (Q82821) has no label, an edge along an unlabelled property (P112), and
// an item (Q3) named only in German.
const kgTextDump = `[
{"type":"property","id":"P31","datatype":"wikibase-item","labels":{"en":{"language":"en","value":"instance of"}},"claims":{}},
{"type":"property","id":"P571","datatype":"time","labels":{"en":{"language":"en","value":"inception"}},"claims":{}},
{"type":"property","id":"P459","datatype":"wikibase-item","labels":{"en":{"language":"en","value":"determination method"}},"claims":{}},
{"type":"item","id":"Q3","labels":{"de":{"language":"de","value":"Ding"}},"descriptions":{"de":{"language":"de","value":"ein Ding"}},"claims":{}},
{"type":"item","id":"Q1","labels":{"en":{"language":"en","value":"Rome"}},"claims":{"P31":[{"mainsnak":{"snaktype":"value","property":"P31","datatype":"wikibase-item","datavalue":{"value":{"entity-type":"item","id":"Q5119"},"type":"wikibase-entityid"}},"type":"statement","id":"Q1$a","rank":"normal", "qualifiers":{"P642":[{"snaktype":"value","property":"P642","datatype":"wikibase-item","datavalue":{"value":{"entity-type":"item","id":"Q38"},"type":"wikibase-entityid"}}]}}],"P112":[{"mainsnak":{"snaktype":"value","property":"P112","datatype":"wikibase-item","datavalue":{"value":{"entity-type":"item","id":"Q3"},"type":"wikibase-entityid"}},"type":"statement","id":"Q1$b","rank":"normal"}],"P571":[{"mainsnak":{"snaktype":"value","property":"P571","datatype":"time","datavalue":{"value":{"time":"-0753-04-21T00:00:00Z","timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"http://www.wikidata.org/entity/Q1985786"},"type":"time"}},"type":"statement","id":"Q1$c","rank":"normal", "qualifiers":{"P459":[{"snaktype":"value","property":"P459","datatype":"wikibase-item","datavalue":{"value":{"entity-type":"item","id":"Q82821"},"type":"wikibase-entityid"}}]}}]}}
]
`

// TestKGTextNamesUnlabelled: the kg commands' text names an entity,
// relation or qualifier the KG has no label for as the model reads it,
// its id followed by "(no label in the KG)", never as a bare id that reads
// as a name; a name in another language than English shows its language.
func TestKGTextNamesUnlabelled(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(dump, []byte(kgTextDump), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if _, err := run(t, "--db", db, "ingest", "--quiet", "--graph", "wd", dump); err != nil {
		t.Fatal(err)
	}
	runKGText(t, db, []kgTextCase{
		{"features", []string{"kg", "features", "Q1"},
			[]string{"[determination method: Q82821 (no label in the KG)]"}, []string{"Q82821]"}},
		{"edges", []string{"kg", "edges", "P31", "Q1"},
			[]string{"Rome (Q1) -instance of-> Q5119 (no label in the KG) [P642 (no label in the KG): Q38 (no label in the KG)]"},
			[]string{"Q5119 (Q5119)", ": Q38]"}},
		{"edges along an unlabelled relation", []string{"kg", "edges", "P112", "Q1"},
			[]string{"Rome (Q1) -P112 (no label in the KG)-> Ding (Q3)"}, nil},
		{"neighbors", []string{"kg", "neighbors", "Q1"}, []string{"Q5119\t(no label in the KG)\n", "Q3\tDing\n"}, nil},
		{"relations", []string{"kg", "relations", "Q1"}, []string{"P112 (no label in the KG)"}, nil},
		{"entity without a label", []string{"kg", "entity", "Q5119"}, []string{"Q5119\t(no label in the KG)\n"}, nil},
		{"entity named in German", []string{"kg", "entity", "Q3"}, []string{"Q3\tDing\n", "description: ein Ding"}, nil},
		{"search finds a German name", []string{"kg", "search", "Ding"}, []string{"Q3  Ding"}, nil},
	})
}

// TestKGTextDescribesMediators: an unlabelled node with edges of its own
// (a Freebase CVT) is named in the kg commands' text by its contents, as
// the model reads it, not "(no label in the KG)"; an unlabelled node
// without edges of its own keeps that mark.
func TestKGTextDescribesMediators(t *testing.T) {
	const label = "<http://www.w3.org/2000/01/rdf-schema#label>"
	dir := t.TempDir()
	nt := filepath.Join(dir, "film.nt")
	data := strings.Join([]string{
		`<m1> ` + label + ` "Blade Runner" .`,
		`<p1> ` + label + ` "Harrison Ford" .`,
		`<m1> <starring> _:c1 .`,
		`_:c1 <actor> <p1> .`,
		`_:c1 <character> "Rick Deckard" .`,
		`<m1> <country> <x9> .`,
	}, "\n") + "\n"
	if err := os.WriteFile(nt, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if _, err := run(t, "--db", db, "ingest", "--quiet", "--graph", "film", nt); err != nil {
		t.Fatal(err)
	}
	runKGText(t, db, []kgTextCase{
		{"edges", []string{"kg", "edges", "starring", "m1"},
			[]string{"Blade Runner (m1) -starring-> _:", " (actor: Harrison Ford; character: Rick Deckard)\n"},
			[]string{"no label"}},
		{"edges in", []string{"kg", "edges", "actor", "p1", "--dir", "in"},
			[]string{" (character: Rick Deckard; is starring of: Blade Runner) -actor-> Harrison Ford (p1)"}, nil},
		{"neighbors", []string{"kg", "neighbors", "m1"},
			[]string{"\t(actor: Harrison Ford; character: Rick Deckard)\n", "x9\t(no label in the KG)\n"}, nil},
		{"no edges of its own", []string{"kg", "edges", "country", "m1"},
			[]string{"-country-> x9 (no label in the KG)"}, nil},
	})
}

// kgTextCase is a kg command and what its text must and must not hold.
type kgTextCase struct {
	name      string
	args      []string
	want, not []string
}

// runKGText runs each case's command on db and checks its text.
func runKGText(t *testing.T, db string, cases []kgTextCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, append([]string{"--db", db}, c.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}

// TestKGListsSayWhenCut: edges cut at --limit say on standard error how
// many there are and how to see them all, neighbours and a query's
// results that there are more; a list within the limit says nothing.
func TestKGListsSayWhenCut(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	if _, err := run(t, "--db", db, "ingest", "--quiet", "--graph", "film", filepath.Join("..", "..", "data", "film.nq.gz")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // "" for no note
	}{
		{[]string{"kg", "edges", "/film/film/starring", "/en/blade_runner", "--limit", "2"}, "grove: 2 edges shown of 12 (--limit 2; --limit 0 shows all)\n"},
		{[]string{"kg", "edges", "/film/film/starring", "/en/blade_runner", "--limit", "12"}, ""},
		{[]string{"kg", "neighbors", "/en/blade_runner", "--limit", "3", "--json"}, "grove: the first 3 neighbours are shown; there are more (--limit 0 shows all)\n"},
		{[]string{"kg", "neighbors", "/en/blade_runner", "--limit", "14"}, ""}, // exactly all 14
		{[]string{"kg", "neighbors", "/en/blade_runner", "--limit", "0"}, ""},
		{[]string{"query", "--limit", "2", `g.V("</en/blade_runner>").Out("</film/film/starring>").All()`},
			"grove: the first 2 results are shown; the query has more (--limit)\n"},
		{[]string{"query", "--limit", "12", `g.V("</en/blade_runner>").Out("</film/film/starring>").All()`}, ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, stderr, err := runStreams(t, append([]string{"--db", db}, c.args...)...)
			if err != nil || stderr != c.want {
				t.Errorf("stderr %q, %v; want %q", stderr, err, c.want)
			}
		})
	}
	// Two edges to one neighbour: a list of all neighbours is not cut
	// (the degree, 3, counts edges).
	two := filepath.Join(t.TempDir(), "two.nt")
	if err := os.WriteFile(two, []byte("<a> <p> <b> .\n<a> <q> <b> .\n<a> <p> <c> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db2 := filepath.Join(t.TempDir(), "db")
	if _, err := run(t, "--db", db2, "ingest", "--quiet", "--graph", "g", two); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runStreams(t, "--db", db2, "kg", "neighbors", "a", "--limit", "2"); err != nil || stderr != "" {
		t.Errorf("all neighbours within --limit: stderr %q, %v", stderr, err)
	}
	// GraphQL answers one document: a list in it over the limit is
	// refused, naming first:, rather than cut or passed whole.
	_, err := run(t, "--db", db, "query", "--lang", "graphql", "--limit", "5", "{ nodes { id } }")
	if err == nil || !strings.Contains(err.Error(), "over --limit 5; ask for fewer with first:") {
		t.Errorf("a GraphQL list over --limit: %v", err)
	}
	if _, err := run(t, "--db", db, "query", "--lang", "graphql", "--limit", "5", "{ nodes(first: 5) { id } }"); err != nil {
		t.Errorf("a GraphQL list within --limit: %v", err)
	}
}
