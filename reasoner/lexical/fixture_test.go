package lexical

import (
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
)

// The tests write evidence as text, one item per line, for readability:
// "Node: id | name", "Edge type: e", "Previous action: a", edges
// "a -> r -> b" (a longer path "a -> r1 -> b -> r2 -> c" is one edge per
// hop) or "a | r | b", and prose. structured turns such a task into the
// structured fields the policy reads, as a reasoner fills them; the policy
// itself never parses text.

func nodeLine(id, name string) string {
	if name = flatText(name); name == "" || name == id {
		return "Node: " + id
	}
	return "Node: " + id + " | " + name
}

func edgeTypeLine(name string) string { return "Edge type: " + flatText(name) }

func prevActionLine(action string) string { return "Previous action: " + flatText(action) }

// structured moves the evidence lines of t.Context and t.Candidate into
// Facts, Nodes, EdgeTypes and PreviousActions; edges and prose stay in the
// text too (a reasoner shows them in words as well).
func structured(t llm.Task) llm.Task {
	var ctx []string
	for _, text := range []string{t.Candidate, t.Context} {
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
			if v, ok := strings.CutPrefix(l, "Node: "); ok {
				id, name, _ := strings.Cut(v, " | ")
				t.Nodes = append(t.Nodes, llm.NodeRef{ID: strings.TrimSpace(id), Name: strings.TrimSpace(name)})
				continue
			}
			if v, ok := strings.CutPrefix(l, "Edge type: "); ok {
				t.EdgeTypes = append(t.EdgeTypes, v)
				continue
			}
			if v, ok := strings.CutPrefix(l, "Previous action: "); ok {
				t.PreviousActions = append(t.PreviousActions, v)
				continue
			}
			t.Facts = append(t.Facts, textFacts(strings.TrimSuffix(l, "."))...)
			if text == t.Context {
				ctx = append(ctx, l)
			}
		}
	}
	t.Context = strings.Join(ctx, "\n")
	return t
}

// textFacts reads "a -> r -> b [-> r2 -> c ...]" or "a | r | b".
func textFacts(l string) []llm.Fact {
	for _, sep := range []string{" -> ", " | "} {
		parts := strings.Split(l, sep)
		if len(parts) < 3 || len(parts)%2 == 0 || (sep == " | " && len(parts) != 3) {
			continue
		}
		var out []llm.Fact
		for i := 0; i+2 < len(parts); i += 2 {
			out = append(out, llm.Fact{Subject: parts[i], Relation: parts[i+1], Object: parts[i+2]})
		}
		return out
	}
	return nil
}
