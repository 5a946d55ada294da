package grounded

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// interaction grounds thoughts in the KG: the agent or the exploration.
type interaction interface {
	// name is the trace state of its steps.
	name() string
	// setup prepares the root state with the query's topic entities.
	setup(ctx context.Context, root *state, topics []link.Linked)
	// thoughts samples n next thoughts for s.
	thoughts(ctx context.Context, s *state, n int) ([]string, error)
	// ground carries out the last thought of c and records what the KG
	// returned in c.
	ground(ctx context.Context, c *state) error
}

// run is the state of one Answer call.
type run struct {
	*reasoner.Session
	cfg   Config
	inter interaction
	// definition is the graph definition shown in prompts; edgeTypes its
	// edge type names.
	definition string
	edgeTypes  []string
	expansions int
}

// answer builds the root (graph definitions and topic entities) and runs
// the search.
func (r *run) answer(ctx context.Context, topicIDs []string, cache *schemaCache) (trace.Answer, error) {
	root := &state{sub: subgraph.New(), extra: map[string]string{}}
	root.id = r.Rec.AddNode(trace.Node{State: "root", Text: r.Question})
	rctx := trace.WithNode(ctx, root.id)
	if err := r.ResolveGraphs(rctx); err != nil {
		return trace.Answer{}, err
	}
	if err := r.defineGraphs(rctx, cache); err != nil {
		return trace.Answer{}, err
	}
	topics, err := r.linker().Lookup(rctx, topicIDs)
	if err != nil {
		return trace.Answer{}, err
	}
	r.inter.setup(rctx, root, topics)
	_ = r.Rec.UpdateNode(root.id, func(n *trace.Node) {
		n.Extra = map[string]string{"graph_definition": r.definition, "topic_entities": strconv.Itoa(len(topics))}
	})
	return r.search(ctx, root)
}

// defineGraphs derives (or takes from the cache) each graph's definition.
func (r *run) defineGraphs(ctx context.Context, cache *schemaCache) error {
	infos, err := r.KG.Graphs(ctx)
	if err != nil {
		return fmt.Errorf("list graphs: %w", err)
	}
	var parts []string
	for _, g := range r.Graphs {
		i := slices.IndexFunc(infos, func(gi store.GraphInfo) bool { return gi.Name == g })
		if i < 0 {
			return fmt.Errorf("graph %q: %w", g, store.ErrNotFound)
		}
		def, cached, err := cache.definition(ctx, r.KG, infos[i], r.cfg.SchemaNodes)
		if err != nil {
			return fmt.Errorf("graph definition: %w", err)
		}
		r.Log.Debug("grounded: graph definition", "graph", g, "cached", cached)
		parts = append(parts, strings.TrimSpace(def.text))
		for _, e := range def.edgeTypes {
			if !slices.Contains(r.edgeTypes, e) {
				r.edgeTypes = append(r.edgeTypes, e)
			}
		}
	}
	r.definition = strings.Join(parts, "\n")
	return nil
}

// linker links entities for the exploration (the best search candidate
// per graph, as the paper does) and looks up topic entities.
func (r *run) linker() link.Linker {
	return link.Linker{KG: r.KG, Model: r.Model, Graphs: r.Graphs, SearchLimit: r.cfg.SearchLimit,
		Temperature: r.cfg.EvalTemperature, System: systemPrompt, ExtractPrompt: extractPrompt, Warn: r.Warn,
		Tasks: link.Tasks{Extract: TaskExtract}}
}

// graphOf returns the first of e's graphs the query uses.
func (r *run) graphOf(e store.Entity) string {
	for _, g := range e.Graphs {
		if slices.Contains(r.Graphs, g) {
			return g
		}
	}
	return ""
}

// search is the strategy: BFS over levels of steps (a single chain for
// CoT), the evaluator ranking each level, until the best state is an
// answer or the step budget is spent.
func (r *run) search(ctx context.Context, root *state) (trace.Answer, error) {
	frontier := []*state{root}
	for level := 1; level <= r.cfg.Steps; level++ {
		if err := ctx.Err(); err != nil {
			return trace.Answer{}, err
		}
		r.Log.Debug("grounded: level", "method", r.cfg.Method(), "step", level, "frontier", len(frontier))
		cands, err := r.level(ctx, frontier)
		if err != nil {
			return trace.Answer{}, err
		}
		if len(cands) == 0 {
			return r.finalAnswer(ctx, frontier[0], fmt.Sprintf("no state could be continued at step %d", level))
		}
		ranked, err := r.rank(ctx, cands)
		if err != nil {
			return trace.Answer{}, err
		}
		frontier = ranked[:min(r.cfg.T, len(ranked))]
		if frontier[0].done {
			return r.result(frontier[0], fmt.Sprintf("the best state after step %d is an answer", level)), nil
		}
	}
	return r.finalAnswer(ctx, frontier[0], fmt.Sprintf("reached the step budget (%d steps)", r.cfg.Steps))
}

// level expands the open states of the frontier: k thoughts each (plus
// one GoT aggregation), all grounded concurrently. It returns the new
// states followed by the frontier's answered states.
func (r *run) level(ctx context.Context, frontier []*state) ([]*state, error) {
	var open, done []*state
	for _, s := range frontier {
		if s.done {
			done = append(done, s)
		} else {
			open = append(open, s)
		}
	}
	samples := make([][]string, len(open))
	var mergeThought string
	var pair [2]*state
	doMerge := r.cfg.Strategy == GoT && len(open) >= 2
	err := fanout.Run(ctx, len(open)+1, 0, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i < len(open):
			samples[i], err = r.inter.thoughts(trace.WithNode(ctx, open[i].id), open[i], r.cfg.K)
		case doMerge:
			pair = [2]*state{open[0], open[1]}
			mergeThought, err = r.mergeThought(trace.WithNode(ctx, open[0].id), open[0], open[1])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	children := r.addChildren(ctx, open, samples)
	if doMerge && mergeThought != "" {
		children = append(children, r.addMerge(pair[0], pair[1], mergeThought))
	}
	err = fanout.Run(ctx, len(children), 0, func(ctx context.Context, i int) error {
		c := children[i]
		if err := r.inter.ground(trace.WithNode(ctx, c.id), c); err != nil {
			return err
		}
		r.updateNode(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(children, done...), nil
}

// addChildren marks the open states expanded and adds a child per
// sampled thought, in state and sample order (so node ids are
// deterministic).
func (r *run) addChildren(ctx context.Context, open []*state, samples [][]string) []*state {
	var children []*state
	for i, s := range open {
		r.expansions++
		order := r.expansions
		_ = r.Rec.UpdateNode(s.id, func(n *trace.Node) { n.Order = order })
		if len(samples[i]) == 0 {
			r.Warn(trace.WithNode(ctx, s.id), "no usable thought was sampled; the state is a dead end")
		}
		for _, th := range samples[i] {
			c := s.child(th)
			c.id = r.Rec.AddNode(trace.Node{Parents: []int{s.id}, Depth: c.depth, State: r.inter.name(), Text: th})
			children = append(children, c)
		}
	}
	return children
}

// addMerge adds the aggregation of a and b continued by thought.
func (r *run) addMerge(a, b *state, thought string) *state {
	m := merged(a, b)
	m.steps = append(m.steps, step{thought: thought})
	m.id = r.Rec.AddNode(trace.Node{Parents: []int{a.id, b.id}, Depth: m.depth, State: r.inter.name(),
		Action: actionMerge, Text: thought})
	return m
}

// actionMerge is the trace action of GoT aggregation nodes.
const actionMerge = "MERGE"

// updateNode copies a grounded state into its trace node.
func (r *run) updateNode(s *state) {
	_ = r.Rec.UpdateNode(s.id, func(n *trace.Node) {
		if !s.merge {
			n.Action = s.act
		}
		st := s.last()
		n.Text = st.thought
		if s.done {
			n.Text = s.answer
		}
		n.Answer, n.Terminal = s.done, s.done
		n.Value, n.Evaluated = s.value, s.evaluated
		n.Error = s.problem
		n.Extra = map[string]string{"thought": st.thought, "triples": strconv.Itoa(s.sub.NumEdges()),
			"attributes": strconv.Itoa(len(s.attrs))}
		if st.action != "" {
			n.Extra["action"] = st.action
		}
		if st.observation != "" {
			n.Extra["observation"] = literal.Clip(st.observation, maxExtra)
		}
		if s.evaluated && r.cfg.Evaluator == Select {
			n.Extra["votes"] = strconv.Itoa(s.votes)
		}
		for k, v := range s.extra {
			n.Extra[k] = v
		}
	})
}

// maxExtra bounds the observation copied into a trace node.
const maxExtra = 600

// result is the trace answer of an answered state.
func (r *run) result(s *state, reason string) trace.Answer {
	ids := s.sub.Resolve(s.answer)
	var support []store.Edge
	for _, e := range s.sub.EdgesAbout(ids) {
		support = append(support, e.Edge)
	}
	return reasoner.Settle(trace.Answer{Found: true, Text: s.answer, Entities: ids, Value: s.value,
		Confident: s.supported(s.answer), Check: "supported by the facts found", Node: s.id, Reason: reason, Support: support,
		Names: s.sub.NamesFor(support)})
}

// generate sends one request and returns its texts.
func generate(ctx context.Context, m llm.Model, req llm.Request) ([]string, error) {
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Task.Name, err)
	}
	return resp.Texts, nil
}

// first returns the first text, "" when none.
func first(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}
