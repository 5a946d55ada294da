package metric

import "strings"

// goldSet returns the distinct non-empty normal forms of golds, in order.
// Golds that normalise to "" (an empty label, or just "The") are dropped:
// the empty string is a substring of every answer and would score any
// prediction as correct.
func goldSet(golds []string) []string {
	out := make([]string, 0, len(golds))
	for _, g := range golds {
		n := Normalize(g)
		if n == "" || contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// EMIn is Exact Match Included, the Tree-of-Traversals metric: a gold answer
// counts as found when its normal form is a substring of the normal form of
// the prediction, and with several gold answers the score is the fraction
// found, over the distinct normal forms of the golds. So "Alice, Bob and
// Carol" scores 1 against golds {Alice, Bob, Carol} and 2/3 against {Alice,
// Bob, Dave}. Being a substring test it also credits "12" inside "2012".
// The one exception is a boolean gold, "Yes" or "No": it must occur as a
// whole word of the prediction, since as a substring "no" is inside
// "cannot", "unknown" and "not", and "yes" inside "yesterday".
// It returns 0 when there is no usable gold answer.
func EMIn(pred string, golds []string) float64 {
	set := goldSet(golds)
	if len(set) == 0 {
		return 0
	}
	p := Normalize(pred)
	var words []string
	found := 0
	for _, g := range set {
		if isBoolean(g) {
			if words == nil {
				words = strings.FieldsFunc(p, func(r rune) bool { return !isWord(r) })
			}
			if contains(words, g) {
				found++
			}
			continue
		}
		if strings.Contains(p, g) {
			found++
		}
	}
	return float64(found) / float64(len(set))
}

// isBoolean reports whether a normalised gold is a yes/no answer, which
// EMIn matches only as a whole word.
func isBoolean(g string) bool { return g == "yes" || g == "no" }

// EM is exact match: 1 when the normal form of the prediction equals the
// normal form of any gold answer, else 0.
func EM(pred string, golds []string) float64 {
	p := Normalize(pred)
	for _, g := range goldSet(golds) {
		if p == g {
			return 1
		}
	}
	return 0
}

// F1 is the SQuAD token F1: precision and recall of the multiset of
// normalised tokens of the prediction against each gold answer, the best
// over the golds. An empty prediction scores 0.
func F1(pred string, golds []string) float64 {
	p := strings.Fields(Normalize(pred))
	best := 0.0
	for _, g := range goldSet(golds) {
		best = max(best, tokenF1(p, strings.Fields(g)))
	}
	return best
}

func tokenF1(pred, gold []string) float64 {
	if len(pred) == 0 || len(gold) == 0 {
		return 0
	}
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := float64(same) / float64(len(pred))
	recall := float64(same) / float64(len(gold))
	return 2 * precision * recall / (precision + recall)
}

// Hits1 is Hits@1 over entity ids: 1 when the top-ranked id equals a gold
// id (Question.AnswerIDs), else 0. Ids are compared as written, without
// the answer-text normalisation, which would make distinct ids equal
// (Freebase's m.0_12 and m.012 differ only by punctuation).
func Hits1(ranked []string, golds []string) float64 {
	if len(ranked) == 0 {
		return 0
	}
	top := strings.TrimSpace(ranked[0])
	for _, g := range golds {
		if top != "" && top == strings.TrimSpace(g) {
			return 1
		}
	}
	return 0
}

// RougeL is the ROUGE-L F-measure (Lin, 2004) on normalised tokens: with L
// the length of the longest common subsequence of the prediction's and the
// gold's tokens, precision L/|pred|, recall L/|gold|, and their harmonic
// mean. It is 0 when either side has no tokens. No stemming is applied.
func RougeL(pred, gold string) float64 {
	p, g := tokens(pred), tokens(gold)
	if len(p) == 0 || len(g) == 0 {
		return 0
	}
	l := lcs(p, g)
	if l == 0 {
		return 0
	}
	precision := float64(l) / float64(len(p))
	recall := float64(l) / float64(len(g))
	return 2 * precision * recall / (precision + recall)
}

// lcs returns the length of the longest common subsequence of a and b, in
// O(len(a)*len(b)) time and O(len(b)) space.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
