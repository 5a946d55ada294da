package grounded

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/trace"
)

const qid40 = "Which series includes the book Demelza (Poldark, #2)?"

// branching scripts three first thoughts (by sample) and then follows
// the thought chain: A asks for the author (a detour), B finds the book
// then its series then answers, C guesses a wrong answer at once.
func branching(extra map[string]func(fcall) string) *fake {
	return agentModel(nil, nil, mergeHandlers(map[string]func(fcall) string{
		TaskAgentThought: func(c fcall) string {
			if c.Steps() == 0 {
				return []string{"A: I should check the author Winston Graham.", "B: I should find the book Demelza.",
					"C: I will guess the series."}[c.Sample%3]
			}
			prev := c.Thought()
			switch {
			case strings.HasPrefix(prev, "B:"):
				return "B2: Now the series of book/6186."
			case strings.HasPrefix(prev, "B2:"):
				return "B3: The series is The Poldark Saga."
			}
			return "A2: More about the author."
		},
		TaskAgentAction: byThought("RetrieveNode[Winston Graham]",
			"B:", "RetrieveNode[Demelza]", "B2:", "NeighbourCheck[book/6186, series]", "B3:", "Finish[The Poldark Saga]",
			"C:", "Finish[The Cornwall Chronicles]"),
	}, extra))
}

func mergeHandlers(a, b map[string]func(fcall) string) map[string]func(fcall) string {
	out := map[string]func(fcall) string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// voteFor votes for the option whose text contains key.
func voteFor(key string) func(fcall) string {
	return func(c fcall) string {
		for _, o := range c.Req.Task.Options {
			if strings.Contains(o.Text, key) {
				return "Choice " + o.ID + " finds the book first.\nBest: " + o.ID
			}
		}
		return "Best: 1"
	}
}

// scoreBy scores the first key the candidate contains.
func scoreBy(pairs ...any) func(fcall) string {
	return func(c fcall) string {
		for i := 0; i+1 < len(pairs); i += 2 {
			if strings.Contains(c.Req.Task.Candidate, pairs[i].(string)) {
				return fmt.Sprintf("Reasoning.\nScore: %v", pairs[i+1])
			}
		}
		return "Score: 0"
	}
}

func node(t *testing.T, tr *trace.Trace, id int) trace.Node {
	t.Helper()
	n, ok := tr.Node(id)
	if !ok {
		t.Fatalf("no node %d", id)
	}
	return n
}

func TestToTSelectKeepsTheRightBranch(t *testing.T) {
	db := goodreads(t)
	m := branching(nil)
	ev := newFake(map[string]func(fcall) string{TaskSelect: voteFor("find the book Demelza")})
	cfg := cfgWith(Agent, ToT, func(c *Config) { c.T = 1 })
	tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: qid40})
	if !tr.Answer.Found || tr.Answer.Text != "The Poldark Saga" {
		t.Fatalf("answer = %+v\n%s", tr.Answer, tracetest.Warnings(tr))
	}
	// Level 1: root #1 -> #2 A, #3 B, #4 C; the vote keeps B alone.
	votes := ev.calls(TaskSelect)
	if len(votes) != 3 || len(votes[0].Req.Task.Options) != 3 || votes[0].Req.N != 3 {
		t.Fatalf("votes = %d, options %d", len(votes), len(votes[0].Req.Task.Options))
	}
	if b := node(t, tr, 3); b.Value != 1 || b.Extra["votes"] != "3" || !b.Evaluated || b.Order == 0 {
		t.Errorf("branch B = %+v", b)
	}
	for _, id := range []int{2, 4} {
		if n := node(t, tr, id); n.Order != 0 || n.Value != 0 || n.Chosen {
			t.Errorf("pruned branch #%d = %+v", id, n)
		}
	}
	if c := node(t, tr, 4); !c.Answer || c.Text != "The Cornwall Chronicles" {
		t.Errorf("C = %+v", c)
	}
	// B's identical samples merge into one child per level: #5, #6.
	if len(tr.Nodes) != 6 || !slices.Equal(tr.Children(3), []int{5}) || !slices.Equal(tr.Children(5), []int{6}) {
		t.Fatalf("%d nodes; children of B %v", len(tr.Nodes), tr.Children(3))
	}
	for _, id := range []int{1, 3, 5, 6} {
		if !node(t, tr, id).Chosen {
			t.Errorf("#%d not on the chosen path", id)
		}
	}
	if tr.Answer.Node != 6 || !strings.Contains(tr.Answer.Reason, "after step 3") {
		t.Errorf("answer node %d, reason %q", tr.Answer.Node, tr.Answer.Reason)
	}
}

func TestToTScore(t *testing.T) {
	db := goodreads(t)
	m := branching(nil)
	// C (a wrong answer) ranks second and is carried to level 2 with its
	// value; B's final answer outranks it there.
	ev := newFake(map[string]func(fcall) string{TaskScore: scoreBy("Finish[The Poldark Saga]", 1.0,
		"find the book", 0.9, "Cornwall", 0.6, "author", 0.1)})
	cfg := cfgWith(Agent, ToT, func(c *Config) { c.Evaluator, c.T = Score, 2 })
	tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: qid40})
	if tr.Answer.Text != "The Poldark Saga" || tr.Answer.Value != 1 {
		t.Fatalf("answer = %+v", tr.Answer)
	}
	scored := map[int]int{}
	for _, c := range ev.calls(TaskScore) {
		scored[c.Node]++
	}
	if scored[4] != 1 {
		t.Errorf("the carried answer was scored %d times: %v", scored[4], scored)
	}
	if n := node(t, tr, 2); n.Order != 0 {
		t.Errorf("A (score 0.1, rank 3 of t=2) was expanded")
	}
	if b, c := node(t, tr, 3), node(t, tr, 4); b.Value != 0.9 || c.Value != 0.6 || b.Order == 0 {
		t.Errorf("B = %+v, C = %+v", b, c)
	}
}

func TestToTStopsOnAnswerOnlyWhenRankedFirst(t *testing.T) {
	db := goodreads(t)
	m := branching(nil)
	ev := newFake(map[string]func(fcall) string{TaskSelect: voteFor("guess")})
	tr := answer(t, db, m, ev, DefaultConfig(Agent, ToT), reasoner.Query{Question: qid40})
	if tr.Answer.Text != "The Cornwall Chronicles" || tr.Answer.Node != 4 || len(tracetest.Calls(tr, TaskAgentThought)) != 1 {
		t.Fatalf("the vote chose the answer C first, yet: %+v", tr.Answer)
	}
}

func TestGoTMergesTwoChains(t *testing.T) {
	db := goodreads(t)
	m := agentModel(nil, nil, map[string]func(fcall) string{
		TaskAgentThought: func(c fcall) string {
			if c.Steps() == 0 {
				return []string{"A: find the book Demelza.", "B: find the series The Poldark Saga."}[c.Sample%2]
			}
			return "Z: " + c.Thought() + " again."
		},
		TaskAgentAction: byThought("RetrieveNode[Poldark]", "A:", "RetrieveNode[Demelza]", "B:", "RetrieveNode[The Poldark Saga]",
			"M:", "Finish[The Poldark Saga]"),
		TaskMerge: always("Thought: M: the book found in chain 1 belongs to the series found in chain 2."),
	})
	ev := newFake(map[string]func(fcall) string{TaskSelect: voteFor("M:")})
	cfg := cfgWith(Agent, GoT, func(c *Config) { c.K, c.T, c.Steps = 2, 2, 2 })
	tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: qid40})
	var merge trace.Node
	for _, n := range tr.Nodes {
		if len(n.Parents) == 2 {
			merge = n
		}
	}
	if merge.ID == 0 || merge.Action != actionMerge || !slices.Equal(merge.Parents, []int{2, 3}) {
		t.Fatalf("no merge of #2 and #3: %+v", tr.Nodes)
	}
	if merge.Extra["action"] != "Finish[The Poldark Saga]" || !merge.Answer || tr.Answer.Node != merge.ID {
		t.Errorf("merge node = %+v, answer %+v", merge, tr.Answer)
	}
	// Both parents are on the chosen path.
	if !node(t, tr, 2).Chosen || !node(t, tr, 3).Chosen {
		t.Error("a merged chain is not marked chosen")
	}
	mp := m.calls(TaskMerge)
	if len(mp) != 1 || mp[0].Node != 2 {
		t.Fatalf("merge calls = %+v", mp)
	}
	for _, want := range []string{"Chain 1:\nThought 1: A: find the book Demelza.", "Chain 2:\nThought 1: B: find the series",
		"Merged Chain:\nThought 1: A: find the book Demelza.", "Thought 2: B: find the series The Poldark Saga."} {
		if !strings.Contains(mp[0].Prompt(), want) {
			t.Errorf("merge prompt lacks %q:\n%s", want, mp[0].Prompt())
		}
	}
	// The merged chain's action prompt sees both chains' knowledge.
	act := byThoughtCall(m.calls(TaskAgentAction), "M:")
	if !strings.Contains(act.Prompt(), `Nodes matching "Demelza"`) || !strings.Contains(act.Prompt(), `Nodes matching "The Poldark Saga"`) {
		t.Errorf("merged action prompt:\n%s", act.Prompt())
	}
	if merge.Extra["attributes"] != "0" || merge.Depth != 2 {
		t.Errorf("merge = %+v", merge)
	}
}

func byThoughtCall(cs []fcall, prefix string) fcall {
	for _, c := range cs {
		if strings.HasPrefix(c.Thought(), prefix) {
			return c
		}
	}
	return fcall{}
}

// barrier releases its callers once n have arrived.
type barrier struct {
	mu      sync.Mutex
	n, seen int
	open    chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

// wait reports whether all n callers arrived (false after a long wait:
// the calls were not concurrent).
func (b *barrier) wait() bool {
	b.mu.Lock()
	b.seen++
	if b.seen == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

func TestLevelCallsRunConcurrently(t *testing.T) {
	db := goodreads(t)
	actions, scores := newBarrier(3), newBarrier(3)
	m := branching(map[string]func(fcall) string{
		TaskAgentAction: func(c fcall) string {
			if c.Steps() == 0 && !actions.wait() {
				return "Finish[not concurrent]"
			}
			return byThought("Finish[The Poldark Saga]", "C:", "Finish[The Cornwall Chronicles]")(c)
		},
	})
	ev := newFake(map[string]func(fcall) string{TaskScore: func(c fcall) string {
		if !scores.wait() {
			return "Score: 0"
		}
		return scoreBy("Poldark Saga", 0.9, "Cornwall", 0.5)(c)
	}})
	cfg := cfgWith(Agent, ToT, func(c *Config) { c.Evaluator = Score })
	tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: qid40})
	if tr.Answer.Text != "The Poldark Saga" || tr.Answer.Value != 0.9 {
		t.Fatalf("answer = %+v (a level's action or score calls did not run concurrently)", tr.Answer)
	}
}

func TestLexicalStrategies(t *testing.T) {
	db := goodreads(t)
	for _, s := range []Strategy{CoT, ToT, GoT} {
		for _, e := range []Evaluator{Score, Select} {
			cfg := cfgWith(Explore, s, func(c *Config) { c.Evaluator = e })
			tr := answer(t, db, lexical.Policy{}, nil, cfg, reasoner.Query{Question: "How many pages are contained in the book Inu Yasha, Volume 1?"})
			if tr.Answer.Text != "184" {
				t.Errorf("%s/%s: answer %+v", cfg.Method(), e, tr.Answer)
			}
		}
	}
}

func TestMalformedEvaluations(t *testing.T) {
	db := goodreads(t)
	t.Run("votes", func(t *testing.T) {
		ev := newFake(map[string]func(fcall) string{TaskSelect: always("They all look fine.")})
		cfg := cfgWith(Agent, ToT, func(c *Config) { c.T, c.Steps = 1, 2 })
		tr := answer(t, db, branching(nil), ev, cfg, reasoner.Query{Question: qid40})
		if !strings.Contains(tracetest.Warnings(tr), "vote 3: parse vote") || node(t, tr, 2).Order == 0 || node(t, tr, 3).Order != 0 {
			t.Errorf("unreadable votes must keep the level's order:\n%s", tracetest.Warnings(tr))
		}
		if n := node(t, tr, 2); n.Evaluated {
			t.Errorf("a state without a valid vote is rated: %+v", n)
		}
	})
	t.Run("scores", func(t *testing.T) {
		ev := newFake(map[string]func(fcall) string{TaskScore: func(c fcall) string {
			if strings.Contains(c.Req.Task.Candidate, "find the book") {
				return "Score: high"
			}
			return "Score: 0.3"
		}})
		cfg := cfgWith(Agent, ToT, func(c *Config) { c.Evaluator, c.T, c.Steps = Score, 1, 1 })
		tr := answer(t, db, branching(nil), ev, cfg, reasoner.Query{Question: qid40})
		b := node(t, tr, 3)
		if b.Evaluated || b.Value != 0 || !strings.Contains(b.Error, "evaluation failed: parse score") {
			t.Errorf("B = %+v", b)
		}
		if a := node(t, tr, 2); !a.Evaluated || a.Value != 0.3 {
			t.Errorf("A = %+v", a)
		}
	})
}

// TestSelectChoosesEveryKeptState: the Select evaluator keeps the t states
// the model chooses, not the first vote's winner plus the next states in
// generation order: five first thoughts, the model prefers the "pick"
// ones, the latest first.
func TestSelectChoosesEveryKeptState(t *testing.T) {
	db := goodreads(t)
	for _, tc := range []struct {
		name string
		t    int
		// kept are the level-1 nodes (2..6 for samples 0..4) expanded at
		// level 2.
		kept  []int
		votes int
	}{
		{"t = 3 of 5", 3, []int{4, 5, 6}, 3},
		{"t = 2 of 5", 2, []int{5, 6}, 2},
		{"t = 1 of 5", 1, []int{6}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := agentModel(nil, nil, map[string]func(fcall) string{
				TaskAgentThought: func(c fcall) string {
					if c.Steps() > 0 {
						return "I go on."
					}
					if c.Sample >= 2 {
						return fmt.Sprintf("pick idea %d.", c.Sample)
					}
					return fmt.Sprintf("plain idea %d.", c.Sample)
				},
				TaskAgentAction: always("RetrieveNode[Demelza]"),
			})
			var mu sync.Mutex
			level1 := 0
			ev := newFake(map[string]func(fcall) string{TaskSelect: func(c fcall) string {
				if c.Node == 1 && c.Sample == 0 {
					mu.Lock()
					level1++
					mu.Unlock()
				}
				best := "1"
				for _, o := range c.Req.Task.Options {
					if strings.Contains(o.Text, "pick") {
						best = o.ID
					}
				}
				return "Best: " + best
			}})
			cfg := cfgWith(Agent, ToT, func(c *Config) { c.K, c.T, c.Steps = 5, tc.t, 2 })
			tr := answer(t, db, m, ev, cfg, reasoner.Query{Question: qid40})
			var kept []int
			for id := 2; id <= 6; id++ {
				if node(t, tr, id).Order != 0 {
					kept = append(kept, id)
				}
			}
			if !slices.Equal(kept, tc.kept) {
				t.Errorf("level 1 kept %v, want %v", kept, tc.kept)
			}
			if level1 != tc.votes {
				t.Errorf("%d vote requests at level 1, want %d", level1, tc.votes)
			}
		})
	}
}
