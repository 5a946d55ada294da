package rtsog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
)

// topicEntities returns the query's topic entities that are in one of the
// query's graphs (unknown ones are warnings), or, when none is given or
// none is usable, the entities linked from the question's mentions, and
// which of the two they are.
func (r *run) topicEntities(ctx context.Context, given []string) ([]link.Linked, subgraph.Start, error) {
	l := r.linker()
	if len(given) > 0 {
		found, err := l.Lookup(ctx, given)
		if err != nil || len(found) > 0 {
			return found, subgraph.StartTopic, err
		}
		r.Warn(ctx, "none of the topic entities %v is usable; linking the question's mentions instead", given)
	}
	found, err := l.Question(ctx, r.Question)
	return found, subgraph.StartLinked, err
}

// linker links mentions with the policy model.
func (r *run) linker() link.Linker {
	return link.Linker{KG: r.KG, Model: r.policy, Graphs: r.Graphs, SearchLimit: r.cfg.SearchLimit,
		Temperature: r.cfg.EvalTemperature, System: systemPrompt, Warn: r.Warn,
		Tasks: link.Tasks{Extract: TaskExtract, Select: TaskLink}, Shown: r.shown.addCandidates}
}

// relink is called once when every path from the topic entities has died
// out: the entities of each sub-question (the question itself when there
// are none) are linked again and those that are not topic entities yet
// become new topic nodes, so a wrong or missing first link does not end
// the search. It returns the number of topic nodes added.
func (r *run) relink(ctx context.Context) (int, error) {
	if r.relinked {
		return 0, nil
	}
	r.relinked = true
	texts := r.subs
	if len(texts) == 0 {
		texts = []string{r.Question}
	}
	added := 0
	var names []string
	for _, text := range texts {
		found, err := r.linker().Question(ctx, text)
		if err != nil {
			return added, fmt.Errorf("re-link %q: %w", text, err)
		}
		for _, l := range found {
			if slices.ContainsFunc(r.root.children, func(t *node) bool { return t.entity.ID == l.Entity.ID }) {
				continue
			}
			r.addTopic(l, subgraph.StartLinked)
			added++
			names = append(names, name(l.Entity, "")+" ("+l.Entity.ID+")")
		}
	}
	if added > 0 {
		r.root.exhausted = false
		r.Warn(ctx, "every path from the topic entities died out; re-linking the sub-questions added %s",
			strings.Join(names, ", "))
		_ = r.Rec.UpdateNode(r.root.id, func(t *trace.Node) { setExtra(t, "relinked", strings.Join(names, ", ")) })
	} else {
		r.Warn(ctx, "every path from the topic entities died out and re-linking the sub-questions found no new entity")
	}
	return added, nil
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
	resp, err := r.policy.Generate(ctx, llm.Request{Messages: messages(decomposePrompt(r.Question, names, n)), N: 1,
		Temperature: r.cfg.Temperature,
		Task: llm.Task{Kind: llm.KindFree, Name: TaskDecompose, Question: r.Question,
			Context: strings.Join(names, "\n")}})
	if err != nil {
		return fmt.Errorf("%s: %w", TaskDecompose, err)
	}
	r.subs = parseSubQuestions(first(resp.Texts), n)
	if len(r.subs) < n {
		r.Warn(ctx, "decomposition gave %d of %d sub-questions", len(r.subs), n)
	}
	if len(r.subs) > 0 {
		_ = r.Rec.UpdateNode(r.root.id, func(t *trace.Node) { setExtra(t, "subquestions", strings.Join(r.subs, " | ")) })
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
