package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// miniFilm is a small real store: two films by one director.
const miniFilm = `<f1> <name> "Blade Runner" .
<f2> <name> "Alien" .
<f3> <name> "Jaws" .
<p1> <name> "Ridley Scott" .
<p2> <name> "Harrison Ford" .
<p3> <name> "Steven Spielberg" .
<f1> </film/directed_by> <p1> .
<f2> </film/directed_by> <p1> .
<f3> </film/directed_by> <p3> .
<f1> </film/starring> <p2> .
`

func miniDB(t *testing.T) store.KG { return storetest.Open(t, map[string]string{"mini": miniFilm}) }

func TestFromPath(t *testing.T) {
	db := miniDB(t)
	q := dataset.Question{ID: "q", Question: "Which films did the director of Blade Runner direct?", Answers: []string{"Alien"}}
	g, err := FromPath(t.Context(), db, q, []string{"f1", "/film/directed_by", "~/film/directed_by"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Hops) != 2 || g.Hops[0].From[0] != (Ent{ID: "f1", Label: "Blade Runner"}) {
		t.Fatalf("hops = %+v", g.Hops)
	}
	if to := g.Hops[0].To; len(to) != 1 || to[0] != (Ent{ID: "p1", Label: "Ridley Scott"}) {
		t.Errorf("hop 1 reaches %+v", to)
	}
	var films []string
	for _, e := range g.Hops[1].To {
		films = append(films, e.Label)
	}
	if slices.Sort(films); !slices.Equal(films, []string{"Alien", "Blade Runner"}) {
		t.Errorf("hop 2 reaches %v", films)
	}
	rels, _ := db.Relations(t.Context(), []string{"p1"}, store.In)
	if g.Hops[1].Relation != rels[0].DisplayLabel() || g.Hops[0].Relation == "" {
		t.Errorf("relation texts %q, %q (KG says %q)", g.Hops[0].Relation, g.Hops[1].Relation, rels[0].DisplayLabel())
	}
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"f1"}, "needs an entity and at least one relation"},
		{[]string{"nope", "/film/directed_by"}, "path entity nope"},
		{[]string{"f1", "/film/starring", "/film/starring"}, "no edges from [p2]"},
	} {
		if _, err := FromPath(t.Context(), db, q, tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestFromEvidencesAndGolds(t *testing.T) {
	q := dataset.Question{ID: "w", Question: "Where was the director of Alien born?", Answers: []string{"South Shields"},
		Evidences: [][3]string{{"Alien", "director", "Ridley Scott"}, {"Ridley Scott", "place of birth", "South Shields"}}}
	g, err := FromEvidences(q)
	if err != nil || len(g.Hops) != 2 || g.Hops[1].From[0].Label != "Ridley Scott" || g.Hops[1].Relation != "place of birth" {
		t.Fatalf("gold %+v, %v", g, err)
	}
	bare := dataset.Question{ID: "x", Question: "?", Answers: []string{"y"}}
	golds, err := Golds(t.Context(), miniDB(t), []dataset.Question{q, bare}, nil)
	if err == nil || !strings.Contains(err.Error(), "question x: no evidences") || len(golds) != 1 {
		t.Errorf("golds %d, err %v", len(golds), err)
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "q.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := ReadPaths(write(`{"id": "a", "path": ["e", "r"]}` + "\n\n" + `{"id": "b", "question": "no path"}` + "\n"))
	if err != nil || len(got) != 1 || !slices.Equal(got["a"], []string{"e", "r"}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for data, want := range map[string]string{
		`{"id": "a"}` + "\n" + `{"id": 3}`:  "q.jsonl:2: id: want a non-empty string",
		"\n{oops":                           "q.jsonl:2: invalid JSON",
		`{"id": "a", "path": "not a list"}`: "q.jsonl:1: invalid JSON",
	} {
		if _, err := ReadPaths(write(data)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", data, err, want)
		}
	}
	paths, err := ReadPaths("../../../data/film-questions.jsonl")
	if err != nil || len(paths) != 37 {
		t.Fatalf("demo paths: %d, %v", len(paths), err)
	}
}
