// Package action reads and writes the actions of the Graph-CoT agent
// (Jin et al., 2024), the interaction the graph-grounded reasoners of
// package grounded use in their agent mode:
//
//	RetrieveNode[keyword]           find the node a text names (KG.Search)
//	NodeFeature[node, feature]      a literal attribute of a node (KG.Features)
//	NeighbourCheck[node, edge type] the neighbours along an edge type (KG.Edges)
//	NodeDegree[node, edge type]     how many neighbours along it (KG.Degree)
//	Finish[answer]                  end the chain with an answer
//
// A reply is read with llm.ParseAction, so it follows the canonical
// llm.KindAction format (the action word first, on the first line) and
// real models' decoration is tolerated: a leading "Thought ..." line is
// skipped, an "Action 3:" label is dropped, the word is matched
// case-insensitively (the American "NeighborCheck" is accepted too) and the
// arguments may be written in brackets, parentheses or after a colon.
//
// Arguments are split by the action's arity: RetrieveNode and Finish take
// the whole bracket content as one argument (book titles and answer lists
// contain commas), the two-argument actions split at the last comma, since
// feature and edge-type names do not contain commas while node names may.
// Every error says what was wrong and how the action is written, because
// the agent shows it to the model as the step's observation.
package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
)

// Kind is an action word.
type Kind string

// The Graph-CoT actions.
const (
	RetrieveNode   Kind = "RetrieveNode"
	NodeFeature    Kind = "NodeFeature"
	NeighbourCheck Kind = "NeighbourCheck"
	NodeDegree     Kind = "NodeDegree"
	Finish         Kind = "Finish"
)

// neighborCheck is the American spelling the paper also uses.
const neighborCheck = "NeighborCheck"

// Spec describes an action for prompts and errors.
type Spec struct {
	Kind Kind
	// Args names the arguments in order.
	Args []string
	// Help says what the action does.
	Help string
}

// Usage is the action's written form with argument names:
// "NeighbourCheck[node, edge type]".
func (s Spec) Usage() string {
	return string(s.Kind) + "[" + strings.Join(s.Args, ", ") + "]"
}

var specs = []Spec{
	{RetrieveNode, []string{"keyword"}, "retrieves the nodes of the graph whose name best matches the keyword, with their ids"},
	{NodeFeature, []string{"node", "feature"}, "returns the value of the given feature (attribute) of the node"},
	{NeighbourCheck, []string{"node", "edge type"}, "lists the neighbours of the node along the given edge type"},
	{NodeDegree, []string{"node", "edge type"}, "counts the neighbours of the node along the given edge type"},
	{Finish, []string{"answer"}, "ends the task with the answer (names, not node ids)"},
}

// Specs returns the actions in prompt order.
func Specs() []Spec {
	out := make([]Spec, len(specs))
	copy(out, specs)
	return out
}

// SpecOf returns the spec of k.
func SpecOf(k Kind) (Spec, bool) {
	for _, s := range specs {
		if s.Kind == k {
			return s, true
		}
	}
	return Spec{}, false
}

// Action is one parsed action.
type Action struct {
	Kind Kind
	Args []string
}

// String writes the action in its canonical form: "NodeDegree[paper/1, author]".
func (a Action) String() string {
	return string(a.Kind) + "[" + strings.Join(a.Args, ", ") + "]"
}

// Arg returns argument i, "" when absent.
func (a Action) Arg(i int) string {
	if i < 0 || i >= len(a.Args) {
		return ""
	}
	return a.Args[i]
}

// ErrInvalid is wrapped by every Parse error.
var ErrInvalid = errors.New("invalid action")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// allowed are the action words llm.ParseAction accepts.
func allowed() []string {
	out := make([]string, 0, len(specs)+1)
	for _, s := range specs {
		out = append(out, string(s.Kind))
	}
	return append(out, neighborCheck)
}

// Parse reads an action from a model reply.
func Parse(reply string) (Action, error) {
	word, rest, err := llm.ParseAction(dropPreamble(reply), allowed())
	if err != nil {
		return Action{}, invalid("%v; write one of %s", err, usages())
	}
	k := Kind(word)
	if word == neighborCheck {
		k = NeighbourCheck
	}
	spec, _ := SpecOf(k)
	body, err := argumentText(rest, spec)
	if err != nil {
		return Action{}, err
	}
	args, err := splitArgs(body, spec)
	if err != nil {
		return Action{}, err
	}
	return Action{Kind: k, Args: args}, nil
}

// usages lists every action's written form.
func usages() string {
	u := make([]string, len(specs))
	for i, s := range specs {
		u[i] = s.Usage()
	}
	return strings.Join(u, ", ")
}

// dropPreamble removes leading blank and "Thought ..." lines and an
// "Action N:" label, which llm.ParseAction does not know.
func dropPreamble(reply string) string {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) {
		l := strings.TrimLeft(strings.TrimSpace(lines[i]), "*#>` ")
		if l != "" && !hasLabel(l, "thought") {
			break
		}
		i++
	}
	if i == len(lines) {
		return reply
	}
	lines[i] = cutNumberedLabel(strings.TrimSpace(lines[i]), "action")
	return strings.Join(lines[i:], "\n")
}

// hasLabel reports whether l starts with word (case-insensitive) followed
// by a non-letter.
func hasLabel(l, word string) bool {
	if len(l) < len(word) || !strings.EqualFold(l[:len(word)], word) {
		return false
	}
	if len(l) == len(word) {
		return true
	}
	c := l[len(word)]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// cutNumberedLabel turns "Action 3: X" (with markdown) into "X".
func cutNumberedLabel(l, word string) string {
	t := strings.TrimLeft(l, "*#>` ")
	if !hasLabel(t, word) {
		return l
	}
	r := strings.TrimLeft(t[len(word):], " \t*_`0123456789")
	if after, ok := strings.CutPrefix(r, ":"); ok {
		return strings.TrimLeft(after, " \t*_`")
	}
	return l
}

// argumentText extracts the text inside the brackets (or parentheses) that
// follow the action word, or the rest of the line in the colon form.
func argumentText(rest string, spec Spec) (string, error) {
	line, _, _ := strings.Cut(rest, "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return "", invalid("%s needs %s: write %s", spec.Kind, argNames(spec), spec.Usage())
	}
	open := line[0]
	closer := map[byte]byte{'[': ']', '(': ')'}[open]
	if closer == 0 {
		return line, nil
	}
	end := strings.LastIndexByte(line, closer)
	if end <= 0 {
		return "", invalid("%s: missing %q after the arguments in %q; write %s", spec.Kind, string(closer), line, spec.Usage())
	}
	return line[1:end], nil
}

func argNames(spec Spec) string {
	parts := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		parts[i] = article(a) + " " + a
	}
	return strings.Join(parts, " and ")
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// splitArgs splits body into the spec's arguments.
func splitArgs(body string, spec Spec) ([]string, error) {
	if len(spec.Args) == 1 {
		a := cleanArg(body)
		if a == "" {
			return nil, invalid("%s needs %s: write %s", spec.Kind, argNames(spec), spec.Usage())
		}
		return []string{a}, nil
	}
	i := strings.LastIndexByte(body, ',')
	if i < 0 {
		return nil, invalid("%s takes %d arguments separated by a comma, got %q: write %s",
			spec.Kind, len(spec.Args), strings.TrimSpace(body), spec.Usage())
	}
	args := []string{cleanArg(body[:i]), cleanArg(body[i+1:])}
	for j, a := range args {
		if a == "" {
			return nil, invalid("%s: the %s is empty in %q: write %s", spec.Kind, spec.Args[j], strings.TrimSpace(body), spec.Usage())
		}
	}
	return args, nil
}

// cleanArg trims blanks and every pair of surrounding quotes (an argument
// quoted twice loses both pairs), so that an argument of quotes alone is
// empty and the canonical form of a parsed action parses to the same
// arguments.
func cleanArg(s string) string {
	s = strings.TrimSpace(s)
	for stripped := true; stripped; {
		stripped = false
		for _, q := range []string{`"`, `'`, "`"} {
			if len(s) >= 2 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
				s, stripped = strings.TrimSpace(s[1:len(s)-1]), true
				break
			}
		}
	}
	return s
}
