package reasoner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

func TestNameAnswer(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q84> <http://www.w3.org/2000/01/rdf-schema#label> "London" .
<Q145> <http://www.w3.org/2000/01/rdf-schema#label> "United Kingdom" .
<Q145> <P36> <Q84> .
<Q145> <P1151> <Q3247097> .
<Q145> <P1082> "2011" .
`, "mb": `<mb:artist/1> <http://www.w3.org/2000/01/rdf-schema#label> "John Lennon" .
<mb:artist/1> <mb:member_of> <mb:artist/2> .
`, "film": `</en/ridley_scott> <http://www.w3.org/2000/01/rdf-schema#label> "Ridley Scott" .
</en/blade_runner> <http://www.w3.org/2000/01/rdf-schema#label> "Blade Runner" .
</en/blade_runner> </film/film/directed_by> </en/ridley_scott> .
`})
	seen := func(ids ...string) []string { return ids }
	for _, tc := range []struct {
		name      string
		graphs    []string
		in        trace.Answer
		text      string
		confident bool
		entities  []string
		reason    string
		doubt     string
		warn      string
	}{
		{"seen id with a label", nil, trace.Answer{Found: true, Confident: true, Text: "Q84", Entities: seen("Q84")},
			"London", true, []string{"Q84"}, "", "", ""},
		{"seen id, spaced", []string{"wd"}, trace.Answer{Found: true, Confident: true, Text: " Q84 ", Entities: seen("Q84")},
			"London", true, []string{"Q84"}, "", "", ""},
		{"seen id without a label", nil, trace.Answer{Found: true, Confident: true, Text: "Q3247097", Entities: seen("Q3247097"),
			Check: "value above the threshold 0.80"},
			"Q3247097", false, []string{"Q3247097"}, "Q3247097 (no label in the KG)", "the answer Q3247097 has no label in the KG", ""},
		{"seen id without a label, check failed", nil, trace.Answer{Found: true, Text: "Q3247097", Entities: seen("Q3247097"),
			Check: "value above the threshold 0.80"},
			"Q3247097", false, []string{"Q3247097"}, "Q3247097 (no label in the KG)", "", ""},
		{"unseen id", []string{"wd"}, trace.Answer{Found: true, Confident: true, Text: "Q145", Entities: seen("Q84"),
			Check: "value above the threshold 0.80", Reason: "an answer scored above tau=0.8"},
			"Q145", false, []string{"Q84"}, "an answer scored above tau=0.8; the answer Q145 is the id of an entity the reasoning never saw",
			"the answer Q145 is the id of an entity the reasoning never saw (United Kingdom in wd)", "never saw"},
		{"unseen id, no local graph", nil, trace.Answer{Found: true, Text: "Q145"},
			"Q145", false, nil, "never saw", "", "never saw"},
		{"id outside the query's graphs", []string{"wd"}, trace.Answer{Found: true, Confident: true, Text: "mb:artist/1",
			Check: "supported by the facts found"},
			"mb:artist/1", false, nil, "outside the query's graphs wd", "the answer mb:artist/1 is an entity of mb (John Lennon), outside the query's graphs wd",
			"outside the query's graphs"},
		{"id outside the query's graphs, among the entities", []string{"wd"}, trace.Answer{Found: true, Confident: true,
			Text: "mb:artist/1", Entities: seen("Q84", "mb:artist/1"), Check: "supported by the facts found"},
			"mb:artist/1", false, []string{"Q84"}, "outside the query's graphs",
			"the answer mb:artist/1 is an entity of mb (John Lennon), outside the query's graphs wd", "outside"},
		{"id in one of the query's graphs", []string{"wd", "mb"}, trace.Answer{Found: true, Confident: true, Text: "mb:artist/1",
			Entities: seen("mb:artist/1")}, "John Lennon", true, []string{"mb:artist/1"}, "", "", ""},
		{"a name", nil, trace.Answer{Found: true, Confident: true, Text: "London"}, "London", true, nil, "", "", ""},
		{"a number", nil, trace.Answer{Found: true, Confident: true, Text: "2011"}, "2011", true, nil, "", "", ""},
		{"an unknown id", nil, trace.Answer{Found: true, Confident: true, Text: "Q999"}, "Q999", true, nil, "", "", ""},
		{"not found", nil, trace.Answer{Text: "Q84"}, "Q84", false, nil, "", "", ""},
		// Freebase ids have no digit: they are ids all the same.
		{"seen id without a digit", []string{"film"}, trace.Answer{Found: true, Confident: true, Text: "/en/ridley_scott",
			Entities: seen("/en/blade_runner", "/en/ridley_scott")},
			"Ridley Scott", true, []string{"/en/blade_runner", "/en/ridley_scott"}, "", "", ""},
		{"unseen id without a digit", []string{"film"}, trace.Answer{Found: true, Confident: true, Text: "/en/ridley_scott",
			Entities: seen("/en/blade_runner"), Check: "value above the threshold 0.80"},
			"/en/ridley_scott", false, []string{"/en/blade_runner"}, "never saw",
			"the answer /en/ridley_scott is the id of an entity the reasoning never saw (Ridley Scott in film)", "never saw"},
		{"a word", nil, trace.Answer{Found: true, Confident: true, Text: "yes"}, "yes", true, nil, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warn := NameAnswer(t.Context(), db, tc.graphs, tc.in)
			if got.Text != tc.text || got.Confident != tc.confident || !slices.Equal(got.Entities, tc.entities) ||
				!strings.Contains(got.Reason, tc.reason) || got.Doubt != tc.doubt {
				t.Errorf("NameAnswer(%+v) = %+v", tc.in, got)
			}
			if (warn == "") != (tc.warn == "") || !strings.Contains(warn, tc.warn) {
				t.Errorf("NameAnswer(%+v) warns %q, want one containing %q", tc.in, warn, tc.warn)
			}
		})
	}
}

// countingKG counts the entity lookups of a store.KG.
type countingKG struct {
	store.KG
	n int
}

func (c *countingKG) Entity(ctx context.Context, id string) (store.Entity, error) {
	c.n++
	return c.KG.Entity(ctx, id)
}

// TestNameAnswerLookups checks that only answers that look like ids cost
// a KG call, and that an id answer with no KG to check it is flagged.
func TestNameAnswerLookups(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q84> <http://www.w3.org/2000/01/rdf-schema#label> "London" .
`})
	for _, tc := range []struct {
		text    string
		lookups int
	}{
		{"Paris", 0}, {"1982", 0}, {"yes", 0}, {"New York", 0},
		{"Q84", 1}, {"/en/x", 1}, {"author/123", 1}, {"_:film/12", 1}, {"mb:artist/x", 1},
	} {
		kg := &countingKG{KG: db}
		NameAnswer(t.Context(), kg, nil, trace.Answer{Found: true, Text: tc.text, Entities: []string{"Q84"}})
		if kg.n != tc.lookups {
			t.Errorf("NameAnswer(%q) looked up %d times, want %d", tc.text, kg.n, tc.lookups)
		}
	}
	got, warn := NameAnswer(t.Context(), nil, nil, trace.Answer{Found: true, Confident: true, Text: "Q84",
		Check: "value above the threshold 0.80"})
	if got.Confident || got.Text != "Q84" || !strings.Contains(got.Doubt, "no KG") || !strings.Contains(warn, "no KG") {
		t.Errorf("NameAnswer without a KG = %+v, %q", got, warn)
	}
}

// TestNoKGCodeLikeNames: with no KG at hand, a one-word answer that
// merely looks like a code is an ordinary answer for both NameAnswer and
// NameModelAnswer, and only an unmistakable KG id is flagged; with a KG
// every answer llm.IDLike takes is still looked up.
func TestNoKGCodeLikeNames(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q84> <http://www.w3.org/2000/01/rdf-schema#label> "London" .
`})
	for _, tc := range []struct {
		text    string
		flagged bool
	}{
		{"B12", false}, {"COVID-19", false}, {"MP3", false}, {"F-16", false}, {"R2-D2", false}, {"7-Eleven", false},
		{"Q84", true}, {"m.0jw67", true}, {"/m/0jw67", true}, {"g.11b6ddw9n5", true}, {"P31", true},
		{"http://www.wikidata.org/entity/Q84", true}, {"mb:artist/x", true}, {"/en/ridley_scott", true},
		{"film.film.directed_by", true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			for name, settle := range map[string]func(context.Context, store.KG, []string, trace.Answer) (trace.Answer, string){
				"NameAnswer": NameAnswer, "NameModelAnswer": NameModelAnswer} {
				got, warn := settle(t.Context(), nil, nil, trace.Answer{Found: true, Confident: true, Text: tc.text})
				if got.Text != tc.text || got.Confident == tc.flagged || (warn != "") != tc.flagged {
					t.Errorf("%s(%q) without a KG = %+v, %q; flagged want %v", name, tc.text, got, warn, tc.flagged)
				}
			}
			if !llm.IDLike(tc.text) {
				return
			}
			kg := &countingKG{KG: db}
			NameModelAnswer(t.Context(), kg, nil, trace.Answer{Found: true, Text: tc.text})
			if kg.n != 1 {
				t.Errorf("NameModelAnswer(%q) with a KG looked up %d times, want 1", tc.text, kg.n)
			}
		})
	}
}

func TestNameModelAnswer(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q64> <http://www.w3.org/2000/01/rdf-schema#label> "Berlin" .
<Q3247097> <P31> <Q5> .
`, "film": `</en/ridley_scott> <http://www.w3.org/2000/01/rdf-schema#label> "Ridley Scott" .
`})
	for _, tc := range []struct {
		name   string
		kg     store.KG
		graphs []string
		text   string
		want   string
		warn   string
	}{
		{"no KG at hand", nil, []string{"film"}, "Q64", "Q64", "saw no KG and none was at hand"},
		{"outside the query's graphs", db, []string{"film"}, "Q64", "Q64",
			"saw no KG; the answer Q64 is an entity of wd (Berlin), outside the query's graphs film"},
		{"in the query's graphs", db, []string{"wd"}, "Q64", "Berlin", "the model gave it from its memory (Berlin in wd)"},
		{"every graph", db, nil, "/en/ridley_scott", "Ridley Scott", "named from the KG"},
		{"without a label", db, nil, "Q3247097", "Q3247097", "it is not confident"},
		{"no entity has it", db, nil, "Q99999", "Q99999", ""},
		{"a name", db, nil, "Berlin", "Berlin", ""},
		{"a name, no KG", nil, nil, "Berlin", "Berlin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warn := NameModelAnswer(t.Context(), tc.kg, tc.graphs, trace.Answer{Found: true, Text: tc.text})
			if got.Text != tc.want || got.Confident || len(got.Entities) != 0 {
				t.Errorf("NameModelAnswer(%q) = %+v, want text %q", tc.text, got, tc.want)
			}
			if (warn == "") != (tc.warn == "") || !strings.Contains(warn, tc.warn) {
				t.Errorf("NameModelAnswer(%q) warns %q, want one containing %q", tc.text, warn, tc.warn)
			}
		})
	}
}
