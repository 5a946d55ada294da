package rtsog

import (
	"context"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/trace"
)

// Method is the registered name of the method.
const Method = "rtsog"

// Reasoner is RTSoG. It is safe for concurrent use: each Answer keeps its
// own state.
type Reasoner struct {
	deps reasoner.Deps
	cfg  Config
}

var _ reasoner.Reasoner = (*Reasoner)(nil)

// New returns RTSoG with cfg. deps.Model is the policy model,
// deps.Evaluator (default: the policy model) the value model.
func New(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	deps, err := reasoner.Prepare(deps, cfg)
	if err != nil {
		return nil, err
	}
	return &Reasoner{deps: deps, cfg: cfg}, nil
}

// Register adds "rtsog" to reg.
func Register(reg *reasoner.Registry) {
	reg.Register(Method, "RTSoG: question decomposition, reward-guided self-critic Monte Carlo tree search over "+
		"KG paths, and a weighted reasoning path stack (n=3, H=24, w=7, depth 5, alpha 0.33, K=10; preset=grailqa for H=18)",
		func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
			cfg, err := ConfigFromParams(p)
			if err != nil {
				return nil, err
			}
			return New(d, cfg)
		})
}

// Config returns the reasoner's settings.
func (t *Reasoner) Config() Config { return t.cfg }

// Answer answers q. On failure the partial trace is returned with the
// error.
func (t *Reasoner) Answer(ctx context.Context, q reasoner.Query) (*trace.Trace, error) {
	return reasoner.Run(ctx, Method, t.cfg.Params(), t.deps, q, func(ctx context.Context, s *reasoner.Session) (trace.Answer, error) {
		if err := s.ResolveGraphs(ctx); err != nil {
			return trace.Answer{}, err
		}
		r := &run{Session: s, cfg: t.cfg, policy: s.Model, value: s.Evaluator}
		return r.solve(ctx, q.TopicEntities)
	})
}
