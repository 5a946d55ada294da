package grounded

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/storetest"
)

// exploreModel scripts an exploration; handlers override the defaults
// (keep nothing extra, never enough, always go on).
func exploreModel(h map[string]func(fcall) string) *fake {
	base := map[string]func(fcall) string{
		TaskExploreThought:  always("I should look at the graph."),
		TaskExtract:         always("none"),
		TaskPruneAttributes: always("none"),
		TaskPruneRelations:  always("none"),
		TaskPruneEntities:   always("none"),
		TaskEnd:             always("No"),
		TaskDecide:          always("THINK"),
		TaskAnswer:          always("Answer: unknown"),
	}
	for k, v := range h {
		base[k] = v
	}
	return newFake(base)
}

// relationCalls counts the KG relations calls per entity.
func relationCalls(f func() []string) map[string]int {
	out := map[string]int{}
	for _, op := range f() {
		if id, ok := strings.CutPrefix(op, "relations:"); ok {
			out[strings.TrimSuffix(id, "/")]++
		}
	}
	return out
}

func TestExploreAlgorithm1(t *testing.T) {
	db := goodreads(t)
	ends := 0
	m := exploreModel(map[string]func(fcall) string{
		TaskExploreThought:  always("I need the series of the book Demelza (Poldark, #2)."),
		TaskExtract:         always("Demelza (Poldark, #2)"),
		TaskPruneAttributes: always("title"),
		TaskPruneRelations:  always("Relevant: series"),
		TaskEnd: func(c fcall) string {
			if strings.Contains(c.Req.Task.Candidate, "Ross Poldark") {
				return "Yes, the series is known."
			}
			ends++
			return "No"
		},
		TaskDecide: always("ANSWER: The Poldark Saga"),
	})
	tr := answer(t, db, m, nil, DefaultConfig(Explore, CoT), reasoner.Query{Question: "Which series includes the book Demelza (Poldark, #2)?"})
	if !tr.Answer.Found || tr.Answer.Text != "The Poldark Saga" || !slices.Contains(tr.Answer.Entities, "series/146427") {
		t.Fatalf("answer = %+v\n%s", tr.Answer, tracetest.Warnings(tr))
	}
	steps := stepNodes(tr)
	if len(steps) != 1 {
		t.Fatalf("%d steps", len(steps))
	}
	s := steps[0]
	if s.Action != actionAnswer || s.Extra["depth"] != "2" || s.Extra["linked"] != "book/6186" || ends != 1 {
		t.Errorf("step = %+v; End? said No %d times", s, ends)
	}
	for _, want := range []string{"Demelza (Poldark, #2) -> series -> The Poldark Saga",
		"Ross Poldark (Poldark, #1) -> series -> The Poldark Saga", "Demelza (Poldark, #2) -> title -> Demelza (Poldark, #2)"} {
		if !strings.Contains(s.Extra["observation"], want) {
			t.Errorf("observation lacks %q: %s", want, s.Extra["observation"])
		}
	}
	if strings.Contains(s.Extra["observation"], "author") || strings.Contains(s.Extra["observation"], "num pages") {
		t.Errorf("pruned relations or attributes were kept: %s", s.Extra["observation"])
	}
	// Depth 1 prunes the book's 6 relations and 4 attributes; depth 2
	// explores the series, whose 2 relations and 1 attribute need no call.
	rel := m.calls(TaskPruneRelations)
	if len(rel) != 1 || len(rel[0].Req.Task.Options) != 6 || rel[0].Req.Task.Pick != 3 ||
		!strings.Contains(rel[0].Prompt(), "Head Entity: Demelza (Poldark, #2)") {
		t.Errorf("relation pruning calls = %+v", rel)
	}
	if a := m.calls(TaskPruneAttributes); len(a) != 1 || len(a[0].Req.Task.Options) != 4 {
		t.Errorf("attribute pruning calls = %d", len(a))
	}
	if rc := relationCalls(func() []string { return kgOps(tr, s.ID) }); rc["book/6186"] != 1 || rc["series/146427"] != 1 || len(rc) != 2 {
		t.Errorf("relations calls per entity = %v", rc)
	}
	if ex := m.calls(TaskExtract); len(ex) != 1 || ex[0].Req.Task.Question == "" || !strings.Contains(ex[0].Prompt(), "Which series") {
		t.Errorf("the first extraction does not read the question: %+v", ex)
	}
}

func TestExploreDepthAndVisited(t *testing.T) {
	db := goodreads(t)
	m := exploreModel(map[string]func(fcall) string{
		TaskExtract: func(c fcall) string {
			return map[bool]string{true: "Demelza", false: "Demelza\nnone"}[c.Req.Task.Question != ""]
		},
		TaskPruneRelations:  always("series"),
		TaskPruneAttributes: always("none"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.Steps, c.Depth = 2, 1 })
	tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Which series includes the book Demelza?"})
	steps := stepNodes(tr)
	if len(steps) != 2 || steps[0].Extra["depth"] != "1" || steps[1].Extra["depth"] != "1" {
		t.Fatalf("steps = %+v", steps)
	}
	first, second := relationCalls(func() []string { return kgOps(tr, steps[0].ID) }), relationCalls(func() []string { return kgOps(tr, steps[1].ID) })
	if first["book/6186"] != 1 || len(first) != 1 {
		t.Errorf("step 1 (depth 1) explored %v", first)
	}
	// Step 2 links Demelza again (already visited) and explores the tail
	// found at step 1.
	if second["book/6186"] != 0 || second["series/146427"] != 1 {
		t.Errorf("step 2 explored %v", second)
	}
	if steps[1].Extra["linked"] != "" {
		t.Errorf("an already seen entity was linked again: %q", steps[1].Extra["linked"])
	}
	if p := m.calls(TaskExploreThought)[1].Prompt(); !strings.Contains(p, "Knowledge Triples:\nDemelza (Poldark, #2) -> series -> The Poldark Saga") ||
		!strings.Contains(p, "Previous thoughts:\nI should look at the graph.") {
		t.Errorf("second thought prompt:\n%s", p)
	}
	if len(tracetest.Calls(tr, TaskEnd)) != 2 || tr.Answer.Found {
		t.Errorf("end checks %d, answer %+v", len(tracetest.Calls(tr, TaskEnd)), tr.Answer)
	}
}

func TestExploreEntityPruning(t *testing.T) {
	db := goodreads(t)
	m := exploreModel(map[string]func(fcall) string{
		TaskExtract: always("The Heartbreakers (The Heartbreakers Chronicles, #1)"),
		TaskPruneEntities: func(c fcall) string {
			// By number, by name, and a number not offered.
			i := slices.IndexFunc(c.Req.Task.Options, func(o llm.Option) bool { return o.Text == "Heartstrings Volume 4" })
			return c.Req.Task.Options[i].ID + ", Heartstrings Volume 5, 99"
		},
		TaskPruneRelations: always("similar books"),
		TaskEnd:            always("Yes"),
		TaskDecide:         always("ANSWER: 18"),
	})
	tr := answer(t, db, m, nil, DefaultConfig(Explore, CoT), reasoner.Query{Question: "How many books are similar to The Heartbreakers?"})
	pe := m.calls(TaskPruneEntities)
	if len(pe) != 1 || len(pe[0].Req.Task.Options) != 18 || pe[0].Req.Task.Context != "The Heartbreakers (The Heartbreakers Chronicles, #1) -> similar books" {
		t.Fatalf("entity pruning = %+v", pe)
	}
	obs := stepNodes(tr)[0].Extra["observation"]
	if strings.Count(obs, "-> similar books ->") != 2 || !strings.Contains(obs, "Heartstrings Volume 4") || !strings.Contains(obs, "Heartstrings Volume 5") {
		t.Errorf("kept similar books: %s", obs)
	}
	// 3 relations fit the width: no relation pruning call.
	if n := len(m.calls(TaskPruneRelations)); n != 0 {
		t.Errorf("%d relation pruning calls for 3 relations", n)
	}
	if tr.Answer.Text != "18" {
		t.Errorf("answer = %+v", tr.Answer)
	}
}

func TestExploreMalformedReplies(t *testing.T) {
	db := goodreads(t)
	m := exploreModel(map[string]func(fcall) string{
		TaskExtract:         always("Demelza"),
		TaskPruneRelations:  always("R99"),
		TaskPruneAttributes: always("title"),
		TaskEnd:             always("Perhaps"),
		TaskDecide:          always("ANSWER:"),
	})
	cfg := cfgWith(Explore, CoT, func(c *Config) { c.Steps = 1 })
	tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Which series includes the book Demelza?"})
	for _, want := range []string{"grounded/prune-relations for Demelza (Poldark, #2)", "end check: parse yes/no",
		"decision: ANSWER without an answer"} {
		if !strings.Contains(tracetest.Warnings(tr), want) {
			t.Errorf("warnings lack %q:\n%s", want, tracetest.Warnings(tr))
		}
	}
	s := stepNodes(tr)[0]
	if s.Action != actionExplore || s.Answer || s.Extra["triples"] != "0" || s.Extra["attributes"] != "1" {
		t.Errorf("step = %+v", s)
	}
}

// TestExplorePruningWarnsUnoffered: a pruning reply naming an option that
// was not offered keeps the offered ones and warns of the other.
func TestExplorePruningWarnsUnoffered(t *testing.T) {
	db := goodreads(t)
	for _, tc := range []struct{ reply, warning string }{
		{"Relevant: series, R99", "grounded/prune-relations for Demelza (Poldark, #2): the reply names R99, not offered: ignored"},
		{"Relevant: series", ""},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			m := exploreModel(map[string]func(fcall) string{
				TaskExtract:         always("Demelza (Poldark, #2)"),
				TaskPruneRelations:  always(tc.reply),
				TaskPruneAttributes: always("none"),
				TaskEnd:             always("Yes"),
				TaskDecide:          always("ANSWER: The Poldark Saga"),
			})
			cfg := cfgWith(Explore, CoT, func(c *Config) { c.Steps = 1 })
			tr := answer(t, db, m, nil, cfg, reasoner.Query{Question: "Which series includes the book Demelza (Poldark, #2)?"})
			if s := stepNodes(tr)[0]; !strings.Contains(s.Extra["observation"], "-> series ->") {
				t.Errorf("the offered relation was not kept: %s", s.Extra["observation"])
			}
			w := tracetest.Warnings(tr)
			if strings.Contains(w, "not offered") != (tc.warning != "") || !strings.Contains(w, tc.warning) {
				t.Errorf("warnings %s, want %q", w, tc.warning)
			}
		})
	}
}

func TestExploreLexicalGRBench(t *testing.T) {
	// GRBench goodreads qid 60 end to end with the lexical policy.
	db := goodreads(t)
	tr := answer(t, db, lexical.Policy{}, nil, DefaultConfig(Explore, CoT),
		reasoner.Query{Question: "How many pages are contained in the book Inu Yasha, Volume 1?"})
	if tr.Answer.Text != "184" || !tr.Answer.Found {
		t.Fatalf("answer = %+v\n%s", tr.Answer, tracetest.Warnings(tr))
	}
}

// TestExploreEndEveryDepth: Algorithm 1 asks End? at every depth, also
// after a depth that found nothing; only a check whose prompt this
// exploration already asked is skipped.
func TestExploreEndEveryDepth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		graph string
		ends  int
	}{
		// Alpha's 4 relations are pruned to none: depth 1 finds nothing,
		// and End? is still asked.
		{"nothing found at depth 1",
			`<a> <name> "Alpha" .` + "\n" + `<a> <r1> <x> .` + "\n" + `<a> <r2> <x> .` + "\n" + `<a> <r3> <x> .` + "\n" +
				`<a> <r4> <x> .` + "\n" + `<x> <name> "Xray" .` + "\n", 1},
		// Depth 1 finds Alpha -> r -> Beta; depth 2 explores Beta, whose
		// only edge is that one: the End? prompt is unchanged, so it is
		// not asked again.
		{"nothing new at depth 2", `<a> <name> "Alpha" .` + "\n" + `<a> <r> <b> .` + "\n" + `<b> <name> "Beta" .` + "\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, map[string]string{"g": tc.graph})
			m := exploreModel(map[string]func(fcall) string{TaskExtract: always("Alpha")})
			cfg := cfgWith(Explore, CoT, func(c *Config) { c.Steps = 1 })
			answer(t, db, m, nil, cfg, reasoner.Query{Question: "What is Alpha linked to?"})
			if n := len(m.calls(TaskEnd)); n != tc.ends {
				t.Errorf("%d End? checks, want %d", n, tc.ends)
			}
		})
	}
}
