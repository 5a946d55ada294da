package grounded

import (
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/storetest"
)

// twinned is a Wikidata subset: London is twinned with Berlin, loaded,
// and with Q1486, an item outside the subset (no label, no edges of its
// own); the performance _:p is a mediator (no label, edges of its own).
const twinned = `<Q84> <name> "London" .
<Q64> <name> "Berlin" .
<Q84> <P190> <Q64> .
<Q84> <P190> <Q1486> .
<Q64> <P190> <Q1486> .
<Q84> <P6> <perf1> .
<perf1> <actor> <Q64> .
`

// TestAgentNamesUnlabelledItemsByID: a NeighbourCheck observation names
// an unlabelled item that is no mediator by its id followed by NoLabel,
// once, never after the edges of others into it ("(inverse of P190:
// Berlin)" would read as Berlin); a mediator is named by its contents
// with its id.
func TestAgentNamesUnlabelledItemsByID(t *testing.T) {
	kg := storetest.Open(t, map[string]string{"wd": twinned})
	for _, tc := range []struct {
		name, action string
		want, not    []string
	}{
		{"unlabelled item", "NeighbourCheck[Q84, P190]", []string{"Berlin (Q64)", "Q1486 (no label in the KG)"},
			[]string{"inverse of", "(Q1486)"}},
		{"mediator", "NeighbourCheck[Q84, P6]", []string{"(actor: Berlin) (perf1)"}, []string{"perf1 (no label in the KG)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := firstObservation(t, kg, tc.action, "Which cities are twinned with London?", tc.want)
			for _, w := range tc.not {
				if strings.Contains(obs, w) {
					t.Errorf("observation\n  %s\nhas\n  %s", obs, w)
				}
			}
		})
	}
}
