package grounded

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

func TestParseThought(t *testing.T) {
	tests := []struct{ in, want string }{
		{"I need the film.", "I need the film."},
		{"Thought 3: I need the film.", "I need the film."},
		{"**Next Thought:** find the series", "find the series"},
		{"Thought 1: first line\ncontinues here\nAction 1: RetrieveNode[x]", "first line continues here"},
		{"\n\nThought: a\nObservation 1: b", "a"},
		{"Thought 2:\nthe thought on the next line\nThought 3: another", "the thought on the next line"},
		{"Action 1: RetrieveNode[x]", "Action 1: RetrieveNode[x]"},
		{"   ", ""},
		// A reply of any length is clipped to its sentences within
		// maxThought runes, else to its words.
		{"Thought 1: " + strings.Repeat("the film ", 100000), strings.TrimSpace(strings.Repeat("the film ", 66)) + "…"},
		{"I need the director. " + strings.Repeat("Then more words ", 60), "I need the director. " +
			strings.TrimSpace(strings.Repeat("Then more words ", 36)) + "…"},
		{strings.Repeat("One sentence. ", 30) + strings.Repeat("x", 800), strings.TrimSpace(strings.Repeat("One sentence. ", 30)) + "…"},
	}
	for _, tc := range tests {
		if got := parseThought(tc.in); got != tc.want {
			t.Errorf("parseThought(%q) = %q, want %q", literal.Clip(tc.in, 100), got, tc.want)
		}
	}
}

func TestDedupe(t *testing.T) {
	got := dedupe([]string{"A thought", "", "a  THOUGHT", "Another"})
	if !slices.Equal(got, []string{"A thought", "Another"}) {
		t.Errorf("dedupe = %q", got)
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"Similar_Books": "similar books", " num-pages ": "num pages", "author (inverse)": "author (inverse)"} {
		if got := normName(in); got != want {
			t.Errorf("normName(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]string{"/film/film/directed_by": "directed_by", "http://schema.org/name": "name",
		"wdt:P31": "P31", "plain": "plain", "x/": "x"} {
		if got := lastSegment(in); got != want {
			t.Errorf("lastSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMerged(t *testing.T) {
	ent := func(id, label string) store.Entity { return store.Entity{ID: id, Label: label} }
	root := &state{sub: subgraph.New()}
	shared := root.child("shared step")
	shared.last().observation = "seen"
	shared.sub.AddEntity(ent("b/1", "Book"), "g")
	shared.see("b/1")
	a, b := shared.child("chain a"), shared.child("chain b")
	a.sub.AddEdge(store.Edge{Subject: ent("b/1", "Book"), Relation: "series", Object: ent("s/1", "Saga"), Graph: "g"}, store.Out, "")
	a.seen[0].visited = true
	a.see("s/1")
	a.addAttribute(attribute{"Book", "pages", "10"})
	b.sub.AddEdge(store.Edge{Subject: ent("b/1", "Book"), Relation: "author", Object: ent("a/1", "Ann"), Graph: "g"}, store.Out, "")
	b.addAttribute(attribute{"Book", "pages", "10"})
	b.addAttribute(attribute{"Book", "year", "1946"})
	b.see("a/1")
	m := merged(a, b)
	if got := m.thoughts(); !slices.Equal(got, []string{"shared step", "chain a", "chain b"}) {
		t.Errorf("merged chain = %q", got)
	}
	if m.sub.NumEdges() != 2 || len(m.attrs) != 2 || len(m.seen) != 3 || !m.seen[0].visited || m.depth != 3 ||
		len(m.parents) != 2 || !m.merge {
		t.Errorf("merged = %+v, edges %d", m, m.sub.NumEdges())
	}
	if a.sub.NumEdges() != 1 || len(a.attrs) != 1 || len(a.seen) != 2 {
		t.Error("merging changed a parent")
	}
	if shared.sub.NumEdges() != 0 || len(shared.seen) != 1 || shared.seen[0].visited {
		t.Error("a child changed its parent")
	}
}

// FuzzParseThought checks that a parsed thought is one trimmed line, never
// longer than the reply.
func FuzzParseThought(f *testing.F) {
	for _, s := range []string{"Thought 1: a\nAction 1: b", "**Next Thought:** x", "\n\n", "Thought:\n\nAnswer: y", "Thought 12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got := parseThought(reply)
		if got != flat(got) {
			t.Fatalf("parseThought(%q) = %q: not one trimmed line", reply, got)
		}
		if len(got) > len(reply) {
			t.Fatalf("parseThought(%q) = %q: longer than the reply", reply, got)
		}
	})
}

func TestFactsTextCaps(t *testing.T) {
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("e%d -> r -> v", i+1)
		}
		return out
	}
	const how = ", those sharing the most words with the question, then the latest):\n"
	for _, tc := range []struct {
		name     string
		n, max   int
		question string
		// want are the listed lines, in order.
		want []string
		head string
		tail string
	}{
		{"none", 0, 3, "", nil, "", ""},
		{"all fit", 3, 3, "", []string{"e1 -> r -> v", "e2 -> r -> v", "e3 -> r -> v"}, "Knowledge triples:\n", ""},
		{"the latest", 4, 3, "", []string{"e2 -> r -> v", "e3 -> r -> v", "e4 -> r -> v"},
			"Knowledge triples (3 of 4" + how, "… and 1 more triples and attributes\n"},
		{"the question's first", 1263, 2, "What is e7?", []string{"e7 -> r -> v", "e1263 -> r -> v"},
			"Knowledge triples (2 of 1,263" + how, "… and 1,261 more triples and attributes\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := factsText(lines(tc.n), tc.max, tc.question)
			if tc.n == 0 {
				if got != "" {
					t.Errorf("no lines: %q", got)
				}
				return
			}
			want := tc.head + strings.Join(tc.want, "\n") + "\n" + tc.tail
			if got != want {
				t.Errorf("factsText = %q, want %q", got, want)
			}
		})
	}
}

// TestModelTextClipped: model text a chain keeps (a thought, an action's
// argument, an answer) is clipped to maxThought runes before it goes back
// into later prompts or the answer.
func TestModelTextClipped(t *testing.T) {
	long := strings.Repeat("word ", 2000)
	piece := strings.Repeat("word ", 200)
	db := goodreads(t)
	for _, tc := range []struct {
		name  string
		cfg   Config
		model *fake
		// prompts are the calls whose prompts must not carry the long text.
		prompts string
	}{
		{"agent thought and action argument", DefaultConfig(Agent, CoT),
			agentModel([]string{long}, []string{"RetrieveNode[" + long + "]", "Finish[" + long + "]"}, nil),
			TaskAgentThought},
		{"exploration thought and answer", cfgWith(Explore, CoT, func(c *Config) { c.Steps = 2 }),
			exploreModel(map[string]func(fcall) string{TaskExploreThought: always(long),
				TaskDecide: thenAnswer("ANSWER: " + long)}),
			TaskExploreThought},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := answer(t, db, tc.model, nil, tc.cfg, reasoner.Query{Question: "Which series includes the book Demelza?"})
			calls := tc.model.calls(tc.prompts)
			if len(calls) < 2 {
				t.Fatalf("%d %s calls", len(calls), tc.prompts)
			}
			if p := calls[1].Prompt(); strings.Contains(p, piece) {
				t.Errorf("the second %s prompt (%d chars) carries the long text", tc.prompts, len(p))
			}
			if n := utf8.RuneCountInString(tr.Answer.Text); n > maxThought {
				t.Errorf("answer of %d runes", n)
			}
		})
	}
}

// thenAnswer replies THINK to the first decision of a chain (a CoT run
// decides one step at a time) and answer to the others.
func thenAnswer(answer string) func(fcall) string {
	var mu sync.Mutex
	n := 0
	return func(fcall) string {
		mu.Lock()
		defer mu.Unlock()
		if n++; n == 1 {
			return "THINK"
		}
		return answer
	}
}

// TestMergedKeepsStarts: an entity one merged chain linked (a start, see
// subgraph.Graph.MarkStart) stays a start in the merged state, so the
// answer's name resolves to the entity reached from it first.
func TestMergedKeepsStarts(t *testing.T) {
	play := store.Entity{ID: "m.0yrltsn", Label: "The Illusion"}
	production := store.Entity{ID: "m.0yrlqjm", Label: "The Illusion"}
	root := &state{sub: subgraph.New()}
	a, b := root.child("chain a"), root.child("chain b")
	b.sub.AddEntity(production, "fb")
	b.sub.MarkStart(production.ID, subgraph.StartTopic)
	b.sub.AddEntity(play, "fb")
	b.sub.MarkStart(play.ID, subgraph.StartLinked)
	b.sub.AddEdge(store.Edge{Subject: play, Relation: "theater.play.productions", Object: production, Graph: "fb"}, store.Out, "")
	m := merged(a, b)
	if got, want := m.sub.Resolve("The Illusion"), []string{play.ID, production.ID}; !slices.Equal(got, want) {
		t.Errorf("merged Resolve = %v, want %v", got, want)
	}
}
