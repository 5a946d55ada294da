package tot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// linked is one entity chosen for a mention, with its graph.
type linked struct {
	entity store.Entity
	graph  string
}

// initialize builds the root's local graph: the query's topic entities, or
// the entities linked from the question's mentions, each linked into the
// other KGs.
func (r *run) initialize(ctx context.Context, topics []string) (*subgraph.Graph, error) {
	g := subgraph.New()
	var found []linked
	var err error
	if len(topics) > 0 {
		found, err = r.topicEntities(ctx, topics)
	} else {
		found, err = r.linkMentions(ctx)
	}
	if err != nil {
		return nil, err
	}
	var added []string
	for _, l := range found {
		if g.AddEntity(l.entity, l.graph) {
			added = append(added, l.entity.ID)
		}
	}
	if err := r.linkAcross(ctx, g, added); err != nil {
		return nil, err
	}
	return g, nil
}

// topicEntities looks up the given ids; unknown ids are warnings.
func (r *run) topicEntities(ctx context.Context, ids []string) ([]linked, error) {
	var out []linked
	for _, id := range ids {
		e, err := r.kg.Entity(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			r.warn(ctx, "topic entity %q is not in the store", id)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("topic entity %q: %w", id, err)
		}
		graph := ""
		for _, g := range e.Graphs {
			if slices.Contains(r.graphs, g) {
				graph = g
				break
			}
		}
		if graph == "" {
			r.warn(ctx, "topic entity %q is in none of the graphs %v", id, r.graphs)
			continue
		}
		out = append(out, linked{entity: e, graph: graph})
	}
	return out, nil
}

// linkMentions extracts the question's mentions and links each one
// (concurrently), keeping mention order.
func (r *run) linkMentions(ctx context.Context) ([]linked, error) {
	resp, err := r.model.Generate(ctx, llm.Request{
		Messages: messages(extractPrompt(r.question)), N: 1, Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindExtract, Name: TaskExtract, Question: r.question},
	})
	if err != nil {
		return nil, fmt.Errorf("extract entities: %w", err)
	}
	mentions := llm.ParseLines(first(resp.Texts))
	if len(mentions) == 0 {
		r.warn(ctx, "no entity mention extracted from %q", first(resp.Texts))
		return nil, nil
	}
	results := make([][]linked, len(mentions))
	errs := make([]error, len(mentions))
	var wg sync.WaitGroup
	for i, m := range mentions {
		wg.Go(func() { results[i], errs[i] = r.linkMention(ctx, m) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

// linkMention searches a mention in every graph and asks the model which
// candidates it means (at most one per graph).
func (r *run) linkMention(ctx context.Context, mention string) ([]linked, error) {
	var opts []llm.Option
	byID := map[string]store.Candidate{}
	for _, g := range r.graphs {
		cands, err := r.kg.Search(ctx, g, mention, r.cfg.SearchLimit)
		if err != nil {
			return nil, fmt.Errorf("search %q in %s: %w", mention, g, err)
		}
		for _, c := range cands {
			if _, dup := byID[c.ID]; !dup {
				byID[c.ID] = c
				opts = append(opts, llm.Option{ID: c.ID, Text: candidateText(c, len(r.graphs) > 1)})
			}
		}
	}
	if len(opts) == 0 {
		r.warn(ctx, "mention %q: no candidate in %v", mention, r.graphs)
		return nil, nil
	}
	ids, err := r.selectCandidates(ctx, mention, opts)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var out []linked
	for _, id := range ids {
		c := byID[id]
		if !slices.ContainsFunc(out, func(l linked) bool { return l.graph == c.Graph }) {
			out = append(out, linked{entity: c.Entity, graph: c.Graph})
		}
	}
	return out, nil
}

// selectCandidates asks the model to match a mention; a malformed reply or
// "none" is a warning and links nothing.
func (r *run) selectCandidates(ctx context.Context, mention string, opts []llm.Option) ([]string, error) {
	resp, err := r.model.Generate(ctx, llm.Request{
		Messages: messages(linkPrompt(r.question, mention, opts, len(r.graphs))), N: 1,
		Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindSelect, Name: TaskLink, Question: r.question, Context: mention,
			Options: opts, Pick: len(r.graphs)},
	})
	if err != nil {
		return nil, fmt.Errorf("link mention %q: %w", mention, err)
	}
	ids, err := llm.ParseSelection(first(resp.Texts), opts, 0)
	if err != nil {
		r.warn(ctx, "mention %q: %v", mention, err)
		return nil, nil
	}
	if len(ids) == 0 {
		r.warn(ctx, "mention %q: the model matched no candidate", mention)
	}
	return ids, nil
}

// candidateText describes a search candidate as a link option.
func candidateText(c store.Candidate, multi bool) string {
	s := flat(c.Label)
	if s == "" {
		s = c.ID
	}
	if d := flat(c.Description); d != "" {
		s += " - " + d
	}
	if multi {
		s += " [" + c.Graph + "]"
	}
	return s
}

// linkAcross links the given local entities into the query's other KGs
// through KG.SameAs (only when the query uses several KGs).
func (r *run) linkAcross(ctx context.Context, g *subgraph.Graph, ids []string) error {
	if len(r.graphs) < 2 {
		return nil
	}
	for _, id := range ids {
		e, ok := g.Entity(id)
		if !ok || e.Literal {
			continue
		}
		links, err := r.kg.SameAs(ctx, id, "")
		if err != nil {
			return fmt.Errorf("link %s into other graphs: %w", id, err)
		}
		for _, l := range links {
			if slices.Contains(r.graphs, l.Graph) && !slices.Contains(e.Graphs, l.Graph) {
				g.AddLink(id, l.Target, l.Graph, l.Via)
			}
		}
	}
	return nil
}

// first returns the first text of a response, "" when there is none.
func first(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}
