package reasoner

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/trace"
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
