package tot

import (
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// State is an action-state-machine state.
type State string

// The states of the action state machine.
const (
	StateDefault           State = "default"
	StateSelectingEntities State = "selecting-entities"
	StateSelectingRelation State = "selecting-relation"
	StateDone              State = "done"
)

// Action is an action of the action state machine.
type Action string

// The actions. THINK, EXPAND_KG, SEARCH_KG and ANSWER are offered in the
// default state; the selection actions are the replies of the two
// selection states. SEARCH_KG is Grove's addition to the paper's
// machine: it links a name again inside the search, so a wrong or missing
// entity link made before the search can be repaired by it.
const (
	ActionThink          Action = "THINK"
	ActionExpand         Action = "EXPAND_KG"
	ActionAnswer         Action = "ANSWER"
	ActionSearch         Action = "SEARCH_KG"
	ActionSelectEntities Action = "SELECT_ENTITIES"
	ActionSelectRelation Action = "SELECT_RELATION"
)

// next is the transition function of the state machine.
func next(s State, a Action) State {
	switch a {
	case ActionExpand:
		return StateSelectingEntities
	case ActionSelectEntities:
		return StateSelectingRelation
	case ActionAnswer:
		return StateDone
	}
	return StateDefault
}

// relOption is one relation offered in the selecting-relation state.
type relOption struct {
	// ID is the option id shown to the model ("R1").
	ID  string
	Rel store.Relation
}

// node is one search state.
type node struct {
	// id is the trace node id.
	id     int
	parent *node
	depth  int
	state  State
	action Action
	// text is the action's argument: thought, expansion goal, answer.
	text string
	// goal is the EXPAND_KG text in force during a selection.
	goal string
	// selected are the entities chosen for the pending expansion.
	selected []string
	// sub is the local graph; children share it unless they change it.
	sub *subgraph.Graph
	// history are the action lines shown in prompts.
	history []string
	// answerIDs are the local entities an answer names.
	answerIDs []string
	// shown counts, per entities+relation, the ranked edges already
	// fetched, so choosing the relation again fetches the next page.
	// Children share it until they change it (copy on write).
	shown hood.Shown

	value     float64
	evaluated bool
	expanded  bool
}

// child returns a child of n produced by action a with argument text.
func (n *node) child(a Action, text string) *node {
	return &node{parent: n, depth: n.depth + 1, state: next(n.state, a), action: a, text: text,
		goal: n.goal, selected: n.selected, sub: n.sub, history: slices.Clip(n.history), shown: n.shown}
}

// addHistory appends action lines.
func (n *node) addHistory(lines ...string) {
	n.history = append(slices.Clip(n.history), lines...)
}

// defaultActions returns the actions offered at a default-state node:
// only ANSWER at max depth; otherwise THINK (not twice in a row),
// EXPAND_KG (when there is an entity to expand), SEARCH_KG and ANSWER.
func defaultActions(n *node, maxDepth int) []Action {
	if n.depth >= maxDepth {
		return []Action{ActionAnswer}
	}
	var out []Action
	if n.action != ActionThink {
		out = append(out, ActionThink)
	}
	if len(n.sub.Expandable()) > 0 {
		out = append(out, ActionExpand)
	}
	return append(out, ActionSearch, ActionAnswer)
}

// actionIDs converts actions to the strings llm.ParseAction expects.
func actionIDs(as []Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}

// flat collapses whitespace runs to one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
