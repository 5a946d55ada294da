package reasoner

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// Session is the traced state every method shares during one Answer call:
// the question and the graphs it uses, and the host's collaborators wrapped
// so that every model and KG call is recorded in the trace. Methods keep
// their own search state next to it (typically by embedding *Session).
type Session struct {
	Method string
	Query  Query
	// Question is Query.Question.
	Question string
	// Graphs are the query's graphs once ResolveGraphs has run.
	Graphs []string
	// KG, Model and Evaluator record their calls in Rec.
	KG        store.KG
	Model     llm.Model
	Evaluator llm.Model
	Rec       *trace.Recorder
	Log       *slog.Logger
}

// Validator is a method configuration that checks its own settings.
type Validator interface{ Validate() error }

// Prepare is the common start of a method constructor: it fills deps'
// defaults (Deps.WithDefaults) and validates cfg.
func Prepare(deps Deps, cfg Validator) (Deps, error) {
	deps, err := deps.WithDefaults()
	if err != nil {
		return deps, err
	}
	return deps, cfg.Validate()
}

// TraceMeta is the trace metadata every method records: its name and
// parameters, the query, the models that answer and evaluate
// (llm.Describe; a nil Evaluator is the Model) and the Grove version. Every
// reasoner starts its trace recorder with it, so that no trace lacks the
// model that produced it.
func TraceMeta(method string, params map[string]any, deps Deps, q Query) trace.Meta {
	ev := deps.Evaluator
	if ev == nil {
		ev = deps.Model
	}
	return trace.Meta{Method: method, Params: params, Question: q.Question, Graphs: q.Graphs,
		TopicEntities: q.TopicEntities, Model: llm.Describe(deps.Model), Evaluator: llm.Describe(ev),
		Grove: Version()}
}

// ParamMaxTokens is the parameter, shared by the search methods, that
// bounds every model reply a method does not bound itself (the MaxTokens
// of a Request that sets none; see Run). Replies go back into later
// prompts, so an unbounded one makes every later prompt longer.
const ParamMaxTokens = "max_tokens"

// DefaultMaxTokens is ParamMaxTokens' default: the server's cap too.
// Models that think at length before answering may need more.
const DefaultMaxTokens = 1024

// Solve is a method's search over a session.
type Solve func(ctx context.Context, s *Session) (trace.Answer, error)

// Run answers q with solve: it validates q, starts a trace recorder with
// the method's name and parameters, wraps deps in it, runs solve and
// finishes the trace. Errors name the method; with an error the partial
// trace is returned too (nil when q is invalid). solve resolves the
// query's graphs (Session.ResolveGraphs) when it sees fit, so that the KG
// call can be tagged with the node it serves. The session's models are
// llm.Bounded by params[ParamMaxTokens] (the MaxTokens of every request
// that sets none; replies longer than their max tokens explain fail), and
// the answer is settled by NameAnswer (an entity id the reasoning saw in
// the query's graphs becomes its name; any other is flagged).
func Run(ctx context.Context, method string, params map[string]any, deps Deps, q Query, solve Solve) (*trace.Trace, error) {
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	deps, err := deps.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	maxTokens, err := Params(params).Int(ParamMaxTokens, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	rec := trace.NewRecorder(TraceMeta(method, params, deps, q), deps.Observer)
	// The bound is set outside the recorder, so that the trace shows it,
	// and replies are checked inside, so that an oversized one is not
	// recorded.
	bound := func(m llm.Model) llm.Model {
		return llm.WithMaxTokens(rec.WrapModel(llm.CheckReplies(m)), maxTokens)
	}
	s := &Session{Method: method, Query: q, Question: q.Question, KG: rec.WrapKG(deps.KG),
		Model: bound(deps.Model), Evaluator: bound(deps.Evaluator), Rec: rec, Log: deps.Logger}
	ans, err := solve(ctx, s)
	if err != nil {
		tr := rec.Finish(err)
		rec.Flush(ctx)
		return tr, fmt.Errorf("%s: %w", method, err)
	}
	ans = s.nameAnswer(ctx, ans)
	rec.SetAnswer(ans)
	tr := rec.Finish(nil)
	// Live events are delivered off the run's goroutine; give the observer
	// a bounded moment to see the last of them before the caller does.
	rec.Flush(ctx)
	return tr, nil
}

// nameAnswer settles ans with NameAnswer against the session's graphs
// (the query's when the method resolved none) and records its warning on
// the answer's node.
func (s *Session) nameAnswer(ctx context.Context, ans trace.Answer) trace.Answer {
	graphs := s.Graphs
	if len(graphs) == 0 {
		graphs = s.Query.Graphs
	}
	ans, warn := NameAnswer(ctx, s.KG, graphs, ans)
	if warn != "" {
		s.Warn(trace.WithNode(ctx, ans.Node), "%s", warn)
	}
	return ans
}

// Warn records a recoverable problem (a malformed reply, a dead end) on
// the trace node carried by ctx (trace.WithNode) and logs it.
func (s *Session) Warn(ctx context.Context, format string, args ...any) {
	node := trace.NodeFrom(ctx)
	msg := fmt.Sprintf(format, args...)
	s.Rec.Warn(node, "%s", msg)
	s.Log.Warn(s.Method+": "+msg, "node", node)
}

// ResolveGraphs sets Graphs to the query's graphs (see the function
// ResolveGraphs) and records them in the trace.
func (s *Session) ResolveGraphs(ctx context.Context) error {
	graphs, err := ResolveGraphs(ctx, s.KG, s.Query)
	if err != nil {
		return err
	}
	s.Graphs = graphs
	s.Rec.SetGraphs(graphs)
	return nil
}
