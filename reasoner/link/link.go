// Package link is the entity linking every Grove reasoner shares: it finds
// the entities of the knowledge graph that a question (or a thought) is
// about.
//
// Linking has three steps, each a separate method so a reasoner can use
// the part it needs:
//
//  1. Extract: the model lists the entity mentions of a text
//     (llm.KindExtract, one mention per line, read with llm.ParseLines).
//  2. Search: each mention is searched (store.KG.Search) in every graph of
//     the query, SearchLimit candidates per graph, merged without
//     duplicate ids in graph order. Candidates that are relations of the
//     KG rather than entities (Wikidata properties such as P36 "capital",
//     see WithoutProperties) are left out.
//  3. Choose: the model picks the candidates the mention refers to
//     (llm.KindSelect, at most one per graph, "none" allowed); a linker
//     without a select task takes the best non-literal candidate of each
//     graph without a model call (the graph-grounded exploration does,
//     following its paper).
//
// Link runs steps 2 and 3 for one mention, LinkAll for several mentions
// concurrently (keeping mention order, each entity once), and Question all
// three for a question. Lookup resolves topic entities given by id instead.
//
// The task names of the model calls are the caller's (Tasks), so traces,
// per-step statistics and scripted test models keep telling each method's
// steps apart. Malformed replies, "none" and mentions without candidates
// never fail a run: they are reported through Warn and link nothing. Model
// and KG errors are returned, wrapped with the step and the mention.
package link

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
)

// Tasks names a Linker's model calls (llm.Task.Name).
type Tasks struct {
	// Extract lists a text's mentions (llm.KindExtract).
	Extract string
	// Select picks a mention's candidates (llm.KindSelect). Empty means no
	// model call: the best non-literal candidate of each graph is taken.
	Select string
}

// Linker links mentions to the entities of the query's graphs. A Linker is
// a value configured by its reasoner for one run; it is safe for
// concurrent use when its KG, Model and Warn are.
type Linker struct {
	KG     store.KG
	Model  llm.Model
	Graphs []string
	Tasks  Tasks
	// SearchLimit bounds the search candidates per mention and graph.
	SearchLimit int
	// Temperature is used by both model calls.
	Temperature float64
	// System is the system prompt of both model calls ("" for none).
	System string
	// ExtractPrompt writes the extraction prompt of a text; nil means the
	// package's ExtractPrompt.
	ExtractPrompt func(text string) string
	// Warn receives recoverable problems; nil drops them.
	Warn func(ctx context.Context, format string, args ...any)
	// Shown, when set, receives the candidates of every selection prompt
	// before the model is asked: the model was shown their ids, chosen or
	// not. It is called concurrently by LinkAll.
	Shown func(cands []store.Candidate)
}

// Linked is an entity found for a mention or given as a topic entity.
type Linked struct {
	Entity store.Entity
	// Graph is the query graph the entity was found in.
	Graph string
	// Mention is the text it was linked from ("" for a topic entity).
	Mention string
}

func (l Linker) warn(ctx context.Context, format string, args ...any) {
	if l.Warn != nil {
		l.Warn(ctx, format, args...)
	}
}

// Lookup fetches topic entities by id, keeping each once with the first
// of its graphs the query uses. Ids not in the store, or in none of the
// query's graphs, are warnings.
func (l Linker) Lookup(ctx context.Context, ids []string) ([]Linked, error) {
	var out []Linked
	for _, id := range ids {
		e, err := l.KG.Entity(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			l.warn(ctx, "topic entity %q is not in the store", id)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("topic entity %q: %w", id, err)
		}
		i := slices.IndexFunc(e.Graphs, func(g string) bool { return slices.Contains(l.Graphs, g) })
		if i < 0 {
			l.warn(ctx, "topic entity %q is in none of the graphs %v", id, l.Graphs)
			continue
		}
		if !slices.ContainsFunc(out, func(x Linked) bool { return x.Entity.ID == e.ID }) {
			out = append(out, Linked{Entity: e, Graph: e.Graphs[i]})
		}
	}
	return out, nil
}

// Question extracts the question's mentions and links them all. A
// question without mentions is a warning.
func (l Linker) Question(ctx context.Context, question string) ([]Linked, error) {
	mentions, err := l.Extract(ctx, question, "")
	if err != nil {
		return nil, err
	}
	if len(mentions) == 0 {
		l.warn(ctx, "no entity mention extracted from %q", question)
		return nil, nil
	}
	return l.LinkAll(ctx, question, mentions)
}

// Extract has the model list the mentions of the question and, when
// given, of a further text (a thought): the task carries both, the prompt
// shows them one after the other.
func (l Linker) Extract(ctx context.Context, question, text string) ([]string, error) {
	prompt := l.ExtractPrompt
	if prompt == nil {
		prompt = ExtractPrompt
	}
	shown := strings.TrimSpace(question + "\n" + text)
	resp, err := l.Model.Generate(ctx, llm.Request{Messages: llm.Chat(l.System, prompt(shown)), N: 1,
		Temperature: l.Temperature,
		Task:        llm.Task{Kind: llm.KindExtract, Name: l.Tasks.Extract, Question: question, Context: text}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Tasks.Extract, err)
	}
	return llm.ParseLines(first(resp.Texts)), nil
}

// LinkAll links the mentions concurrently and returns the entities in
// mention order, each once.
func (l Linker) LinkAll(ctx context.Context, question string, mentions []string) ([]Linked, error) {
	results, err := fanout.Map(ctx, mentions, 0, func(ctx context.Context, m string) ([]Linked, error) {
		return l.Link(ctx, question, m)
	})
	if err != nil {
		return nil, err
	}
	var out []Linked
	for _, x := range slices.Concat(results...) {
		if !slices.ContainsFunc(out, func(o Linked) bool { return o.Entity.ID == x.Entity.ID }) {
			out = append(out, x)
		}
	}
	return out, nil
}

// Link searches one mention in every graph and chooses its entities, at
// most one per graph.
func (l Linker) Link(ctx context.Context, question, mention string) ([]Linked, error) {
	cands, err := l.search(ctx, mention)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		l.warn(ctx, "mention %s: no candidate in %v", llm.Quote(mention), l.Graphs)
		return nil, nil
	}
	var chosen []store.Candidate
	if l.Tasks.Select == "" {
		chosen = bestPerGraph(cands)
	} else if chosen, err = l.choose(ctx, question, mention, cands); err != nil {
		return nil, err
	}
	var out []Linked
	for _, c := range chosen {
		if !slices.ContainsFunc(out, func(x Linked) bool { return x.Graph == c.Graph }) {
			out = append(out, Linked{Entity: c.Entity, Graph: c.Graph, Mention: mention})
		}
	}
	return out, nil
}

// search returns the mention's candidates of every graph, graph by graph
// in the KG's order, each id once.
func (l Linker) search(ctx context.Context, mention string) ([]store.Candidate, error) {
	var out []store.Candidate
	for _, g := range l.Graphs {
		cands, err := l.KG.Search(ctx, g, mention, l.SearchLimit)
		if err != nil {
			return nil, fmt.Errorf("search %s in %s: %w", llm.Quote(mention), g, err)
		}
		if cands, err = WithoutProperties(ctx, l.KG, cands); err != nil {
			return nil, fmt.Errorf("search %s in %s: %w", llm.Quote(mention), g, err)
		}
		for _, c := range cands {
			if !slices.ContainsFunc(out, func(o store.Candidate) bool { return o.ID == c.ID }) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// WithoutProperties returns cands without the KG's properties: the
// candidates whose grove:nodeType is "property" (as Grove's Wikidata
// ingest types P36 "capital"). Search finds them by their labels like
// items, yet they lead nowhere as entities. The type, not the shape of an
// id, decides: a private KG's node "P1" is an entity, and so is a node
// typed "property" only in another graph than the candidate's. One KG
// call.
func WithoutProperties(ctx context.Context, kg store.KG, cands []store.Candidate) ([]store.Candidate, error) {
	if len(cands) == 0 {
		return cands, nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	types, err := kg.Edges(ctx, ids, store.GroveNodeType, store.Out, 0)
	if err != nil {
		return nil, fmt.Errorf("node types: %w", err)
	}
	type inGraph struct{ id, graph string }
	prop := map[inGraph]bool{}
	for _, e := range types {
		if flat(e.Object.Name()) == "property" {
			prop[inGraph{e.Subject.ID, e.Graph}] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(cands), func(c store.Candidate) bool { return prop[inGraph{c.ID, c.Graph}] }), nil
}

// bestPerGraph keeps the first non-literal candidate of each graph.
func bestPerGraph(cands []store.Candidate) []store.Candidate {
	var out []store.Candidate
	for _, c := range cands {
		if !c.Literal && !slices.ContainsFunc(out, func(o store.Candidate) bool { return o.Graph == c.Graph }) {
			out = append(out, c)
		}
	}
	return out
}

// choose asks the model which candidates the mention refers to. A
// malformed reply or "none" chooses nothing, with a warning.
func (l Linker) choose(ctx context.Context, question, mention string, cands []store.Candidate) ([]store.Candidate, error) {
	opts := make([]llm.Option, len(cands))
	// shown are the options as the prompt describes them: a candidate
	// without a description is described by its relations, so that two
	// entities with one name (a film and a video game) can be told apart.
	// The Task keeps the plain option texts.
	shown := make([]llm.Option, len(cands))
	for i, c := range cands {
		opts[i] = llm.Option{ID: c.ID, Text: CandidateText(c, len(l.Graphs) > 1)}
		if flat(c.Description) == "" {
			rels, err := l.KG.Relations(ctx, []string{c.ID}, store.Both)
			if err != nil {
				return nil, fmt.Errorf("relations of candidate %s: %w", c.ID, err)
			}
			c.Description = RelationsText(rels, l.Graphs)
		}
		shown[i] = llm.Option{ID: c.ID, Text: CandidateText(c, len(l.Graphs) > 1)}
	}
	if l.Shown != nil {
		l.Shown(slices.Clone(cands))
	}
	resp, err := l.Model.Generate(ctx, llm.Request{
		Messages: llm.Chat(l.System, SelectPrompt(question, mention, shown, len(l.Graphs))), N: 1,
		Temperature: l.Temperature,
		Task: llm.Task{Kind: llm.KindSelect, Name: l.Tasks.Select, Question: question, Context: mention,
			Options: opts, Pick: len(l.Graphs)}})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", l.Tasks.Select, llm.Quote(mention), err)
	}
	ids, err := llm.ParseSelection(first(resp.Texts), opts, 0)
	if err != nil {
		l.warn(ctx, "mention %s: %v", llm.Quote(mention), err)
		return nil, nil
	}
	if len(ids) == 0 {
		l.warn(ctx, "mention %s: the model matched no candidate", llm.Quote(mention))
	}
	if bad := llm.Unoffered(first(resp.Texts), opts); bad != "" {
		l.warn(ctx, "mention %s: the reply %s", llm.Quote(mention), bad)
	}
	out := make([]store.Candidate, len(ids))
	for i, id := range ids {
		out[i] = cands[slices.IndexFunc(cands, func(c store.Candidate) bool { return c.ID == id })]
	}
	return out, nil
}

// CandidateText describes a search candidate as an option: its name (the
// id when it has no label), its description, and its graph when the query
// uses several.
func CandidateText(c store.Candidate, multi bool) string {
	s := flat(c.Name())
	if d := flat(c.Description); d != "" {
		s += " - " + d
	}
	if multi {
		s += " [" + c.Graph + "]"
	}
	return s
}

// NamePart is the name a "search again" request is about: the text before
// a parenthesised note or a " - " or ", " explanation ("Blade Runner (the
// 1982 film)" -> "Blade Runner"), or the whole text when that is empty.
func NamePart(text string) string {
	t := flat(text)
	for _, sep := range []string{" (", " - ", ", ", " [", "; "} {
		if i := strings.Index(t, sep); i > 0 {
			t = t[:i]
		}
	}
	t = strings.Trim(t, "\"'`*")
	if t == "" {
		return flat(text)
	}
	return t
}

// maxSummary bounds the relations that describe a candidate.
const maxSummary = 4

// RelationsText describes an entity without a description by its most
// frequent visible relations in graphs: "relations: starring (133),
// directed by (1)"; "" when it has none. Two entities with the same name
// (a film and a video game) are told apart this way.
func RelationsText(rels []store.Relation, graphs []string) string {
	var vis []store.Relation
	for _, r := range rels {
		if !r.Hidden && r.Count > 0 && (len(graphs) == 0 || slices.Contains(graphs, r.Graph)) {
			vis = append(vis, r)
		}
	}
	slices.SortStableFunc(vis, func(a, b store.Relation) int { return cmp.Compare(b.Count, a.Count) })
	var parts []string
	for _, r := range vis[:min(len(vis), maxSummary)] {
		parts = append(parts, fmt.Sprintf("%s (%d)", subgraph.RelText(r), r.Count))
	}
	if len(parts) == 0 {
		return ""
	}
	return "relations: " + strings.Join(parts, ", ")
}

// ExtractPrompt asks for the named entities of a text, one per line.
func ExtractPrompt(text string) string {
	return "List the named entities (people, places, works, organisations, ...) mentioned in the question, one " +
		"per line, exactly as written. Reply \"none\" if there are none.\n\nQuestion: " + flat(text) + "\nEntities:"
}

// SelectPrompt asks which candidates a mention refers to, at most one per
// graph when there are several.
func SelectPrompt(question, mention string, opts []llm.Option, graphs int) string {
	var b strings.Builder
	b.WriteString("Question: " + flat(question) + "\n\n")
	fmt.Fprintf(&b, "The mention %q may refer to one of these knowledge-graph entities:\n", mention)
	for _, o := range opts {
		b.WriteString("  " + o.ID + ": " + o.Text + "\n")
	}
	if graphs > 1 {
		b.WriteString("Choose the entity the mention refers to in each knowledge graph (at most one per graph), by id, " +
			"comma separated, best first; reply \"none\" if none fits.\nSelection:")
	} else {
		b.WriteString("Choose the entity the mention refers to, by id; reply \"none\" if none fits.\nSelection:")
	}
	return b.String()
}

func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func first(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}
