package tot

import (
	"errors"
	"fmt"

	"github.com/grove-kg/grove/reasoner"
)

// Config holds the search settings. The defaults are the paper's.
type Config struct {
	// K is the branching factor: actions sampled per expansion (1 =
	// Chain-of-Traversals).
	K int
	// MaxDepth is the depth from which a default-state node may only
	// answer.
	MaxDepth int
	// MaxExpansions bounds the number of node expansions.
	MaxExpansions int
	// Tau is the answer value that stops the search (strictly above).
	Tau float64
	// Temperature is used to sample actions.
	Temperature float64
	// EvalTemperature is used for single-answer calls: evaluation, entity
	// extraction and linking.
	EvalTemperature float64
	// MaxEdges bounds the edges fetched by one relation expansion.
	MaxEdges int
	// SearchLimit bounds the KG candidates per mention and KG.
	SearchLimit int
	// MaxTokens bounds every reply (reasoner.ParamMaxTokens).
	MaxTokens int
}

// Parameter names accepted by ConfigFromParams.
const (
	ParamK               = "k"
	ParamMaxDepth        = "max_depth"
	ParamMaxExpansions   = "max_expansions"
	ParamTau             = "tau"
	ParamTemperature     = "temperature"
	ParamEvalTemperature = "eval_temperature"
	ParamMaxEdges        = "max_edges"
	ParamSearchLimit     = "search_limit"
)

// DefaultConfig returns the paper's settings (k=3, max depth 7, 20
// expansions, tau 0.8, temperatures 1.0 and 0) plus Grove's fetch limits.
func DefaultConfig() Config {
	return Config{K: 3, MaxDepth: 7, MaxExpansions: 20, Tau: 0.8, Temperature: 1.0,
		EvalTemperature: 0, MaxEdges: 50, SearchLimit: 5, MaxTokens: reasoner.DefaultMaxTokens}
}

// ConfigFromParams reads a Config from params over DefaultConfig. With
// chain set, k defaults to 1 and may only be 1.
func ConfigFromParams(p reasoner.Params, chain bool) (Config, error) {
	c := DefaultConfig()
	if chain {
		c.K = 1
	}
	r := p.Reader()
	c.K = r.Int(ParamK, c.K)
	c.MaxDepth = r.Int(ParamMaxDepth, c.MaxDepth)
	c.MaxExpansions = r.Int(ParamMaxExpansions, c.MaxExpansions)
	c.Tau = r.Float(ParamTau, c.Tau)
	c.Temperature = r.Float(ParamTemperature, c.Temperature)
	c.EvalTemperature = r.Float(ParamEvalTemperature, c.EvalTemperature)
	c.MaxEdges = r.Int(ParamMaxEdges, c.MaxEdges)
	c.SearchLimit = r.Int(ParamSearchLimit, c.SearchLimit)
	c.MaxTokens = r.Int(reasoner.ParamMaxTokens, c.MaxTokens)
	if err := r.Done(); err != nil {
		return c, err
	}
	if chain && c.K != 1 {
		return c, fmt.Errorf("parameter %q: chain always uses k=1 (got %d); use tot for k>1", ParamK, c.K)
	}
	return c, c.Validate()
}

// Validate reports out-of-range settings.
func (c Config) Validate() error {
	var errs []error
	positive := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("parameter %q must be at least 1, got %d", name, v))
		}
	}
	positive(ParamK, c.K)
	positive(ParamMaxDepth, c.MaxDepth)
	positive(ParamMaxExpansions, c.MaxExpansions)
	positive(ParamMaxEdges, c.MaxEdges)
	positive(ParamSearchLimit, c.SearchLimit)
	positive(reasoner.ParamMaxTokens, c.MaxTokens)
	if c.Tau < 0 || c.Tau > 1 {
		errs = append(errs, fmt.Errorf("parameter %q must be in [0, 1], got %g", ParamTau, c.Tau))
	}
	if c.Temperature < 0 || c.EvalTemperature < 0 {
		errs = append(errs, fmt.Errorf("temperatures must not be negative (got %g, %g)", c.Temperature, c.EvalTemperature))
	}
	return errors.Join(errs...)
}

// Params returns the settings as trace parameters.
func (c Config) Params() map[string]any {
	return map[string]any{
		ParamK: c.K, ParamMaxDepth: c.MaxDepth, ParamMaxExpansions: c.MaxExpansions, ParamTau: c.Tau,
		ParamTemperature: c.Temperature, ParamEvalTemperature: c.EvalTemperature,
		ParamMaxEdges: c.MaxEdges, ParamSearchLimit: c.SearchLimit, reasoner.ParamMaxTokens: c.MaxTokens,
	}
}
