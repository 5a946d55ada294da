package tot

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

const bladeRunner = "Who directed Blade Runner?"

// TestFilm runs the methods on the Freebase film sample, loaded once
// because loading takes seconds.
func TestFilm(t *testing.T) {
	if testing.Short() {
		t.Skip("loading the film sample takes seconds")
	}
	db := storetest.Film(t)
	t.Run("lexical policy", func(t *testing.T) { testLexical(t, db) })
	t.Run("trace contents", func(t *testing.T) { testTraceContents(t, db) })
}

// testLexical: with the deterministic lexical policy and no LLM, both
// methods answer "Who directed Blade Runner?" with Ridley Scott through
// the directed-by edge of the film graph.
func testLexical(t *testing.T, db store.KG) {
	for _, method := range []string{MethodToT, MethodChain} {
		reg := reasoner.NewRegistry()
		Register(reg)
		r, err := reg.New(method, reasoner.Deps{KG: db, Model: lexical.Policy{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := r.Answer(t.Context(), reasoner.Query{Question: bladeRunner})
		if err != nil {
			t.Fatal(err)
		}
		a := tr.Answer
		if !a.Found || a.Text != "Ridley Scott" || !a.Confident || !slices.Equal(a.Entities, []string{"/en/ridley_scott"}) {
			t.Fatalf("%s: answer = %+v\n%s", method, a, tracetest.Render(t, tr))
		}
		if len(a.Support) != 1 || a.Support[0].Relation != "/film/film/directed_by" || a.Support[0].Subject.ID != "/en/blade_runner" {
			t.Errorf("%s: support = %+v", method, a.Support)
		}
		if got := tr.ExpansionOrder(); !slices.Equal(got, []int{1, 2, 3, 4}) {
			t.Errorf("%s: expansion order %v", method, got)
		}
	}
}

// events collects observer events.
type events struct {
	mu      sync.Mutex
	nodes   []trace.Node
	latest  map[int]trace.Node
	updates int
	model   int
	kg      int
}

func (e *events) OnNode(n trace.Node) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nodes = append(e.nodes, n)
	e.latest[n.ID] = n
}

func (e *events) OnNodeUpdate(n trace.Node) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.latest[n.ID]; !ok {
		panic("update before creation")
	}
	e.updates++
	e.latest[n.ID] = n
}

func (e *events) OnModelCall(trace.ModelCall) { e.mu.Lock(); e.model++; e.mu.Unlock() }
func (e *events) OnKGCall(trace.KGCall)       { e.mu.Lock(); e.kg++; e.mu.Unlock() }

// testTraceContents checks what one scripted run records: every model
// call with its step, node and prompt; every KG call with its arguments;
// totals; the live events; the JSON form and the rendering.
func testTraceContents(t *testing.T, db store.KG) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskExtract, Replies: []string{"Blade Runner"}},
		{Name: TaskLink, Replies: []string{"/en/blade_runner"}},
		{Name: TaskAction, Replies: []string{
			"EXPAND_KG: find who Blade Runner was directed by", "THINK: Ridley Scott, I believe", "ANSWER: Harrison Ford",
			"ANSWER: Ridley Scott", "ANSWER: Ridley Scott", "ANSWER: Ridley Scott"}},
		{Name: TaskSelectEntities, Repeat: true, Replies: []string{"/en/blade_runner"}},
		{Name: TaskSelectRelation, Func: pickByGoal},
	}}
	// Nodes: 1 root; 2 EXPAND, 3 THINK, 4 ANSWER Harrison Ford; 5 select;
	// 6 directed by; 7 ANSWER Ridley Scott.
	eval := scores(0.6, map[int]float64{2: 0.9, 4: 0.1, 7: 1})
	obs := &events{latest: map[int]trace.Node{}}
	r, err := New(reasoner.Deps{KG: db, Model: policy, Evaluator: eval, Observer: obs}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(context.Background(), reasoner.Query{Question: bladeRunner, Graphs: []string{"film"}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Answer.Text != "Ridley Scott" || tr.Answer.Node != 7 {
		t.Fatalf("answer %+v\n%s", tr.Answer, tracetest.Render(t, tr))
	}
	checkModelCalls(t, tr)
	checkKGCalls(t, tr)
	checkTotals(t, tr)
	checkEvents(t, tr, obs)
	checkJSON(t, tr)
	out := tracetest.Render(t, tr)
	for _, want := range []string{
		"tot: Who directed Blade Runner?",
		"*   #2 [selecting-entities] EXPAND_KG: find who Blade Runner was directed by  value=0.90  expanded #2",
		"    #4 [done] ANSWER: Harrison Ford  value=0.10  (answer)",
		"*         #7 [done] ANSWER: Ridley Scott  value=1.00  (answer)",
		"answer: Ridley Scott (value 1.00 at #7; value above the threshold 0.80: yes)",
		"support: Blade Runner -> directed by -> Ridley Scott [film]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
}

func checkModelCalls(t *testing.T, tr *trace.Trace) {
	t.Helper()
	var steps []string
	for _, c := range tr.ModelCalls {
		steps = append(steps, c.Task)
	}
	// Evaluations of siblings complete in any order; compare as a sequence
	// of steps with the evaluations counted.
	want := []string{TaskExtract, TaskLink, TaskAction, TaskEvaluate, TaskEvaluate, TaskEvaluateAnswer,
		TaskSelectEntities, TaskEvaluate, TaskSelectRelation, TaskEvaluate, TaskAction, TaskEvaluateAnswer}
	if !slices.Equal(sortEvaluations(steps), sortEvaluations(want)) {
		t.Errorf("model call steps = %v", steps)
	}
	for _, c := range tr.ModelCalls {
		if len(c.Messages) != 2 || len(c.Outputs) != c.N || c.Model == "" || c.Start.IsZero() {
			t.Errorf("model call %d incomplete: %+v", c.Seq, c)
		}
		switch {
		case c.Task == TaskExtract || c.Task == TaskLink:
			if c.Node != 1 {
				t.Errorf("%s call tagged with node %d, want the root", c.Task, c.Node)
			}
		case c.Task == TaskSelectRelation:
			if c.Node != 5 || !strings.Contains(c.Messages[1].Content, "directed by (/film/film/directed_by, 1 edge)") {
				t.Errorf("relation call: node %d prompt:\n%s", c.Node, c.Messages[1].Content)
			}
		}
	}
}

// sortEvaluations sorts each run of evaluation steps so that concurrent
// completion order does not matter.
func sortEvaluations(steps []string) []string {
	out := slices.Clone(steps)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "tot/evaluate") {
			j++
		}
		slices.Sort(out[i:j])
		i = max(j, i+1)
	}
	return out
}

func checkKGCalls(t *testing.T, tr *trace.Trace) {
	t.Helper()
	find := func(op string) trace.KGCall {
		for _, c := range tr.KGCalls {
			if c.Op == op {
				return c
			}
		}
		t.Fatalf("no %s call in %+v", op, tr.KGCalls)
		return trace.KGCall{}
	}
	if c := find("search"); c.Args.Graph != "film" || c.Args.Text != "Blade Runner" || c.Args.Limit != 5 || c.Results == 0 || c.Node != 1 {
		t.Errorf("search call = %+v", c)
	}
	// Linking describes candidates by their relations (node 1); the
	// relation selection (node 5) lists the selected entity's relations.
	i := slices.IndexFunc(tr.KGCalls, func(c trace.KGCall) bool { return c.Op == "relations" && c.Node == 5 })
	if i < 0 {
		t.Fatalf("no relations call for node 5 in %+v", tr.KGCalls)
	}
	if c := tr.KGCalls[i]; !slices.Equal(c.Args.IDs, []string{"/en/blade_runner"}) || c.Args.Dir != "both" || c.Results < 3 {
		t.Errorf("relations call = %+v", c)
	}
	// Linking looks up the candidates' node types (properties are not
	// linked) in one edges call of node 1.
	if c := find("edges"); c.Args.Relation != store.GroveNodeType || c.Node != 1 {
		t.Errorf("first edges call = %+v, want the candidates' node types", c)
	}
	j := slices.IndexFunc(tr.KGCalls, func(c trace.KGCall) bool { return c.Op == "edges" && c.Args.Relation != store.GroveNodeType })
	if j < 0 {
		t.Fatalf("no edges call along a relation in %+v", tr.KGCalls)
	}
	if c := tr.KGCalls[j]; c.Args.Relation != "/film/film/directed_by" || c.Args.Dir != "out" || c.Args.Limit != hood.DefaultFetchCap ||
		c.Results != 1 || c.Node != 6 {
		t.Errorf("edges call = %+v", c)
	}
	for i, c := range tr.KGCalls {
		if c.Seq != i+1 || c.Error != "" {
			t.Errorf("kg call %d = %+v", i, c)
		}
	}
}

func checkTotals(t *testing.T, tr *trace.Trace) {
	t.Helper()
	tt := tr.Totals
	var prompt, samples int
	for _, c := range tr.ModelCalls {
		prompt += c.PromptTokens
		samples += c.N
	}
	if tt.ModelCalls != len(tr.ModelCalls) || tt.KGCalls != len(tr.KGCalls) || tt.Nodes != 7 || tt.Expansions != 4 ||
		tt.PromptTokens != prompt || tt.Samples != samples || tt.Tokens <= prompt || tt.WallTime <= 0 {
		t.Errorf("totals = %+v (prompt tokens %d, samples %d)", tt, prompt, samples)
	}
	if tr.Method != "tot" || tr.Params["k"] != 3 || tr.Params["tau"] != 0.8 {
		t.Errorf("method %q params %v", tr.Method, tr.Params)
	}
}

func checkEvents(t *testing.T, tr *trace.Trace, e *events) {
	t.Helper()
	if len(e.nodes) != len(tr.Nodes) || e.updates == 0 || e.model != len(tr.ModelCalls) || e.kg != len(tr.KGCalls) {
		t.Fatalf("events: %d nodes, %d updates, %d model, %d kg", len(e.nodes), e.updates, e.model, e.kg)
	}
	for i, n := range e.nodes {
		if n.ID != i+1 {
			t.Errorf("event %d announces node %d", i, n.ID)
		}
	}
	for _, n := range tr.Nodes {
		got := e.latest[n.ID]
		if got.Value != n.Value || got.Order != n.Order || got.Chosen != n.Chosen || got.Evaluated != n.Evaluated {
			t.Errorf("last event of node %d = %+v, trace has %+v", n.ID, got, n)
		}
	}
}

func checkJSON(t *testing.T, tr *trace.Trace) {
	t.Helper()
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back trace.Trace
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(&back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("JSON round trip changed the trace")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"method", "params", "question", "graphs", "started", "nodes", "model_calls", "kg_calls", "answer", "totals"} {
		if _, ok := top[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}
