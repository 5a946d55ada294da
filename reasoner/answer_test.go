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
`})
	for _, tc := range []struct {
		name      string
		in        trace.Answer
		text      string
		confident bool
		entities  []string
		reason    string
	}{
		{"id with a label", trace.Answer{Found: true, Confident: true, Text: "Q84"}, "London", true, []string{"Q84"}, ""},
		{"id already among entities", trace.Answer{Found: true, Confident: true, Text: " Q84 ", Entities: []string{"Q84"}},
			"London", true, []string{"Q84"}, ""},
		{"id without a label", trace.Answer{Found: true, Confident: true, Text: "Q3247097"}, "Q3247097", false,
			[]string{"Q3247097"}, "Q3247097 (no label in the KG)"},
		{"a name", trace.Answer{Found: true, Confident: true, Text: "London"}, "London", true, nil, ""},
		{"a number", trace.Answer{Found: true, Confident: true, Text: "2011"}, "2011", true, nil, ""},
		{"an unknown id", trace.Answer{Found: true, Confident: true, Text: "Q999"}, "Q999", true, nil, ""},
		{"not found", trace.Answer{Text: "Q84"}, "Q84", false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NameAnswer(t.Context(), db, tc.in)
			if got.Text != tc.text || got.Confident != tc.confident || !slices.Equal(got.Entities, tc.entities) ||
				!strings.Contains(got.Reason, tc.reason) {
				t.Errorf("NameAnswer(%+v) = %+v", tc.in, got)
			}
		})
	}
}
