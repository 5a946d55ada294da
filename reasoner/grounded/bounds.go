package grounded

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Bounds of the lists one prompt carries (see "What the model sees" in
// the package doc). A cut list says how many it left out.
const (
	// maxPromptTriples and maxPromptAttributes bound the Knowledge
	// Triples and Entity Attributes sections of the thought, End?,
	// decision and final-answer prompts.
	maxPromptTriples    = 30
	maxPromptAttributes = 15
	// maxFound bounds the triples and attributes one exploration step's
	// observation lists.
	maxFound = 10
	// maxNotes bounds the page notes of one exploration step.
	maxNotes = 3
	// maxCandidateFacts bounds the facts of the one chain a Score prompt
	// shows; maxShownFacts those of all the chains a Select vote or a
	// Merge prompt shows, shared out evenly, at least minChainFacts each.
	maxCandidateFacts = 30
	maxShownFacts     = 40
	minChainFacts     = 3
)

// chainFacts is the share of maxShownFacts of each of n chains.
func chainFacts(n int) int { return max(minChainFacts, maxShownFacts/max(n, 1)) }

// rankLines returns at most max of lines, in their order, and how many it
// left out. It keeps the lines that share the most words with the question
// (hood.Similarity), then the latest (lines come in the order the chain
// found them, so the latest are the current step's).
func rankLines(lines []string, max int, question string) ([]string, int) {
	if len(lines) <= max {
		return lines, 0
	}
	q := hood.Terms(question)
	score := make([]float64, len(lines))
	idx := make([]int, len(lines))
	for i, l := range lines {
		score[i], idx[i] = hood.Similarity(q, l), i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	keep := idx[:max]
	slices.Sort(keep)
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = lines[k]
	}
	return out, len(lines) - max
}

// writeBounded writes a prompt section of at most max lines (rankLines):
// "Title:" then the lines, or, when cut, "Title (30 of 1,264, those
// sharing the most words with the question, then the latest):", the lines
// and "… and 1,234 more <what>".
func writeBounded(b *strings.Builder, title string, lines []string, max int, question, what string) {
	kept, more := rankLines(lines, max, question)
	if more == 0 {
		writeSection(b, title, lines)
		return
	}
	fmt.Fprintf(b, "%s (%d of %s, those sharing the most words with the question, then the latest):\n", title,
		len(kept), literal.Count(len(lines)))
	for _, l := range kept {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(b, "… and %s more %s\n", literal.Count(more), what)
}

// typeRelations are the relations from a node to its class: RDF's type,
// Grove's node type, the Freebase sample's bare "type" and Freebase's
// type.object.type, and Wikidata's "instance of" (P31).
var typeRelations = map[string]bool{store.RDFType: true, "rdf:type": true, store.GroveNodeType: true,
	"type": true, "type.object.type": true, "/type/object/type": true, "P31": true}

// isTypeEdge reports whether following rel in its direction leads from a
// node to its class. A class (/film/film, with 30,000 films) is kept as a
// fact of the node, never explored as a head entity: its members are not
// the question's neighbourhood.
func isTypeEdge(rel store.Relation) bool { return rel.Dir == store.Out && typeRelations[rel.ID] }
