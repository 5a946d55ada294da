package lexical

// Evidence and answer chains of the lexical policy.
//
// The policy reads the evidence from the Task's structured fields, never by
// parsing prompt text: Facts (the edges the prompt shows), Nodes (the
// entities an action may name by id), EdgeTypes (the relations an action
// may follow) and PreviousActions. Context and Candidate only contribute
// their words (terms), as prose.
//
// A chain is a walk over those edges that could answer the question: it
// starts at an anchor (an entity whose name shares with the question a
// term other than the answer type), follows edges in either direction whose relation shares a
// term with the question, and ends at an entity whose name shares none
// (the candidate answer). Every hop must cover a question term occurrence
// not covered yet, so "Which films did the director of Blade Runner
// direct?" (which names directing twice) needs two directing hops, and
// walks stay short. Chains are ranked by the question term occurrences
// they cover (anchor and intermediate names, relation labels), then by the
// share of the anchor's terms the question contains, then by length.

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/grove-kg/grove/reasoner/llm"
)

// triple is one edge of the evidence.
type triple struct{ s, p, o string }

// graphNode is an entity a reply may name by id.
type graphNode struct{ id, name string }

// evidence is what the policy read from a task.
type evidence struct {
	edges     []triple
	nodes     []graphNode
	edgeTypes []string
	actions   []string
	// terms are the terms of the facts and of the prose (Context and
	// Candidate): what the evidence states.
	terms termSet
}

// taskEvidence reads t's structured evidence; blank fields are dropped.
func taskEvidence(t llm.Task) evidence {
	ev := evidence{terms: termSet{}}
	addTerms := func(s string) {
		for w := range terms(s) {
			ev.terms[w] = struct{}{}
		}
	}
	for _, f := range t.Facts {
		tr := triple{flatText(f.Subject), flatText(f.Relation), flatText(f.Object)}
		if tr.s == "" || tr.p == "" || tr.o == "" {
			continue
		}
		ev.edges = append(ev.edges, tr)
		addTerms(tr.s + " " + tr.p + " " + tr.o)
	}
	for _, n := range t.Nodes {
		if id := strings.TrimSpace(n.ID); id != "" {
			ev.nodes = append(ev.nodes, graphNode{id: id, name: flatText(n.Name)})
		}
	}
	for _, e := range t.EdgeTypes {
		if e = flatText(e); e != "" {
			ev.edgeTypes = append(ev.edgeTypes, e)
		}
	}
	for _, a := range t.PreviousActions {
		if a = flatText(a); a != "" {
			ev.actions = append(ev.actions, a)
		}
	}
	addTerms(t.Context)
	addTerms(t.Candidate)
	return ev
}

func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

// normText compares names loosely: case and blank runs ignored.
func normText(s string) string { return strings.ToLower(flatText(s)) }

// ---------------------------------------------------------------------------
// Question

// query is a question's terms: all of them, and the number of occurrences
// a complete answer must cover (one occurrence of each answer-type term
// fewer: "films" in "Which films ..." names what the answer is, not a
// fact about it).
type query struct {
	all  termSet
	need map[string]int
	// total is the sum of need.
	total int
}

func analyse(question string) query {
	q := query{all: terms(question), need: map[string]int{}}
	for _, w := range words(question) {
		if utf8.RuneCountInString(w) > 1 && !stopWords[w] {
			q.need[stem(w)]++
		}
	}
	for t := range answerTypeTerms(question) {
		if q.need[t]--; q.need[t] <= 0 {
			delete(q.need, t)
		}
	}
	for _, n := range q.need {
		q.total += n
	}
	return q
}

// maxAnswerType bounds the words of an answer type ("film director").
const maxAnswerType = 2

// answerTypeTerms are the content words right after the question's first
// "which" or "what", up to the next stop word and at most maxAnswerType:
// "Which films did ..." -> films; "Which film directors directed ..." ->
// film, directors; "What is ..." -> none.
func answerTypeTerms(question string) termSet {
	ws := words(question)
	for i, w := range ws {
		if w != "which" && w != "what" {
			continue
		}
		set := termSet{}
		for _, x := range ws[i+1 : min(len(ws), i+1+maxAnswerType)] {
			if stopWords[x] || utf8.RuneCountInString(x) <= 1 {
				break
			}
			set[stem(x)] = struct{}{}
		}
		return set
	}
	return termSet{}
}

// coverage counts the question term occurrences covered by counts.
func (q query) coverage(counts map[string]int) int {
	n := 0
	for t, c := range counts {
		n += min(c, q.need[t])
	}
	return n
}

// ---------------------------------------------------------------------------
// Chains

// Bounds of the chain search.
const (
	maxChainHops  = 4
	maxChainSteps = 20000
)

// chain is a walk from an anchor to a candidate answer.
type chain struct {
	anchor string
	rels   []string
	// via are the entities between anchor and end.
	via []string
	end string
	// covered counts the terms of the anchor and intermediate names and of
	// the relations; cover is the question occurrences they cover.
	covered map[string]int
	cover   int
	// prec is the share of the anchor's terms found in the question.
	prec float64
}

// hopTo is an edge seen from one of its ends.
type hopTo struct {
	rel      string
	relTerms termSet
	to       string
}

// chainFinder walks the evidence graph; entities are keyed by normText.
type chainFinder struct {
	q      query
	adj    map[string][]hopTo
	names  map[string]string
	terms  map[string]termSet
	order  []string
	steps  int
	chains []chain
}

// findChains returns every chain of the edges, in discovery order.
func findChains(edges []triple, q query) []chain {
	f := &chainFinder{q: q, adj: map[string][]hopTo{}, names: map[string]string{}, terms: map[string]termSet{}}
	for _, e := range edges {
		rt := terms(e.p)
		if overlap(rt, q.all) == 0 {
			continue
		}
		s, o := f.entity(e.s), f.entity(e.o)
		if s != o {
			f.adj[s] = append(f.adj[s], hopTo{rel: e.p, relTerms: rt, to: o})
			f.adj[o] = append(f.adj[o], hopTo{rel: e.p, relTerms: rt, to: s})
		}
	}
	for _, k := range f.order {
		at := f.terms[k]
		covered := addTerms(nil, at)
		if cover := q.coverage(covered); cover > 0 {
			f.walk(chain{anchor: f.names[k], covered: covered, cover: cover,
				prec: float64(overlap(at, q.all)) / float64(len(at))}, k, []string{k})
		}
	}
	return f.chains
}

func (f *chainFinder) entity(name string) string {
	k := normText(name)
	if _, ok := f.names[k]; !ok {
		f.names[k] = flatText(name)
		f.terms[k] = terms(name)
		f.order = append(f.order, k)
	}
	return k
}

// walk extends c from entity at; visited holds the entities of c.
func (f *chainFinder) walk(c chain, at string, visited []string) {
	for _, h := range f.adj[at] {
		if f.steps++; f.steps > maxChainSteps || slices.Contains(visited, h.to) {
			continue
		}
		covered := addTerms(c.covered, h.relTerms)
		cover := f.q.coverage(covered)
		if cover <= c.cover {
			continue
		}
		next := chain{anchor: c.anchor, rels: append(slices.Clip(c.rels), h.rel), via: c.via, covered: covered,
			cover: cover, prec: c.prec}
		name := f.names[h.to]
		if overlap(f.terms[h.to], f.q.all) == 0 {
			done := next
			done.end = name
			f.chains = append(f.chains, done)
		}
		if len(next.rels) < maxChainHops && cover < f.q.total {
			next.covered = addTerms(covered, f.terms[h.to])
			next.via = append(slices.Clip(c.via), name)
			f.walk(next, h.to, append(slices.Clip(visited), h.to))
		}
	}
}

// addTerms returns a copy of counts with one more occurrence of each term.
func addTerms(counts map[string]int, ts termSet) map[string]int {
	out := make(map[string]int, len(counts)+len(ts))
	for t, n := range counts {
		out[t] = n
	}
	for t := range ts {
		out[t]++
	}
	return out
}

// better reports whether a ranks above b: more coverage, then a more
// precise anchor, then fewer hops.
func (a chain) better(b chain) bool {
	switch {
	case a.cover != b.cover:
		return a.cover > b.cover
	case a.prec != b.prec:
		return a.prec > b.prec
	}
	return len(a.rels) < len(b.rels)
}

// answer is the best chain and the ends of every chain parallel to it
// (same anchor, same relations, same coverage): the answers of a list
// question.
type answer struct {
	best chain
	ends []string
}

// bestAnswer ranks the chains; ok is false when there is none.
func bestAnswer(chains []chain) (answer, bool) {
	if len(chains) == 0 {
		return answer{}, false
	}
	best := chains[0]
	for _, c := range chains[1:] {
		if c.better(best) {
			best = c
		}
	}
	a := answer{best: best}
	seen := map[string]bool{}
	for _, c := range chains {
		k := normText(c.end)
		if c.anchor == best.anchor && c.cover == best.cover && slices.Equal(c.rels, best.rels) && !seen[k] {
			seen[k] = true
			a.ends = append(a.ends, c.end)
		}
	}
	return a, true
}

// text is the answer as a reply: the ends, comma separated.
func (a answer) text() string { return strings.Join(a.ends, ", ") }

// path renders the best chain for a reason: "Blade Runner -> directed by
// -> Ridley Scott".
func (a answer) path() string {
	var b strings.Builder
	b.WriteString(a.best.anchor)
	for i, r := range a.best.rels {
		b.WriteString(" -> " + r + " -> ")
		if i < len(a.best.via) {
			b.WriteString(a.best.via[i])
		} else {
			b.WriteString(a.best.end)
		}
	}
	return b.String()
}

// missing lists the question terms the evidence mentions that the chain
// leaves uncovered (as often as the question needs them), sorted.
func (a answer) missing(q query, ev evidence) []string {
	var out []string
	for t, n := range q.need {
		if _, mentioned := ev.terms[t]; mentioned && a.best.covered[t] < n {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// evidenceAnswer finds the best answer chain of a task's evidence.
func evidenceAnswer(question string, ev evidence) (answer, query, bool) {
	q := analyse(question)
	a, ok := bestAnswer(findChains(ev.edges, q))
	return a, q, ok
}

// answerCandidate is the answer of the task's facts, if any.
func answerCandidate(t llm.Task) (string, bool) {
	a, _, ok := evidenceAnswer(t.Question, taskEvidence(t))
	return a.text(), ok
}

// lexicalYesNo: with edges in the evidence (Candidate and Context), "Yes"
// when the best chain is complete (it covers every question term the
// evidence mentions, as often as the question uses it, answer-type terms
// once fewer); with prose only, "Yes" when the evidence contains at least
// half of the question's terms.
func lexicalYesNo(t llm.Task) string {
	ev := taskEvidence(t)
	if len(ev.edges) == 0 {
		return proseYesNo(t)
	}
	a, q, ok := evidenceAnswer(t.Question, ev)
	switch {
	case !ok:
		return "No\nNo edge leads from an entity of the question along a relation the question names."
	case len(a.missing(q, ev)) > 0:
		return fmt.Sprintf("No\nThe best path %s leaves %s uncovered.", a.path(), strings.Join(a.missing(q, ev), ", "))
	}
	return fmt.Sprintf("Yes\nThe path %s covers the question.", a.path())
}

// proseYesNo is the share rule for evidence without edges.
func proseYesNo(t llm.Task) string {
	q, c := terms(t.Question), terms(t.Candidate+"\n"+t.Context)
	n := overlap(q, c)
	if len(q) > 0 && float64(n) >= yesNoThreshold*float64(len(q)) {
		return fmt.Sprintf("Yes\nThe evidence contains %d of %d question terms.", n, len(q))
	}
	return fmt.Sprintf("No\nThe evidence contains only %d of %d question terms.", n, len(q))
}
