package rtsog

import (
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Task names: the Task.Name of every model call, for traces, per-step
// statistics and scripted test models.
const (
	TaskExtract        = "rtsog/extract"
	TaskLink           = "rtsog/link"
	TaskDecompose      = "rtsog/decompose"
	TaskSelectRelation = "rtsog/select-relations"
	TaskScoreRelation  = "rtsog/score-relation"
	TaskScorePath      = "rtsog/score-path"
	TaskScoreMore      = "rtsog/score-more"
	TaskEndOfSearch    = "rtsog/end-of-search"
	TaskStack          = "rtsog/stack"
	TaskAnswer         = "rtsog/answer"
)

const systemPrompt = "You answer questions by searching a knowledge graph along reasoning paths. " +
	"Always reply in exactly the format the current task asks for."

// messages wraps a user prompt with the system prompt.
func messages(user string) []llm.Message {
	return llm.Chat(systemPrompt, user)
}

// header writes the question and its sub-questions.
func header(b *strings.Builder, question string, subs []string) {
	b.WriteString("Question: " + flat(question) + "\n")
	if len(subs) > 0 {
		b.WriteString("Sub-questions:\n")
		for i, s := range subs {
			fmt.Fprintf(b, "  %d. %s\n", i+1, flat(s))
		}
	}
	b.WriteString("\n")
}

// subContext is the Task.Context of the value model's calls: the
// sub-questions, then the reasoning path so far.
func subContext(subs []string, path string) string {
	var b strings.Builder
	for _, s := range subs {
		b.WriteString(flat(s) + "\n")
	}
	if path != "" {
		b.WriteString("Reasoning path: " + path + "\n")
	}
	return b.String()
}

func decomposePrompt(question string, topics []string, n int) string {
	var b strings.Builder
	b.WriteString("Question: " + flat(question) + "\n")
	b.WriteString("Topic entities: " + strings.Join(topics, "; ") + "\n\n")
	fmt.Fprintf(&b, "Break the question into at most %d simpler sub-questions that, answered in turn starting from "+
		"the topic entities, answer the whole question. Write one sub-question per line and nothing else.\n"+
		"Sub-questions:", n)
	return b.String()
}

func selectRelationsPrompt(question string, subs []string, n *node, rels []store.Relation, opts []llm.Option, width int) string {
	var b strings.Builder
	header(&b, question, subs)
	b.WriteString("Reasoning path so far: " + pathText(n) + "\n")
	b.WriteString("Current entity: " + currentEntity(n) + "\n\n")
	b.WriteString("Relations of the current entity:\n")
	for i, r := range rels {
		fmt.Fprintf(&b, "  %s: %s (%s, %s, %d %s)\n", opts[i].ID, opts[i].Text, r.ID, dirWord(r.Dir), r.Count,
			literal.Plural(r.Count, "edge"))
	}
	fmt.Fprintf(&b, "\nCurrent task: choose the relations most likely to lead to the answer of the question or of a "+
		"sub-question: as many as are relevant, at most %d. Reply with the chosen relation ids, comma separated, most "+
		"relevant first, or \"none\".\nSelected relations:", width)
	return b.String()
}

// currentEntity names n's entity in words followed by its id, unless the
// name already starts with the id (an entity without a label).
func currentEntity(n *node) string {
	text := name(n.entity, n.desc)
	if id := flat(n.entity.ID); !strings.HasPrefix(text, id) {
		text += " (" + id + ")"
	}
	return text
}

func scoreRelationPrompt(question string, subs []string, n *node, rel store.Relation) string {
	var b strings.Builder
	header(&b, question, subs)
	b.WriteString("Reasoning path so far: " + pathText(n) + "\n")
	fmt.Fprintf(&b, "Relation to follow next: %s (%s, %s)\n\n", label(rel), rel.ID, dirWord(rel.Dir))
	b.WriteString("Current task: rate how likely it is that following this relation from the current entity " +
		"helps answer the question or one of its sub-questions. Reason briefly, then end with a line: Score: X, " +
		"with X between 0.0 and 1.0.")
	return b.String()
}

func scorePathPrompt(question string, subs []string, path string) string {
	var b strings.Builder
	header(&b, question, subs)
	b.WriteString("Candidate reasoning path: " + path + "\n\n")
	b.WriteString("Current task: rate how likely it is that this reasoning path leads to the answer of the question " +
		"or of one of its sub-questions. Reason briefly, then end with a line: Score: X, with X between 0.0 and 1.0.")
	return b.String()
}

// scoreMorePrompt asks for the score of "more", the next page of a
// relation's tails: note says which tails were shown ("1-10 of 13,
// ranked by relevance to the question"), shown names them.
func scoreMorePrompt(question string, subs []string, n *node, rel store.Relation, note string, shown []string, more string) string {
	var b strings.Builder
	header(&b, question, subs)
	b.WriteString("Reasoning path so far: " + pathText(n) + "\n")
	fmt.Fprintf(&b, "Relation followed: %s (%s, %s)\n", label(rel), rel.ID, dirWord(rel.Dir))
	fmt.Fprintf(&b, "Tails shown (%s):\n", note)
	if len(shown) == 0 {
		b.WriteString("  (none new)\n")
	}
	for _, s := range shown {
		b.WriteString("  " + arrowSafe(s) + "\n")
	}
	b.WriteString("Option: " + more + "\n\n")
	b.WriteString("Current task: rate how likely it is that the tail this reasoning path needs is not among the tails " +
		"shown but among the next ones, so that the next tails should be shown. Reason briefly, then end with a " +
		"line: Score: X, with X between 0.0 and 1.0.")
	return b.String()
}

func endOfSearchPrompt(question, path string) string {
	var b strings.Builder
	header(&b, question, nil)
	b.WriteString("Reasoning path: " + path + "\n\n")
	b.WriteString("Current task: can the question be answered from this reasoning path, so that searching further " +
		"from its last entity is unnecessary? Reply Yes or No on the first line, then a short reason.")
	return b.String()
}

func stackPrompt(question string, subs, kept []string, path string, weight float64) string {
	var b strings.Builder
	header(&b, question, subs)
	b.WriteString("Reasoning paths kept so far:\n")
	if len(kept) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, k := range kept {
		b.WriteString("  " + k + "\n")
	}
	fmt.Fprintf(&b, "New reasoning path (weight %.2f): %s\n\n", weight, path)
	b.WriteString("Current task: given the paths kept so far, does the new path help derive the answer to the " +
		"question or to one of its sub-questions? Reply Yes or No on the first line, then a short reason.")
	return b.String()
}

func answerPrompt(question string, subs []string, paths []weighted, fallback bool) string {
	var b strings.Builder
	header(&b, question, subs)
	if fallback {
		b.WriteString("No path passed the check, so these are the retrieved paths unfiltered.\n")
	}
	b.WriteString("Reasoning paths from the knowledge graph, most reliable first:\n")
	if len(paths) == 0 {
		b.WriteString("  (none)\n")
	}
	for i, p := range paths {
		fmt.Fprintf(&b, "  %d. (weight %.2f) %s\n", i+1, p.weight, pathText(p.node))
		if len(p.node.alts) > 0 {
			b.WriteString("     other " + label(p.node.hop.rel) + ": " + altNames(p.node.alts) + "\n")
		}
		if p.node.hop != nil && p.node.total > 0 {
			fmt.Fprintf(&b, "     %s -> %s: %s\n", name(p.node.parent.entity, p.node.parent.desc), label(p.node.hop.rel),
				totalText(p.node.total, 1+len(p.node.alts)))
		}
	}
	b.WriteString("\nCurrent task: answer the question from these reasoning paths (use what you know only where " +
		"they fall short). Give only the answer, not a sentence; separate several answers with commas.\n" +
		"End with a line: Answer: <answer>")
	return b.String()
}

// totalText is "13 in all (10 listed)" or "3 in all".
func totalText(total int64, listed int) string {
	if total > int64(listed) {
		return fmt.Sprintf("%d in all (%d listed)", total, listed)
	}
	return fmt.Sprintf("%d in all", total)
}

func altNames(alts []candidate) string {
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = tailText(a)
	}
	return strings.Join(names, "; ")
}

func dirWord(d store.Direction) string {
	if d == store.In {
		return "incoming"
	}
	return "outgoing"
}
