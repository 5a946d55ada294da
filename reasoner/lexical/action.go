package lexical

// The KindAction rules of the lexical policy.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
)

// lexicalAction picks the next action. Options with the Graph-CoT action
// words (Finish, RetrieveNode, NeighbourCheck) get the Graph-CoT rule
// (lexicalGraphCoT); otherwise:
//
//  1. ANSWER (if offered) with the answer of the best chain of the
//     Task's Facts, when there is a chain;
//  2. otherwise the first offered action starting with EXPAND (EXPAND_KG);
//  3. otherwise THINK, noting the question's content words;
//  4. otherwise ANSWER with the best guess ("unknown" when none);
//  5. otherwise the first offered action.
func lexicalAction(t llm.Task) (string, error) {
	if len(t.Options) == 0 {
		return "", fmt.Errorf("action task has no options")
	}
	if g := graphCoTOptions(t.Options); g.any() {
		return lexicalGraphCoT(t, g), nil
	}
	find := func(pred func(id string) bool) (string, bool) {
		for _, o := range t.Options {
			if pred(strings.ToUpper(o.ID)) {
				return o.ID, true
			}
		}
		return "", false
	}
	answer, canAnswer := find(func(id string) bool { return id == "ANSWER" })
	cand, found := answerCandidate(t)
	if canAnswer && found {
		return answer + ": " + cand, nil
	}
	if expand, ok := find(func(id string) bool { return strings.HasPrefix(id, "EXPAND") }); ok {
		return expand, nil
	}
	if think, ok := find(func(id string) bool { return id == "THINK" }); ok {
		return think + ": " + strings.TrimPrefix(lexicalFree(t), "Lexical baseline: "), nil
	}
	if canAnswer {
		return answer + ": unknown", nil
	}
	return t.Options[0].ID, nil
}

// graphCoT holds the offered Graph-CoT action ids ("" when not offered),
// in the options' spelling.
type graphCoT struct{ finish, retrieve, check string }

func (g graphCoT) any() bool { return g.finish != "" || g.retrieve != "" || g.check != "" }

// graphCoTOptions finds the Graph-CoT actions among opts, matched without
// case, blanks, '_' and '-' ("NeighborCheck" counts as NeighbourCheck).
func graphCoTOptions(opts []llm.Option) graphCoT {
	var g graphCoT
	for _, o := range opts {
		switch actionWord(o.ID) {
		case "finish":
			g.finish = o.ID
		case "retrievenode":
			g.retrieve = o.ID
		case "neighbourcheck":
			g.check = o.ID
		}
	}
	return g
}

// actionWord normalises an action word: lower case without blanks, '_'
// and '-', with NeighborCheck spelt NeighbourCheck.
func actionWord(s string) string {
	w := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
	if w == "neighborcheck" {
		return "neighbourcheck"
	}
	return w
}

// lexicalGraphCoT writes a Graph-CoT action with its bracketed arguments,
// reading the Question and the Task's Facts, Nodes, EdgeTypes and
// PreviousActions:
//
//  1. Finish[answer] when the best chain of the Facts is
//     complete (as for KindYesNo);
//  2. otherwise RetrieveNode[mention] for the first mention of the
//     question (as KindExtract finds them) not retrieved yet;
//  3. otherwise NeighbourCheck[node, edge type] for the first pair not
//     checked yet, nodes taken first from the ends of an incomplete best
//     chain (to walk one hop further), then from the listed nodes whose
//     names share terms with the question (most shared terms first, then
//     the larger share of the name), edge types from the listed edge types
//     and the edges' relations that share terms with the question (most
//     first, then in listed order);
//  4. otherwise Finish with the best (incomplete) chain's answer, or
//     Finish[unknown];
//  5. otherwise the first offered action.
//
// So a run retrieves the question's entities, checks their neighbours
// along the edge types the question names, and finishes.
func lexicalGraphCoT(t llm.Task, g graphCoT) string {
	ev := taskEvidence(t)
	a, q, found := evidenceAnswer(t.Question, ev)
	complete := found && len(a.missing(q, ev)) == 0
	if g.finish != "" && complete {
		return g.finish + "[" + a.text() + "]"
	}
	done := previousCalls(ev.actions)
	if g.retrieve != "" {
		for _, m := range extractMentions(t.Question) {
			if !done[callKey("retrievenode", m)] {
				return g.retrieve + "[" + m + "]"
			}
		}
	}
	if g.check != "" {
		var frontier []string
		if found && !complete {
			frontier = a.ends
		}
		if node, edge, ok := nextCheck(ev, q, frontier, done); ok {
			return g.check + "[" + node + ", " + edge + "]"
		}
	}
	switch {
	case g.finish != "" && found:
		return g.finish + "[" + a.text() + "]"
	case g.finish != "":
		return g.finish + "[unknown]"
	}
	return t.Options[0].ID
}

// callKey identifies an action call by its word and loosely compared
// arguments.
func callKey(word string, args ...string) string {
	parts := []string{actionWord(word)}
	for _, a := range args {
		parts = append(parts, normText(a))
	}
	return strings.Join(parts, "\x00")
}

// previousCalls reads "Word[args]" actions; two-argument actions are
// split at the last comma, as the Graph-CoT parser does.
func previousCalls(actions []string) map[string]bool {
	done := map[string]bool{}
	for _, a := range actions {
		i, j := strings.IndexByte(a, '['), strings.LastIndexByte(a, ']')
		if i <= 0 || j < i {
			continue
		}
		word, args := a[:i], a[i+1:j]
		done[callKey(word, args)] = true
		if k := strings.LastIndexByte(args, ','); k >= 0 {
			done[callKey(word, args[:k], args[k+1:])] = true
		}
	}
	return done
}

// nextCheck returns the first (node, edge type) pair not checked yet; see
// lexicalGraphCoT for the order.
func nextCheck(ev evidence, q query, frontier []string, done map[string]bool) (string, string, bool) {
	edges := questionEdgeTypes(ev, q)
	for _, n := range checkNodes(ev, q, frontier) {
		for _, e := range edges {
			if !done[callKey("neighbourcheck", n.id, e)] && !done[callKey("neighbourcheck", n.name, e)] {
				return n.id, e, true
			}
		}
	}
	return "", "", false
}

// checkNodes are the listed nodes named by frontier, then the listed
// nodes whose names share terms with the question, best first.
func checkNodes(ev evidence, q query, frontier []string) []graphNode {
	var out []graphNode
	add := func(n graphNode) {
		if !slices.ContainsFunc(out, func(o graphNode) bool { return o.id == n.id }) {
			out = append(out, n)
		}
	}
	for _, name := range frontier {
		if i := slices.IndexFunc(ev.nodes, func(n graphNode) bool { return normText(n.name) == normText(name) }); i >= 0 {
			add(ev.nodes[i])
		}
	}
	type scored struct {
		n      graphNode
		shared int
		share  float64
	}
	var named []scored
	for _, n := range ev.nodes {
		// A name shared by several nodes carries its id ("Psycho
		// (/en/psycho_1960)"); the id is no part of the name.
		nt := terms(strings.TrimSuffix(n.name, " ("+n.id+")"))
		if s := overlap(nt, q.all); s > 0 {
			named = append(named, scored{n, s, float64(s) / float64(len(nt))})
		}
	}
	rankByScore(named, func(s scored) (int, float64) { return s.shared, s.share })
	for _, s := range named {
		add(s.n)
	}
	return out
}

// questionEdgeTypes are the listed edge types and the edges' relations
// that share terms with the question, most shared terms first.
func questionEdgeTypes(ev evidence, q query) []string {
	type scored struct {
		name   string
		shared int
	}
	var out []scored
	add := func(name string) {
		s := overlap(terms(name), q.all)
		if s > 0 && !slices.ContainsFunc(out, func(o scored) bool { return normText(o.name) == normText(name) }) {
			out = append(out, scored{name, s})
		}
	}
	for _, e := range ev.edgeTypes {
		add(e)
	}
	for _, e := range ev.edges {
		add(e.p)
	}
	rankByScore(out, func(s scored) (int, float64) { return s.shared, 0 })
	names := make([]string, len(out))
	for i, s := range out {
		names[i] = s.name
	}
	return names
}
