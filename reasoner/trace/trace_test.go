package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// log is an Observer recording events as strings, checking that events
// never overlap.
type log struct {
	mu     sync.Mutex
	busy   bool
	events []string
}

func (l *log) add(s string) {
	l.mu.Lock()
	if l.busy {
		panic("concurrent observer calls")
	}
	l.busy = true
	l.events = append(l.events, s)
	l.busy = false
	l.mu.Unlock()
}

func (l *log) OnNode(n Node)           { l.add("node " + strconv.Itoa(n.ID)) }
func (l *log) OnNodeUpdate(n Node)     { l.add("update " + strconv.Itoa(n.ID)) }
func (l *log) OnModelCall(c ModelCall) { l.add("model " + c.Task) }
func (l *log) OnKGCall(c KGCall)       { l.add("kg " + c.Op) }

func TestRecorderTree(t *testing.T) {
	obs := &log{}
	r := NewRecorder(Meta{Method: "got", Question: "q?", Params: map[string]any{"k": 2}}, obs)
	root := r.AddNode(Node{State: "root"})
	a := r.AddNode(Node{Parents: []int{root}, Depth: 1, Text: "a"})
	b := r.AddNode(Node{Parents: []int{root}, Depth: 1, Text: "b"})
	merged := r.AddNode(Node{Parents: []int{a, b}, Depth: 2, Text: "a+b", Answer: true})
	other := r.AddNode(Node{Parents: []int{root}, Depth: 1, Text: "c"})
	if root != 1 || merged != 4 || other != 5 {
		t.Fatalf("ids %d %d %d", root, merged, other)
	}
	if err := r.UpdateNode(merged, func(n *Node) { n.Value, n.Evaluated, n.Order = 0.9, true, 2 }); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateNode(9, func(*Node) {}); err == nil {
		t.Error("update of an unknown node succeeded")
	}
	r.SetAnswer(Answer{Found: true, Text: "x", Node: merged})
	tr := r.Finish(nil)
	if !r.Flush(context.Background()) {
		t.Fatal("events not delivered")
	}
	var chosen []int
	for _, n := range tr.Nodes {
		if n.Chosen {
			chosen = append(chosen, n.ID)
		}
	}
	if !slices.Equal(chosen, []int{1, 2, 3, 4}) {
		t.Errorf("chosen = %v (a merge marks both parents)", chosen)
	}
	if got := tr.Children(root); !slices.Equal(got, []int{2, 3, 5}) {
		t.Errorf("children = %v", got)
	}
	want := []string{"node 1", "node 2", "node 3", "node 4", "node 5", "update 4", "update 4", "update 2", "update 3", "update 1"}
	if !slices.Equal(obs.events, want) {
		t.Errorf("events = %v\nwant %v", obs.events, want)
	}
	if tr.Totals.Nodes != 5 || tr.Totals.Expansions != 1 || tr.Totals.WallTime <= 0 {
		t.Errorf("totals = %+v", tr.Totals)
	}
}

// TestRecorderConcurrent records calls from many goroutines (run with
// -race) and checks the totals and sequence numbers.
func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder(Meta{Method: "m"}, Funcs{})
	model := r.WrapModel(&llm.Scripted{Default: llm.Reply("Score: 1")})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ctx := WithNode(context.Background(), i+1)
			id := r.AddNode(Node{Text: "n"})
			_, _ = model.Generate(ctx, llm.Request{N: 2, Task: llm.Task{Name: "step", Kind: llm.KindScore}, Prompt: "a b c"})
			r.RecordKGCall(ctx, KGCall{Op: "edges", Results: 3, Latency: time.Millisecond})
			_ = r.UpdateNode(id, func(n *Node) { n.Value = 1 })
			r.Warn(id, "warning %d", i)
		})
	}
	wg.Wait()
	tr := r.Finish(errors.New("stopped"))
	if len(tr.Nodes) != 20 || len(tr.ModelCalls) != 20 || len(tr.KGCalls) != 20 || len(tr.Warnings) != 20 {
		t.Fatalf("recorded %d nodes %d model %d kg %d warnings", len(tr.Nodes), len(tr.ModelCalls), len(tr.KGCalls), len(tr.Warnings))
	}
	tt := tr.Totals
	if tt.ModelCalls != 20 || tt.Samples != 40 || tt.PromptTokens != 60 || tt.CompletionTokens != 80 ||
		tt.Tokens != 140 || tt.KGCalls != 20 || tt.KGTime != 20*time.Millisecond || tr.Error != "stopped" {
		t.Errorf("totals = %+v, error %q", tt, tr.Error)
	}
	nodes := map[int]bool{}
	for i, c := range tr.ModelCalls {
		if c.Seq != i+1 || c.Task != "step" || c.Kind != "score" || c.N != 2 || len(c.Outputs) != 2 || c.Prompt != "a b c" {
			t.Errorf("model call %+v", c)
		}
		nodes[c.Node] = true
	}
	if len(nodes) != 20 || nodes[0] {
		t.Errorf("model calls tagged with nodes %v", nodes)
	}
}

func TestModelErrorRecorded(t *testing.T) {
	r := NewRecorder(Meta{}, nil)
	boom := errors.New("boom")
	m := r.WrapModel(&llm.Scripted{Rules: []llm.Rule{{Err: boom}}})
	if _, err := m.Generate(context.Background(), llm.Request{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	tr := r.Snapshot()
	if tr.Totals.ModelErrors != 1 || tr.Totals.Samples != 0 || !strings.Contains(tr.ModelCalls[0].Error, "boom") ||
		tr.ModelCalls[0].Outputs == nil {
		t.Errorf("trace = %+v", tr)
	}
}

// TestTracingKG checks that every KG method is recorded with its
// arguments and result count, and that results pass through unchanged.
func TestTracingKG(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .
<a> <knows> <b> .
<b> <http://www.w3.org/2000/01/rdf-schema#label> "Beta" .
<a> <age> "42" .
`})
	r := NewRecorder(Meta{}, nil)
	kg := r.WrapKG(db)
	ctx := WithNode(context.Background(), 7)
	_, _ = kg.Graphs(ctx)
	c, _ := kg.Search(ctx, "g", "alpha", 3)
	_, _ = kg.Entity(ctx, "a")
	_, err := kg.Entity(ctx, "zz")
	rels, _ := kg.Relations(ctx, []string{"a"}, store.Both)
	edges, _ := kg.Edges(ctx, []string{"a"}, "knows", store.Out, 5)
	_, _ = kg.Neighbors(ctx, "a", "", store.Both, 0)
	_, _ = kg.Degree(ctx, "a", "knows", store.Out)
	feats, _ := kg.Features(ctx, "a")
	_, _ = kg.SameAs(ctx, "a", "")
	if len(c) != 1 || !errors.Is(err, store.ErrNotFound) || len(edges) != 1 || len(rels) == 0 {
		t.Fatalf("results changed: %v %v %v %v", c, err, edges, rels)
	}
	tr := r.Finish(nil)
	want := []struct {
		op      string
		args    KGArgs
		results int
		err     bool
	}{
		{"graphs", KGArgs{}, 1, false},
		{"search", KGArgs{Graph: "g", Text: "alpha", Limit: 3}, 1, false},
		{"entity", KGArgs{ID: "a"}, 1, false},
		{"entity", KGArgs{ID: "zz"}, 0, true},
		{"relations", KGArgs{IDs: []string{"a"}, Dir: "both"}, len(rels), false},
		{"edges", KGArgs{IDs: []string{"a"}, Relation: "knows", Dir: "out", Limit: 5}, 1, false},
		{"neighbors", KGArgs{ID: "a", Dir: "both"}, 1, false},
		{"degree", KGArgs{ID: "a", Relation: "knows", Dir: "out"}, 1, false},
		{"features", KGArgs{ID: "a"}, len(feats), false},
		{"same_as", KGArgs{ID: "a"}, 0, false},
	}
	if len(tr.KGCalls) != len(want) {
		t.Fatalf("%d calls: %+v", len(tr.KGCalls), tr.KGCalls)
	}
	for i, w := range want {
		c := tr.KGCalls[i]
		if c.Op != w.op || c.Results != w.results || (c.Error != "") != w.err || c.Node != 7 || c.Seq != i+1 ||
			!sameArgs(c.Args, w.args) {
			t.Errorf("call %d = %+v, want %+v", i, c, w)
		}
	}
	if tr.Totals.KGErrors != 1 {
		t.Errorf("kg errors = %d", tr.Totals.KGErrors)
	}
}

func sameArgs(a, b KGArgs) bool {
	return a.Graph == b.Graph && a.Text == b.Text && a.ID == b.ID && slices.Equal(a.IDs, b.IDs) &&
		a.Relation == b.Relation && a.Dir == b.Dir && a.Limit == b.Limit
}

func sampleTrace() *Trace {
	r := NewRecorder(Meta{Method: "tot", Question: "Who directed\nBlade Runner?", Graphs: []string{"film"},
		Params: map[string]any{"k": 3, "tau": 0.8}}, nil)
	root := r.AddNode(Node{State: "default", Text: "initial local graph"})
	a := r.AddNode(Node{Parents: []int{root}, Depth: 1, State: "selecting-entities", Action: "EXPAND_KG"})
	b := r.AddNode(Node{Parents: []int{root}, Depth: 1, State: "done", Action: "ANSWER", Text: "Harrison Ford",
		Answer: true, Terminal: true})
	c := r.AddNode(Node{Parents: []int{a}, Depth: 2, State: "done", Action: "ANSWER", Text: "Ridley Scott",
		Answer: true, Terminal: true})
	d := r.AddNode(Node{Parents: []int{root}, Depth: 1, Action: "SELECT_RELATION", Terminal: true, Error: "added nothing"})
	_ = r.UpdateNode(root, func(n *Node) { n.Order = 1 })
	_ = r.UpdateNode(a, func(n *Node) { n.Order, n.Value, n.Evaluated = 2, 0.5, true })
	_ = r.UpdateNode(b, func(n *Node) { n.Value, n.Evaluated = 0.1, true })
	_ = r.UpdateNode(c, func(n *Node) { n.Value, n.Evaluated, n.Visits = 1, true, 3 })
	_ = d
	r.Warn(d, "following x added nothing")
	r.SetAnswer(Answer{Found: true, Text: "Ridley Scott", Value: 1, Confident: true, Node: c, Reason: "tau",
		Support: []store.Edge{{Subject: store.Entity{ID: "/en/blade_runner", Label: "Blade Runner"},
			RelationLabel: "directed by", Object: store.Entity{ID: "/en/ridley_scott", Label: "Ridley Scott"}, Graph: "film"}}})
	return r.Finish(nil)
}

func TestRender(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, sampleTrace()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"tot: Who directed Blade Runner?\nparams: k=3 tau=0.8\ngraphs: film\n",
		"* #1 [default] initial local graph  expanded #1\n",
		"*   #2 [selecting-entities] EXPAND_KG  value=0.50  expanded #2\n",
		"*     #4 [done] ANSWER: Ridley Scott  value=1.00  visits=3  (answer)\n",
		"    #3 [done] ANSWER: Harrison Ford  value=0.10  (answer)\n",
		"    #5 SELECT_RELATION  (terminal)  error: added nothing\n",
		"answer: Ridley Scott (value 1.00 at #4)\nstopped: tau\n",
		"  support: Blade Runner -> directed by -> Ridley Scott [film]\n",
		"warnings:\n  #5: following x added nothing\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	// Children are drawn under their parent: #4 after #2, before #3.
	if i2, i4, i3 := strings.Index(out, "#2 "), strings.Index(out, "#4 "), strings.Index(out, "#3 "); !(i2 < i4 && i4 < i3) {
		t.Errorf("tree order wrong:\n%s", out)
	}
}

// TestAnswerNote: the footer names the answer's node, its value only when
// that node was evaluated, and the method's check only when it has one.
func TestAnswerNote(t *testing.T) {
	var nodes []Node
	for id := 1; id <= 7; id++ {
		nodes = append(nodes, Node{ID: id})
	}
	nodes[6].Value, nodes[6].Evaluated = 0.9, true
	for _, tc := range []struct {
		name string
		a    Answer
		want string
	}{
		{"evaluated, checked", Answer{Found: true, Value: 0.91, Node: 7, Confident: true, Check: "value above the threshold 0.80"},
			" (value 0.91 at #7; value above the threshold 0.80: yes)"},
		{"not evaluated, no check", Answer{Found: true, Node: 3}, " (at #3)"},
		{"no node, check failed", Answer{Found: true, Check: "named on a path the stack kept"},
			" (named on a path the stack kept: no)"},
		{"checked, in doubt", Answer{Found: true, Value: 0.9, Node: 7, Check: "value above the threshold 0.80",
			Doubt: "the answer Q5 has no label in the KG"},
			" (value 0.90 at #7; value above the threshold 0.80: yes, but the answer Q5 has no label in the KG: not confident)"},
		{"nothing to say", Answer{Found: true}, ""},
		{"node not in the trace", Answer{Found: true, Value: 0.5, Node: 9}, " (at #9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := answerNote(&Trace{Nodes: nodes, Answer: tc.a}); got != tc.want {
				t.Errorf("answerNote = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderMergeAndNoAnswer(t *testing.T) {
	r := NewRecorder(Meta{Method: "got", Question: "q"}, nil)
	r.AddNode(Node{Text: "a"})
	r.AddNode(Node{Text: "b"})
	r.AddNode(Node{Parents: []int{1, 2}, Text: "a+b"})
	r.SetAnswer(Answer{Reason: "no answer: budget"})
	var b strings.Builder
	if err := Render(&b, r.Finish(nil)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    #3 a+b  (also child of #2)\n", "answer: none\nstopped: no answer: budget\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
}

// TestJSONNames pins the JSON field names other packages and the web UI
// rely on.
func TestJSONNames(t *testing.T) {
	data, err := json.Marshal(sampleTrace())
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, key := range []string{`"method":"tot"`, `"params":{"k":3,"tau":0.8}`, `"question":`, `"graphs":["film"]`,
		`"nodes":[{"id":1,`, `"parents":[1]`, `"depth":1`, `"state":"selecting-entities"`, `"action":"EXPAND_KG"`,
		`"value":0.5`, `"evaluated":true`, `"order":2`, `"visits":3`, `"terminal":true`, `"answer":true`, `"chosen":true`,
		`"error":"added nothing"`, `"model_calls":[]`, `"kg_calls":[]`, `"warnings":[{"node":5,"message":`,
		`"answer":{"found":true,"text":"Ridley Scott"`, `"confident":true`, `"support":[{"subject":`,
		`"totals":{"model_calls":0`, `"wall_time_ns":`} {
		if !strings.Contains(s, key) {
			t.Errorf("JSON lacks %s:\n%s", key, s)
		}
	}
	var back Trace
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	if !bytes.Equal(data, again) {
		t.Errorf("round trip differs:\n%s\n%s", data, again)
	}
}

func TestCloneIsDeep(t *testing.T) {
	tr := sampleTrace()
	c := tr.Clone()
	c.Nodes[1].Parents[0] = 99
	c.Params["k"] = 9
	c.Answer.Support[0].Graph = "x"
	if tr.Nodes[1].Parents[0] != 1 || tr.Params["k"] != 3 || tr.Answer.Support[0].Graph != "film" {
		t.Error("Clone shares memory with the original")
	}
}

func TestTee(t *testing.T) {
	a, b := &log{}, &log{}
	o := Tee(a, nil, b)
	o.OnNode(Node{ID: 1})
	o.OnKGCall(KGCall{Op: "edges"})
	o.OnModelCall(ModelCall{Task: "t"})
	o.OnNodeUpdate(Node{ID: 1})
	want := []string{"node 1", "kg edges", "model t", "update 1"}
	if !slices.Equal(a.events, want) || !slices.Equal(b.events, want) {
		t.Errorf("events %v %v", a.events, b.events)
	}
}

// blocking is an observer stuck in its first call until release closes;
// it then checks it can read the Recorder (no lock is held).
type blocking struct {
	rec     *Recorder
	release chan struct{}
	mu      sync.Mutex
	seen    int
	read    bool
	done    bool
}

func (b *blocking) event() {
	<-b.release
	_, ok := b.rec.Node(1)
	b.mu.Lock()
	b.seen++
	b.read = b.read || ok
	b.mu.Unlock()
}
func (b *blocking) OnNode(Node)           { b.event() }
func (b *blocking) OnNodeUpdate(Node)     { b.event() }
func (b *blocking) OnModelCall(ModelCall) { b.event() }
func (b *blocking) OnKGCall(KGCall)       { b.event() }
func (b *blocking) OnFinish()             { b.mu.Lock(); b.done = true; b.mu.Unlock() }

// TestBlockedObserverNeverBlocksRun records a whole run while the observer
// is stuck: every Recorder call returns, Flush gives up after its bound,
// and once released the observer gets every event in order, then OnFinish.
func TestBlockedObserverNeverBlocksRun(t *testing.T) {
	b := &blocking{release: make(chan struct{})}
	r := NewRecorder(Meta{Method: "m", Question: "q?"}, b)
	b.rec = r
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		id := r.AddNode(Node{State: "root"})
		for i := range 100 {
			_ = r.UpdateNode(id, func(n *Node) { n.Value = float64(i) })
			r.AddModelCall(ModelCall{Task: "t"})
			r.RecordKGCall(context.Background(), KGCall{Op: "edges"})
		}
		r.SetAnswer(Answer{Found: true, Node: id})
		r.Finish(nil)
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the run blocked on a stuck observer")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if r.Flush(ctx) {
		t.Fatal("Flush reported delivery while the observer is stuck")
	}
	close(b.release)
	if !r.Flush(context.Background()) {
		t.Fatal("events not delivered after release")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if want := 1 + 100*3 + 1; b.seen != want || !b.read || !b.done {
		t.Errorf("observer saw %d events (want %d), read=%v, finished=%v", b.seen, want, b.read, b.done)
	}
}

// TestServedModels: the names a model server reports in place of the
// configured one are listed once in the trace and its summary; the
// configured name is not; each call keeps its max tokens.
func TestServedModels(t *testing.T) {
	ok := func(llm.Request, int) (string, error) { return "ok", nil }
	asked := &llm.Scripted{Name: "qwen2.5:7b", Default: ok}
	served := &llm.Scripted{Name: "qwen2.5:7b", Served: "served-7b", Default: ok}
	r := NewRecorder(Meta{Method: "m", Model: llm.Describe(asked)}, nil)
	for _, m := range []llm.Model{served, asked, served} {
		if _, err := r.WrapModel(m).Generate(t.Context(), llm.Request{Prompt: "p", MaxTokens: 64}); err != nil {
			t.Fatal(err)
		}
	}
	tr := r.Finish(nil)
	if !slices.Equal(tr.ServedModels, []string{"served-7b"}) {
		t.Errorf("served models %q", tr.ServedModels)
	}
	if tr.ModelCalls[0].MaxTokens != 64 {
		t.Errorf("max tokens %d, want 64", tr.ModelCalls[0].MaxTokens)
	}
	var b strings.Builder
	if err := Render(&b, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "the model server answered as: served-7b\n") {
		t.Errorf("summary lacks the served model:\n%s", b.String())
	}
}

// cachedModel answers as if the response cache served every sample.
type cachedModel struct{ resp llm.Response }

func (m cachedModel) Generate(context.Context, llm.Request) (llm.Response, error) { return m.resp, nil }

// TestCachedUsageAndSources: the tokens cache hits cost when produced are
// totalled apart from the tokens spent, samples of unknown usage are
// counted, and origins other than the trace's model are named.
func TestCachedUsageAndSources(t *testing.T) {
	const here = "http://<host>:8000/v1"
	info := llm.Info{Name: "m", Provider: llm.ProviderOpenAI, Endpoint: here}
	mine := llm.CacheSource{Endpoint: here, Model: "m", Samples: 2}
	elsewhere := llm.CacheSource{Endpoint: "http://<host>:9000/v1", Model: "m", Samples: 1}
	unknown := llm.CacheSource{Model: "m", Samples: 1}
	calls := []llm.Response{
		{Texts: []string{"a", "b"}, CacheHits: 2, CachedUsage: llm.Usage{PromptTokens: 10, CompletionTokens: 4},
			CacheSources: []llm.CacheSource{mine}},
		{Texts: []string{"c", "d"}, CacheHits: 2, Usage: llm.Usage{PromptTokens: 1}, CacheUnknownUsage: 1,
			CachedUsage: llm.Usage{CompletionTokens: 3}, CacheSources: []llm.CacheSource{elsewhere, unknown}},
	}
	r := NewRecorder(Meta{Method: "m", Model: info}, nil)
	for _, c := range calls {
		if _, err := r.WrapModel(cachedModel{c}).Generate(t.Context(), llm.Request{Prompt: "p", N: 2}); err != nil {
			t.Fatal(err)
		}
	}
	tr := r.Finish(nil)
	tt := tr.Totals
	if tt.Tokens != 1 || tt.CachedPromptTokens != 10 || tt.CachedCompletionTokens != 7 || tt.CachedTokens != 17 ||
		tt.CacheUnknownUsage != 1 || tt.CacheHits != 4 {
		t.Errorf("totals %+v", tt)
	}
	if c := tr.ModelCalls[1]; c.CachedCompletionTokens != 3 || c.CacheUnknownUsage != 1 || len(c.CacheSources) != 2 {
		t.Errorf("call %+v", c)
	}
	if want := []llm.CacheSource{mine, elsewhere, unknown}; !slices.Equal(tr.CacheSources, want) {
		t.Errorf("sources %+v, want %+v", tr.CacheSources, want)
	}
	if want := []llm.CacheSource{elsewhere, unknown}; !slices.Equal(tr.ForeignCacheSources(), want) {
		t.Errorf("foreign sources %+v, want %+v", tr.ForeignCacheSources(), want)
	}
	var b strings.Builder
	if err := Render(&b, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 cache hits costing 17 tokens when produced, 1 of them of unknown usage)",
		`cache hits produced elsewhere than m (openai-compatible, http://<host>:8000/v1): 1 sample from "m" at http://<host>:9000/v1, 1 from "m" at an unknown server`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
}
