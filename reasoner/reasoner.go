// Package reasoner is the contract every Grove question-answering method
// implements, and the registry that builds methods by name.
//
// A method (Tree-of-Traversals and its chain variant, the graph-grounded
// CoT/ToT/GoT agents, RTSoG, the plain CoT and zero-shot baselines)
// answers a Query with a *trace.Trace: the answer plus the full record of
// the search (see package trace). Methods receive their collaborators in a
// Deps value (the knowledge graph, the policy model, the evaluator model,
// a logger and an optional live observer) and their settings as Params, a
// loosely typed map read with typed getters that report wrong types and
// unknown keys clearly, because Params arrive from command-line flags,
// configuration files and HTTP requests.
//
// Run is the shared skeleton of an Answer call: it validates the query,
// starts the trace recorder, wraps the KG and the models so that every
// call is traced, and hands the method a Session (the traced
// collaborators, the question, the graphs once resolved, and Warn for
// recoverable problems); package link is the entity linking the methods
// share on top of it. Run settles every final answer with NameAnswer: one
// that is exactly an entity id ("Q3247097", "/en/ridley_scott"; see
// llm.IDLike) is answered with the entity's label when the reasoning saw
// that entity (it is among the answer's Entities) in the query's graphs;
// an id outside the query's graphs, one the reasoning never saw or one
// without a label keeps its text and is marked not confident, the first
// two with a trace warning. The baselines, which show their model no KG,
// settle theirs with NameModelAnswer: an id answer is always flagged
// (without a KG only an unmistakable KG id, llm.KGIDLike).
//
// There is no global registry: cmd/grove and the server each build one
// Registry at start-up and every method package contributes its methods
// through a Register(*Registry) function (tot.Register adds "tot" and
// "chain"). The registry also composes methods: the spec
// "primary->fallback" ("tot->cot") builds a Fallback that runs the second
// method when the first finds no answer or a non-answer (the
// Tree-of-Traversals paper's Chain-of-Thought fallback), so `grove ask`,
// the server and `grove eval` accept the same specs.
package reasoner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// Query is one question.
type Query struct {
	Question string `json:"question"`
	// Graphs are the KGs to use; empty means every graph in the store.
	Graphs []string `json:"graphs,omitempty"`
	// TopicEntities are entity ids known to be the question's topic
	// (datasets often supply them); optional.
	TopicEntities []string `json:"topic_entities,omitempty"`
}

// Validate reports an empty question or empty graph / entity names.
func (q Query) Validate() error {
	if strings.TrimSpace(q.Question) == "" {
		return errors.New("query: empty question")
	}
	for i, g := range q.Graphs {
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("query: graphs[%d] is empty", i)
		}
	}
	for i, e := range q.TopicEntities {
		if strings.TrimSpace(e) == "" {
			return fmt.Errorf("query: topic_entities[%d] is empty", i)
		}
	}
	return nil
}

// Reasoner answers questions. Implementations are safe for concurrent use:
// each Answer call keeps its own state.
type Reasoner interface {
	// Answer answers q. On failure it returns the partial trace (when one
	// was started) together with the error.
	Answer(ctx context.Context, q Query) (*trace.Trace, error)
}

// Deps are what a method needs from its host.
type Deps struct {
	KG    store.KG
	Model llm.Model
	// Evaluator scores states and answers; nil means Model.
	Evaluator llm.Model
	// Logger receives debug/warn logs; nil discards them.
	Logger *slog.Logger
	// Observer receives live trace events; nil means none.
	Observer trace.Observer
}

// WithDefaults checks that KG and Model are set and fills Evaluator and
// Logger.
func (d Deps) WithDefaults() (Deps, error) {
	if d.KG == nil {
		return d, errors.New("reasoner deps: no knowledge graph (KG is nil)")
	}
	if d.Model == nil {
		return d, errors.New("reasoner deps: no model (Model is nil)")
	}
	if d.Evaluator == nil {
		d.Evaluator = d.Model
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return d, nil
}

// ResolveGraphs returns the graphs a query uses: q.Graphs checked against
// the store, or every graph of the store (sorted) when q.Graphs is empty.
// Duplicates are removed keeping the first.
func ResolveGraphs(ctx context.Context, kg store.KG, q Query) ([]string, error) {
	infos, err := kg.Graphs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list graphs: %w", err)
	}
	have := make([]string, len(infos))
	for i, g := range infos {
		have[i] = g.Name
	}
	if len(q.Graphs) == 0 {
		slices.Sort(have)
		if len(have) == 0 {
			return nil, errors.New("the store has no graphs")
		}
		return have, nil
	}
	var out []string
	for _, g := range q.Graphs {
		if !slices.Contains(have, g) {
			return nil, fmt.Errorf("graph %q: %w (have %s)", g, store.ErrNotFound, strings.Join(have, ", "))
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out, nil
}
