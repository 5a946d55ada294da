package tot

import (
	"context"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/trace"
)

// Method names.
const (
	MethodToT   = "tot"
	MethodChain = "chain"
)

// Reasoner is Tree-of-Traversals (or Chain-of-Traversals when K is 1). It
// is safe for concurrent use: each Answer keeps its own state.
type Reasoner struct {
	deps   reasoner.Deps
	cfg    Config
	method string
}

var _ reasoner.Reasoner = (*Reasoner)(nil)

// New returns Tree-of-Traversals with cfg.
func New(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	return newNamed(MethodToT, deps, cfg)
}

// NewChain returns Chain-of-Traversals: cfg with K forced to 1.
func NewChain(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	cfg.K = 1
	return newNamed(MethodChain, deps, cfg)
}

func newNamed(method string, deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	deps, err := reasoner.Prepare(deps, cfg)
	if err != nil {
		return nil, err
	}
	return &Reasoner{deps: deps, cfg: cfg, method: method}, nil
}

// Register adds "tot" and "chain" to reg.
func Register(reg *reasoner.Registry) {
	reg.Register(MethodToT, "Tree-of-Traversals: best-first tree search over KG expansions guided by "+
		"an action state machine and model-scored states (k=3, depth 7, 20 expansions, tau 0.8)",
		func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
			cfg, err := ConfigFromParams(p, false)
			if err != nil {
				return nil, err
			}
			return New(d, cfg)
		})
	reg.Register(MethodChain, "Chain-of-Traversals: Tree-of-Traversals with one sample per step (k=1)",
		func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
			cfg, err := ConfigFromParams(p, true)
			if err != nil {
				return nil, err
			}
			return NewChain(d, cfg)
		})
}

// Config returns the reasoner's settings.
func (t *Reasoner) Config() Config { return t.cfg }

// Answer answers q. On failure the partial trace is returned with the
// error.
func (t *Reasoner) Answer(ctx context.Context, q reasoner.Query) (*trace.Trace, error) {
	return reasoner.Run(ctx, t.method, t.cfg.Params(), t.deps, q, func(ctx context.Context, s *reasoner.Session) (trace.Answer, error) {
		if err := s.ResolveGraphs(ctx); err != nil {
			return trace.Answer{}, err
		}
		r := &run{Session: s, cfg: t.cfg}
		return r.search(ctx, q.TopicEntities)
	})
}
