package trace

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// maxRenderText bounds the characters of a node's text shown by Render.
const maxRenderText = 100

// Render writes t as readable text: a header, the search structure as a
// tree indented by depth (each line shows the node id, state, action and
// text, value, expansion order and flags; nodes on the chosen path are
// marked with "*"), the answer, the totals and the warnings. A node with
// several parents is drawn under its first one and lists the others.
func Render(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	renderHeader(bw, t)
	children := map[int][]int{}
	var roots []int
	for _, n := range t.Nodes {
		if len(n.Parents) == 0 {
			roots = append(roots, n.ID)
			continue
		}
		children[n.Parents[0]] = append(children[n.Parents[0]], n.ID)
	}
	for _, r := range roots {
		renderSubtree(bw, t, children, r, 0)
	}
	renderFooter(bw, t)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render trace: %w", err)
	}
	return nil
}

func renderHeader(w *bufio.Writer, t *Trace) {
	fmt.Fprintf(w, "%s: %s\n", t.Method, literal.OneLine(t.Question, 0))
	if len(t.Params) > 0 {
		keys := slices.Sorted(maps.Keys(t.Params))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%v", k, t.Params[k])
		}
		fmt.Fprintf(w, "params: %s\n", strings.Join(parts, " "))
	}
	if len(t.Graphs) > 0 {
		fmt.Fprintf(w, "graphs: %s\n", strings.Join(t.Graphs, ", "))
	}
	if len(t.TopicEntities) > 0 {
		fmt.Fprintf(w, "topic entities: %s\n", strings.Join(t.TopicEntities, ", "))
	}
}

// renderSubtree writes node id and its descendants (recursion depth is
// bounded by the methods' maximum search depth).
func renderSubtree(w *bufio.Writer, t *Trace, children map[int][]int, id, level int) {
	n, ok := t.Node(id)
	if !ok {
		return
	}
	w.WriteString(nodeLine(n, level))
	w.WriteByte('\n')
	for _, c := range children[id] {
		renderSubtree(w, t, children, c, level+1)
	}
}

// nodeLine formats one node at the given indentation level.
func nodeLine(n Node, level int) string {
	var b strings.Builder
	if n.Chosen {
		b.WriteString("* ")
	} else {
		b.WriteString("  ")
	}
	b.WriteString(strings.Repeat("  ", level))
	fmt.Fprintf(&b, "#%d", n.ID)
	if n.State != "" {
		fmt.Fprintf(&b, " [%s]", n.State)
	}
	switch {
	case n.Action != "" && n.Text != "":
		fmt.Fprintf(&b, " %s: %s", n.Action, literal.OneLine(n.Text, maxRenderText))
	case n.Action != "":
		fmt.Fprintf(&b, " %s", n.Action)
	case n.Text != "":
		fmt.Fprintf(&b, " %s", literal.OneLine(n.Text, maxRenderText))
	}
	if n.Evaluated {
		fmt.Fprintf(&b, "  value=%.2f", n.Value)
	}
	if n.Visits > 0 {
		fmt.Fprintf(&b, "  visits=%d", n.Visits)
	}
	if n.Order > 0 {
		fmt.Fprintf(&b, "  expanded #%d", n.Order)
	}
	if len(n.Parents) > 1 {
		fmt.Fprintf(&b, "  (also child of %s)", idList(n.Parents[1:]))
	}
	if n.Answer {
		b.WriteString("  (answer)")
	} else if n.Terminal {
		b.WriteString("  (terminal)")
	}
	if n.Error != "" {
		fmt.Fprintf(&b, "  error: %s", literal.OneLine(n.Error, maxRenderText))
	}
	return b.String()
}

func idList(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("#%d", id)
	}
	return strings.Join(parts, ", ")
}

// answerNote is what the footer says of a found answer beside its text:
// its node, its value when that node was evaluated, and the method's check
// with its outcome, each only where the method has it: " (value 0.91 at
// #12; value above the threshold 0.80: yes)", " (at #3)", "". An answer
// that passed its check but is in Doubt says both: "value above the
// threshold 0.80: yes, but the answer Q5 has no label in the KG: not
// confident".
func answerNote(t *Trace) string {
	a := t.Answer
	var parts []string
	if a.Node > 0 {
		at := fmt.Sprintf("at #%d", a.Node)
		if n, ok := t.Node(a.Node); ok && n.Evaluated {
			at = fmt.Sprintf("value %.2f %s", a.Value, at)
		}
		parts = append(parts, at)
	}
	switch {
	case a.Check != "" && a.Doubt != "":
		parts = append(parts, a.Check+": yes, but "+a.Doubt+": not confident")
	case a.Check != "":
		parts = append(parts, a.Check+": "+map[bool]string{true: "yes", false: "no"}[a.Confident])
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func renderFooter(w *bufio.Writer, t *Trace) {
	a := t.Answer
	switch {
	case a.Found:
		fmt.Fprintf(w, "answer: %s%s\n", literal.OneLine(a.Text, 0), answerNote(t))
	default:
		fmt.Fprintf(w, "answer: none\n")
	}
	if a.Reason != "" {
		fmt.Fprintf(w, "stopped: %s\n", a.Reason)
	}
	name := func(e store.Entity) string {
		if n, ok := a.Names[e.ID]; ok {
			return literal.OneLine(n, 0)
		}
		return e.Name()
	}
	for _, e := range a.Support {
		fmt.Fprintf(w, "  support: %s -> %s -> %s [%s]\n", name(e.Subject), e.RelationLabel, name(e.Object), e.Graph)
	}
	fmt.Fprintf(w, "model: %s\n", t.Model)
	if t.Evaluator != nil {
		fmt.Fprintf(w, "evaluator: %s\n", *t.Evaluator)
	}
	if len(t.ServedModels) > 0 {
		fmt.Fprintf(w, "the model server answered as: %s\n", strings.Join(t.ServedModels, ", "))
	}
	if t.Grove != "" {
		fmt.Fprintf(w, "grove: %s\n", t.Grove)
	}
	tt := t.Totals
	fmt.Fprintf(w, "totals: %d nodes, %d expansions, %d model calls (%d samples, %d tokens, %d cache hits%s), %d KG calls, wall %s\n",
		tt.Nodes, tt.Expansions, tt.ModelCalls, tt.Samples, tt.Tokens, tt.CacheHits, cachedTokens(tt), tt.KGCalls,
		tt.WallTime.Round(time.Microsecond))
	if f := t.ForeignCacheSources(); len(f) > 0 {
		fmt.Fprintf(w, "cache hits produced elsewhere than %s: %s\n", t.Model, llm.DescribeCacheSources(f))
	}
	if t.Error != "" {
		fmt.Fprintf(w, "error: %s\n", t.Error)
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintf(w, "warnings:\n")
		for _, wn := range t.Warnings {
			if wn.Node > 0 {
				fmt.Fprintf(w, "  #%d: %s\n", wn.Node, literal.OneLine(wn.Message, 0))
			} else {
				fmt.Fprintf(w, "  %s\n", literal.OneLine(wn.Message, 0))
			}
		}
	}
}

// cachedTokens describes the tokens the cache hits cost when they were
// produced ("" without cache hits).
func cachedTokens(tt Totals) string {
	if tt.CacheHits == 0 {
		return ""
	}
	s := fmt.Sprintf(" costing %d tokens when produced", tt.CachedTokens)
	if tt.CacheUnknownUsage > 0 {
		s += fmt.Sprintf(", %d of them of unknown usage", tt.CacheUnknownUsage)
	}
	return s
}
