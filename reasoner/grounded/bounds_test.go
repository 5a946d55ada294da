package grounded

import (
	"fmt"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// meshGraph is n nodes "Node i", each with a year and three tails along
// each of three relations (so the exploration keeps every one without a
// pruning call), and, when typePred is set, an edge typePred to the class
// node <class>, which then has n members.
func meshGraph(n int, typePred string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<n%d> <name> %q .\n<n%d> <year> \"%d\" .\n", i, fmt.Sprintf("Node %d", i), i, 1900+i)
		for r, rel := range []string{"knows", "likes", "follows"} {
			for j := 1; j <= 3; j++ {
				fmt.Fprintf(&b, "<n%d> <%s> <n%d> .\n", i, rel, (9*i+3*r+j)%n)
			}
		}
		if typePred != "" {
			fmt.Fprintf(&b, "<n%d> <%s> <class> .\n", i, typePred)
		}
	}
	if typePred != "" {
		b.WriteString("<class> <name> \"Thing\" .\n")
	}
	return b.String()
}

// meshModel explores everything it is offered and never finds enough.
func meshModel() *fake {
	return exploreModel(map[string]func(fcall) string{
		TaskExploreThought: func(c fcall) string { return fmt.Sprintf("I look at what Node 0 knows, idea %d.", c.Sample) },
		TaskExtract:        always("Node 0"),
		TaskPruneRelations: always("R1, R2, R3"),
		TaskPruneEntities:  always("1, 2, 3"),
		TaskSelect:         always("Best: 1"),
		TaskScore:          always("Score: 0.5"),
		TaskMerge:          always("I merge what both chains know of Node 0."),
	})
}

// TestPromptBounds: chains that find hundreds of triples per step keep
// every prompt well under 16,000 characters; a cut list says how many it
// left out, and no prompt lists a triple twice.
func TestPromptBounds(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": meshGraph(400, "")})
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"explore-cot", cfgWith(Explore, CoT, func(c *Config) { c.Steps = 4 })},
		{"explore-tot select", cfgWith(Explore, ToT, func(c *Config) { c.Steps, c.K, c.T = 3, 2, 2 })},
		{"explore-tot score", cfgWith(Explore, ToT, func(c *Config) { c.Steps, c.K, c.T, c.Evaluator = 3, 2, 2, Score })},
		{"explore-got", cfgWith(Explore, GoT, func(c *Config) { c.Steps, c.K, c.T = 3, 2, 2 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := meshModel()
			tr := answer(t, db, m, nil, tc.cfg, reasoner.Query{Question: "Whom does Node 0 know?"})
			if got := len(tracetest.Calls(tr, TaskAnswer)); got != 1 {
				t.Fatalf("%d final answers", got)
			}
			cut := false
			for _, c := range m.log {
				p := c.Prompt()
				if len(p) > 16000 {
					t.Errorf("%s prompt of %d characters", c.Req.Task.Name, len(p))
				}
				cut = cut || strings.Contains(p, "more triples")
				// A vote or a merge shows several chains, which may share
				// a triple: each chain's lists must not repeat one.
				seen := map[string]bool{}
				for _, l := range strings.Split(p, "\n") {
					if strings.HasPrefix(l, "Choice ") || strings.HasPrefix(l, "Chain ") || strings.HasPrefix(l, "Merged Chain") {
						seen = map[string]bool{}
					}
					if strings.Count(l, " -> ") == 2 && seen[l] {
						t.Errorf("%s prompt lists %q twice", c.Req.Task.Name, l)
						break
					}
					seen[l] = true
				}
			}
			if !cut {
				t.Error("no prompt says how many triples it left out")
			}
		})
	}
}

// TestTypeNodeNotExplored: the class a node's type relation leads to stays
// a fact of the node ("Node 0 -> type -> ...") and is never explored as a
// head entity (its members are every node of the graph).
func TestTypeNodeNotExplored(t *testing.T) {
	for _, pred := range []string{"type", store.RDFType, "P31"} {
		t.Run(pred, func(t *testing.T) {
			db := storetest.Open(t, map[string]string{"g": meshGraph(60, pred)})
			m := meshModel()
			// Keep the type relation and "knows" (both directions).
			m.handlers[TaskPruneRelations] = func(c fcall) string {
				var ids []string
				for _, o := range c.Req.Task.Options {
					if !strings.Contains(o.Text, "likes") && !strings.Contains(o.Text, "follows") {
						ids = append(ids, o.ID)
					}
				}
				return strings.Join(ids, ", ")
			}
			cfg := cfgWith(Explore, CoT, func(c *Config) { c.Steps = 2 })
			tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Whom does Node 0 know?"})
			typed := false
			for _, n := range stepNodes(tr) {
				if relationCalls(func() []string { return kgOps(tr, n.ID) })["class"] > 0 {
					t.Errorf("step %d explored the class node", n.ID)
				}
			}
			for _, c := range m.calls(TaskEnd) {
				// The End? task carries every triple (Candidate).
				typed = typed || strings.Contains(c.Req.Task.Candidate, "-> Thing")
			}
			for _, c := range m.calls(TaskPruneEntities) {
				if strings.Contains(c.Prompt(), "Head Entity: Thing") {
					t.Errorf("the class node is a head entity:\n%s", c.Prompt())
				}
			}
			if !typed {
				t.Errorf("no node's type is kept as a fact:\n%s", tracetest.Render(t, tr))
			}
		})
	}
}

// TestHeadText: an explored entity without a label is described by its
// relations in the pruning prompts; a named one by its name only.
func TestHeadText(t *testing.T) {
	rels := []store.Relation{{ID: "/film/performance/actor", Label: "actor", Dir: store.Out, Count: 1, Graph: "g"},
		{ID: "/film/film/starring", Label: "starring", InverseLabel: "performance in", Dir: store.In, Count: 1, Graph: "g"}}
	for _, tc := range []struct{ name, in, want string }{
		{"named", "Blade Runner", "Blade Runner"},
		{"unlabelled", "m.0abc (no label in the KG)", "m.0abc (no label in the KG); relations: actor (1), performance in (1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := headText(tc.in, rels, []string{"g"}); got != tc.want {
				t.Errorf("headText = %q, want %q", got, tc.want)
			}
		})
	}
	if got := headText("x (no label in the KG)", nil, []string{"g"}); got != "x (no label in the KG)" {
		t.Errorf("without relations: %q", got)
	}
}
