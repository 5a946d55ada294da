package tot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// proposal is one parsed, distinct action sampled at a node.
type proposal struct {
	action Action
	text   string
	// ids are the entities of SELECT_ENTITIES.
	ids []string
	// rel is the relation of SELECT_RELATION.
	rel *relOption
}

// key identifies proposals that lead to the same state.
func (p proposal) key() string {
	switch p.action {
	case ActionSelectEntities:
		ids := slices.Sorted(slices.Values(p.ids))
		return string(p.action) + "\x00" + strings.Join(ids, "\x00")
	case ActionSelectRelation:
		return string(p.action) + "\x00" + p.rel.ID
	}
	return string(p.action) + "\x00" + strings.ToLower(flat(p.text))
}

// sample asks the model for the next actions of n by its state and returns
// at most K distinct valid ones, in sample order.
func (r *run) sample(ctx context.Context, n *node) ([]proposal, error) {
	switch n.state {
	case StateDefault:
		return r.sampleDefault(ctx, n)
	case StateSelectingEntities:
		return r.sampleEntities(ctx, n)
	case StateSelectingRelation:
		return r.sampleRelation(ctx, n)
	}
	return nil, fmt.Errorf("node %d: cannot expand state %s", n.id, n.state)
}

// generate sends one sampling request with n samples.
func (r *run) generate(ctx context.Context, prompt string, samples int, task llm.Task) ([]string, error) {
	resp, err := r.Model.Generate(ctx, llm.Request{Messages: messages(prompt), N: samples,
		Temperature: r.cfg.Temperature, Task: task})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", task.Name, err)
	}
	return resp.Texts, nil
}

// oversample is the number of samples for the selection states: 2k, or 1
// for a chain.
func (r *run) oversample() int {
	if r.cfg.K == 1 {
		return 1
	}
	return 2 * r.cfg.K
}

// distinct keeps the first K proposals with distinct keys.
func (r *run) distinct(ps []proposal) []proposal {
	seen := map[string]bool{}
	var out []proposal
	for _, p := range ps {
		if k := p.key(); !seen[k] && len(out) < r.cfg.K {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

func (r *run) sampleDefault(ctx context.Context, n *node) ([]proposal, error) {
	allowed := actionIDs(defaultActions(n, r.cfg.MaxDepth))
	name, task := TaskAction, defaultTask(allowed)
	if len(allowed) == 1 {
		name, task = TaskForceAnswer, forceAnswerTask()
	}
	opts := make([]llm.Option, len(allowed))
	for i, a := range allowed {
		opts[i] = llm.Option{ID: a, Text: actionDescriptions[a]}
	}
	texts, err := r.generate(ctx, statePrompt(r.Question, n, task), r.cfg.K, llm.Task{
		Kind: llm.KindAction, Name: name, Question: r.Question, Context: kgContext(n), Options: opts,
		Facts: n.sub.Facts()})
	if err != nil {
		return nil, err
	}
	var ps []proposal
	for i, t := range texts {
		p, err := parseDefault(t, allowed)
		if err != nil {
			r.Warn(ctx, "action sample %d: %v", i+1, err)
			continue
		}
		ps = append(ps, p)
	}
	return r.distinct(ps), nil
}

// parseDefault parses a default-state reply. THINK keeps its whole text up
// to a line that starts another action; ANSWER, SEARCH_KG and EXPAND_KG
// keep their first line. All but EXPAND_KG need a text.
func parseDefault(text string, allowed []string) (proposal, error) {
	a, rest, err := llm.ParseAction(text, allowed)
	if err != nil {
		return proposal{}, err
	}
	lines := strings.Split(rest, "\n")
	arg := flat(lines[0])
	if Action(a) == ActionThink {
		end := len(lines)
		for i := 1; i < len(lines); i++ {
			if _, _, err := llm.ParseAction(lines[i], allActions); err == nil {
				end = i
				break
			}
		}
		arg = flat(strings.Join(lines[:end], " "))
	}
	if arg == "" && Action(a) != ActionExpand {
		return proposal{}, fmt.Errorf("%s without text in %q", a, flat(text))
	}
	return proposal{action: Action(a), text: arg}, nil
}

// allActions are the default-state action words.
var allActions = []string{string(ActionThink), string(ActionExpand), string(ActionSearch), string(ActionAnswer)}

func (r *run) sampleEntities(ctx context.Context, n *node) ([]proposal, error) {
	ents := n.sub.Expandable()
	ids := make([]string, len(ents))
	for i, e := range ents {
		ids[i] = e.ID
	}
	var opts []llm.Option
	for i, name := range n.sub.Names(ids) {
		opts = append(opts, llm.Option{ID: ids[i], Text: name})
	}
	if len(opts) == 0 {
		r.Warn(ctx, "no entity to expand")
		return nil, nil
	}
	texts, err := r.generate(ctx, statePrompt(r.Question, n, selectEntitiesTask(n.goal, opts)), r.oversample(),
		llm.Task{Kind: llm.KindSelect, Name: TaskSelectEntities, Question: r.Question, Context: n.goal,
			Options: opts, Pick: len(opts)})
	if err != nil {
		return nil, err
	}
	var ps []proposal
	for _, ids := range r.selections(ctx, "entity", texts, opts, 0) {
		ps = append(ps, proposal{action: ActionSelectEntities, ids: ids, text: strings.Join(ids, ", ")})
	}
	return r.distinct(ps), nil
}

func (r *run) sampleRelation(ctx context.Context, n *node) ([]proposal, error) {
	rels, err := r.relationOptions(ctx, n.selected)
	if err != nil {
		return nil, err
	}
	if len(rels) == 0 {
		r.Warn(ctx, "the selected entities %v have no relation to follow", n.selected)
		return nil, nil
	}
	multi := len(r.Graphs) > 1
	opts := make([]llm.Option, len(rels))
	for i, o := range rels {
		opts[i] = llm.Option{ID: o.ID, Text: relationText(o, multi)}
	}
	texts, err := r.generate(ctx, statePrompt(r.Question, n, selectRelationTask(n, rels, multi)),
		r.oversample(), llm.Task{Kind: llm.KindSelect, Name: TaskSelectRelation, Question: r.Question,
			Context: n.goal, Options: opts, Pick: 1})
	if err != nil {
		return nil, err
	}
	var ps []proposal
	for _, ids := range r.selections(ctx, "relation", texts, opts, 1) {
		o := &rels[slices.IndexFunc(rels, func(o relOption) bool { return o.ID == ids[0] })]
		ps = append(ps, proposal{action: ActionSelectRelation, rel: o, text: relationText(*o, multi)})
	}
	return r.distinct(ps), nil
}

// selections parses the sampled selection replies, in sample order; a
// reply that selects nothing is a warning naming what was selected, and
// one that names ids besides the offered options it selects ("Q999, Q23")
// is a warning naming the ids ignored.
func (r *run) selections(ctx context.Context, what string, texts []string, opts []llm.Option, max int) [][]string {
	var out [][]string
	for i, t := range texts {
		ids, err := llm.ParseSelection(t, opts, max)
		if err != nil || len(ids) == 0 {
			r.Warn(ctx, "%s selection sample %d selects nothing: %s", what, i+1, why(err, t))
			continue
		}
		if bad := llm.Unoffered(t, opts); bad != "" {
			r.Warn(ctx, "%s selection sample %d %s (selected %s)", what, i+1, bad, strings.Join(ids, ", "))
		}
		out = append(out, ids)
	}
	return out
}

// why explains an empty selection.
func why(err error, text string) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("reply %q", flat(text))
}

// relationOptions lists the visible relations of ids in both directions
// within the query's graphs, numbered R1, R2, ... in the KG's order, those
// with a label first: the KG sorts by label, and an unlabelled relation
// (labelled "P102" by its id) would come before every labelled one.
func (r *run) relationOptions(ctx context.Context, ids []string) ([]relOption, error) {
	rels, err := r.KG.Relations(ctx, ids, store.Both)
	if err != nil {
		return nil, fmt.Errorf("relations of %v: %w", ids, err)
	}
	hood.Prefer(rels, func(r store.Relation) bool { return subgraph.HasLabel(r.ID, r.Label) })
	var out []relOption
	for _, rel := range rels {
		if rel.Hidden || rel.Count == 0 || !slices.Contains(r.Graphs, rel.Graph) {
			continue
		}
		out = append(out, relOption{ID: fmt.Sprintf("R%d", len(out)+1), Rel: rel})
	}
	return out, nil
}

// relationText is the option text of a relation: its label in the
// followed direction, tagged with its graph when several are in use.
func relationText(o relOption, multi bool) string {
	l := subgraph.RelText(o.Rel)
	if multi {
		l += " [" + o.Rel.Graph + "]"
	}
	return l
}
