package tot

import (
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Task names: the Task.Name of every model call, for traces, per-step
// statistics and scripted test models.
const (
	TaskExtract        = "tot/extract"
	TaskLink           = "tot/link"
	TaskAction         = "tot/action"
	TaskForceAnswer    = "tot/force-answer"
	TaskSelectEntities = "tot/select-entities"
	TaskSelectRelation = "tot/select-relation"
	TaskEvaluate       = "tot/evaluate"
	TaskEvaluateAnswer = "tot/evaluate-answer"
)

const systemPrompt = "You answer questions by exploring a knowledge graph step by step. " +
	"Always reply in exactly the format the current task asks for."

// messages wraps a user prompt with the system prompt.
func messages(user string) []llm.Message {
	return llm.Chat(systemPrompt, user)
}

// statePrompt is the part shared by every state's prompt: the question,
// the local graph and the action history, followed by the current task.
func statePrompt(question string, n *node, task string) string {
	var b strings.Builder
	writeQuestion(&b, question)
	writeGraph(&b, n.sub)
	b.WriteString("Previous actions:\n")
	if len(n.history) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, h := range n.history {
		b.WriteString("  " + h + "\n")
	}
	b.WriteString("\n" + task)
	return b.String()
}

func writeQuestion(b *strings.Builder, question string) {
	b.WriteString("Question:\n  " + flat(question) + "\n\n")
}

func writeGraph(b *strings.Builder, g *subgraph.Graph) {
	b.WriteString("Local knowledge graph:\n")
	g.WriteText(b, "  ")
	b.WriteString("\n")
}

// actionDescriptions explain the default-state actions.
var actionDescriptions = map[string]string{
	string(ActionThink): "write down a useful thought: a plan for the next step, or a well-known fact you remember.\n" +
		"    e.g. THINK: I need the director of the film first, then the director's birthplace.",
	string(ActionExpand): "fetch more edges of entities already in the knowledge graph; say what you are looking for.\n" +
		"    e.g. EXPAND_KG: I should look up the country of origin of Jonathon Taylor.",
	string(ActionSearch): "search the knowledge graph for an entity by its name and add it, when an entity the " +
		"question needs is missing or the graph holds the wrong one (say what distinguishes it).\n" +
		"    e.g. SEARCH_KG: Blade Runner (the 1982 film, not the video game)",
	string(ActionAnswer): "give the final answer once the graph supports it: only the answer, not a sentence.\n" +
		"    e.g. ANSWER: Harry Potter    or    ANSWER: [Harry Potter, Ron Weasley]    or    ANSWER: No",
}

// defaultTask is the current task of a default-state node.
func defaultTask(allowed []string) string {
	var b strings.Builder
	b.WriteString("You can search a knowledge graph for definitive, up-to-date facts. Your job is to work with it " +
		"until it holds what answers the question above; think carefully before acting or answering.\n\n")
	b.WriteString("Available actions:\n")
	for _, a := range allowed {
		fmt.Fprintf(&b, "  %s - %s\n", a, actionDescriptions[a])
	}
	b.WriteString("\nReply with one action: the action word first, then a colon and its text.\nNext action:")
	return b.String()
}

// forceAnswerTask is the current task at maximum depth.
func forceAnswerTask() string {
	return "The search has reached its depth limit: you must answer now, from the knowledge graph above and what " +
		"you know. State only the answer, not a sentence.\nReply as: ANSWER: <answer>\nNext action:"
}

// selectEntitiesTask is the current task of a selecting-entities node.
func selectEntitiesTask(goal string, opts []llm.Option) string {
	var b strings.Builder
	b.WriteString("Current task: EXPAND_KG needs the entity or entities to get more information about.")
	if goal != "" {
		b.WriteString(" The goal of this expansion: " + flat(goal))
	}
	b.WriteString("\nChoose among the entities of the knowledge graph:\n")
	for _, o := range opts {
		if o.Text == "" || o.Text == o.ID {
			fmt.Fprintf(&b, "  %s\n", o.ID)
		} else {
			fmt.Fprintf(&b, "  %s - %s\n", o.ID, o.Text)
		}
	}
	b.WriteString("Reply with the chosen ids, comma separated, most useful first, or \"none\".\nSelected entities:")
	return b.String()
}

// selectRelationTask is the current task of a selecting-relation node:
// each relation with its edge count and, once edges were fetched, how
// many the graph already shows (choosing it again fetches the next ones).
func selectRelationTask(n *node, opts []relOption, multi bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Current task: choose the relation to follow from the selected entities [%s].\n",
		strings.Join(n.sub.Names(n.selected), ", "))
	b.WriteString("The relations they have in the knowledge graph")
	if multi {
		b.WriteString(" (with the knowledge graph each belongs to)")
	}
	b.WriteString(":\n")
	for _, o := range opts {
		// The id follows a label; a relation without one is named by its
		// id already ("P102 (no label in the KG)").
		id := o.Rel.ID + ", "
		if !subgraph.HasLabel(o.Rel.ID, o.Rel.Label) {
			id = ""
		}
		fmt.Fprintf(&b, "  %s - %s (%s%d %s", o.ID, relationText(o, multi), id, o.Rel.Count, literal.Plural(o.Rel.Count, "edge"))
		if k := max(n.shown.Of(n.selected, o.Rel), inGraph(n, o.Rel)); k > 0 {
			if int64(k) >= o.Rel.Count {
				b.WriteString(", all in the graph already")
			} else {
				fmt.Fprintf(&b, ", %d in the graph already; choose it again for the next ones", k)
			}
		}
		b.WriteString(")\n")
	}
	b.WriteString("Edges are fetched most relevant to the question first. Reply with exactly one relation id from the " +
		"list (e.g. R1), or \"none\".\nSelected relation:")
	return b.String()
}

// inGraph is how many edges of rel from the selected entities the local
// graph holds, whichever selection of entities fetched them.
func inGraph(n *node, rel store.Relation) int {
	k := 0
	for _, id := range n.selected {
		k += n.sub.Count(subgraph.GroupKey{Anchor: id, Relation: rel.ID, Graph: rel.Graph, Dir: rel.Dir})
	}
	return k
}

// evaluateTask is the current task of the state-scoring prompt.
func evaluateTask() string {
	return "Current task: judge the knowledge graph and the actions so far. How likely is it that this line of " +
		"search leads to a correct answer to the question? Give a high score when the latest action brought " +
		"information towards the goal and followed from the thought before it; give a low score when it was " +
		"unhelpful.\nReply with one line: Score: X, where X is between 0.0 and 1.0 with one decimal."
}

// answerPrompt is the answer-scoring prompt (question, graph, answer).
func answerPrompt(question string, n *node) string {
	var b strings.Builder
	writeQuestion(&b, question)
	writeGraph(&b, n.sub)
	b.WriteString("Proposed answer: " + flat(n.text) + "\n\n")
	b.WriteString("Current task: judge how likely the proposed answer is to be correct, given the question and " +
		"the knowledge graph. Be pessimistic:\n" +
		"  0.0 if it is wrong, or the knowledge graph cannot support it\n" +
		"  0.5 if unsure\n" +
		"  0.7 if it is probably right but the knowledge graph does not confirm it\n" +
		"  1.0 if it is right and the knowledge graph confirms it\n" +
		"Reason step by step first, then end with a line: Score: X")
	return b.String()
}
