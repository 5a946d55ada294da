package grounded

import (
	"os"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// wikidata opens the Wikidata-shaped fixture (testdata/wikidata.nq); the
// embedded store gives each node's own features their statements'
// qualifiers.
func wikidata(t testing.TB) store.KG {
	t.Helper()
	nq, err := os.ReadFile("testdata/wikidata.nq")
	if err != nil {
		t.Fatal(err)
	}
	return storetest.Open(t, map[string]string{"wd": string(nq)})
}

// TestAgentWikidataObservations: an observation gives each neighbour and
// each feature value with its own statement's qualifiers, two statements
// of one value as two values, and names a relation without a label by its
// id followed by NoLabel.
func TestAgentWikidataObservations(t *testing.T) {
	kg := wikidata(t)
	for _, tc := range []struct {
		name, action string
		want         []string
	}{
		{"neighbours with their statements' qualifiers", "NeighbourCheck[Q23, position held]", []string{
			"The position held neighbours of George Washington (Q23) are (2 in all): ",
			"President of the United States (Q11696) (start time: 30 April 1789; end time: 4 March 1797)",
			"Commanding General of the United States Army (Q1115127) (statement 1 of 2: start time: 15 June 1775; " +
				"end time: 23 December 1788) (statement 2 of 2: start time: 13 July 1798)"}},
		{"one value per statement", "NodeFeature[Q145, Human Development Index]", []string{
			"The Human Development Index of United Kingdom (Q145) is: 0.901 (point in time: 2011); 0.901 (point in time: 2012)"}},
		{"a property is no node", "RetrieveNode[capital]", []string{`No node matches "capital".`}},
		{"a feature without a label", "NodeFeature[Q145, P18]", []string{
			"The P18 (no label in the KG) of United Kingdom (Q145) is: Flag of the United Kingdom.svg"}},
		{"an external id is no feature offered", "NodeFeature[Q145, colour]", []string{
			`has no feature "colour"; its features are: `, "Human Development Index"}},
		{"an external id asked by name", "NodeFeature[Q145, VIAF ID]", []string{"is: 127756949"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := firstObservation(t, kg, tc.action, "What about "+tc.name+"?", tc.want)
			if strings.Contains(obs, "features are:") && strings.Contains(obs, "VIAF") {
				t.Errorf("observation offers an external id: %s", obs)
			}
		})
	}
}

// firstObservation runs the agent with one action and returns what the
// first step observed, failing t for each of want it lacks.
func firstObservation(t *testing.T, kg store.KG, action, question string, want []string) string {
	t.Helper()
	m := agentModel([]string{"I look at the graph."}, []string{action, "Finish[x]"}, nil)
	tr := answer(t, kg, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: question})
	steps := stepNodes(tr)
	if len(steps) == 0 {
		t.Fatal("no steps")
	}
	obs := steps[0].Extra["observation"]
	for _, w := range want {
		if !strings.Contains(obs, w) {
			t.Errorf("observation\n  %s\nlacks\n  %s", obs, w)
		}
	}
	return obs
}

// TestExploreWikidataAttributes: the attribute options name a feature
// without a label by its id and NoLabel, give each value with its own
// statement's qualifiers (two statements of one value stay two values),
// leave out the features of hidden relations (external ids), and a cut
// value list says how many values there are.
func TestExploreWikidataAttributes(t *testing.T) {
	kg := wikidata(t)
	m := exploreModel(map[string]func(fcall) string{
		TaskExtract:         always("United Kingdom"),
		TaskPruneAttributes: always("Human Development Index, P18"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.AttributeWidth = 1; c.Steps = 1; c.Depth = 1 })
	answer(t, kg, m, nil, cfg, reasoner.Query{Question: "What is the Human Development Index of the United Kingdom?"})
	calls := m.calls(TaskPruneAttributes)
	if len(calls) == 0 {
		t.Fatal("no attribute pruning call")
	}
	prompt := calls[0].Prompt()
	for _, tc := range []struct {
		name string
		want bool
		text string
	}{
		{"values per statement with qualifiers", true,
			"[Human Development Index] 0.901 (point in time: 2011); 0.901 (point in time: 2012)\n"},
		{"unlabelled feature keyed by id, named with NoLabel", true,
			"[P18] (no label in the KG): Flag of the United Kingdom.svg\n"},
		{"no bare unlabelled id", false, "[P18] Flag"},
		{"external ids left out", false, "127756949"},
		{"external ids left out (GND)", false, "GND ID"},
	} {
		if strings.Contains(prompt, tc.text) != tc.want {
			t.Errorf("%s: prompt contains %q = %v, want %v:\n%s", tc.name, tc.text, !tc.want, tc.want, prompt)
		}
	}
	if n := len(calls[0].Req.Task.Options); n != 2 {
		t.Errorf("%d attribute options, want 2", n)
	}
}

func TestValuesText(t *testing.T) {
	for _, tc := range []struct {
		vals []string
		max  int
		want string
	}{
		{[]string{"a", "b"}, 10, "a; b"},
		{[]string{"aaaa", "bbbb", "cccc"}, 10, "aaaa; bbbb; … (3 values in all, 2 shown)"},
		{[]string{"aaaaaaaaaaaa", "b"}, 5, "aaaa…; … (2 values in all, 1 shown)"},
		{[]string{"aaaaaaaaaaaa"}, 5, "aaaa…"},
	} {
		if got := valuesText(tc.vals, tc.max); got != tc.want {
			t.Errorf("valuesText(%q, %d) = %q, want %q", tc.vals, tc.max, got, tc.want)
		}
	}
}

// TestAnswerIDNamed: a final answer that is an entity's id is answered
// with the entity's name.
func TestAnswerIDNamed(t *testing.T) {
	kg := wikidata(t)
	for _, tc := range []struct{ finish, want string }{
		{"Finish[Q84]", "London"},
		{"Finish[London]", "London"},
	} {
		m := agentModel([]string{"I look at the graph."}, []string{"NeighbourCheck[Q145, capital]", tc.finish}, nil)
		tr := answer(t, kg, m, nil, DefaultConfig(Agent, CoT), reasoner.Query{Question: "What is the capital of the United Kingdom?"})
		if tr.Answer.Text != tc.want || !tr.Answer.Found {
			t.Errorf("%s: answer = %+v", tc.finish, tr.Answer)
		}
	}
}
