package schema

import (
	"fmt"
	"strings"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// NoExample stands for the example of an edge type listed without one.
const NoExample = "example not sampled"

// Text renders the definition for a prompt. A typed graph lists each node
// type with its features and its outgoing and incoming edge types and the
// node type each leads to:
//
//	Graph goodreads: 4 node types: book, author, series, publisher (sampled from 9 nodes).
//	  book nodes (found by their title):
//	    features: title, num pages, language code
//	    edge types: author -> author nodes; series -> series nodes
//	    incoming edge types: book (inverse) -> author nodes
//
// A graph without node types lists its edge types, each with an example
// edge, and its feature names.
func (d *Definition) Text() string {
	var b strings.Builder
	if len(d.Types) == 0 {
		fmt.Fprintf(&b, "Graph %s: no node with visible relations was found (sampled %d nodes).\n", d.Graph, d.Nodes)
		return b.String()
	}
	if !d.Typed() {
		fmt.Fprintf(&b, "Graph %s: node types are not declared (sampled from %d nodes).\n", d.Graph, d.Nodes)
		writeType(&b, d.Types[0], false)
		return b.String()
	}
	names := make([]string, 0, len(d.Types))
	for _, t := range d.Types {
		if t.Name != "" {
			names = append(names, t.Name)
		}
	}
	fmt.Fprintf(&b, "Graph %s: %d node %s: %s (sampled from %d nodes).\n", d.Graph, len(names),
		literal.Plural(len(names), "type"), strings.Join(names, ", "), d.Nodes)
	for _, t := range d.Types {
		writeType(&b, t, true)
	}
	return b.String()
}

// writeType writes one type's section; typed sections get a heading.
func writeType(b *strings.Builder, t NodeType, typed bool) {
	indent := "  "
	if typed {
		name := t.Name
		if name == "" {
			name = "untyped"
		}
		fmt.Fprintf(b, "  %s nodes", name)
		if t.TextFeature != "" {
			fmt.Fprintf(b, " (found by their %s)", t.TextFeature)
		}
		b.WriteString(":\n")
		indent = "    "
	}
	if len(t.Features) > 0 {
		fmt.Fprintf(b, "%sfeatures: %s\n", indent, strings.Join(t.Features, ", "))
	}
	for _, dir := range []store.Direction{store.Out, store.In} {
		var parts []string
		for _, e := range t.Edges {
			if e.Dir == dir {
				parts = append(parts, edgeText(e, typed))
			}
		}
		if len(parts) == 0 {
			continue
		}
		label := "edge types"
		if dir == store.In {
			label = "incoming edge types"
		}
		fmt.Fprintf(b, "%s%s: %s\n", indent, label, strings.Join(parts, "; "))
	}
}

// edgeText is "author -> author nodes", or with an example when the target
// type is unknown: "directed by (e.g. Blade Runner -> Ridley Scott)", or
// "directed by (example not sampled)" when no edge of the graph was among
// the edges read for one.
func edgeText(e EdgeType, typed bool) string {
	if typed && e.Target != "" {
		return e.Name + " -> " + e.Target + " nodes"
	}
	if e.Example == "" {
		return e.Name + " (" + NoExample + ")"
	}
	return e.Name + " (e.g. " + e.Example + ")"
}
