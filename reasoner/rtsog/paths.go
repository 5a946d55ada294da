package rtsog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// weighted is a weighted reasoning path: the path from a topic entity to
// node, weighted by the node's value.
type weighted struct {
	node   *node
	weight float64
}

// rankPaths returns the top k reasoning paths by value, highest first
// (the earlier node among equals). Only nodes reached along a relation
// have a path.
func rankPaths(nodes []*node, k int) []weighted {
	var out []weighted
	for _, n := range nodes {
		if n.hop != nil {
			out = append(out, weighted{node: n, weight: n.q})
		}
	}
	slices.SortStableFunc(out, func(a, b weighted) int { return cmp.Compare(b.weight, a.weight) })
	return out[:min(k, len(out))]
}

// filterStack pushes the paths, in descending weight, through the
// reasoning path stack: the policy model keeps a path when, given the
// paths kept before it, it helps derive the answer to the question or a
// sub-question. An unreadable reply drops the path with a warning.
func (r *run) filterStack(ctx context.Context, paths []weighted) ([]weighted, error) {
	var kept []weighted
	var keptText []string
	var keptFacts []llm.Fact
	for i, p := range paths {
		pctx := trace.WithNode(ctx, p.node.id)
		text := pathText(p.node)
		resp, err := r.policy.Generate(pctx, llm.Request{
			Messages: messages(stackPrompt(r.Question, r.subs, keptText, text, p.weight)), N: 1,
			Temperature: r.cfg.EvalTemperature,
			Task: llm.Task{Kind: llm.KindYesNo, Name: TaskStack, Question: r.Question,
				Context: strings.Join(keptText, "\n"), Candidate: text,
				Facts: slices.Concat(keptFacts, hopFacts(p.node))}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TaskStack, err)
		}
		yes, _, perr := llm.ParseYesNo(first(resp.Texts))
		if perr != nil {
			r.Warn(pctx, "path stack: %v", perr)
		}
		verdict := fmt.Sprintf("rank %d of %d: dropped", i+1, len(paths))
		if yes {
			kept = append(kept, p)
			keptText = append(keptText, text)
			keptFacts = append(keptFacts, hopFacts(p.node)...)
			verdict = fmt.Sprintf("rank %d of %d: kept as %d", i+1, len(paths), len(kept))
		}
		_ = r.Rec.UpdateNode(p.node.id, func(t *trace.Node) { setExtra(t, "stack", verdict) })
	}
	return kept, nil
}

// answer is the answer generation stage: the weighted paths go through
// the stack and the policy model answers from the paths kept. When no path
// is kept, the unfiltered paths are given instead (and the answer is not
// confident).
func (r *run) answer(ctx context.Context, stop string) (trace.Answer, error) {
	rctx := trace.WithNode(ctx, r.root.id)
	paths := rankPaths(r.nodes, r.cfg.Paths)
	kept, err := r.filterStack(ctx, paths)
	if err != nil {
		return trace.Answer{}, err
	}
	use, fallback := kept, false
	if len(kept) == 0 && len(paths) > 0 {
		r.Warn(rctx, "the path stack kept none of %d paths; answering from all of them", len(paths))
		use, fallback = paths, true
	}
	resp, err := r.policy.Generate(rctx, llm.Request{
		Messages: messages(answerPrompt(r.Question, r.subs, use, fallback)), N: 1, Temperature: r.cfg.Temperature,
		Task: llm.Task{Kind: llm.KindAnswer, Name: TaskAnswer, Question: r.Question, Context: contextLines(use),
			Facts: contextFacts(use)}})
	if err != nil {
		return trace.Answer{}, fmt.Errorf("%s: %w", TaskAnswer, err)
	}
	stop = fmt.Sprintf("%s; the path stack kept %d of %d paths", stop, len(kept), len(paths))
	text, err := llm.ParseAnswer(first(resp.Texts))
	if err != nil {
		r.Warn(rctx, "answer: %v", err)
		return trace.Answer{Reason: "no answer: the answer reply was unreadable; " + stop}, nil
	}
	if reasoner.IsNonAnswer(text) {
		return trace.Answer{Reason: "no answer: the policy model does not know; " + stop}, nil
	}
	a := ground(text, use)
	a.Entities = r.withShownID(a.Entities, text)
	a.Found, a.Text, a.Reason = true, text, stop
	a.Confident, a.Check = a.Node != 0 && !fallback, "named on a path the stack kept"
	return a, nil
}

// contextLines is the Task.Context of the answer: the triples of the
// paths (see triples), each once.
func contextLines(paths []weighted) string {
	var lines []string
	for _, p := range paths {
		for _, t := range triples(p.node) {
			if !slices.Contains(lines, t) {
				lines = append(lines, t)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// contextFacts are the facts of contextLines, each once.
func contextFacts(paths []weighted) []llm.Fact {
	var out []llm.Fact
	for _, p := range paths {
		for _, f := range pathFacts(p.node) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// ground finds the entities the answer names among the entities of the
// paths (their nodes, the alternative tails of their last relation and
// the members of their unlabelled entities), and for each the
// highest-weighted path that reaches it. The answer's node and value come
// from the first entity found; the support holds the edges that reach
// every answer entity.
func ground(text string, paths []weighted) trace.Answer {
	g := subgraph.New()
	for _, p := range paths {
		addPath(g, p.node)
	}
	var a trace.Answer
	for _, id := range g.Resolve(text) {
		p, target, edges := reaching(paths, id)
		if p == nil {
			continue
		}
		a.Entities = append(a.Entities, id)
		if a.Node == 0 {
			a.Node, a.Value = target.id, p.weight
		}
		for _, e := range edges {
			if !slices.ContainsFunc(a.Support, func(s store.Edge) bool { return sameEdge(s, e) }) {
				a.Support = append(a.Support, e)
			}
		}
	}
	a.Names = g.NamesFor(a.Support)
	return a
}

// addPath adds to g the edges of n's path, of its alternative tails and
// of the descriptions of their unlabelled entities.
func addPath(g *subgraph.Graph, n *node) {
	for _, v := range n.path() {
		if v.hop == nil {
			g.AddEntity(v.entity, v.graph)
			g.MarkStart(v.entity.ID, v.start)
		} else {
			g.AddEdge(v.hop.edge, v.hop.rel.Dir, v.hop.rel.InverseLabel)
		}
		addDescribed(g, v.described)
	}
	for _, a := range n.alts {
		g.AddEdge(a.edge, n.hop.rel.Dir, n.hop.rel.InverseLabel)
		addDescribed(g, a.described)
	}
}

func addDescribed(g *subgraph.Graph, parts []hood.Part) {
	for _, p := range parts {
		g.AddContentEdge(p.Edge, p.Dir, p.InverseLabel)
		med := p.Edge.Subject.ID
		if p.Dir == store.In {
			med = p.Edge.Object.ID
		}
		g.SetContents(med, hood.Render(parts))
	}
}

// reaching returns the first path that reaches id, the node it is
// credited to, and the edges that lead from the topic entity to id: down
// a path node (and into its description), or down the parent of the
// path's last node and along an alternative tail.
func reaching(paths []weighted, id string) (*weighted, *node, []store.Edge) {
	for i, p := range paths {
		for _, v := range p.node.path() {
			if v.entity.ID == id {
				return &paths[i], v, support(v)
			}
			if d := describing(v.described, id); d != nil {
				return &paths[i], v, append(support(v), *d)
			}
		}
		for _, a := range p.node.alts {
			via := append(support(p.node.parent), a.edge)
			if a.entity.ID == id {
				return &paths[i], p.node, via
			}
			if d := describing(a.described, id); d != nil {
				return &paths[i], p.node, append(via, *d)
			}
		}
	}
	return nil, nil, nil
}

// describing returns the content edge that reaches id, or nil.
func describing(parts []hood.Part, id string) *store.Edge {
	for i, p := range parts {
		if p.Value.ID == id {
			return &parts[i].Edge
		}
	}
	return nil
}

// support returns the edges from the topic entity down to n (none for
// the root or a topic node).
func support(n *node) []store.Edge {
	var out []store.Edge
	for _, v := range n.path() {
		if v.hop != nil {
			out = append(out, v.hop.edge)
		}
	}
	return out
}

func sameEdge(a, b store.Edge) bool {
	return a.Subject.ID == b.Subject.ID && a.Relation == b.Relation && a.Object.ID == b.Object.ID && a.Graph == b.Graph
}
