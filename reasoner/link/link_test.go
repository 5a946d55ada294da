package link

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// films are two small graphs that both know Blade Runner.
var films = map[string]string{
	"a": `<a1> <name> "Blade Runner" .
<a2> <name> "Blade Runner 2049" .
<a3> <name> "Ridley Scott" .
<a1> <directed_by> <a3> .
<a2> <directed_by> <a4> .
<a4> <name> "Denis Villeneuve" .
`,
	"b": `<b1> <name> "Blade Runner" .
<b1> <year> "1982" .
`,
}

// warnings collects Warn calls; Link warns from several goroutines.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) warn(_ context.Context, format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, fmt.Sprintf(format, args...))
}

func (w *warnings) has(part string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.ContainsFunc(w.msgs, func(m string) bool { return strings.Contains(m, part) })
}

func linker(kg store.KG, m llm.Model, w *warnings, graphs ...string) Linker {
	return Linker{KG: kg, Model: m, Graphs: graphs, SearchLimit: 5, System: "sys", Warn: w.warn,
		Tasks: Tasks{Extract: "t/extract", Select: "t/link"}}
}

// ids renders linked entities as "id@graph".
func ids(ls []Linked) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Entity.ID + "@" + l.Graph
	}
	return out
}

func TestLookup(t *testing.T) {
	db := storetest.Open(t, films)
	tests := []struct {
		name    string
		graphs  []string
		given   []string
		want    []string
		warning string
	}{
		{"given", []string{"a"}, []string{"a3", "a1"}, []string{"a3@a", "a1@a"}, ""},
		{"each once", []string{"a"}, []string{"a1", "a1"}, []string{"a1@a"}, ""},
		{"unknown id", []string{"a"}, []string{"nope", "a1"}, []string{"a1@a"}, `topic entity "nope" is not in the store`},
		{"other graph", []string{"a"}, []string{"b1"}, []string{}, `topic entity "b1" is in none of the graphs [a]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &warnings{}
			got, err := linker(db, nil, w, tt.graphs...).Lookup(t.Context(), tt.given)
			if err != nil || !slices.Equal(ids(got), tt.want) {
				t.Fatalf("Lookup = %v, %v; want %v", ids(got), err, tt.want)
			}
			if tt.warning != "" && !w.has(tt.warning) {
				t.Errorf("warnings %q lack %q", w.msgs, tt.warning)
			}
			if tt.warning == "" && len(w.msgs) > 0 {
				t.Errorf("unexpected warnings %q", w.msgs)
			}
		})
	}
}

func TestQuestion(t *testing.T) {
	db := storetest.Open(t, films)
	const q = "Who directed Blade Runner?"
	pick := func(reply string) llm.ReplyFunc { return llm.Reply(reply) }
	tests := []struct {
		name    string
		graphs  []string
		extract string
		choose  llm.ReplyFunc
		want    []string
		warning string
	}{
		{"one graph", []string{"a"}, "Blade Runner", pick("a1"), []string{"a1@a"}, ""},
		{"one per graph", []string{"a", "b"}, "Blade Runner", pick("b1, a1, a2"), []string{"b1@b", "a1@a"}, ""},
		{"mentions in order, each entity once", []string{"a"}, "Ridley Scott\nBlade Runner\nScott",
			func(req llm.Request, _ int) (string, error) { return req.Task.Options[0].ID, nil }, []string{"a3@a", "a1@a"}, ""},
		{"none", []string{"a"}, "Blade Runner", pick("none"), []string{}, `mention "Blade Runner": the model matched no candidate`},
		{"malformed", []string{"a"}, "Blade Runner", pick("I cannot tell."), []string{}, `mention "Blade Runner": parse selection`},
		{"no candidate", []string{"b"}, "Zzyzx Qwerty", pick("b1"), []string{}, `mention "Zzyzx Qwerty": no candidate in [b]`},
		{"no mention", []string{"a"}, "none", pick("a1"), []string{}, "no entity mention extracted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{tt.extract}},
				{Name: "t/link", Func: tt.choose}}}
			w := &warnings{}
			got, err := linker(db, m, w, tt.graphs...).Question(t.Context(), q)
			if err != nil || !slices.Equal(ids(got), tt.want) {
				t.Fatalf("Question = %v, %v; want %v (warnings %q)", ids(got), err, tt.want, w.msgs)
			}
			if tt.warning != "" && !w.has(tt.warning) {
				t.Errorf("warnings %q lack %q", w.msgs, tt.warning)
			}
		})
	}
}

func TestSelectTask(t *testing.T) {
	db := storetest.Open(t, films)
	m := &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{"- Blade Runner"}},
		{Name: "t/link", Replies: []string{"a1"}}}}
	got, err := linker(db, m, &warnings{}, "a", "b").Question(t.Context(), "Who directed Blade Runner?")
	if err != nil || len(got) != 1 || got[0].Mention != "Blade Runner" {
		t.Fatalf("Question = %+v, %v", got, err)
	}
	ex, sel := m.CallsFor("t/extract"), m.CallsFor("t/link")
	if len(ex) != 1 || len(sel) != 1 {
		t.Fatalf("calls %d extract, %d link", len(ex), len(sel))
	}
	if tk := ex[0].Task; tk.Kind != llm.KindExtract || tk.Question != "Who directed Blade Runner?" || tk.Context != "" {
		t.Errorf("extract task %+v", tk)
	}
	if msgs := ex[0].Messages; len(msgs) != 2 || msgs[0].Content != "sys" || !strings.Contains(msgs[1].Content, "Question: Who directed") {
		t.Errorf("extract messages %+v", msgs)
	}
	tk := sel[0].Task
	var opts []string
	for _, o := range tk.Options {
		opts = append(opts, o.ID+"="+o.Text)
	}
	want := []string{"a1=Blade Runner [a]", "a2=Blade Runner 2049 [a]", "b1=Blade Runner [b]"}
	if tk.Kind != llm.KindSelect || tk.Pick != 2 || tk.Context != "Blade Runner" || !slices.Equal(opts, want) {
		t.Errorf("select task %+v, options %q", tk, opts)
	}
	// The prompt describes candidates without a description by their
	// relations.
	if p := sel[0].Messages[1].Content; !strings.Contains(p, "at most one per graph") || !strings.Contains(p, `"Blade Runner"`) ||
		!strings.Contains(p, "a1: Blade Runner - relations: directed by (1) [a]\n") {
		t.Errorf("select prompt %q", p)
	}
}

// TestSelectWarnsUnoffered: a selection naming an id no candidate has
// keeps the offered ones and warns of the others.
func TestSelectWarnsUnoffered(t *testing.T) {
	db := storetest.Open(t, films)
	for _, tc := range []struct{ reply, warning string }{
		{"a1, zz9", `mention "Blade Runner": the reply names zz9, not offered: ignored`},
		{"a1", ""},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			m := &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{"- Blade Runner"}},
				{Name: "t/link", Replies: []string{tc.reply}}}}
			w := &warnings{}
			got, err := linker(db, m, w, "a", "b").Question(t.Context(), "Who directed Blade Runner?")
			if err != nil || len(got) != 1 || got[0].Entity.ID != "a1" {
				t.Fatalf("Question = %+v, %v", got, err)
			}
			if warned := w.has("not offered"); warned != (tc.warning != "") || tc.warning != "" && !w.has(tc.warning) {
				t.Errorf("warnings %q, want %q", w.msgs, tc.warning)
			}
		})
	}
}

func TestLinkWithoutSelect(t *testing.T) {
	db := storetest.Open(t, films)
	m := &llm.Scripted{}
	l := linker(db, m, &warnings{}, "a", "b")
	l.Tasks.Select = ""
	got, err := l.LinkAll(t.Context(), "q", []string{"Blade Runner", "Ridley Scott"})
	if err != nil || !slices.Equal(ids(got), []string{"a1@a", "b1@b", "a3@a"}) {
		t.Fatalf("LinkAll = %v, %v", ids(got), err)
	}
	if m.CallCount() != 0 {
		t.Errorf("%d model calls, want none", m.CallCount())
	}
}

func TestExtractWithText(t *testing.T) {
	m := &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{"Alien\n\nnone", "x"}}}}
	l := linker(nil, m, &warnings{}, "a")
	l.ExtractPrompt = func(text string) string { return "TEXT<" + text + ">" }
	got, err := l.Extract(t.Context(), "Q?", "a thought")
	if err != nil || !slices.Equal(got, []string{"Alien"}) {
		t.Fatalf("Extract = %q, %v", got, err)
	}
	if _, err := l.Extract(t.Context(), "", "only a thought"); err != nil {
		t.Fatal(err)
	}
	calls := m.Calls()
	if p := calls[0].Messages[1].Content; p != "TEXT<Q?\na thought>" || calls[0].Task.Context != "a thought" {
		t.Errorf("first call %q %+v", p, calls[0].Task)
	}
	if p := calls[1].Messages[1].Content; p != "TEXT<only a thought>" || calls[1].Task.Question != "" {
		t.Errorf("second call %q %+v", p, calls[1].Task)
	}
}

// failingKG fails every search.
type failingKG struct {
	store.KG
	err error
}

func (f failingKG) Search(context.Context, string, string, int) ([]store.Candidate, error) {
	return nil, f.err
}

func TestErrors(t *testing.T) {
	db := storetest.Open(t, films)
	boom := errors.New("boom")
	tests := []struct {
		name string
		kg   store.KG
		m    *llm.Scripted
		want string
	}{
		{"extract call", db, &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Err: boom}}}, "t/extract"},
		{"select call", db, &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{"Blade Runner"}},
			{Name: "t/link", Err: boom}}}, `t/link "Blade Runner"`},
		{"search", failingKG{db, boom}, &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{"Blade Runner"}}}},
			`search "Blade Runner" in a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := linker(tt.kg, tt.m, &warnings{}, "a").Question(t.Context(), "Who directed Blade Runner?")
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q wrapping boom", err, tt.want)
			}
		})
	}
	if _, err := linker(failingKG{db, boom}, nil, nil, "a").Lookup(t.Context(), []string{"a1"}); err != nil {
		t.Errorf("Lookup does not search: %v", err)
	}
}

func TestBestPerGraph(t *testing.T) {
	c := func(id, graph string, literal bool) store.Candidate {
		return store.Candidate{Entity: store.Entity{ID: id, Literal: literal}, Graph: graph}
	}
	got := bestPerGraph([]store.Candidate{c("1982", "a", true), c("x", "a", false), c("y", "a", false), c("z", "b", false)})
	if len(got) != 2 || got[0].ID != "x" || got[1].ID != "z" {
		t.Errorf("bestPerGraph = %+v", got)
	}
}

func TestCandidateText(t *testing.T) {
	tests := []struct {
		c     store.Candidate
		multi bool
		want  string
	}{
		{store.Candidate{Entity: store.Entity{ID: "Q1", Label: "Blade\nRunner", Description: " 1982  film "}, Graph: "wd"}, false, "Blade Runner - 1982 film"},
		{store.Candidate{Entity: store.Entity{ID: "Q1"}, Graph: "wd"}, true, "Q1 [wd]"},
	}
	for _, tt := range tests {
		if got := CandidateText(tt.c, tt.multi); got != tt.want {
			t.Errorf("CandidateText = %q, want %q", got, tt.want)
		}
	}
}

func TestNamePart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Blade Runner (the 1982 film)", "Blade Runner"}, {"\"Blade Runner\" - the film", "Blade Runner"},
		{"Paris, France", "Paris"}, {"  Alien  ", "Alien"}, {"(x)", "(x)"}, {"", ""},
	} {
		if got := NamePart(tc.in); got != tc.want {
			t.Errorf("NamePart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLongMentionClipped: a runaway mention (a model's 1 MB reply taken as
// a mention) is clipped in warnings, as replies are in parse errors.
func TestLongMentionClipped(t *testing.T) {
	long := strings.Repeat("word ", 200000)
	for _, tc := range []struct {
		name string
		run  func(l Linker) error
	}{
		{"LinkAll", func(l Linker) error {
			_, err := l.LinkAll(t.Context(), "Who directed Blade Runner?", []string{long})
			return err
		}},
		{"Question", func(l Linker) error {
			_, err := l.Question(t.Context(), "Who directed Blade Runner?")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, films)
			m := &llm.Scripted{Rules: []llm.Rule{{Name: "t/extract", Replies: []string{long}}}}
			w := &warnings{}
			if err := tc.run(linker(db, m, w, "a", "b")); err != nil {
				t.Fatal(err)
			}
			if !w.has(`mention "word word`) || !w.has("no candidate in [a b]") {
				t.Fatalf("warnings %.300q", w.msgs)
			}
			for _, msg := range w.msgs {
				if len(msg) > 200 {
					t.Errorf("warning of %d bytes: %.120q…", len(msg), msg)
				}
			}
		})
	}
}

// TestRelationsText: an entity is described by its most frequent visible
// relations in words; a relation without a label is its id marked as
// such, never a bare id.
func TestRelationsText(t *testing.T) {
	rels := []store.Relation{
		{ID: "/film/film/starring", Label: "starring", Dir: store.Out, Count: 133, Graph: "g"},
		{ID: "P39", Label: "", Dir: store.Out, Count: 7, Graph: "g"},
		{ID: "/film/film/directed_by", Label: "directed by", InverseLabel: "", Dir: store.In, Count: 2, Graph: "g"},
		{ID: "hidden", Label: "hidden", Dir: store.Out, Count: 50, Graph: "g", Hidden: true},
		{ID: "other", Label: "other graph", Dir: store.Out, Count: 90, Graph: "h"},
	}
	got := RelationsText(rels, []string{"g"})
	want := "relations: starring (133), P39 (no label in the KG) (7), directed (2)"
	if got != want {
		t.Errorf("RelationsText = %q, want %q", got, want)
	}
}

// TestPropertiesNotLinked: a node typed as a property (P36 "capital") is a
// relation of the KG, not an entity to link; a node whose id only looks
// like a property's (typed otherwise, or not typed) still is linked.
func TestPropertiesNotLinked(t *testing.T) {
	db := storetest.Open(t, map[string]string{"wd": `<P36> <http://www.w3.org/2000/01/rdf-schema#label> "capital" .
<P36> <grove:nodeType> "property" .
<P1081> <http://www.w3.org/2000/01/rdf-schema#label> "Human Development Index" .
<Q145> <http://www.w3.org/2000/01/rdf-schema#label> "United Kingdom" .
<Q145> <P36> <Q84> .
<Q145> <P1081> "0.901" .
<Q84> <http://www.w3.org/2000/01/rdf-schema#label> "London" .
<Q5119> <http://www.w3.org/2000/01/rdf-schema#label> "capital city" .
<P7> <http://www.w3.org/2000/01/rdf-schema#label> "Capital in the Twenty-First Century" .
<P7> <grove:nodeType> "paper" .
`, "papers": `<P36> <http://www.w3.org/2000/01/rdf-schema#label> "capital" .
<P36> <grove:nodeType> "paper" .
`})
	for _, tc := range []struct {
		mention string
		want    []string
	}{
		{"capital", []string{"Q5119@wd", "P36@papers"}},
		{"Human Development Index", []string{"P1081@wd"}},
		{"Capital in the Twenty-First Century", []string{"P7@wd"}},
		{"United Kingdom", []string{"Q145@wd"}},
	} {
		t.Run(tc.mention, func(t *testing.T) {
			l := linker(db, &llm.Scripted{}, &warnings{}, "wd", "papers")
			l.Tasks.Select = ""
			got, err := l.Link(t.Context(), "q", tc.mention)
			if err != nil || !slices.Equal(ids(got), tc.want) {
				t.Errorf("Link(%q) = %v, %v; want %v", tc.mention, ids(got), err, tc.want)
			}
		})
	}
}
