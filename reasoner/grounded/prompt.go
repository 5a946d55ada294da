package grounded

import (
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/grounded/action"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
)

// The prompts follow the paper's prompt archive (appendix E): the same
// sections, in the same order, with the reply formats of the llm package's
// canonical Kinds. The {examples} sections hold one short, domain-neutral
// example each; the graph definition comes from package schema.

const systemPrompt = "You answer questions with the help of a knowledge graph. " +
	"Always reply in exactly the format the task asks for."

// messages wraps a user prompt with the system prompt.
func messages(user string) []llm.Message {
	return llm.Chat(systemPrompt, user)
}

// agentIntro is the Agent Step instruction.
func agentIntro() string {
	var b strings.Builder
	b.WriteString("Solve a question answering task with interleaving Thought, Interaction with Graph, Feedback from " +
		"Graph steps. In Thought step, you can think about what further information is needed, and In Interaction " +
		"step, you can get feedback from graphs with four functions:\n")
	for i, s := range action.Specs()[:4] {
		fmt.Fprintf(&b, "(%d) %s, which %s.\n", i+1, s.Usage(), s.Help)
	}
	b.WriteString("Finish the task with Finish[answer].\n" +
		"Nodes are named by their ids (as RetrieveNode and NeighbourCheck return them); edge types and features " +
		"are named as in the definition of the graph. You may take as many steps as necessary.\n\n")
	b.WriteString("Here is an example (from another graph):\n" + agentExample + "\n\n")
	b.WriteString("Please answer by providing node main feature (e.g., names) rather than node IDs.\n\n")
	return b.String()
}

const agentExample = `Question: When was the paper "Deep Sets" published?
Thought 1: I need to find the paper node first.
Action 1: RetrieveNode[Deep Sets]
Observation 1: Nodes matching "Deep Sets": paper/p17 (Deep Sets, exact match)
Thought 2: The publication year is a feature of the paper.
Action 2: NodeFeature[paper/p17, year]
Observation 2: The year of Deep Sets (paper/p17) is: 2017
Thought 3: The paper was published in 2017.
Action 3: Finish[2017]`

// agentPrompt is the agent prompt: instructions, graph definition,
// question and scratchpad, ending with the line to complete.
func agentPrompt(definition, question string, s *state, topics string, next string) string {
	var b strings.Builder
	b.WriteString(agentIntro())
	b.WriteString("Definition of the graph:\n" + definition + "\n\n")
	b.WriteString("Question: " + flat(question) + "\n")
	if topics != "" {
		b.WriteString("Topic nodes: " + topics + " (linked automatically; if one is not what the question means, " +
			"RetrieveNode finds the others)\n")
	}
	b.WriteString(s.chainText())
	b.WriteString(next)
	return b.String()
}

// exploreThoughtPrompt is the Search Thought prompt.
func exploreThoughtPrompt(definition, question string, s *state) string {
	var b strings.Builder
	b.WriteString("Given the previous thoughts, generate the next thought to answer the provided question.\n" +
		"Your end goal is to answer the question step by step. For context, you are also provided with some " +
		"knowledge triples from a knowledge base.\nFollow the format of the example to generate the next thought: " +
		"one sentence that names the entities it is about.\n\n")
	b.WriteString("Example:\nQuestion: Who wrote the book the film Blade Runner is based on?\n" +
		"Next Thought: I need the book the film Blade Runner is based on, then its author.\n\n")
	b.WriteString("Graph Definition:\n" + definition + "\n\n")
	b.WriteString("Question: " + flat(question) + "\n")
	writeBounded(&b, "Knowledge Triples", s.tripleLines(), maxPromptTriples, question, "triples")
	writeSection(&b, "Previous thoughts", s.thoughts())
	writeBounded(&b, "Related Entity Attributes", s.attributeLines(), maxPromptAttributes, question, "attributes")
	b.WriteString("Next Thought:")
	return b.String()
}

func writeSection(b *strings.Builder, title string, lines []string) {
	b.WriteString(title + ":\n")
	if len(lines) == 0 {
		b.WriteString("(none)\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
}

// extractPrompt is the Entity Extraction prompt, one entity per line.
func extractPrompt(text string) string {
	return "Given the provided text, extract the relevant entities that may appear in a knowledge base. " +
		"Return one entity per line, exactly as written in the text, or \"none\".\n\n" +
		"Example:\nText: Who directed the film Blade Runner, and was he born in England?\nRelevant Entities:\n" +
		"Blade Runner\nEngland\n\nText: " + flat(text) + "\nRelevant Entities:"
}

// pruneRelationsPrompt is the Prune Relations prompt; each relation shows
// its number of edges.
func pruneRelationsPrompt(question, entity string, opts []llm.Option, counts map[string]int64, width int) string {
	var lines strings.Builder
	for _, o := range opts {
		edges := "edges"
		if counts[o.ID] == 1 {
			edges = "edge"
		}
		fmt.Fprintf(&lines, "  %s: %s (%d %s)\n", o.ID, o.Text, counts[o.ID], edges)
	}
	return "From the given entity and relations, select only the relevant relations to answer the question. " +
		fmt.Sprintf("Select at most %d, most relevant first, by id, comma separated, or reply \"none\".\n\n", width) +
		"Question: " + flat(question) + "\nHead Entity: " + entity + "\nRelations:\n" + lines.String() +
		"Answer:"
}

// pruneEntitiesPrompt is the Prune entities prompt. The note says which
// part of the relation's tails is listed ("1-30 of 133, ranked by
// relevance to the question"); more offers the NEXT option.
func pruneEntitiesPrompt(question, head, relation, note string, opts []llm.Option, width int, more bool) string {
	next := ""
	if more {
		next = " The list is cut: add " + nextPage + " to see the next page of tail entities when the one that " +
			"helps may not be listed."
	}
	return "You are provided with a question, a head entity, a relation and tail entities from a knowledge base. " +
		fmt.Sprintf("Select the tail entities (at most %d) that help to answer the question, by their numbers in "+
			"brackets, comma separated, or reply \"none\".%s\n\n", width, next) +
		"Question: " + flat(question) + "\nHead Entity: " + head + "\nRelation: " + relation +
		"\nTail Entities (" + note + "):\n" + optionLines(opts) + "Relevant Entities:"
}

// pruneAttributesPrompt is the Search Attributes prompt.
func pruneAttributesPrompt(question, entity string, opts []llm.Option, width int) string {
	return "Is any of the attributes relevant to answer the question? " +
		fmt.Sprintf("Select at most %d attributes by the names in brackets, comma separated, or reply "+
			"\"none\".\n\n", width) +
		"Question: " + flat(question) + "\nEntity: " + entity + "\nAttributes:\n" + optionLines(opts) +
		"Relevant Attributes:"
}

// optionLines lists options as "[ID] text", one per line: the brackets
// keep an id apart from its text whatever either holds (a blank node id
// "_:film/6873" has a colon, a mediator's text "(actor: ...)" too). A text
// that starts with "ID: " (an attribute's "name: values") is shown once,
// and so is the id of one named by its id followed by subgraph.NoLabel
// ("[P18] (no label in the KG): Flag.svg").
func optionLines(opts []llm.Option) string {
	var b strings.Builder
	for _, o := range opts {
		text := strings.TrimPrefix(o.Text, o.ID+": ")
		if rest, ok := strings.CutPrefix(text, o.ID+" "+subgraph.NoLabel); ok {
			text = subgraph.NoLabel + rest
		}
		if text == "" || text == o.ID {
			b.WriteString("  [" + o.ID + "]\n")
		} else {
			b.WriteString("  [" + o.ID + "] " + text + "\n")
		}
	}
	return b.String()
}

// endPrompt is the Search End? prompt.
func endPrompt(question string, s *state) string {
	var b strings.Builder
	b.WriteString("You are provided with an original question, the associated subquestion thoughts and their " +
		"corresponding knowledge graph triples (head_entity -> relation -> tail_entity). Your task is to answer " +
		"whether it's sufficient for you to answer the original question (Yes or No). Reply Yes or No on the " +
		"first line, then the reason.\n\n")
	b.WriteString("Question: " + flat(question) + "\n")
	writeSection(&b, "Thoughts", s.thoughts())
	writeBounded(&b, "Knowledge Triples", s.tripleLines(), maxPromptTriples, question, "triples")
	writeBounded(&b, "Entity Attributes", s.attributeLines(), maxPromptAttributes, question, "attributes")
	b.WriteString("Answer:")
	return b.String()
}

// decidePrompt asks whether to answer now or continue (the last stage of
// an exploration step).
func decidePrompt(question string, s *state) string {
	var b strings.Builder
	b.WriteString("Question: " + flat(question) + "\n")
	writeSection(&b, "Thoughts", s.thoughts())
	writeBounded(&b, "Knowledge Triples", s.tripleLines(), maxPromptTriples, question, "triples")
	writeBounded(&b, "Entity Attributes", s.attributeLines(), maxPromptAttributes, question, "attributes")
	b.WriteString("\nIf the knowledge above answers the question, reply \"ANSWER: <answer>\" with only the answer " +
		"(names, not ids). Otherwise reply \"THINK\" to continue with another thought.\nNext action:")
	return b.String()
}

// scorePrompt is the Score Vote prompt.
func scorePrompt(question string, s *state) string {
	return "Generate a score for the given reasoning chain. The score represents the probability that the chain " +
		"will lead to the correct answer. The chains contain interleaved thoughts and related triples from a " +
		"knowledge base. Some chains may not be complete, but you need to judge the steps that are provided. The " +
		"score can be any floating number between 0 and 1. Reason briefly, then end with a line \"Score: X\".\n\n" +
		"Question: " + flat(question) + "\nThought Chain:\n" + candidateText(s, question, maxCandidateFacts) + "Score:"
}

// selectPrompt is the Selection Vote prompt. shared is the chain the
// choices have in common ("" when none), shown once before them.
func selectPrompt(question, shared string, opts []llm.Option) string {
	var b strings.Builder
	b.WriteString("Given a question, you need to select the possible chain of thought that may lead to the correct " +
		"answer with higher probability. You are provided with several choices with thoughts and related triples " +
		"from a knowledge base. Decide which choice is most promising to complete the task. Analyze each choice " +
		"in detail, then conclude in the last line: \"Best: s\", where s the integer id of the choice.\n\n")
	b.WriteString("Question: " + flat(question) + "\n")
	if shared != "" {
		b.WriteString("Steps every choice starts with:\n" + shared)
	}
	b.WriteString("Choices:\n")
	for _, o := range opts {
		fmt.Fprintf(&b, "Choice %s:\n%s\n", o.ID, strings.TrimSpace(o.Text))
	}
	b.WriteString("Answer:")
	return b.String()
}

// mergePrompt is the Graph of Thought Merge prompt.
func mergePrompt(question string, a, b, m *state) string {
	return "Generate the next thought for the merged chain of thoughts. You are provided with the question, two " +
		"chains of thoughts, and the corresponding merged chain of thought. Identify inconsistencies or errors " +
		"from the previous chains and provide the next thought for the merged chain: one sentence.\n\n" +
		"Question: " + flat(question) + "\n\nChain 1:\n" + candidateText(a, question, chainFacts(2)) +
		"\nChain 2:\n" + candidateText(b, question, chainFacts(2)) +
		"\nMerged Chain:\n" + m.chainText() + "\nNext Thought:"
}

// answerPrompt asks for the final answer from a chain that did not finish.
func answerPrompt(definition, question string, s *state) string {
	var b strings.Builder
	b.WriteString("Answer the question from the reasoning chain and the knowledge retrieved from the graph. Give " +
		"only the answer (names, not node ids); if the knowledge does not answer it, give your best answer, or " +
		"\"unknown\" if you have none. End with a line \"Answer: <answer>\".\n\n")
	b.WriteString("Definition of the graph:\n" + definition + "\n\n")
	b.WriteString("Question: " + flat(question) + "\n")
	b.WriteString(s.chainText())
	writeBounded(&b, "Knowledge Triples", s.tripleLines(), maxPromptTriples, question, "triples")
	writeBounded(&b, "Entity Attributes", s.attributeLines(), maxPromptAttributes, question, "attributes")
	b.WriteString("Answer:")
	return b.String()
}
