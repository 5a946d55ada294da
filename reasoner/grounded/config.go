package grounded

import (
	"errors"
	"fmt"

	"github.com/grove-kg/grove/reasoner"
)

// Interaction is how each thought is grounded in the KG.
type Interaction string

// The two interactions of the paper (section 4.2).
const (
	Agent   Interaction = "agent"
	Explore Interaction = "explore"
)

// Strategy is the reasoning strategy (section 4.1).
type Strategy string

// The three strategies.
const (
	CoT Strategy = "cot"
	ToT Strategy = "tot"
	GoT Strategy = "got"
)

// Evaluator is the ToT/GoT state evaluator.
type Evaluator string

// The two state evaluators.
const (
	// Score rates each state alone with a probability in [0, 1].
	Score Evaluator = "score"
	// Select asks for a vote for the best state among the level.
	Select Evaluator = "select"
)

// Parameter names.
const (
	ParamSteps           = "steps"
	ParamK               = "k"
	ParamT               = "t"
	ParamEvaluator       = "evaluator"
	ParamVotes           = "votes"
	ParamDepth           = "depth"
	ParamRelationWidth   = "relation_width"
	ParamEntityWidth     = "entity_width"
	ParamAttributeWidth  = "attribute_width"
	ParamSearchLimit     = "search_limit"
	ParamNeighborLimit   = "neighbor_limit"
	ParamTemperature     = "temperature"
	ParamEvalTemperature = "eval_temperature"
	ParamSchemaNodes     = "schema_nodes"
	ParamExploreCalls    = "explore_calls"
	ParamFrontier        = "frontier"
)

// Config holds a method's settings. DefaultConfig gives the paper's.
type Config struct {
	Interaction Interaction
	Strategy    Strategy
	// Steps is n, the maximum number of reasoning steps of a chain.
	Steps int
	// K is the branching factor: thoughts sampled per state and level
	// (always 1 for CoT).
	K int
	// T is the number of states kept per level (always 1 for CoT).
	T int
	// Evaluator ranks the states of a level (ToT and GoT only).
	Evaluator Evaluator
	// Votes is the number of votes sampled by the Select evaluator.
	Votes int
	// Depth is the maximum search depth of one graph exploration.
	Depth int
	// RelationWidth, EntityWidth and AttributeWidth bound what the
	// exploration keeps per entity, per relation and per entity; the model
	// prunes only lists longer than the width.
	RelationWidth, EntityWidth, AttributeWidth int
	// SearchLimit bounds node search results (RetrieveNode, mentions).
	SearchLimit int
	// NeighborLimit bounds the neighbours fetched along one edge type.
	NeighborLimit int
	// Temperature samples thoughts (and votes); EvalTemperature is used for
	// every other call.
	Temperature, EvalTemperature float64
	// SchemaNodes is the number of nodes sampled to derive each graph's
	// definition.
	SchemaNodes int
	// ExploreCalls bounds the model calls (pruning and End? checks) of one
	// exploration; when they are spent the exploration stops and says so.
	ExploreCalls int
	// Frontier bounds the entities one exploration depth visits (the
	// earliest seen first); the others stay unexplored tails.
	Frontier int
	// MaxTokens bounds every reply (reasoner.ParamMaxTokens).
	MaxTokens int
}

// DefaultConfig returns the paper's settings (n = 10 steps, k = t = 3,
// exploration depth 3, where the paper's depth ablation plateaus) and
// Grove's limits. CoT samples at temperature 0; ToT and GoT at 0.7.
func DefaultConfig(i Interaction, s Strategy) Config {
	c := Config{Interaction: i, Strategy: s, Steps: 10, K: 3, T: 3, Evaluator: Select, Votes: 3, Depth: 3,
		RelationWidth: 3, EntityWidth: 3, AttributeWidth: 3, SearchLimit: 5, NeighborLimit: 30,
		Temperature: 0.7, EvalTemperature: 0, SchemaNodes: 24, ExploreCalls: 40,
		Frontier: 9, MaxTokens: reasoner.DefaultMaxTokens}
	if s == CoT {
		c.K, c.T, c.Temperature = 1, 1, 0
	}
	return c
}

// Method is the registered name: "agent-tot", "explore-cot", ...
func (c Config) Method() string { return string(c.Interaction) + "-" + string(c.Strategy) }

// ConfigFromParams reads a Config over DefaultConfig(i, s). CoT methods
// take no k, t, evaluator or votes; agent methods take no exploration
// settings (depth and widths).
func ConfigFromParams(i Interaction, s Strategy, p reasoner.Params) (Config, error) {
	c := DefaultConfig(i, s)
	r := p.Reader()
	c.Steps = r.Int(ParamSteps, c.Steps)
	if s != CoT {
		c.K = r.Int(ParamK, c.K)
		c.T = r.Int(ParamT, c.T)
		c.Evaluator = Evaluator(r.String(ParamEvaluator, string(c.Evaluator)))
		c.Votes = r.Int(ParamVotes, c.Votes)
	}
	if i == Explore {
		c.Depth = r.Int(ParamDepth, c.Depth)
		c.RelationWidth = r.Int(ParamRelationWidth, c.RelationWidth)
		c.EntityWidth = r.Int(ParamEntityWidth, c.EntityWidth)
		c.AttributeWidth = r.Int(ParamAttributeWidth, c.AttributeWidth)
		c.ExploreCalls = r.Int(ParamExploreCalls, c.ExploreCalls)
		c.Frontier = r.Int(ParamFrontier, c.Frontier)
	}
	c.SearchLimit = r.Int(ParamSearchLimit, c.SearchLimit)
	c.NeighborLimit = r.Int(ParamNeighborLimit, c.NeighborLimit)
	c.Temperature = r.Float(ParamTemperature, c.Temperature)
	c.EvalTemperature = r.Float(ParamEvalTemperature, c.EvalTemperature)
	c.SchemaNodes = r.Int(ParamSchemaNodes, c.SchemaNodes)
	c.MaxTokens = r.Int(reasoner.ParamMaxTokens, c.MaxTokens)
	if err := r.Done(); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate reports out-of-range settings.
func (c Config) Validate() error {
	var errs []error
	switch c.Interaction {
	case Agent, Explore:
	default:
		errs = append(errs, fmt.Errorf("interaction must be %q or %q, got %q", Agent, Explore, c.Interaction))
	}
	switch c.Strategy {
	case CoT:
		if c.K != 1 || c.T != 1 {
			errs = append(errs, fmt.Errorf("cot follows one chain: k and t must be 1 (got %d, %d)", c.K, c.T))
		}
	case ToT, GoT:
	default:
		errs = append(errs, fmt.Errorf("strategy must be %q, %q or %q, got %q", CoT, ToT, GoT, c.Strategy))
	}
	if c.Evaluator != Score && c.Evaluator != Select {
		errs = append(errs, fmt.Errorf("parameter %q must be %q or %q, got %q", ParamEvaluator, Score, Select, c.Evaluator))
	}
	for _, p := range []struct {
		name string
		v    int
	}{{ParamSteps, c.Steps}, {ParamK, c.K}, {ParamT, c.T}, {ParamVotes, c.Votes}, {ParamDepth, c.Depth},
		{ParamRelationWidth, c.RelationWidth}, {ParamEntityWidth, c.EntityWidth}, {ParamAttributeWidth, c.AttributeWidth},
		{ParamSearchLimit, c.SearchLimit}, {ParamNeighborLimit, c.NeighborLimit}, {ParamSchemaNodes, c.SchemaNodes},
		{ParamExploreCalls, c.ExploreCalls}, {ParamFrontier, c.Frontier}, {reasoner.ParamMaxTokens, c.MaxTokens}} {
		if p.v < 1 {
			errs = append(errs, fmt.Errorf("parameter %q must be at least 1, got %d", p.name, p.v))
		}
	}
	if c.Temperature < 0 || c.EvalTemperature < 0 {
		errs = append(errs, fmt.Errorf("temperatures must not be negative (got %g, %g)", c.Temperature, c.EvalTemperature))
	}
	return errors.Join(errs...)
}

// Params returns the settings that apply to the method, for traces.
func (c Config) Params() map[string]any {
	p := map[string]any{ParamSteps: c.Steps, ParamSearchLimit: c.SearchLimit, ParamNeighborLimit: c.NeighborLimit,
		ParamTemperature: c.Temperature, ParamEvalTemperature: c.EvalTemperature, ParamSchemaNodes: c.SchemaNodes,
		reasoner.ParamMaxTokens: c.MaxTokens}
	if c.Strategy != CoT {
		p[ParamK], p[ParamT], p[ParamEvaluator], p[ParamVotes] = c.K, c.T, string(c.Evaluator), c.Votes
	}
	if c.Interaction == Explore {
		p[ParamDepth], p[ParamRelationWidth], p[ParamEntityWidth], p[ParamAttributeWidth] =
			c.Depth, c.RelationWidth, c.EntityWidth, c.AttributeWidth
		p[ParamExploreCalls], p[ParamFrontier] = c.ExploreCalls, c.Frontier
	}
	return p
}
