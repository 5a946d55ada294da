package grounded

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/grounded/schema"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// Reasoner is one interaction x strategy combination. It is safe for
// concurrent use: each Answer keeps its own state; only the cache of graph
// definitions is shared.
type Reasoner struct {
	deps    reasoner.Deps
	cfg     Config
	schemas *schemaCache
}

var _ reasoner.Reasoner = (*Reasoner)(nil)

// New returns the reasoner configured by cfg.
func New(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	deps, err := reasoner.Prepare(deps, cfg)
	if err != nil {
		return nil, err
	}
	return &Reasoner{deps: deps, cfg: cfg, schemas: &schemaCache{defs: map[string]cachedDef{}}}, nil
}

// Config returns the reasoner's settings.
func (g *Reasoner) Config() Config { return g.cfg }

var descriptions = map[Interaction]string{
	Agent:   "the model interleaves thoughts with Graph-CoT actions (RetrieveNode, NodeFeature, NeighbourCheck, NodeDegree, Finish)",
	Explore: "entities of each thought are searched and explored with model-pruned relations and entities (Algorithm 1)",
}

var strategyDescriptions = map[Strategy]string{
	CoT: "one chain of up to 10 steps",
	ToT: "BFS tree of thoughts, k=3 candidates per state, t=3 kept per level by a score or select evaluator",
	GoT: "ToT plus the aggregation of the two best chains into one merged thought per level",
}

// Register adds the six methods "agent-cot", "agent-tot", "agent-got",
// "explore-cot", "explore-tot" and "explore-got" to reg.
func Register(reg *reasoner.Registry) {
	for _, i := range []Interaction{Agent, Explore} {
		for _, s := range []Strategy{CoT, ToT, GoT} {
			name := string(i) + "-" + string(s)
			desc := "Graph-grounded " + strings.ToUpper(string(s)) + " (Amayuelas et al., 2025): " +
				descriptions[i] + "; " + strategyDescriptions[s]
			reg.Register(name, desc, func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
				cfg, err := ConfigFromParams(i, s, p)
				if err != nil {
					return nil, err
				}
				return New(d, cfg)
			})
		}
	}
}

// Answer answers q. On failure the partial trace is returned with the
// error.
func (g *Reasoner) Answer(ctx context.Context, q reasoner.Query) (*trace.Trace, error) {
	return reasoner.Run(ctx, g.cfg.Method(), g.cfg.Params(), g.deps, q, func(ctx context.Context, s *reasoner.Session) (trace.Answer, error) {
		r := &run{Session: s, cfg: g.cfg}
		if g.cfg.Interaction == Agent {
			r.inter = &agent{r: r}
		} else {
			r.inter = &explorer{r: r}
		}
		return r.answer(ctx, q.TopicEntities, g.schemas)
	})
}

// schemaCache keeps each graph's definition while the graph keeps its
// size (GraphInfo quads and relations), so only the first question about a
// graph pays for sampling it.
type schemaCache struct {
	mu   sync.Mutex
	defs map[string]cachedDef
}

type cachedDef struct {
	quads, relations int64
	graphDef
}

// graphDef is what the methods use of a graph's definition: its text for
// prompts and its edge type names for the structured context of the
// agent's action task.
type graphDef struct {
	text      string
	edgeTypes []string
}

// definition returns graph's definition, derived through kg when the
// cache has none for the graph's current size.
func (c *schemaCache) definition(ctx context.Context, kg store.KG, info store.GraphInfo, nodes int) (graphDef, bool, error) {
	c.mu.Lock()
	d, ok := c.defs[info.Name]
	c.mu.Unlock()
	if ok && d.quads == info.Quads && d.relations == info.Relations {
		return d.graphDef, true, nil
	}
	def, err := schema.Derive(ctx, kg, info.Name, nil, schema.Options{MaxNodes: nodes})
	if err != nil {
		return graphDef{}, false, err
	}
	gd := graphDef{text: def.Text(), edgeTypes: edgeTypeNames(def)}
	c.mu.Lock()
	c.defs[info.Name] = cachedDef{quads: info.Quads, relations: info.Relations, graphDef: gd}
	c.mu.Unlock()
	return gd, false, nil
}

// edgeTypeNames lists the definition's edge type names once each, in the
// order its text shows them: per node type, outgoing then incoming.
func edgeTypeNames(def *schema.Definition) []string {
	var out []string
	for _, t := range def.Types {
		for _, dir := range []store.Direction{store.Out, store.In} {
			for _, e := range t.Edges {
				if e.Dir == dir && !slices.Contains(out, e.Name) {
					out = append(out, e.Name)
				}
			}
		}
	}
	return out
}
