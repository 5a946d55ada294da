package rtsog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner"
)

// Config holds the hyper-parameters. DefaultConfig gives the paper's
// settings for WebQSP, CWQ and WebQuestions; GrailQAConfig its GrailQA
// settings.
type Config struct {
	// SubQuestions is n, the number of sub-questions the policy model
	// decomposes the question into (0 skips decomposition).
	SubQuestions int
	// Iterations is H, the number of SC-MCTS iterations (one expansion
	// each).
	Iterations int
	// Width is w, the most relations the value model may keep at one
	// expansion, hence the most children of a node.
	Width int
	// MaxDepth is the longest reasoning path (in hops from the topic
	// entity); a node at this depth is a leaf.
	MaxDepth int
	// Exploration is c, the exploration weight of UCT.
	Exploration float64
	// Alpha weighs the relation reward against the path reward:
	// Q = Alpha*s_r + (1-Alpha)*s_P.
	Alpha float64
	// Paths is K, the number of weighted reasoning paths pushed through
	// the reasoning path stack.
	Paths int
	// MaxCandidates bounds the tail entities fetched and scored for one
	// relation at once: one page of the relation's tails ranked by
	// relevance to the question (package hood).
	MaxCandidates int
	// Pages bounds the pages of MaxCandidates tails that one relation's
	// entity exploration may score: when a relation has more tails than a
	// page, the value model also scores "more" (the next page) and the
	// next page is scored when "more" beats every tail scored so far.
	// 1 turns paging off.
	Pages int
	// Temperature is used by the policy model to write sub-questions and
	// the final answer.
	Temperature float64
	// EvalTemperature is used for every judgement: relation filtering and
	// scoring, path scoring, End-of-Search, the path stack, entity linking.
	EvalTemperature float64
	// SearchLimit bounds the KG search candidates per mention and graph
	// when topic entities must be linked.
	SearchLimit int
	// MaxTokens bounds every reply (reasoner.ParamMaxTokens).
	MaxTokens int
}

// Parameter names accepted by ConfigFromParams. ParamPreset chooses the
// defaults the other parameters override.
const (
	ParamPreset          = "preset"
	ParamSubQuestions    = "subquestions"
	ParamIterations      = "iterations"
	ParamWidth           = "width"
	ParamMaxDepth        = "max_depth"
	ParamExploration     = "c"
	ParamAlpha           = "alpha"
	ParamPaths           = "paths"
	ParamMaxCandidates   = "max_candidates"
	ParamPages           = "pages"
	ParamTemperature     = "temperature"
	ParamEvalTemperature = "eval_temperature"
	ParamSearchLimit     = "search_limit"
)

// DefaultConfig returns the paper's settings for WebQSP, CWQ and
// WebQuestions: n=3, H=24, w=7, depth 5, alpha 0.33, K=10, temperature
// 0.7. The paper does not state c; 1.0 is used. MaxCandidates, Pages,
// EvalTemperature and SearchLimit are Grove's.
func DefaultConfig() Config {
	return Config{SubQuestions: 3, Iterations: 24, Width: 7, MaxDepth: 5, Exploration: 1.0, Alpha: 0.33,
		Paths: 10, MaxCandidates: 10, Pages: 5, Temperature: 0.7, EvalTemperature: 0, SearchLimit: 5,
		MaxTokens: reasoner.DefaultMaxTokens}
}

// GrailQAConfig is DefaultConfig with the paper's GrailQA iterations
// (H=18).
func GrailQAConfig() Config {
	c := DefaultConfig()
	c.Iterations = 18
	return c
}

// presets maps ParamPreset values to their defaults.
var presets = map[string]func() Config{
	"": DefaultConfig, "default": DefaultConfig, "webqsp": DefaultConfig, "cwq": DefaultConfig,
	"webquestions": DefaultConfig, "grailqa": GrailQAConfig,
}

// ConfigFromParams reads a Config from p: the preset's defaults (see
// ParamPreset: default, webqsp, cwq, webquestions or grailqa), overridden
// by the other parameters.
func ConfigFromParams(p reasoner.Params) (Config, error) {
	r := p.Reader()
	name := strings.ToLower(strings.TrimSpace(r.String(ParamPreset, "")))
	preset, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("parameter %q: unknown preset %q (known: default, webqsp, cwq, webquestions, grailqa)",
			ParamPreset, name)
	}
	c := preset()
	c.SubQuestions = r.Int(ParamSubQuestions, c.SubQuestions)
	c.Iterations = r.Int(ParamIterations, c.Iterations)
	c.Width = r.Int(ParamWidth, c.Width)
	c.MaxDepth = r.Int(ParamMaxDepth, c.MaxDepth)
	c.Exploration = r.Float(ParamExploration, c.Exploration)
	c.Alpha = r.Float(ParamAlpha, c.Alpha)
	c.Paths = r.Int(ParamPaths, c.Paths)
	c.MaxCandidates = r.Int(ParamMaxCandidates, c.MaxCandidates)
	c.Pages = r.Int(ParamPages, c.Pages)
	c.Temperature = r.Float(ParamTemperature, c.Temperature)
	c.EvalTemperature = r.Float(ParamEvalTemperature, c.EvalTemperature)
	c.SearchLimit = r.Int(ParamSearchLimit, c.SearchLimit)
	c.MaxTokens = r.Int(reasoner.ParamMaxTokens, c.MaxTokens)
	if err := r.Done(); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate reports out-of-range settings, naming the parameter.
func (c Config) Validate() error {
	var errs []error
	atLeast := func(name string, v, min int) {
		if v < min {
			errs = append(errs, fmt.Errorf("parameter %q must be at least %d, got %d", name, min, v))
		}
	}
	atLeast(ParamSubQuestions, c.SubQuestions, 0)
	atLeast(ParamIterations, c.Iterations, 1)
	atLeast(ParamWidth, c.Width, 1)
	atLeast(ParamMaxDepth, c.MaxDepth, 1)
	atLeast(ParamPaths, c.Paths, 1)
	atLeast(ParamMaxCandidates, c.MaxCandidates, 1)
	atLeast(ParamPages, c.Pages, 1)
	atLeast(ParamSearchLimit, c.SearchLimit, 1)
	atLeast(reasoner.ParamMaxTokens, c.MaxTokens, 1)
	if c.Exploration < 0 {
		errs = append(errs, fmt.Errorf("parameter %q must not be negative, got %g", ParamExploration, c.Exploration))
	}
	if c.Alpha < 0 || c.Alpha > 1 {
		errs = append(errs, fmt.Errorf("parameter %q must be in [0, 1], got %g", ParamAlpha, c.Alpha))
	}
	if c.Temperature < 0 || c.EvalTemperature < 0 {
		errs = append(errs, fmt.Errorf("parameters %q and %q must not be negative (got %g, %g)",
			ParamTemperature, ParamEvalTemperature, c.Temperature, c.EvalTemperature))
	}
	return errors.Join(errs...)
}

// Params returns the settings as trace parameters.
func (c Config) Params() map[string]any {
	return map[string]any{
		ParamSubQuestions: c.SubQuestions, ParamIterations: c.Iterations, ParamWidth: c.Width,
		ParamMaxDepth: c.MaxDepth, ParamExploration: c.Exploration, ParamAlpha: c.Alpha, ParamPaths: c.Paths,
		ParamMaxCandidates: c.MaxCandidates, ParamPages: c.Pages, ParamTemperature: c.Temperature,
		ParamEvalTemperature: c.EvalTemperature, ParamSearchLimit: c.SearchLimit, reasoner.ParamMaxTokens: c.MaxTokens,
	}
}
