package grounded

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store/literal"
)

// Task names: the Task.Name of every model call.
const (
	TaskAgentThought    = "grounded/agent-thought"
	TaskAgentAction     = "grounded/agent-action"
	TaskExploreThought  = "grounded/explore-thought"
	TaskExtract         = "grounded/extract"
	TaskPruneRelations  = "grounded/prune-relations"
	TaskPruneEntities   = "grounded/prune-entities"
	TaskPruneAttributes = "grounded/prune-attributes"
	TaskEnd             = "grounded/end"
	TaskDecide          = "grounded/decide"
	TaskScore           = "grounded/score"
	TaskSelect          = "grounded/select"
	TaskMerge           = "grounded/merge"
	TaskAnswer          = "grounded/answer"
)

// rank orders a level's states best first: CoT keeps its chain; Score
// rates every state not rated yet, concurrently (ties keep the level's
// order); Select has the model choose the T best in turn (choose).
func (r *run) rank(ctx context.Context, cands []*state) ([]*state, error) {
	if r.cfg.Strategy == CoT {
		return cands, nil
	}
	if r.cfg.Evaluator == Select {
		return r.choose(ctx, cands)
	}
	if err := r.score(ctx, cands); err != nil {
		return nil, err
	}
	ranked := slices.Clone(cands)
	slices.SortStableFunc(ranked, func(a, b *state) int { return cmp.Compare(b.value, a.value) })
	return ranked, nil
}

// choose is the Select evaluator: the model chooses the T states that go
// on, one vote round at a time. A round asks for votes for the best of the
// states not chosen yet (vote) and chooses the one with the most (the
// earliest on a tie); rounds go on while fewer than T are chosen and the
// rest do not all fit in the T, so a level makes at most T vote requests
// (one when it has T states or fewer: the best still has to be known). A
// round without a valid vote ends the choice. It returns the chosen
// states in the order chosen, then the others in the level's order.
func (r *run) choose(ctx context.Context, cands []*state) ([]*state, error) {
	var chosen []*state
	rest := slices.Clone(cands)
	for len(rest) >= 2 && len(chosen) < r.cfg.T && (len(chosen) == 0 || len(rest) > r.cfg.T-len(chosen)) {
		best, err := r.vote(ctx, rest)
		if err != nil {
			return nil, err
		}
		if best < 0 {
			break
		}
		chosen = append(chosen, rest[best])
		rest = slices.Delete(rest, best, best+1)
	}
	return append(chosen, rest...), nil
}

// score rates each unrated state with the Score Vote prompt.
func (r *run) score(ctx context.Context, cands []*state) error {
	return fanout.Run(ctx, len(cands), 0, func(ctx context.Context, i int) error {
		s := cands[i]
		if s.evaluated {
			return nil
		}
		sctx := trace.WithNode(ctx, s.id)
		texts, err := generate(sctx, r.Evaluator, llm.Request{Messages: messages(scorePrompt(r.Question, s)), N: 1,
			Temperature: r.cfg.EvalTemperature, Task: llm.Task{Kind: llm.KindScore, Name: TaskScore,
				Question: r.Question, Context: s.evidence(), Candidate: candidateText(s, r.Question, maxCandidateFacts)}})
		if err != nil {
			return err
		}
		v, perr := llm.ParseScore(first(texts))
		if perr != nil {
			r.Warn(sctx, "score: %v", perr)
			s.problem = "evaluation failed: " + perr.Error()
		}
		s.value, s.evaluated = v, perr == nil
		r.updateNode(s)
		return nil
	})
}

// vote asks the evaluator Votes times for the best of cands (one request
// with n samples), sets each state's value to its share of the valid
// votes and returns the index of the state with the most (the earliest on
// a tie), or -1 when no vote was valid.
func (r *run) vote(ctx context.Context, cands []*state) (int, error) {
	shared := sharedSteps(cands)
	opts := make([]llm.Option, len(cands))
	for i, s := range cands {
		opts[i] = llm.Option{ID: strconv.Itoa(i + 1),
			Text: candidateTextFrom(s, shared, r.Question, chainFacts(len(cands)))}
	}
	temp := r.cfg.EvalTemperature
	if r.cfg.Votes > 1 {
		temp = r.cfg.Temperature
	}
	vctx := trace.WithNode(ctx, cands[0].parents[0].id)
	texts, err := generate(vctx, r.Evaluator, llm.Request{
		Messages: messages(selectPrompt(r.Question, cands[0].withSteps(shared).chainText(), opts)),
		N:        r.cfg.Votes, Temperature: temp, Task: llm.Task{Kind: llm.KindVote, Name: TaskSelect,
			Question: r.Question, Options: opts}})
	if err != nil {
		return -1, err
	}
	counts := make([]int, len(cands))
	valid := 0
	for i, t := range texts {
		id, err := llm.ParseVote(t, opts)
		if err != nil {
			r.Warn(vctx, "vote %d: %v", i+1, err)
			continue
		}
		n, _ := strconv.Atoi(id)
		counts[n-1]++
		valid++
	}
	best := -1
	for i, s := range cands {
		s.votes, s.evaluated = counts[i], valid > 0
		s.value = 0
		if valid > 0 {
			s.value = float64(counts[i]) / float64(valid)
		}
		if valid > 0 && (best < 0 || counts[i] > counts[best]) {
			best = i
		}
		r.updateNode(s)
	}
	return best, nil
}

// candidateText is what the evaluators judge: the chain of thoughts with
// its actions and observations (an exploration step's as a count, see
// chainText), then at most max of the attributes and triples found
// (factsText), then the answer.
func candidateText(s *state, question string, max int) string {
	return candidateTextFrom(s, 0, question, max)
}

// candidateTextFrom is candidateText with the chain from step from on
// (the earlier steps are shown once for several candidates).
func candidateTextFrom(s *state, from int, question string, max int) string {
	var b strings.Builder
	b.WriteString(s.chainTextFrom(from))
	b.WriteString(factsText(slices.Concat(s.attributeLines(), s.tripleLines()), max, question))
	if s.done {
		b.WriteString("Answer: " + s.answer + "\n")
	}
	return b.String()
}

// sharedSteps is the number of first steps every state of ss has in
// common (the Select vote shows them once).
func sharedSteps(ss []*state) int {
	n := len(ss[0].steps)
	for _, s := range ss[1:] {
		p := 0
		for p < n && p < len(s.steps) && s.steps[p] == ss[0].steps[p] {
			p++
		}
		n = p
	}
	return n
}

// factsText renders fact lines under a "Knowledge triples" heading, at
// most max of them (rankLines), saying how many there are in all when it
// cuts.
func factsText(lines []string, max int, question string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	writeBounded(&b, "Knowledge triples", lines, max, question, "triples and attributes")
	return b.String()
}

// mergeThought asks for the next thought of the aggregation of a and b.
func (r *run) mergeThought(ctx context.Context, a, b *state) (string, error) {
	m := merged(a, b)
	texts, err := generate(ctx, r.Model, llm.Request{Messages: messages(mergePrompt(r.Question, a, b, m)), N: 1,
		Temperature: r.cfg.EvalTemperature, Stop: thoughtStops, Task: llm.Task{Kind: llm.KindFree, Name: TaskMerge,
			Question: r.Question, Context: candidateText(a, r.Question, chainFacts(2)) + "\n" +
				candidateText(b, r.Question, chainFacts(2))}})
	if err != nil {
		return "", err
	}
	th := parseThought(first(texts))
	if th == "" {
		r.Warn(ctx, "merge of #%d and #%d: empty thought in %q", a.id, b.id, literal.Clip(first(texts), 80))
	}
	return th, nil
}

// finalAnswer asks for the answer from the chain of s when no chain
// finished within the budget, and adds it as a child of s. The answer is
// never confident (see budgetDoubt).
func (r *run) finalAnswer(ctx context.Context, s *state, reason string) (trace.Answer, error) {
	id := r.Rec.AddNode(trace.Node{Parents: []int{s.id}, Depth: s.depth + 1, State: "answer", Action: "ANSWER"})
	actx := trace.WithNode(ctx, id)
	texts, err := generate(actx, r.Model, llm.Request{Messages: messages(answerPrompt(r.definition, r.Question, s)),
		N: 1, Temperature: r.cfg.EvalTemperature, Task: llm.Task{Kind: llm.KindAnswer, Name: TaskAnswer,
			Question: r.Question, Context: s.evidence(), Facts: s.facts()}})
	if err != nil {
		return trace.Answer{}, err
	}
	text, perr := llm.ParseAnswer(first(texts))
	if perr != nil {
		r.Warn(actx, "final answer: %v", perr)
	}
	a := &state{id: id, parents: []*state{s}, depth: s.depth + 1, sub: s.sub, answer: text, done: true,
		value: s.value, evaluated: s.evaluated}
	_ = r.Rec.UpdateNode(id, func(n *trace.Node) {
		n.Text, n.Answer, n.Terminal = text, perr == nil, true
		if perr != nil {
			n.Error = perr.Error()
		}
	})
	if perr != nil || reasoner.IsNonAnswer(text) {
		return trace.Answer{Found: false, Text: text, Node: id,
			Reason: "no answer: " + reason + " and the final answer gave none"}, nil
	}
	return budgetDoubt(r.result(a, reason+"; answered from the chain")), nil
}

// budgetDoubt makes an answer asked of the model after the budget not
// confident: where its check had passed, its Doubt says why, so that the
// trace does not report a failed check.
func budgetDoubt(a trace.Answer) trace.Answer {
	if a.Confident {
		a.Doubt = "answered from the chain after the budget"
	}
	a.Confident = false
	return a
}

// maxThought bounds, in runes, the model text a chain keeps and shows in
// every later prompt: a thought, an action's argument, an answer.
const maxThought = 600

// clipText shortens a one-line text to at most n runes: to its whole
// sentences that fit, else to its whole words that fit, marked by a final
// "…".
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := string(r[:n-3])
	end := -1
	for _, p := range []string{". ", "? ", "! "} {
		end = max(end, strings.LastIndex(head, p))
	}
	switch {
	case end >= len(head)/3:
		head = head[:end+1]
	case strings.LastIndexByte(head, ' ') > 0:
		head = head[:strings.LastIndexByte(head, ' ')]
	}
	return strings.TrimSpace(head) + "…"
}

// parseThought takes the thought out of a reply: without a "Thought N:"
// label and up to a line that starts an action, an observation or the next
// thought, clipped to maxThought runes (clipText).
func parseThought(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var keep []string
	for i, l := range lines {
		t := strings.TrimLeft(strings.TrimSpace(l), "*#>` ")
		if i == 0 || len(keep) == 0 {
			t = cutLabel(t, "thought", "next thought")
		} else if startsLabel(t, "action", "observation", "thought", "answer") {
			break
		}
		if t != "" {
			keep = append(keep, t)
		}
	}
	return clipText(flat(strings.Join(keep, " ")), maxThought)
}

// cutLabel removes a leading "Label:" or "Label N:".
func cutLabel(t string, labels ...string) string {
	for _, l := range labels {
		if len(t) >= len(l) && strings.EqualFold(t[:len(l)], l) {
			rest := strings.TrimLeft(t[len(l):], " \t*_`0123456789")
			if after, ok := strings.CutPrefix(rest, ":"); ok {
				return strings.TrimSpace(strings.TrimLeft(after, "*_` "))
			}
		}
	}
	return t
}

// startsLabel reports whether t starts with one of labels followed by a
// colon, optionally numbered ("Action 2:").
func startsLabel(t string, labels ...string) bool {
	return cutLabel(t, labels...) != t
}

// dedupe drops empty and repeated thoughts (case and spacing ignored),
// keeping sample order.
func dedupe(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		k := strings.ToLower(flat(t))
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// sampleThoughts sends a thought request and returns the distinct
// thoughts, warning about unusable samples.
func (r *run) sampleThoughts(ctx context.Context, prompt string, n int, task llm.Task) ([]string, error) {
	texts, err := generate(ctx, r.Model, llm.Request{Messages: messages(prompt), N: n,
		Temperature: r.cfg.Temperature, Stop: thoughtStops, Task: task})
	if err != nil {
		return nil, err
	}
	parsed := make([]string, len(texts))
	for i, t := range texts {
		if parsed[i] = parseThought(t); parsed[i] == "" {
			r.Warn(ctx, "thought sample %d is empty: %q", i+1, literal.Clip(t, 80))
		}
	}
	return dedupe(parsed), nil
}

// thoughtStops end a thought before the model writes the action.
var thoughtStops = []string{"\nAction", "\nObservation"}

// fmtList joins items as "a; b; c", or "(none)".
func fmtList(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	return strings.Join(items, "; ")
}
