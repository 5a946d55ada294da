// Package trace is the one record format shared by every Grove reasoner.
//
// A Trace holds the search structure a method built (a tree for
// Tree-of-Traversals and ToT, a DAG for GoT, a tree with visit counts for
// RTSoG, a single chain for CoT), every model call and every KG call made
// while answering, the final answer with its supporting edges, and totals.
// All field names are stable JSON names; durations are nanoseconds in
// fields ending in "_ns".
//
// A Recorder builds a Trace while a method runs. It is safe for concurrent
// use, hands out node ids (1-based, so 0 means "no node"), and reports
// every change to an optional Observer as it happens, which is how the
// server streams a growing tree. Events are delivered in order from a
// goroutine of the Recorder's, never under its lock, so a slow observer
// never holds up the run (see Observer and Recorder.Flush). Model and KG calls are captured by
// wrappers rather than by the methods themselves: Recorder.WrapModel
// observes an llm.Model through the llm package's Recorder hook, and
// Recorder.WrapKG returns a TracingKG that records every store.KG call.
// A method tags calls with the node they serve by passing a context made
// with WithNode.
//
// Render prints a Trace as an indented text tree for the command line.
package trace

import (
	"maps"
	"slices"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// Trace is the record of one reasoning run.
type Trace struct {
	Method        string         `json:"method"`
	Params        map[string]any `json:"params,omitempty"`
	Question      string         `json:"question"`
	Graphs        []string       `json:"graphs,omitempty"`
	TopicEntities []string       `json:"topic_entities,omitempty"`
	Started       time.Time      `json:"started"`
	// Model names the model that answered (Evaluator the one that scored,
	// when it differs); Grove is the Grove version that ran.
	Model     llm.Info  `json:"model"`
	Evaluator *llm.Info `json:"evaluator,omitempty"`
	// ServedModels are the model names the model server reported in its
	// replies (ModelCalls[i].Model) where they differ from Model's and
	// Evaluator's configured names ("qwen2.5:7b" asked for, a server
	// alias answering): what actually produced the text.
	ServedModels []string `json:"served_models,omitempty"`
	// CacheSources say where the samples served from the response cache
	// came from (the server's redacted endpoint and the model name it
	// reported; no endpoint for entries of older Groves), summed over
	// ModelCalls.
	CacheSources []llm.CacheSource `json:"cache_sources,omitempty"`
	Grove        string            `json:"grove_version,omitempty"`
	// Nodes are in creation order; Nodes[i].ID == i+1.
	Nodes      []Node      `json:"nodes"`
	ModelCalls []ModelCall `json:"model_calls"`
	KGCalls    []KGCall    `json:"kg_calls"`
	Warnings   []Warning   `json:"warnings,omitempty"`
	Answer     Answer      `json:"answer"`
	Totals     Totals      `json:"totals"`
	// Error is set when the run failed; the rest is what was recorded
	// until then.
	Error string `json:"error,omitempty"`
}

// Node is one state of a method's search structure.
type Node struct {
	// ID is 1-based and unique within the trace.
	ID int `json:"id"`
	// Parents is empty for a root, one id for a tree edge, several for a
	// merge (Graph-of-Thoughts aggregation).
	Parents []int `json:"parents,omitempty"`
	Depth   int   `json:"depth"`
	// State is the method's state name (for Tree-of-Traversals the action
	// state machine state: default, selecting-entities, ...).
	State string `json:"state,omitempty"`
	// Action is the action that produced the node (THINK, EXPAND_KG, ...).
	Action string `json:"action,omitempty"`
	// Text is the action's argument: a thought, a selection, an answer.
	Text string `json:"text,omitempty"`
	// Value is the evaluator's score; meaningful only when Evaluated.
	Value     float64 `json:"value"`
	Evaluated bool    `json:"evaluated"`
	// Visits counts MCTS-style visits (RTSoG); 0 for other methods.
	Visits int `json:"visits,omitempty"`
	// Order is the 1-based position of the node in the order of
	// expansion; 0 means the node was never expanded.
	Order int `json:"order,omitempty"`
	// Terminal nodes are never expanded (answers, dead ends).
	Terminal bool `json:"terminal,omitempty"`
	// Answer marks nodes that propose an answer.
	Answer bool `json:"answer,omitempty"`
	// Chosen marks the final answer's node and its ancestors.
	Chosen bool `json:"chosen,omitempty"`
	// Error says why the node is invalid or could not be evaluated.
	Error string `json:"error,omitempty"`
	// Extra holds method-specific details (selected ids, relation, sizes).
	Extra map[string]string `json:"extra,omitempty"`
}

// ModelCall is one call to a language model.
type ModelCall struct {
	// Seq is the 1-based order in which calls completed.
	Seq int `json:"seq"`
	// Node is the node the call served, 0 when none (initialisation).
	Node             int           `json:"node,omitempty"`
	Task             string        `json:"task"`
	Kind             string        `json:"kind"`
	Messages         []llm.Message `json:"messages,omitempty"`
	Prompt           string        `json:"prompt,omitempty"`
	N                int           `json:"n"`
	Temperature      float64       `json:"temperature"`
	MaxTokens        int           `json:"max_tokens,omitempty"`
	Outputs          []string      `json:"outputs"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	CacheHits        int           `json:"cache_hits"`
	// CachedPromptTokens and CachedCompletionTokens are what the samples
	// served from the cache cost when they were produced (not spent by
	// this call: PromptTokens and CompletionTokens are); CacheUnknownUsage
	// counts the served samples whose usage the cache did not record.
	CachedPromptTokens     int               `json:"cached_prompt_tokens,omitempty"`
	CachedCompletionTokens int               `json:"cached_completion_tokens,omitempty"`
	CacheUnknownUsage      int               `json:"cache_unknown_usage,omitempty"`
	CacheSources           []llm.CacheSource `json:"cache_sources,omitempty"`
	Model                  string            `json:"model,omitempty"`
	Start                  time.Time         `json:"start"`
	Latency                time.Duration     `json:"latency_ns"`
	Error                  string            `json:"error,omitempty"`
}

// KGArgs are the arguments of a KG call; unused fields are empty.
type KGArgs struct {
	Graph    string   `json:"graph,omitempty"`
	Text     string   `json:"text,omitempty"`
	ID       string   `json:"id,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	Relation string   `json:"relation,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	Limit    int      `json:"limit,omitempty"`
}

// KGCall is one call to the knowledge graph.
type KGCall struct {
	Seq  int `json:"seq"`
	Node int `json:"node,omitempty"`
	// Op is the store.KG method in lower case: search, entity, relations,
	// edges, neighbors, degree, features, same_as, graphs.
	Op      string        `json:"op"`
	Args    KGArgs        `json:"args"`
	Results int           `json:"results"`
	Start   time.Time     `json:"start"`
	Latency time.Duration `json:"latency_ns"`
	Error   string        `json:"error,omitempty"`
}

// Warning records a recoverable problem (a malformed model reply, a
// failed evaluation, an expansion that added nothing).
type Warning struct {
	Node    int    `json:"node,omitempty"`
	Message string `json:"message"`
}

// Answer is the result of a run.
type Answer struct {
	// Found is false when the method gave up ("no answer").
	Found bool   `json:"found"`
	Text  string `json:"text"`
	// Entities are the ids of the local-graph entities the answer names.
	Entities []string `json:"entities,omitempty"`
	Value    float64  `json:"value"`
	// Confident is true when the answer passed the method's own check,
	// which Check names, and Grove found no Doubt about it.
	Confident bool `json:"confident"`
	// Check says in words what Confident tells ("value above the
	// threshold 0.80", "supported by the facts found"); empty for methods
	// that check nothing (Confident is then false).
	Check string `json:"check,omitempty"`
	// Doubt, set only on an answer that passed its Check, says why it is
	// not Confident all the same: the answer is an entity id with no
	// label, one outside the query's graphs, or one the reasoning never
	// saw (see reasoner.NameAnswer), or it was asked of the model after
	// the search's budget ran out (the graph-grounded methods).
	Doubt string `json:"doubt,omitempty"`
	// Node is the node holding the answer, 0 when none.
	Node int `json:"node,omitempty"`
	// Reason says why the search stopped.
	Reason string `json:"reason,omitempty"`
	// Support are the KG edges that back the answer.
	Support []store.Edge `json:"support,omitempty"`
	// Names name the support's nodes that have no label as the method's
	// text named them: a mediator (CVT) by its contents, "(actor: Harrison
	// Ford; character: Rick Deckard)", another node by its id followed by
	// "(no label in the KG)". Keyed by node id.
	Names map[string]string `json:"names,omitempty"`
}

// Totals summarise a run.
type Totals struct {
	ModelCalls       int `json:"model_calls"`
	ModelErrors      int `json:"model_errors"`
	Samples          int `json:"samples"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Tokens           int `json:"tokens"`
	CacheHits        int `json:"cache_hits"`
	// The Cached* counts are the tokens the samples served from the
	// response cache cost when they were produced (Tokens are those spent
	// by this run); CacheUnknownUsage counts the served samples whose usage
	// is unknown (cache entries of older Groves).
	CachedPromptTokens     int           `json:"cached_prompt_tokens"`
	CachedCompletionTokens int           `json:"cached_completion_tokens"`
	CachedTokens           int           `json:"cached_tokens"`
	CacheUnknownUsage      int           `json:"cache_unknown_usage,omitempty"`
	KGCalls                int           `json:"kg_calls"`
	KGErrors               int           `json:"kg_errors"`
	Nodes                  int           `json:"nodes"`
	Expansions             int           `json:"expansions"`
	ModelTime              time.Duration `json:"model_time_ns"`
	KGTime                 time.Duration `json:"kg_time_ns"`
	WallTime               time.Duration `json:"wall_time_ns"`
}

// Clone returns a deep copy of n.
func (n Node) Clone() Node {
	n.Parents = slices.Clone(n.Parents)
	n.Extra = maps.Clone(n.Extra)
	return n
}

// Clone returns a deep copy of c.
func (c ModelCall) Clone() ModelCall {
	c.Messages = slices.Clone(c.Messages)
	c.Outputs = slices.Clone(c.Outputs)
	c.CacheSources = slices.Clone(c.CacheSources)
	return c
}

// Clone returns a deep copy of c.
func (c KGCall) Clone() KGCall {
	c.Args.IDs = slices.Clone(c.Args.IDs)
	return c
}

// Clone returns a deep copy of t.
func (t *Trace) Clone() *Trace {
	if t == nil {
		return nil
	}
	c := *t
	c.Params = maps.Clone(t.Params)
	c.Graphs = slices.Clone(t.Graphs)
	c.TopicEntities = slices.Clone(t.TopicEntities)
	c.Nodes = make([]Node, len(t.Nodes))
	for i, n := range t.Nodes {
		c.Nodes[i] = n.Clone()
	}
	c.ModelCalls = make([]ModelCall, len(t.ModelCalls))
	for i, m := range t.ModelCalls {
		c.ModelCalls[i] = m.Clone()
	}
	c.KGCalls = make([]KGCall, len(t.KGCalls))
	for i, k := range t.KGCalls {
		c.KGCalls[i] = k.Clone()
	}
	c.Warnings = slices.Clone(t.Warnings)
	c.ServedModels = slices.Clone(t.ServedModels)
	c.CacheSources = slices.Clone(t.CacheSources)
	c.Answer.Entities = slices.Clone(t.Answer.Entities)
	c.Answer.Support = slices.Clone(t.Answer.Support)
	return &c
}

// Node returns the node with the given id.
func (t *Trace) Node(id int) (Node, bool) {
	if id < 1 || id > len(t.Nodes) {
		return Node{}, false
	}
	return t.Nodes[id-1], true
}

// Children returns the ids of the nodes that have id among their parents,
// in creation order.
func (t *Trace) Children(id int) []int {
	var out []int
	for _, n := range t.Nodes {
		if slices.Contains(n.Parents, id) {
			out = append(out, n.ID)
		}
	}
	return out
}

// ExpansionOrder returns the ids of the expanded nodes in the order they
// were expanded.
func (t *Trace) ExpansionOrder() []int {
	var exp []Node
	for _, n := range t.Nodes {
		if n.Order > 0 {
			exp = append(exp, n)
		}
	}
	slices.SortFunc(exp, func(a, b Node) int { return a.Order - b.Order })
	out := make([]int, len(exp))
	for i, n := range exp {
		out[i] = n.ID
	}
	return out
}
