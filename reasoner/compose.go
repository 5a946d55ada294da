package reasoner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner/trace"
)

// Method composition: "primary->fallback" specs and the Fallback reasoner.
//
// The Tree-of-Traversals paper falls back to Chain-of-Thought "when either
// no answer is provided after depth 7 or when one of the following phrases
// appears in the answer: 'determine', 'unable', 'cannot', 'unknown',
// 'unsure', or 'not possible'" (appendix E). NeedsFallback applies that rule
// to a trace's answer, and Fallback wraps two reasoners: it runs the
// primary and, when its answer needs a fallback, the secondary, returning
// one merged trace (the secondary's nodes, model and KG calls appended
// after the primary's with ids renumbered, totals summed, the secondary's
// answer). UsedFallback tells from a trace whether the fallback ran.

// nonAnswerPhrases mark a non-answer (the paper's appendix E).
var nonAnswerPhrases = [...]string{"determine", "unable", "cannot", "unknown", "unsure", "not possible"}

// IsNonAnswer reports whether an answer text is a non-answer: empty, or
// containing (case-insensitively) one of the paper's phrases
// 'determine', 'unable', 'cannot', 'unknown', 'unsure', 'not possible'.
func IsNonAnswer(text string) bool {
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	if t == "" {
		return true
	}
	for _, p := range nonAnswerPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// Settle is how the tree-search and graph-grounded result builders finish
// an answer (rtsog and the baselines test IsNonAnswer themselves, with
// reasons of their own): an answer whose text is a non-answer (see
// IsNonAnswer) is not found and not confident, and its reason says so; any
// other answer is returned as is.
func Settle(a trace.Answer) trace.Answer {
	if !a.Found || !IsNonAnswer(a.Text) {
		return a
	}
	a.Found, a.Confident = false, false
	r := "no answer: the answer given was a non-answer"
	if a.Reason != "" {
		r += " (" + a.Reason + ")"
	}
	a.Reason = r
	return a
}

// NeedsFallback reports whether a method's answer calls for the fallback:
// no answer was found, or the answer is a non-answer.
func NeedsFallback(a trace.Answer) bool { return !a.Found || IsNonAnswer(a.Text) }

// SpecSeparator joins a primary method and its fallback in a method spec.
const SpecSeparator = "->"

// ParseSpec splits a method spec "primary->fallback" ("tot->cot"; "→" is
// accepted too) into its two names; a plain name has no fallback.
func ParseSpec(spec string) (primary, fallback string, err error) {
	s := strings.ReplaceAll(strings.TrimSpace(spec), "→", SpecSeparator)
	primary, fallback, found := strings.Cut(s, SpecSeparator)
	primary, fallback = strings.TrimSpace(primary), strings.TrimSpace(fallback)
	switch {
	case primary == "":
		return "", "", fmt.Errorf("method spec %q: empty method name", spec)
	case found && fallback == "":
		return "", "", fmt.Errorf("method spec %q: empty fallback after %q", spec, SpecSeparator)
	case strings.Contains(fallback, SpecSeparator):
		return "", "", fmt.Errorf("method spec %q: only one fallback is allowed", spec)
	}
	return primary, fallback, nil
}

// SpecName is the canonical spelling of a spec ("tot->cot", or "tot").
func SpecName(primary, fallback string) string {
	if fallback == "" {
		return primary
	}
	return primary + SpecSeparator + fallback
}

// Build builds the reasoner named by spec: a registered method, or a
// Fallback pair for "primary->fallback". params gives each method's
// parameters by name (nil for none). `grove ask`, the server and `grove
// eval` all build methods this way, so compositions work alike in each.
func (r *Registry) Build(spec string, deps Deps, params func(method string) Params) (Reasoner, error) {
	primary, fallback, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = func(string) Params { return nil }
	}
	p, err := r.newMethod(primary, deps, params(primary))
	if err != nil || fallback == "" {
		return p, err
	}
	f, err := r.newMethod(fallback, deps, params(fallback))
	if err != nil {
		return nil, err
	}
	return NewFallback(SpecName(primary, fallback), fallback, p, f), nil
}

// Fallback runs a primary reasoner and, when its answer needs a fallback
// (NeedsFallback), a secondary one. It is safe for concurrent use when
// both reasoners are.
type Fallback struct {
	name     string
	fallback string
	primary  Reasoner
	second   Reasoner
}

var _ Reasoner = (*Fallback)(nil)

// NewFallback returns primary with fallback second; name is the method
// name recorded in traces ("tot->cot") and fallbackName the second's.
func NewFallback(name, fallbackName string, primary, second Reasoner) *Fallback {
	return &Fallback{name: name, fallback: fallbackName, primary: primary, second: second}
}

// FallbackWarning starts the trace warning that records a fallback.
const FallbackWarning = "fallback: "

// ParamFallback is the trace parameter naming the fallback method.
const ParamFallback = "fallback"

// Answer runs the primary and, if needed, the fallback. Errors of either
// are returned with the trace so far; a primary that fails is not
// rescued by the fallback (only a missing answer is).
func (f *Fallback) Answer(ctx context.Context, q Query) (*trace.Trace, error) {
	start := time.Now()
	first, err := f.primary.Answer(ctx, q)
	if err != nil {
		return f.rename(first), err
	}
	if first == nil {
		return nil, errors.New(f.name + ": the primary method returned no trace")
	}
	if !NeedsFallback(first.Answer) {
		return f.rename(first), nil
	}
	second, err := f.second.Answer(ctx, q)
	if second == nil {
		return f.rename(first), err
	}
	merged := f.merge(first, second, time.Since(start))
	if err != nil {
		return merged, fmt.Errorf("%s fallback: %w", f.name, err)
	}
	return merged, nil
}

// rename marks a primary-only trace with the pair's name.
func (f *Fallback) rename(t *trace.Trace) *trace.Trace {
	if t == nil {
		return nil
	}
	t = t.Clone()
	t.Method = f.name
	t.Params = withParam(t.Params, ParamFallback, f.fallback)
	return t
}

func withParam(p map[string]any, k string, v any) map[string]any {
	p = maps.Clone(p)
	if p == nil {
		p = map[string]any{}
	}
	p[k] = v
	return p
}

// merge appends second's records to first's, renumbering node ids and
// call sequence numbers, and takes second's answer.
func (f *Fallback) merge(first, second *trace.Trace, wall time.Duration) *trace.Trace {
	t := f.rename(first)
	reason := first.Answer.Reason
	if first.Answer.Found {
		reason = fmt.Sprintf("non-answer %q", first.Answer.Text)
	}
	off := len(t.Nodes)
	for i := range t.Nodes {
		t.Nodes[i].Chosen = false
	}
	for _, n := range second.Nodes {
		n = n.Clone()
		n.ID += off
		for i := range n.Parents {
			n.Parents[i] += off
		}
		n.Extra = withExtra(n.Extra, ParamFallback, f.fallback)
		n.Order = shiftOrder(n.Order, t.Totals.Expansions)
		t.Nodes = append(t.Nodes, n)
	}
	appendCalls(t, second, off)
	t.CacheSources = trace.CacheSources(t.ModelCalls)
	t.Warnings = append(t.Warnings, trace.Warning{Message: FallbackWarning + f.fallback + " ran because " + reason})
	a := second.Answer
	a.Entities = append([]string(nil), a.Entities...)
	a.Support = append(a.Support[:0:0], a.Support...)
	if a.Node > 0 {
		a.Node += off
	}
	a.Reason = "fallback to " + f.fallback + " (" + reason + "): " + a.Reason
	t.Answer = a
	t.Totals = addTotals(first.Totals, second.Totals)
	t.Totals.WallTime = wall
	if second.Error != "" {
		t.Error = second.Error
	}
	return t
}

func withExtra(m map[string]string, k, v string) map[string]string {
	m = maps.Clone(m)
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func shiftOrder(order, by int) int {
	if order == 0 {
		return 0
	}
	return order + by
}

// appendCalls appends second's model and KG calls and warnings to t,
// renumbering sequence numbers and node references.
func appendCalls(t, second *trace.Trace, off int) {
	node := func(id int) int {
		if id == 0 {
			return 0
		}
		return id + off
	}
	m := len(t.ModelCalls)
	for _, c := range second.ModelCalls {
		c = c.Clone()
		c.Seq += m
		c.Node = node(c.Node)
		t.ModelCalls = append(t.ModelCalls, c)
	}
	n := len(t.KGCalls)
	for _, c := range second.KGCalls {
		c = c.Clone()
		c.Seq += n
		c.Node = node(c.Node)
		t.KGCalls = append(t.KGCalls, c)
	}
	for _, w := range second.Warnings {
		w.Node = node(w.Node)
		t.Warnings = append(t.Warnings, w)
	}
}

// addTotals sums two runs' totals.
func addTotals(a, b trace.Totals) trace.Totals {
	return trace.Totals{
		ModelCalls: a.ModelCalls + b.ModelCalls, ModelErrors: a.ModelErrors + b.ModelErrors,
		Samples: a.Samples + b.Samples, PromptTokens: a.PromptTokens + b.PromptTokens,
		CompletionTokens: a.CompletionTokens + b.CompletionTokens, Tokens: a.Tokens + b.Tokens,
		CacheHits: a.CacheHits + b.CacheHits, CachedPromptTokens: a.CachedPromptTokens + b.CachedPromptTokens,
		CachedCompletionTokens: a.CachedCompletionTokens + b.CachedCompletionTokens, CachedTokens: a.CachedTokens + b.CachedTokens,
		CacheUnknownUsage: a.CacheUnknownUsage + b.CacheUnknownUsage, KGCalls: a.KGCalls + b.KGCalls, KGErrors: a.KGErrors + b.KGErrors,
		Nodes: a.Nodes + b.Nodes, Expansions: a.Expansions + b.Expansions,
		ModelTime: a.ModelTime + b.ModelTime, KGTime: a.KGTime + b.KGTime, WallTime: a.WallTime + b.WallTime,
	}
}

// UsedFallback reports whether t is the merged trace of a Fallback that
// ran its fallback method.
func UsedFallback(t *trace.Trace) bool {
	if t == nil {
		return false
	}
	for _, w := range t.Warnings {
		if w.Node == 0 && strings.HasPrefix(w.Message, FallbackWarning) {
			return true
		}
	}
	return false
}

// Check reports whether spec is well formed and names registered methods
// only, without building anything.
func (r *Registry) Check(spec string) error {
	primary, fallback, err := ParseSpec(spec)
	if err != nil {
		return err
	}
	names := r.Names()
	for _, n := range []string{primary, fallback} {
		if n != "" && !slices.Contains(names, n) {
			return fmt.Errorf("unknown reasoning method %q (registered: %v)", n, names)
		}
	}
	return nil
}
