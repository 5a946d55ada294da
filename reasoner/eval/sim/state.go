package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/llm"
)

// view is what the oracle reads from a Task.Context or Candidate: the
// (normalised) names of the entities it shows, taken from an "Entities:
// a; b" line and from "subject -> relation -> object" lines, the
// structured context Tree-of-Traversals hands to models.
type view struct{ names map[string]bool }

func readView(text string) view {
	v := view{names: map[string]bool{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "Entities:"); ok {
			for _, n := range strings.Split(rest, ";") {
				v.add(n)
			}
			continue
		}
		if parts := strings.Split(line, " -> "); len(parts) == 3 {
			v.add(parts[0])
			v.add(parts[2])
		}
	}
	return v
}

// add records a name, and the name without a trailing parenthesis
// ("John Smith (Q1)", "Paris (start time: 2003)").
func (v view) add(name string) {
	n := norm(name)
	if n == "" {
		return
	}
	v.names[n] = true
	if i := strings.LastIndex(n, " ("); i > 0 && strings.HasSuffix(n, ")") {
		v.names[n[:i]] = true
	}
}

func (v view) has(e Ent) bool {
	return (e.Label != "" && v.names[norm(e.Label)]) || (e.ID != "" && v.names[norm(e.ID)])
}

// reached reports, per hop, whether one of its new To entities is shown:
// entities met on earlier hops do not count (the films of the director of
// Blade Runner include Blade Runner, shown from the start).
func reached(g *Gold, v view) []bool {
	out := make([]bool, len(g.Hops))
	seen := map[string]bool{}
	for i, h := range g.Hops {
		for _, e := range h.From {
			seen[entKey(e)] = true
		}
		fresh := slices.DeleteFunc(slices.Clone(h.To), func(e Ent) bool { return seen[entKey(e)] })
		if len(fresh) == 0 {
			fresh = h.To
		}
		out[i] = slices.ContainsFunc(fresh, v.has)
		for _, e := range h.To {
			seen[entKey(e)] = true
		}
	}
	return out
}

func entKey(e Ent) string {
	if e.ID != "" {
		return e.ID
	}
	return norm(e.Label)
}

// nextHop is the first hop not reached (len(Hops) when all are).
func nextHop(rch []bool) int {
	if i := slices.Index(rch, false); i >= 0 {
		return i
	}
	return len(rch)
}

// goldsShown returns the gold answers the view shows.
func goldsShown(g *Gold, v view) []string {
	var out []string
	for _, a := range g.Answers {
		if v.names[norm(a)] {
			out = append(out, a)
		}
	}
	return out
}

// ready reports whether the shown graph answers the question: a gold
// answer is shown, or every hop was reached (answers that are not
// entity names, like 2Wiki's yes/no comparisons).
func ready(g *Gold, v view) bool {
	return len(goldsShown(g, v)) > 0 || nextHop(reached(g, v)) == len(g.Hops)
}

// answerText is the right answer given the view: the gold answers shown,
// else all gold answers.
func answerText(g *Gold, v view) string {
	if shown := goldsShown(g, v); len(shown) > 0 {
		return strings.Join(shown, ", ")
	}
	return strings.Join(g.Answers, ", ")
}

// wrongAnswer picks a shown name that is not a gold answer, "unknown"
// when there is none.
func wrongAnswer(g *Gold, v view, r *rand.Rand) string {
	var cands []string
	for n := range v.names {
		if metric.EMIn(n, g.Answers) == 0 && metric.EMIn(strings.Join(g.Answers, " "), []string{n}) == 0 {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return "unknown"
	}
	slices.Sort(cands)
	return cands[r.IntN(len(cands))]
}

// expandGoal is the oracle's EXPAND_KG text for the next hop, tagged
// "[hop N]" so that its selections can read which hop it meant.
func expandGoal(g *Gold, v view) string {
	i := min(nextHop(reached(g, v)), len(g.Hops)-1)
	h := g.Hops[i]
	var from []string
	for _, e := range h.From {
		if v.has(e) && len(from) < 3 {
			from = append(from, name(e))
		}
	}
	if len(from) == 0 && len(h.From) > 0 {
		from = append(from, name(h.From[0]))
	}
	return fmt.Sprintf("[hop %d] find the %s of %s", i+1, h.Relation, strings.Join(from, ", "))
}

func name(e Ent) string {
	if e.Label != "" {
		return e.Label
	}
	return e.ID
}

// action picks the next action: ANSWER when the graph shows the answer,
// else EXPAND_KG towards the next hop (else a forced guess); with
// probability 1-P one of the other offered actions instead (THINK, an
// aimless expansion, or a wrong answer).
func (o *Oracle) action(g *Gold, t llm.Task, r *rand.Rand) (string, error) {
	if len(t.Options) == 0 {
		return "", fmt.Errorf("action task has no options")
	}
	find := func(pred func(string) bool) (string, bool) {
		for _, op := range t.Options {
			if pred(strings.ToUpper(op.ID)) {
				return op.ID, true
			}
		}
		return "", false
	}
	answer, canAnswer := find(func(id string) bool { return id == "ANSWER" })
	expand, canExpand := find(func(id string) bool { return strings.HasPrefix(id, "EXPAND") })
	think, canThink := find(func(id string) bool { return id == "THINK" })
	v := readView(t.Context)
	wrong := answer + ": " + wrongAnswer(g, v, r)
	var ideal string
	switch {
	case canAnswer && ready(g, v):
		ideal = answer + ": " + answerText(g, v)
	case canExpand:
		ideal = expand + ": " + expandGoal(g, v)
	case canAnswer:
		ideal = wrong
	case canThink:
		ideal = think + ": I need to follow " + relationChain(g) + "."
	default:
		ideal = t.Options[0].ID
	}
	if o.right(r) {
		return ideal, nil
	}
	var alts []string
	if canThink && !strings.HasPrefix(ideal, think+":") {
		alts = append(alts, think+": Maybe the answer lies somewhere else.")
	}
	if canExpand && !strings.HasPrefix(ideal, expand+":") {
		alts = append(alts, expand+": look for more facts")
	}
	if canAnswer && wrong != ideal {
		alts = append(alts, wrong)
	}
	if len(alts) == 0 {
		return ideal, nil
	}
	return alts[r.IntN(len(alts))], nil
}

// score rates an answer by its EM-in against the gold answers, a state
// by its progress along the gold path and by whether its last action
// moved along it, plus Gaussian noise.
func (o *Oracle) score(g *Gold, t llm.Task, r *rand.Rand) string {
	var base float64
	if strings.Contains(t.Name, "answer") {
		base = metric.EMIn(firstLine(t.Candidate), g.Answers)
	} else {
		base = stateValue(g, t.Candidate)
	}
	v := min(1, max(0, base+o.cfg.Noise*r.NormFloat64()))
	return fmt.Sprintf("Simulated judgement.\nScore: %.2f", v)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// Intermediate-state values: base, plus progress along the path, plus or
// minus the judgement of the last action.
const (
	stateBase     = 0.25
	stateProgress = 0.5
	stateStep     = 0.15
)

// stateValue is the true value of an intermediate state shown as its
// action history followed by its local graph.
func stateValue(g *Gold, candidate string) float64 {
	v := readView(candidate)
	rch := reached(g, v)
	n := 0
	for _, ok := range rch {
		if ok {
			n++
		}
	}
	step := judgeLast(g, lastAction(candidate), nextHop(rch))
	return stateBase + stateProgress*float64(n)/float64(len(g.Hops)) + stateStep*float64(step)
}

// lastAction returns the last action line of a history (the lines before
// the "Entities:" line), skipping observations.
func lastAction(candidate string) string {
	last := ""
	for _, line := range strings.Split(candidate, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Entities:") {
			break
		}
		if line != "" && !strings.HasPrefix(line, "OBSERVATION") {
			last = line
		}
	}
	return last
}

// judgeLast is +1 when the action moved along the gold path, -1 when it
// moved away, 0 when it neither helped nor hurt (a thought).
func judgeLast(g *Gold, line string, next int) int {
	word, rest, _ := strings.Cut(line, ":")
	rest = strings.TrimSpace(rest)
	switch strings.TrimSpace(word) {
	case "EXPAND_KG":
		n, ok := hopTag(rest)
		if !ok {
			return 0
		}
		return sign(n == next+1)
	case "SELECT_ENTITIES":
		if next >= len(g.Hops) {
			return -1
		}
		return sign(selectsAny(rest, g.Hops[next].From))
	case "SELECT_RELATION":
		label := rest
		if i := strings.LastIndex(rest, " ("); i >= 0 {
			label = rest[:i]
		}
		for i := max(0, next-1); i <= min(next, len(g.Hops)-1); i++ {
			if norm(optionLabel(label)) == norm(g.Hops[i].Relation) {
				return 1
			}
		}
		return -1
	}
	return 0
}

func sign(good bool) int {
	if good {
		return 1
	}
	return -1
}

// selectsAny reports whether a SELECT_ENTITIES line ("id (label), id")
// names one of ents.
func selectsAny(list string, ents []Ent) bool {
	for _, item := range strings.Split(list, ", ") {
		id, label, _ := strings.Cut(strings.TrimSpace(item), " (")
		label = strings.TrimSuffix(label, ")")
		for _, e := range ents {
			if (e.ID != "" && id == e.ID) || (e.Label != "" && (norm(label) == norm(e.Label) || norm(id) == norm(e.Label))) {
				return true
			}
		}
	}
	return false
}

// vote picks the option with the best EM-in (a random one with
// probability 1-P).
func (o *Oracle) vote(g *Gold, t llm.Task, r *rand.Rand) (string, error) {
	if len(t.Options) == 0 {
		return "", fmt.Errorf("vote task has no options")
	}
	best, bestScore := 0, -1.0
	for i, op := range t.Options {
		if s := metric.EMIn(op.Text, g.Answers); s > bestScore {
			best, bestScore = i, s
		}
	}
	if !o.right(r) {
		best = r.IntN(len(t.Options))
	}
	return "Best: " + t.Options[best].ID, nil
}

// yesNo says whether the candidate (with its context) contains a gold
// answer, flipped with probability 1-P.
func (o *Oracle) yesNo(g *Gold, t llm.Task, r *rand.Rand) string {
	yes := metric.EMIn(t.Candidate, g.Answers) > 0
	if !o.right(r) {
		yes = !yes
	}
	if yes {
		return "Yes\nSimulated judgement."
	}
	return "No\nSimulated judgement."
}

// answer answers from the context when it shows the gold answers (right
// with probability P), else from memory (right with probability Recall).
func (o *Oracle) answer(g *Gold, t llm.Task, r *rand.Rand) string {
	v := readView(t.Context)
	if len(goldsShown(g, v)) > 0 {
		if o.right(r) {
			return "Answer: " + answerText(g, v)
		}
		return "Answer: " + wrongAnswer(g, v, r)
	}
	if r.Float64() < o.cfg.Recall {
		return "Answer: " + strings.Join(g.Answers, ", ")
	}
	return "Answer: unknown"
}
