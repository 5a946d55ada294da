package tot

import (
	"context"
	"fmt"
	"strconv"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/trace"
)

// run is the state of one Answer call.
type run struct {
	*reasoner.Session
	cfg Config

	// nodes are the valid search nodes in creation order.
	nodes      []*node
	answers    []*node
	expansions int
}

// search runs Algorithm 1 from the root and returns the trace answer.
func (r *run) search(ctx context.Context, topics []string) (trace.Answer, error) {
	root := &node{state: StateDefault}
	root.id = r.Rec.AddNode(trace.Node{State: string(StateDefault), Text: "initial local graph"})
	sub, err := r.initialize(trace.WithNode(ctx, root.id), topics)
	if err != nil {
		return trace.Answer{}, fmt.Errorf("initialize: %w", err)
	}
	root.sub = sub
	r.updateNode(root, nil)
	r.nodes = append(r.nodes, root)
	for r.expansions < r.cfg.MaxExpansions {
		if err := ctx.Err(); err != nil {
			return trace.Answer{}, err
		}
		s := r.choose()
		if s == nil {
			return r.result("the search tree is exhausted"), nil
		}
		done, err := r.expand(ctx, s)
		if err != nil {
			return trace.Answer{}, err
		}
		if done {
			return r.result("an answer scored above tau=" + strconv.FormatFloat(r.cfg.Tau, 'g', -1, 64)), nil
		}
	}
	return r.result(fmt.Sprintf("reached max expansions (%d)", r.cfg.MaxExpansions)), nil
}

// choose returns the unexpanded non-terminal node of highest value; ties
// go depth first (the paper's tie-breaker): to the deeper node, then to
// the later one, as a stack would. nil when none is left.
func (r *run) choose() *node {
	var best *node
	for _, n := range r.nodes {
		if n.expanded || n.state == StateDone {
			continue
		}
		if best == nil || n.value > best.value || (n.value == best.value && n.depth >= best.depth) {
			best = n
		}
	}
	return best
}

// expand samples actions at s, applies and evaluates them concurrently,
// and adds the valid children. It reports whether an answer passed tau.
func (r *run) expand(ctx context.Context, s *node) (bool, error) {
	r.expansions++
	s.expanded = true
	order := r.expansions
	_ = r.Rec.UpdateNode(s.id, func(t *trace.Node) { t.Order = order })
	r.Log.Debug("tot: expand", "order", order, "node", s.id, "state", s.state, "depth", s.depth, "value", s.value)
	sctx := trace.WithNode(ctx, s.id)
	props, err := r.sample(sctx, s)
	if err != nil {
		return false, err
	}
	if len(props) == 0 {
		r.Warn(sctx, "no valid action was sampled; the node is a dead end")
		return false, nil
	}
	children, err := r.applyAll(ctx, s, props)
	if err != nil {
		return false, err
	}
	done := false
	for _, c := range children {
		r.nodes = append(r.nodes, c)
		if c.state == StateDone {
			r.answers = append(r.answers, c)
			done = done || c.value > r.cfg.Tau
		}
	}
	return done, nil
}

// applyAll creates the children of s in the trace (in sample order), then
// transitions and evaluates them concurrently; the first failure cancels
// the others and is returned. It returns the valid children.
func (r *run) applyAll(ctx context.Context, s *node, props []proposal) ([]*node, error) {
	ids := make([]int, len(props))
	for i, p := range props {
		ids[i] = r.Rec.AddNode(trace.Node{Parents: []int{s.id}, Depth: s.depth + 1,
			State: string(next(s.state, p.action)), Action: string(p.action), Text: p.text})
	}
	children := make([]*node, len(props))
	err := fanout.Run(ctx, len(props), 0, func(ctx context.Context, i int) error {
		c, err := r.apply(trace.WithNode(ctx, ids[i]), s, props[i], ids[i])
		children[i] = c
		return err
	})
	if err != nil {
		return nil, err
	}
	var valid []*node
	for _, c := range children {
		if c != nil {
			valid = append(valid, c)
		}
	}
	return valid, nil
}

// apply transitions and evaluates one child; it returns nil for an
// invalid child (recorded in the trace).
func (r *run) apply(ctx context.Context, s *node, p proposal, id int) (*node, error) {
	c, invalid, err := r.transition(ctx, s, p)
	if err != nil {
		return nil, err
	}
	c.id = id
	if invalid != nil {
		r.Warn(ctx, "%v", invalid)
		_ = r.Rec.UpdateNode(id, func(t *trace.Node) { t.Terminal, t.Error = true, invalid.Error() })
		return nil, nil
	}
	evalErr, err := r.evaluate(ctx, c)
	if err != nil {
		return nil, err
	}
	if evalErr != nil {
		r.Warn(ctx, "%v", evalErr)
	}
	r.updateNode(c, evalErr)
	return c, nil
}

// updateNode copies n's search state into its trace node.
func (r *run) updateNode(n *node, evalErr error) {
	_ = r.Rec.UpdateNode(n.id, func(t *trace.Node) {
		t.Value, t.Evaluated = n.value, n.evaluated
		t.Terminal = n.state == StateDone
		t.Answer = n.state == StateDone
		if evalErr != nil {
			t.Error = evalErr.Error()
		}
		t.Extra = map[string]string{
			"entities": strconv.Itoa(n.sub.NumEntities()),
			"edges":    strconv.Itoa(n.sub.NumEdges()),
		}
		if len(n.selected) > 0 && n.state == StateSelectingRelation {
			t.Extra["selected"] = fmt.Sprint(n.selected)
		}
		if len(n.answerIDs) > 0 {
			t.Extra["answer_entities"] = fmt.Sprint(n.answerIDs)
		}
	})
}

// result is the highest-valued answer (the earliest among equals), or a
// "no answer" result when none was proposed.
func (r *run) result(stop string) trace.Answer {
	var best *node
	for _, a := range r.answers {
		if best == nil || a.value > best.value {
			best = a
		}
	}
	if best == nil {
		return trace.Answer{Found: false, Reason: "no answer: " + stop + " before any answer was proposed"}
	}
	return reasoner.Settle(trace.Answer{
		Found: true, Text: best.text, Entities: best.answerIDs, Value: best.value,
		Confident: best.value > r.cfg.Tau, Check: fmt.Sprintf("value above the threshold %.2f", r.cfg.Tau), Node: best.id, Reason: stop, Support: supportEdges(best),
		Names: best.sub.NamesFor(supportEdges(best)),
	})
}
