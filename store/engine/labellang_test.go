package engine

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// TestLabelLanguageMarked: a label or description in another language than
// English reads with its language ("Farbe (de)"), as a language-tagged
// value does; English, English variants, language-neutral and untagged
// text read as they are; search still finds the entity by its text.
func TestLabelLanguageMarked(t *testing.T) {
	cases := []struct {
		name              string
		label, desc       quad.Value
		wantLabel, wantDs string
		search            string
	}{
		{"German", quad.LangString{Value: "Farbe", Lang: "de"}, quad.LangString{Value: "Ding", Lang: "de"}, "Farbe (de)", "Ding (de)", "Farbe"},
		{"Arabic", quad.LangString{Value: "لون", Lang: "ar"}, nil, "لون (ar)", "", "لون"},
		{"English variant", quad.LangString{Value: "Colour", Lang: "en-gb"}, quad.LangString{Value: "a hue", Lang: "en-gb"}, "Colour", "a hue", "Colour"},
		{"mul", quad.LangString{Value: "Tokyo", Lang: "mul"}, nil, "Tokyo", "", "Tokyo"},
		{"untagged", quad.String("Thing"), quad.String("a thing"), "Thing", "a thing", "Thing"},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := []quad.Quad{{Subject: quad.IRI("x"), Predicate: quad.IRI(store.RDFSLabel), Object: c.label, Label: quad.IRI("g")}}
			if c.desc != nil {
				qs = append(qs, quad.Quad{Subject: quad.IRI("x"), Predicate: quad.IRI(store.SchemaDesc), Object: c.desc, Label: quad.IRI("g")})
			}
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			loadQuads(t, db, "g", qs)
			e, err := db.Entity(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			if e.Label != c.wantLabel || e.Description != c.wantDs {
				t.Errorf("label %q, description %q; want %q, %q", e.Label, e.Description, c.wantLabel, c.wantDs)
			}
			cands, err := db.Search(ctx, "g", c.search, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) != 1 || cands[0].ID != "x" || cands[0].Matched != c.search || cands[0].Label != c.wantLabel {
				t.Errorf("search %q: %+v", c.search, cands)
			}
		})
	}
}
