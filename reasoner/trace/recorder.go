package trace

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// Meta describes a run: the method, its effective parameters and the query.
type Meta struct {
	Method        string
	Params        map[string]any
	Question      string
	Graphs        []string
	TopicEntities []string
	// Model and Evaluator describe the models (llm.Describe); Evaluator is
	// recorded only when it differs from Model.
	Model, Evaluator llm.Info
	// Grove is the Grove version.
	Grove string
}

// Recorder builds a Trace concurrently-safely and reports each change to
// its Observer. It implements llm.Recorder (model calls) and KGRecorder
// (KG calls).
//
// Events are queued under the Recorder's lock (so they keep the order in
// which changes were applied) and delivered by a goroutine of the
// Recorder's outside any lock: an observer can never block a run or
// deadlock by calling back. Finish ends the stream; Flush waits (boundedly)
// for its delivery.
type Recorder struct {
	mu    sync.Mutex
	t     Trace
	out   *dispatcher
	start time.Time
}

var _ llm.Recorder = (*Recorder)(nil)

// NewRecorder starts a trace for meta. obs may be nil.
func NewRecorder(meta Meta, obs Observer) *Recorder {
	now := time.Now()
	r := &Recorder{start: now}
	if obs != nil {
		r.out = newDispatcher(obs)
	}
	r.t = Trace{
		Method:        meta.Method,
		Params:        cloneParams(meta.Params),
		Question:      meta.Question,
		Graphs:        slices.Clone(meta.Graphs),
		TopicEntities: slices.Clone(meta.TopicEntities),
		Started:       now,
		Model:         meta.Model,
		Grove:         meta.Grove,
		Nodes:         []Node{},
		ModelCalls:    []ModelCall{},
		KGCalls:       []KGCall{},
	}
	if meta.Evaluator.Name != "" && !meta.Evaluator.Same(meta.Model) {
		ev := meta.Evaluator
		r.t.Evaluator = &ev
	}
	return r
}

func cloneParams(p map[string]any) map[string]any {
	if p == nil {
		return nil
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// SetGraphs records the graphs the run uses (once resolved).
func (r *Recorder) SetGraphs(graphs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.Graphs = slices.Clone(graphs)
}

// AddNode adds n (its ID is ignored), assigns the next id, reports it to
// the observer and returns the id.
func (r *Recorder) AddNode(n Node) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = n.Clone()
	n.ID = len(r.t.Nodes) + 1
	r.t.Nodes = append(r.t.Nodes, n)
	ev := n.Clone()
	r.emit(func(o Observer) { o.OnNode(ev) })
	return n.ID
}

// UpdateNode applies f to the node with the given id and reports the
// result. It returns an error for an unknown id; f must not change ID.
func (r *Recorder) UpdateNode(id int, f func(*Node)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id < 1 || id > len(r.t.Nodes) {
		return fmt.Errorf("trace: update of unknown node %d (have %d)", id, len(r.t.Nodes))
	}
	n := &r.t.Nodes[id-1]
	f(n)
	n.ID = id
	c := n.Clone()
	r.emit(func(o Observer) { o.OnNodeUpdate(c) })
	return nil
}

// Node returns a copy of the node with the given id.
func (r *Recorder) Node(id int) (Node, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.t.Node(id)
	return n.Clone(), ok
}

// Warn records a warning about node (0 for none).
func (r *Recorder) Warn(node int, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.Warnings = append(r.t.Warnings, Warning{Node: node, Message: fmt.Sprintf(format, args...)})
}

// Record implements llm.Recorder: it adds one model call, tagged with the
// node carried by ctx (see WithNode).
func (r *Recorder) Record(ctx context.Context, c llm.Call) {
	mc := ModelCall{
		Node:                   NodeFrom(ctx),
		Task:                   c.Request.Task.Name,
		Kind:                   string(c.Request.Task.Kind),
		Messages:               slices.Clone(c.Request.Messages),
		Prompt:                 c.Request.Prompt,
		N:                      max(1, c.Request.N),
		Temperature:            c.Request.Temperature,
		MaxTokens:              c.Request.MaxTokens,
		Outputs:                slices.Clone(c.Response.Texts),
		PromptTokens:           c.Response.Usage.PromptTokens,
		CompletionTokens:       c.Response.Usage.CompletionTokens,
		CacheHits:              c.Response.CacheHits,
		CachedPromptTokens:     c.Response.CachedUsage.PromptTokens,
		CachedCompletionTokens: c.Response.CachedUsage.CompletionTokens,
		CacheUnknownUsage:      c.Response.CacheUnknownUsage,
		CacheSources:           slices.Clone(c.Response.CacheSources),
		Model:                  c.Response.Model,
		Start:                  c.Start,
		Latency:                c.Latency,
	}
	if mc.Outputs == nil {
		mc.Outputs = []string{}
	}
	if c.Err != nil {
		mc.Error = c.Err.Error()
	}
	r.AddModelCall(mc)
}

// AddModelCall records a model call built by the caller (Seq is assigned).
func (r *Recorder) AddModelCall(mc ModelCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mc = mc.Clone()
	mc.Seq = len(r.t.ModelCalls) + 1
	r.t.ModelCalls = append(r.t.ModelCalls, mc)
	tt := &r.t.Totals
	tt.ModelCalls++
	if mc.Error != "" {
		tt.ModelErrors++
	} else {
		tt.Samples += mc.N
	}
	tt.PromptTokens += mc.PromptTokens
	tt.CompletionTokens += mc.CompletionTokens
	tt.Tokens = tt.PromptTokens + tt.CompletionTokens
	tt.CacheHits += mc.CacheHits
	tt.CachedPromptTokens += mc.CachedPromptTokens
	tt.CachedCompletionTokens += mc.CachedCompletionTokens
	tt.CachedTokens = tt.CachedPromptTokens + tt.CachedCompletionTokens
	tt.CacheUnknownUsage += mc.CacheUnknownUsage
	tt.ModelTime += mc.Latency
	ev := mc.Clone()
	r.emit(func(o Observer) { o.OnModelCall(ev) })
}

// RecordKGCall implements KGRecorder: it adds one KG call, tagged with the
// node carried by ctx when c.Node is 0.
func (r *Recorder) RecordKGCall(ctx context.Context, c KGCall) {
	if c.Node == 0 {
		c.Node = NodeFrom(ctx)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c = c.Clone()
	c.Seq = len(r.t.KGCalls) + 1
	r.t.KGCalls = append(r.t.KGCalls, c)
	r.t.Totals.KGCalls++
	if c.Error != "" {
		r.t.Totals.KGErrors++
	}
	r.t.Totals.KGTime += c.Latency
	ev := c.Clone()
	r.emit(func(o Observer) { o.OnKGCall(ev) })
}

// WrapModel returns m wrapped so that every call is recorded here.
func (r *Recorder) WrapModel(m llm.Model) llm.Model {
	return llm.Observe(m, r)
}

// WrapKG returns kg wrapped so that every call is recorded here.
func (r *Recorder) WrapKG(kg store.KG) store.KG {
	return NewTracingKG(kg, r)
}

// SetAnswer records the final answer.
func (r *Recorder) SetAnswer(a Answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a.Entities = slices.Clone(a.Entities)
	a.Support = slices.Clone(a.Support)
	r.t.Answer = a
}

// Snapshot returns a copy of the trace as recorded so far.
func (r *Recorder) Snapshot() *Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.t.Clone()
	r.fillTotals(t)
	return t
}

// Finish marks the chosen path (the answer's node and all its ancestors),
// computes the totals and the wall time, records err (if any) and returns a
// copy of the trace. Chosen nodes are reported to the observer.
func (r *Recorder) Finish(err error) *Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.t.Error = err.Error()
	}
	r.markChosen()
	if r.out != nil {
		r.out.close()
	}
	r.t.Totals.WallTime = time.Since(r.start)
	t := r.t.Clone()
	r.fillTotals(t)
	return t
}

// markChosen flags the answer node and its ancestors through all parents.
func (r *Recorder) markChosen() {
	if r.t.Answer.Node < 1 || r.t.Answer.Node > len(r.t.Nodes) {
		return
	}
	queue := []int{r.t.Answer.Node}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		n := &r.t.Nodes[id-1]
		if n.Chosen {
			continue
		}
		n.Chosen = true
		c := n.Clone()
		r.emit(func(o Observer) { o.OnNodeUpdate(c) })
		for _, p := range n.Parents {
			if p >= 1 && p <= len(r.t.Nodes) {
				queue = append(queue, p)
			}
		}
	}
}

// emit queues an event for the observer (r.mu held, so events keep the
// order of the changes they report). The event must own its values.
func (r *Recorder) emit(ev func(Observer)) {
	if r.out != nil {
		r.out.push(ev)
	}
}

// fillTotals sets the node counts of t.
func (r *Recorder) fillTotals(t *Trace) {
	t.Totals.Nodes = len(t.Nodes)
	t.Totals.Expansions = 0
	for _, n := range t.Nodes {
		if n.Order > 0 {
			t.Totals.Expansions++
		}
	}
	if t.Totals.WallTime == 0 {
		t.Totals.WallTime = time.Since(r.start)
	}
	t.ServedModels = servedModels(t)
	t.CacheSources = CacheSources(t.ModelCalls)
}

// CacheSources sums the origins of the samples the calls were served from
// the response cache.
func CacheSources(calls []ModelCall) []llm.CacheSource {
	var out []llm.CacheSource
	for _, c := range calls {
		for _, s := range c.CacheSources {
			out = llm.AddCacheSources(out, s)
		}
	}
	return out
}

// ForeignCacheSources returns the origins of t's samples served from the
// cache that are not t's model (or evaluator) at its endpoint: another
// server, a model name the server reported in place of the configured
// one, or an origin the cache did not record.
func (t *Trace) ForeignCacheSources() []llm.CacheSource {
	var out []llm.CacheSource
	for _, s := range t.CacheSources {
		if s.From(t.Model) || (t.Evaluator != nil && s.From(*t.Evaluator)) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// servedModels lists the distinct model names replies reported that are
// not the configured names of t's model and evaluator.
func servedModels(t *Trace) []string {
	var out []string
	for _, c := range t.ModelCalls {
		m := c.Model
		if m == "" || m == t.Model.Name || (t.Evaluator != nil && m == t.Evaluator.Name) || slices.Contains(out, m) {
			continue
		}
		out = append(out, m)
	}
	return out
}

type nodeKey struct{}

// WithNode returns a context that tags the model and KG calls made with it
// as serving node id.
func WithNode(ctx context.Context, id int) context.Context {
	return context.WithValue(ctx, nodeKey{}, id)
}

// NodeFrom returns the node id carried by ctx, 0 when none.
func NodeFrom(ctx context.Context) int {
	id, _ := ctx.Value(nodeKey{}).(int)
	return id
}
