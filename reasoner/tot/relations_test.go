package tot

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store/storetest"
)

// TestUnlabelledRelationOptions: relations with a label come first (the
// KG sorts "P102" before "country"), and an option without a label names
// its id once.
func TestUnlabelledRelationOptions(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<Q23> <http://www.w3.org/2000/01/rdf-schema#label> "George Washington" .
<Q23> <P102> <Q1> .
<Q23> <P27> <Q30> .
<Q23> <P39> <Q11696> .
<P27> <http://www.w3.org/2000/01/rdf-schema#label> "country of citizenship" .
<P39> <http://www.w3.org/2000/01/rdf-schema#label> "position held" .
<Q30> <http://www.w3.org/2000/01/rdf-schema#label> "United States" .
`})
	r := &run{Session: &reasoner.Session{KG: db, Graphs: []string{"wd"}}}
	opts, err := r.relationOptions(t.Context(), []string{"Q23"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range opts {
		got = append(got, o.ID+" "+o.Rel.ID)
	}
	if want := []string{"R1 P27", "R2 P39", "R3 P102"}; !slices.Equal(got, want) {
		t.Errorf("options = %q, want %q", got, want)
	}
	n := &node{sub: subgraph.New(), selected: []string{"Q23"}}
	task := selectRelationTask(n, opts, false)
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"  R1 - country of citizenship (P27, 1 edge)\n", true},
		{"  R3 - P102 (no label in the KG) (1 edge)\n", true},
		{"(P102, 1 edge)", false},
	} {
		if strings.Contains(task, tc.line) != tc.want {
			t.Errorf("task contains %q = %v, want %v:\n%s", tc.line, !tc.want, tc.want, task)
		}
	}
}
