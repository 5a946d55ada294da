package lexical

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

const (
	oneHop = "Who directed Blade Runner?"
	twoHop = "Which films did the director of Blade Runner direct?"
	// hop1 and hop2 are a reasoning path to the director and on to a film.
	hop1 = "Blade Runner -> directed by -> Ridley Scott"
	hop2 = hop1 + " -> directed -> Gladiator"
)

func TestParseEvidence(t *testing.T) {
	ev := taskEvidence(structured(llm.Task{Candidate: "Node: m.1", Context: strings.Join([]string{
		nodeLine("/en/blade_runner", "Blade Runner"),
		"- " + edgeTypeLine("directed by"),
		prevActionLine("RetrieveNode[Blade Runner]"),
		hop2,
		"Alien | directed by | Ridley Scott",
		"Harrison Ford starred.",
	}, "\n")}))
	wantEdges := []triple{{"Blade Runner", "directed by", "Ridley Scott"}, {"Ridley Scott", "directed", "Gladiator"},
		{"Alien", "directed by", "Ridley Scott"}}
	if !slices.Equal(ev.edges, wantEdges) {
		t.Errorf("edges %v", ev.edges)
	}
	if !slices.Equal(ev.nodes, []graphNode{{"m.1", ""}, {"/en/blade_runner", "Blade Runner"}}) {
		t.Errorf("nodes %v", ev.nodes)
	}
	if !slices.Equal(ev.edgeTypes, []string{"directed by"}) || !slices.Equal(ev.actions, []string{"RetrieveNode[Blade Runner]"}) {
		t.Errorf("edge types %v, actions %v", ev.edgeTypes, ev.actions)
	}
	for _, w := range []string{"gladiator", "alien", "ford"} {
		if _, ok := ev.terms[stem(w)]; !ok {
			t.Errorf("evidence terms lack %q: %v", w, ev.terms)
		}
	}
	if _, ok := ev.terms["node"]; ok {
		t.Error("labelled lines must not count as stated facts")
	}
}

func TestAnalyse(t *testing.T) {
	tests := []struct {
		q    string
		need map[string]int
	}{
		{oneHop, map[string]int{"direct": 1, "blade": 1, "runner": 1}},
		{twoHop, map[string]int{"direct": 2, "blade": 1, "runner": 1}},
		{"Which film directors directed Blade Runner?", map[string]int{"direct": 1, "blade": 1, "runner": 1}},
		{"What is the capital of France?", map[string]int{"capital": 1, "france": 1}},
		{"In which year was Alien released?", map[string]int{"alien": 1, "released": 1}},
	}
	for _, tt := range tests {
		q := analyse(tt.q)
		want := map[string]int{}
		for w, n := range tt.need {
			want[stem(w)] = n
		}
		if !maps.Equal(q.need, want) {
			t.Errorf("analyse(%q).need = %v, want %v", tt.q, q.need, want)
		}
	}
}

func TestAnswerChains(t *testing.T) {
	tests := []struct {
		name, q, ctx string
		want         string
		found        bool
	}{
		{"one hop", oneHop, hop1, "Ridley Scott", true},
		{"stored direction", oneHop, "Ridley Scott | directed | Blade Runner", "Ridley Scott", true},
		{"shortest of equal coverage", oneHop, hop2, "Ridley Scott", true},
		{"two hops beat one", twoHop, hop2, "Gladiator", true},
		{"stored-direction two hops", twoHop, hop1 + "\nGladiator -> directed by -> Ridley Scott", "Gladiator", true},
		{"list answer", twoHop, hop2 + "\nRidley Scott -> directed -> Alien\nAlien -> starring -> Sigourney Weaver",
			"Gladiator, Alien", true},
		{"precise anchor wins", oneHop, "Blade Runner 2049 -> directed by -> Denis Villeneuve\n" + hop1, "Ridley Scott", true},
		{"off-topic relation", oneHop, "Blade Runner -> starring -> Harrison Ford", "", false},
		{"both ends named", oneHop, "Blade Runner -> directed by -> Blade Runner (cut)", "", false},
		{"no anchor", oneHop, "Alien -> directed by -> Ridley Scott", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := answerCandidate(structured(llm.Task{Question: tt.q, Context: tt.ctx}))
			if got != tt.want || found != tt.found {
				t.Errorf("answer = %q, %v; want %q, %v", got, found, tt.want, tt.found)
			}
		})
	}
}

func TestLexicalYesNoChains(t *testing.T) {
	inu := "How many pages are contained in the book Inu Yasha, Volume 1?"
	tests := []struct {
		name, q, cand, ctx string
		want               bool
		reason             string
	}{
		{"one hop answers", oneHop, hop1, "", true, "covers the question"},
		{"one hop is half of two", twoHop, hop1, "", false, "leaves direct uncovered"},
		{"two hops answer", twoHop, hop2, "", true, hop2},
		{"kept path completes", twoHop, hop1, hop2, true, "Gladiator"},
		{"terms the evidence never states are not required", inu, "Inu Yasha, Volume 1 -> num pages -> 184", "", true, "184"},
		{"a stated term must be covered", inu, "Inu Yasha, Volume 1 -> num pages -> 184",
			"Inu Yasha, Volume 1 -> book -> X", false, "book"},
		{"no chain", oneHop, "Blade Runner -> starring -> Harrison Ford", "", false, "No edge leads"},
		{"prose keeps the share rule", twoHop, "Ridley Scott directed Blade Runner", "", true, "3 of 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yes, reason, err := llm.ParseYesNo(lexicalText(t, llm.Task{Kind: llm.KindYesNo, Question: tt.q, Candidate: tt.cand, Context: tt.ctx}))
			if err != nil || yes != tt.want || !strings.Contains(reason, tt.reason) {
				t.Errorf("yesno = %v, %q, %v; want %v with %q", yes, reason, err, tt.want, tt.reason)
			}
		})
	}
}

// graphCoTOpts are the options of the grounded agent's action task.
var graphCoTOpts = []llm.Option{{ID: "RetrieveNode", Text: "RetrieveNode[keyword]: finds nodes"},
	{ID: "NodeFeature"}, {ID: "NeighbourCheck"}, {ID: "NodeDegree"}, {ID: "Finish"}}

func TestLexicalGraphCoT(t *testing.T) {
	nodes := nodeLine("/en/blade_runner", "Blade Runner") + "\n" + nodeLine("/en/blade_runner_2", "Blade Runner: The Final Cut") +
		"\n" + nodeLine("/en/alien", "Alien")
	types := edgeTypeLine("starring") + "\n" + edgeTypeLine("directed by") + "\n" + edgeTypeLine("directed")
	retrieved := prevActionLine("RetrieveNode[Blade Runner]")
	checked := retrieved + "\n" + prevActionLine("NeighbourCheck[/en/blade_runner, directed by]")
	director := nodeLine("/en/ridley_scott", "Ridley Scott") + "\n" + hop1
	tests := []struct {
		name, q, ctx string
		opts         []llm.Option
		want         string
	}{
		{"retrieve first", oneHop, types, graphCoTOpts, "RetrieveNode[Blade Runner]"},
		{"retrieve each mention", "Did Ridley Scott direct Alien?", prevActionLine("retrievenode[ridley scott]"),
			graphCoTOpts, "RetrieveNode[Alien]"},
		{"then check the named node", oneHop, nodes + "\n" + types + "\n" + retrieved, graphCoTOpts,
			"NeighbourCheck[/en/blade_runner, directed by]"},
		{"next edge type after a check", oneHop, nodes + "\n" + types + "\n" + checked, graphCoTOpts,
			"NeighbourCheck[/en/blade_runner, directed]"},
		{"checked by name counts", oneHop, nodes + "\n" + types + "\n" + retrieved + "\n" +
			prevActionLine("NeighbourCheck[Blade Runner, Directed By]"), graphCoTOpts,
			"NeighbourCheck[/en/blade_runner, directed]"},
		{"finish when complete", oneHop, nodes + "\n" + types + "\n" + checked + "\n" + director, graphCoTOpts,
			"Finish[Ridley Scott]"},
		{"walk on from an incomplete chain", twoHop, nodes + "\n" + types + "\n" + checked + "\n" + director,
			graphCoTOpts, "NeighbourCheck[/en/ridley_scott, directed by]"},
		{"finish the list", twoHop, nodes + "\n" + types + "\n" + checked + "\n" + director +
			"\nGladiator -> directed by -> Ridley Scott\nAlien -> directed by -> Ridley Scott", graphCoTOpts,
			"Finish[Gladiator, Alien]"},
		{"unknown when nothing is left", "who is it?", "", graphCoTOpts, "Finish[unknown]"},
		{"partial answer when nothing is left", twoHop, director + "\n" +
			prevActionLine("NeighbourCheck[/en/ridley_scott, directed by]"),
			[]llm.Option{{ID: "NeighbourCheck"}, {ID: "Finish"}}, "Finish[Ridley Scott]"},
		{"a disambiguating id is no part of the name", "Who directed Psycho?",
			nodeLine("/en/psycho_1960", "Psycho (/en/psycho_1960)") + "\n" + nodeLine("/en/psycho", "Psycho (/en/psycho)") +
				"\n" + types + "\n" + prevActionLine("RetrieveNode[Psycho]"), graphCoTOpts,
			"NeighbourCheck[/en/psycho_1960, directed by]"},
		{"American spelling", oneHop, nodes + "\n" + types, []llm.Option{{ID: "NeighborCheck"}}, "NeighborCheck[/en/blade_runner, directed by]"},
		{"first option otherwise", oneHop, "", []llm.Option{{ID: "RetrieveNode"}, {ID: "NodeDegree"}}, "RetrieveNode[Blade Runner]"},
		{"nothing to do", "who is it?", "", []llm.Option{{ID: "NeighbourCheck"}, {ID: "NodeDegree"}}, "NeighbourCheck"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lexicalText(t, llm.Task{Kind: llm.KindAction, Question: tt.q, Context: tt.ctx, Options: tt.opts})
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLexicalAnswerList(t *testing.T) {
	got, err := llm.ParseAnswer(lexicalText(t, llm.Task{Kind: llm.KindAnswer, Question: twoHop,
		Context: hop2 + "\nRidley Scott -> directed -> Alien"}))
	if err != nil || got != "Gladiator, Alien" {
		t.Errorf("answer = %q, %v", got, err)
	}
}

func FuzzEvidence(f *testing.F) {
	for _, s := range []string{hop2, "Node: a | b\nEdge type: c\nPrevious action: X[a, b]", "(a, b, c)\na | b | c",
		"a -> -> b", "Node:", " -> -> -> -> "} {
		f.Add(s, twoHop)
	}
	f.Fuzz(func(t *testing.T, text, question string) {
		ev := taskEvidence(structured(llm.Task{Context: text}))
		for _, e := range ev.edges {
			if e.s == "" || e.p == "" || e.o == "" {
				t.Fatalf("empty edge part in %+v", e)
			}
		}
		a, _, ok := evidenceAnswer(question, ev)
		if ok && (len(a.ends) == 0 || a.best.cover <= 0) {
			t.Fatalf("answer without ends or coverage: %+v", a)
		}
		for _, kind := range []llm.Kind{llm.KindYesNo, llm.KindAction, llm.KindAnswer} {
			if _, err := lexicalReply(structured(llm.Task{Kind: kind, Question: question, Context: text, Options: graphCoTOpts})); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// benchContext is an exploration-sized context: the two-hop path plus
// n films, each with a director and two actors.
func benchContext(n int) string {
	var b strings.Builder
	b.WriteString(hop2 + "\n")
	for i := range n {
		fmt.Fprintf(&b, "Film %d -> directed by -> Director %d\n", i, i%7)
		fmt.Fprintf(&b, "Film %d -> starring -> Actor %d\nFilm %d -> starring -> Actor %d\n", i, i, i, i+1)
		fmt.Fprintf(&b, "Ridley Scott -> directed -> Film %d\n", i)
	}
	return b.String()
}

// BenchmarkLexicalYesNo compares the chain rule of KindYesNo with the
// term-share rule it replaced (still used for prose), on the same context.
func BenchmarkLexicalYesNo(b *testing.B) {
	for _, n := range []int{10, 100} {
		task := structured(llm.Task{Kind: llm.KindYesNo, Question: twoHop, Candidate: hop1, Context: benchContext(n)})
		b.Run(fmt.Sprintf("share-rule/%d-films", n), func(b *testing.B) {
			for b.Loop() {
				proseYesNo(task)
			}
		})
		b.Run(fmt.Sprintf("chains/%d-films", n), func(b *testing.B) {
			for b.Loop() {
				lexicalYesNo(task)
			}
		})
	}
}

// TestEvidenceIsStructured checks that the policy reads edges from
// Task.Facts only: the same edge written in Context is prose.
func TestEvidenceIsStructured(t *testing.T) {
	opts := []llm.Option{{ID: "EXPAND_KG"}, {ID: "ANSWER"}}
	fact := llm.Fact{Subject: "Blade Runner", Relation: "directed by", Object: "Ridley Scott"}
	cases := []struct {
		name string
		task llm.Task
		want string
	}{
		{"fact", llm.Task{Facts: []llm.Fact{fact}}, "ANSWER: Ridley Scott"},
		{"text only", llm.Task{Context: hop1}, "EXPAND_KG"},
		{"blank fact parts dropped", llm.Task{Facts: []llm.Fact{{Subject: "Blade Runner", Relation: " ", Object: "Ridley Scott"}}}, "EXPAND_KG"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.task.Kind, c.task.Question, c.task.Options = llm.KindAction, oneHop, opts
			resp, err := Policy{}.Generate(t.Context(), llm.Request{Task: c.task})
			if err != nil || resp.Texts[0] != c.want {
				t.Fatalf("got %q, %v; want %q", resp.Texts, err, c.want)
			}
		})
	}
}
