package rtsog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// linked is a topic entity with the graph it is searched in.
type linked struct {
	entity store.Entity
	graph  string
}

// topicEntities returns the query's topic entities that are in one of the
// query's graphs (unknown ones are warnings), or, when none is given or
// none is usable, the entities linked from the question's mentions.
func (r *run) topicEntities(ctx context.Context, given []string) ([]linked, error) {
	if len(given) > 0 {
		found, err := r.lookup(ctx, given)
		if err != nil || len(found) > 0 {
			return found, err
		}
		r.warn(ctx, "none of the topic entities %v is usable; linking the question's mentions instead", given)
	}
	return r.linkMentions(ctx)
}

// lookup fetches the given ids, keeping those in a query graph.
func (r *run) lookup(ctx context.Context, ids []string) ([]linked, error) {
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
		i := slices.IndexFunc(e.Graphs, func(g string) bool { return slices.Contains(r.graphs, g) })
		if i < 0 {
			r.warn(ctx, "topic entity %q is in none of the graphs %v", id, r.graphs)
			continue
		}
		if !slices.ContainsFunc(out, func(l linked) bool { return l.entity.ID == e.ID }) {
			out = append(out, linked{entity: e, graph: e.Graphs[i]})
		}
	}
	return out, nil
}

// linkMentions has the policy model list the question's mentions, searches
// each in every query graph and has the policy model pick the matches
// (concurrently per mention), keeping mention order without duplicates.
func (r *run) linkMentions(ctx context.Context) ([]linked, error) {
	resp, err := r.policy.Generate(ctx, llm.Request{Messages: messages(extractPrompt(r.question)), N: 1,
		Temperature: r.cfg.EvalTemperature,
		Task:        llm.Task{Kind: llm.KindExtract, Name: TaskExtract, Question: r.question}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TaskExtract, err)
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
	var out []linked
	for _, l := range slices.Concat(results...) {
		if !slices.ContainsFunc(out, func(o linked) bool { return o.entity.ID == l.entity.ID }) {
			out = append(out, l)
		}
	}
	return out, nil
}

// linkMention searches one mention and lets the policy model choose among
// the candidates, at most one per graph. "none" or a malformed reply links
// nothing (with a warning).
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
	resp, err := r.policy.Generate(ctx, llm.Request{Messages: messages(linkPrompt(r.question, mention, opts)), N: 1,
		Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindSelect, Name: TaskLink, Question: r.question, Context: mention,
			Options: opts, Pick: len(r.graphs)}})
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", TaskLink, mention, err)
	}
	ids, err := llm.ParseSelection(first(resp.Texts), opts, 0)
	if err != nil {
		r.warn(ctx, "mention %q: %v", mention, err)
		return nil, nil
	}
	var out []linked
	for _, id := range ids {
		c := byID[id]
		if !slices.ContainsFunc(out, func(l linked) bool { return l.graph == c.Graph }) {
			out = append(out, linked{entity: c.Entity, graph: c.Graph})
		}
	}
	if len(out) == 0 {
		r.warn(ctx, "mention %q: the model matched no candidate", mention)
	}
	return out, nil
}

// candidateText describes a search candidate as a link option.
func candidateText(c store.Candidate, multi bool) string {
	s := flat(c.Name())
	if d := flat(c.Description); d != "" {
		s += " - " + d
	}
	if multi {
		s += " [" + c.Graph + "]"
	}
	return s
}

// decompose has the policy model write up to SubQuestions sub-questions
// (equation 1), recorded on the root. Fewer (or none) are a warning.
func (r *run) decompose(ctx context.Context) error {
	n := r.cfg.SubQuestions
	if n == 0 {
		return nil
	}
	names := make([]string, len(r.root.children))
	for i, t := range r.root.children {
		names[i] = name(t.entity, "")
	}
	resp, err := r.policy.Generate(ctx, llm.Request{Messages: messages(decomposePrompt(r.question, names, n)), N: 1,
		Temperature: r.cfg.Temperature,
		Task: llm.Task{Kind: llm.KindFree, Name: TaskDecompose, Question: r.question,
			Context: strings.Join(names, "\n")}})
	if err != nil {
		return fmt.Errorf("%s: %w", TaskDecompose, err)
	}
	r.subs = parseSubQuestions(first(resp.Texts), n)
	if len(r.subs) < n {
		r.warn(ctx, "decomposition gave %d of %d sub-questions", len(r.subs), n)
	}
	if len(r.subs) > 0 {
		_ = r.rec.UpdateNode(r.root.id, func(t *trace.Node) { setExtra(t, "subquestions", strings.Join(r.subs, " | ")) })
	}
	return nil
}

// subLabels are prefixes models put before a sub-question.
var subLabels = []string{"sub-question", "subquestion", "sub question", "question", "step", "q"}

// parseSubQuestions reads up to max sub-questions, one per line: list
// markers, markdown and quotes are removed (llm.ParseLines), as are labels
// such as "Sub-question 2:" or "Q1." and lines that are only a label.
func parseSubQuestions(text string, max int) []string {
	var out []string
	for _, l := range llm.ParseLines(text) {
		l = flat(stripSubLabel(l))
		if l == "" || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, l) }) {
			continue
		}
		out = append(out, l)
		if len(out) == max {
			break
		}
	}
	return out
}

// stripSubLabel removes a leading "<label> <number>:" (or "." or ")").
func stripSubLabel(l string) string {
	for _, lab := range subLabels {
		if len(l) < len(lab) || !strings.EqualFold(l[:len(lab)], lab) {
			continue
		}
		rest := strings.TrimLeft(l[len(lab):], " #")
		digits := strings.TrimLeft(rest, "0123456789")
		if len(digits) == len(rest) && lab == "q" {
			continue
		}
		if d := strings.TrimLeft(digits, " *_`"); d != "" && strings.ContainsRune(":.)", rune(d[0])) {
			return strings.TrimLeft(d[1:], " *_`")
		}
	}
	return l
}
