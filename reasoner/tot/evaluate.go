package tot

import (
	"context"
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
)

// FailedEvalValue is the value of a node whose evaluation reply has no
// readable "Score:" line. It ranks such nodes below every scored one
// except those scored 0, and never lets an answer pass tau.
const FailedEvalValue = 0.0

// maxEvidence bounds the supporting edges quoted in an answer's Candidate.
const maxEvidence = 20

// evaluate scores n with the evaluator: the answer prompt for done nodes,
// the state prompt otherwise. Policies that read Task fields get the
// local graph as Context and, as Candidate, the answer followed by the
// edges that mention it, or the state's action history followed by the
// local graph. A model error is returned; an unparseable reply sets
// FailedEvalValue and is returned as evalErr.
func (r *run) evaluate(ctx context.Context, n *node) (evalErr, err error) {
	req := llm.Request{N: 1, Temperature: r.cfg.EvalTemperature}
	kg := kgContext(n)
	if n.state == StateDone {
		req.Messages = messages(answerPrompt(r.Question, n))
		req.Task = llm.Task{Kind: llm.KindScore, Name: TaskEvaluateAnswer, Question: r.Question,
			Context: kg, Candidate: answerCandidate(n), Facts: n.sub.Facts()}
	} else {
		req.Messages = messages(statePrompt(r.Question, n, evaluateTask()))
		req.Task = llm.Task{Kind: llm.KindScore, Name: TaskEvaluate, Question: r.Question,
			Context: kg, Candidate: strings.Join(n.history, "\n") + "\n" + kg, Facts: n.sub.Facts()}
	}
	resp, err := r.Evaluator.Generate(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Task.Name, err)
	}
	v, perr := llm.ParseScore(first(resp.Texts))
	if perr != nil {
		n.value = FailedEvalValue
		return fmt.Errorf("evaluation failed: %w", perr), nil
	}
	n.value, n.evaluated = v, true
	return nil, nil
}

// kgContext is the local graph as structured text for policies that read
// Task fields: the entities, then one "subject -> relation -> object" line
// per edge.
func kgContext(n *node) string {
	var b strings.Builder
	ents := n.sub.Expandable()
	ids := make([]string, len(ents))
	for i, e := range ents {
		ids[i] = e.ID
	}
	b.WriteString("Entities: " + strings.Join(n.sub.Names(ids), "; ") + "\n")
	for _, t := range n.sub.Triples() {
		b.WriteString(t + "\n")
	}
	return b.String()
}

// answerCandidate is the scored text of an answer: the answer, then the
// local-graph edges that mention the entities it names.
func answerCandidate(n *node) string {
	ev := n.sub.EdgeTriples(n.sub.EdgesAbout(n.answerIDs))
	if len(ev) > maxEvidence {
		ev = ev[:maxEvidence]
	}
	if len(ev) == 0 {
		return n.text
	}
	return n.text + "\nSupporting edges:\n" + strings.Join(ev, "\n")
}
