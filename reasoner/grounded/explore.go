package grounded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// explorer is the automatic graph exploration: a thought, the entities it
// mentions, Algorithm 1 from them, then the choice to answer or go on.
//
// The work is bounded: an entity is explored once per run (its finds are
// cached and reused by every chain and level that reaches it again), and
// one exploration makes at most Config.ExploreCalls model calls; when the
// budget is spent it stops and its observation says so.
type explorer struct {
	r *run

	mu sync.Mutex
	// explored caches each explored entity's finds for the run.
	explored map[string]*exploredEntity
}

// exploredEntity is one entity's cached exploration.
type exploredEntity struct {
	once  sync.Once
	finds entityFinds
	err   error
}

// errBudget ends an exploration whose model-call budget is spent.
var errBudget = errors.New("model-call budget spent")

// budget counts the model calls one exploration may still make.
type budget struct{ left atomic.Int64 }

// take reserves one call, or returns errBudget.
func (b *budget) take() error {
	if b.left.Add(-1) < 0 {
		return errBudget
	}
	return nil
}

// Trace actions of exploration steps.
const (
	actionExplore = "EXPLORE"
	actionAnswer  = "ANSWER"
	actionThink   = "THINK"
)

func (x *explorer) name() string { return string(Explore) }

// setup makes the topic entities the first seen entities, marked as
// starts.
func (x *explorer) setup(_ context.Context, root *state, topics []link.Linked) {
	for _, t := range topics {
		root.sub.AddEntity(t.Entity, t.Graph)
		root.sub.MarkStart(t.Entity.ID, subgraph.StartTopic)
		root.see(t.Entity.ID)
	}
}

func (x *explorer) thoughts(ctx context.Context, s *state, n int) ([]string, error) {
	return x.r.sampleThoughts(ctx, exploreThoughtPrompt(x.r.definition, x.r.Question, s), n, llm.Task{
		Kind: llm.KindFree, Name: TaskExploreThought, Question: x.r.Question,
		Context: strings.Join(slices.Concat(s.thoughts(), []string{s.evidence()}), "\n")})
}

// ground extracts and links the thought's entities (the question's too at
// the first step), explores the graph from them and asks whether to
// answer.
func (x *explorer) ground(ctx context.Context, c *state) error {
	mentions, err := x.extract(ctx, c)
	if err != nil {
		return err
	}
	linked, err := x.link(ctx, c, mentions)
	if err != nil {
		return err
	}
	edgesBefore, attrsBefore := c.sub.NumEdges(), len(c.attrs)
	depth, stopped, pages, err := x.explore(ctx, c)
	if err != nil {
		return err
	}
	st := c.last()
	found := slices.Concat(c.sub.EdgeTriples(c.sub.Edges()[edgesBefore:]), c.attributeLines()[attrsBefore:])
	kept, more := rankLines(found, maxFound, x.r.Question)
	st.observation = "found: " + fmtList(kept)
	if more > 0 {
		st.observation += fmt.Sprintf("; … and %s more (%s in all)", literal.Count(more), literal.Count(len(found)))
	}
	st.brief = "found " + literal.Count(len(found)) + " " + noun(len(found), "new triple or attribute",
		"new triples and attributes")
	var notes string
	if len(pages) > 0 {
		c.extra["pages"] = strings.Join(pages, "; ")
		notes += "\npages: " + strings.Join(pages[:min(len(pages), maxNotes)], "; ")
		if len(pages) > maxNotes {
			notes += fmt.Sprintf("; … and %d more", len(pages)-maxNotes)
		}
	}
	if stopped != "" {
		notes += "\n" + stopped
		c.extra["budget"] = stopped
		x.r.Warn(ctx, "%s", stopped)
	}
	st.observation += notes
	st.brief += notes
	c.extra["mentions"] = strings.Join(mentions, "; ")
	c.extra["linked"] = strings.Join(linked, ", ")
	c.extra["depth"] = strconv.Itoa(depth)
	c.act = actionExplore
	return x.decide(ctx, c)
}

// extract lists the entity mentions of the thought, and at the first step
// those of the question, which GRBench gives without topic entities.
func (x *explorer) extract(ctx context.Context, c *state) ([]string, error) {
	question := ""
	if len(c.steps) == 1 {
		question = x.r.Question
	}
	return x.r.linker().Extract(ctx, question, c.last().thought)
}

// link links each mention to the best candidate of every graph, marks
// them as starts and adds the new ones to the seen entities. It returns
// the ids it added.
func (x *explorer) link(ctx context.Context, c *state, mentions []string) ([]string, error) {
	found, err := x.r.linker().LinkAll(ctx, x.r.Question, mentions)
	if err != nil {
		return nil, err
	}
	var added []string
	for _, l := range found {
		c.sub.AddEntity(l.Entity, l.Graph)
		c.sub.MarkStart(l.Entity.ID, subgraph.StartLinked)
		if c.see(l.Entity.ID) {
			added = append(added, l.Entity.ID)
		}
	}
	if len(mentions) > 0 && len(added) == 0 {
		x.r.Warn(ctx, "no new entity linked from the mentions %q", mentions)
	}
	return added, nil
}

// explore is Algorithm 1: up to Depth rounds; each visits up to Frontier
// unvisited seen entities (concurrently, earliest seen first; the others
// are not explored), keeps the model-pruned attributes,
// relations and tail entities, adds the tails to the seen entities, and
// ends early when the model says the triples suffice. It returns the
// number of rounds run, when the model-call budget stopped it a message
// saying so, and the notes of the further pages of tails read.
func (x *explorer) explore(ctx context.Context, c *state) (depth int, stopped string, pages []string, err error) {
	b := &budget{}
	b.left.Store(int64(x.r.cfg.ExploreCalls))
	skipped := 0
	asked := ""
	for depth < x.r.cfg.Depth {
		ids, left := c.visit(x.r.cfg.Frontier)
		if len(ids) == 0 {
			break
		}
		depth++
		skipped += left
		found := make([]entityFinds, len(ids))
		spent := make([]bool, len(ids))
		err := fanout.Run(ctx, len(ids), 0, func(ctx context.Context, i int) error {
			var err error
			found[i], err = x.exploreOnce(ctx, c, ids[i], b)
			if errors.Is(err, errBudget) {
				spent[i] = true
				return nil
			}
			return err
		})
		if err != nil {
			return depth, "", pages, err
		}
		x.absorb(c, found)
		for _, f := range found {
			pages = append(pages, f.notes...)
		}
		if left := countTrue(spent); left > 0 {
			c.unvisit(ids, spent)
			return depth, fmt.Sprintf("exploration stopped at depth %d of %d: its budget of %d model calls was "+
				"spent with %d %s left unexplored", depth, x.r.cfg.Depth, x.r.cfg.ExploreCalls, left,
				noun(left, "entity", "entities")), pages, nil
		}
		// Algorithm 1 checks End? at every depth. A check whose prompt is
		// the one this exploration already asked (nothing it shows
		// changed) is skipped: it said No, and asked again at the
		// evaluation temperature it would say the same.
		prompt := endPrompt(x.r.Question, c)
		if prompt == asked {
			continue
		}
		if b.take() != nil {
			return depth, fmt.Sprintf("exploration stopped at depth %d of %d: its budget of %d model calls was "+
				"spent before the End? check", depth, x.r.cfg.Depth, x.r.cfg.ExploreCalls), pages, nil
		}
		asked = prompt
		enough, err := x.end(ctx, c, prompt)
		if err != nil || enough {
			return depth, "", pages, err
		}
	}
	if skipped > 0 {
		c.extra["frontier"] = fmt.Sprintf("%d seen entities beyond %d per depth were not explored", skipped,
			x.r.cfg.Frontier)
	}
	return depth, "", pages, nil
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// exploreOnce explores an entity once per run: later visits (from
// another chain, level or step) reuse the finds. A failure is not cached:
// the failed exploration forgets the entity before the waiting visits see
// the failure, so the entity can be explored when a budget allows. A visit
// that waited on another chain's exploration which ran out of that chain's
// budget explores the entity again with its own budget b: one chain's
// budget never fails another.
func (x *explorer) exploreOnce(ctx context.Context, c *state, id string, b *budget) (entityFinds, error) {
	for {
		x.mu.Lock()
		if x.explored == nil {
			x.explored = map[string]*exploredEntity{}
		}
		e, ok := x.explored[id]
		if !ok {
			e = &exploredEntity{}
			x.explored[id] = e
		}
		x.mu.Unlock()
		ran := false
		e.once.Do(func() {
			ran = true
			e.finds, e.err = x.exploreEntity(ctx, c, id, b)
			if e.err != nil {
				x.mu.Lock()
				if x.explored[id] == e {
					delete(x.explored, id)
				}
				x.mu.Unlock()
			}
		})
		if ran || !errors.Is(e.err, errBudget) {
			return e.finds, e.err
		}
	}
}

// entityFinds is what exploring one entity kept.
type entityFinds struct {
	edges []foundEdge
	attrs []attribute
	// notes say which further pages of tails were read.
	notes []string
}

type foundEdge struct {
	edge store.Edge
	rel  store.Relation
	// contents describe a mediator tail.
	contents []hood.Part
}

// absorb adds the finds to c in entity order.
func (x *explorer) absorb(c *state, found []entityFinds) {
	for _, f := range found {
		for _, fe := range f.edges {
			c.sub.AddEdge(fe.edge, fe.rel.Dir, fe.rel.InverseLabel)
			tail := fe.edge.Object
			if fe.rel.Dir == store.In {
				tail = fe.edge.Subject
			}
			if len(fe.contents) > 0 {
				// A mediator hop is one step: its contents join the graph
				// now and their entities are explored next, not the
				// mediator itself.
				c.sub.SetContents(tail.ID, hood.Render(fe.contents))
				c.seeVisited(tail.ID)
				for _, p := range fe.contents {
					c.sub.AddContentEdge(p.Edge, p.Dir, p.InverseLabel)
					if !p.Value.Literal {
						c.see(p.Value.ID)
					}
				}
				continue
			}
			if !tail.Literal && !isTypeEdge(fe.rel) {
				c.see(tail.ID)
			}
		}
		for _, a := range f.attrs {
			c.addAttribute(a)
		}
	}
}

// exploreEntity reads one entity's attributes and relations and keeps
// the pruned ones with their pruned tails. It only reads c. Every model
// call takes one unit of b.
func (x *explorer) exploreEntity(ctx context.Context, c *state, id string, b *budget) (entityFinds, error) {
	var out entityFinds
	rels, err := x.r.KG.Relations(ctx, []string{id}, store.Both)
	if err != nil {
		return out, fmt.Errorf("relations of %s: %w", id, err)
	}
	hidden := hiddenOut(rels)
	rels = slices.DeleteFunc(rels, func(r store.Relation) bool {
		return r.Hidden || r.Count == 0 || !slices.Contains(x.r.Graphs, r.Graph)
	})
	head := headText(c.name(id), rels, x.r.Graphs)
	literal, err := x.attributes(ctx, c, id, head, hidden, &out, b)
	if err != nil {
		return out, err
	}
	rels = slices.DeleteFunc(rels, func(r store.Relation) bool { return r.Dir == store.Out && literal[r.ID] })
	kept, err := x.pruneRelations(ctx, head, rels, b)
	if err != nil {
		return out, err
	}
	for _, rel := range kept {
		edges, notes, err := x.tails(ctx, c, id, head, rel, b)
		if err != nil {
			return out, err
		}
		out.notes = append(out.notes, notes...)
		for _, e := range edges {
			out.edges = append(out.edges, foundEdge{edge: e.Edge, rel: rel, contents: e.Contents})
		}
		if int64(len(edges)) < rel.Count {
			// The list was cut: keep the true number, which answers "how
			// many" questions the kept tails cannot.
			out.attrs = append(out.attrs, attribute{entity: c.name(id),
				name: "number of " + subgraph.RelText(rel), value: strconv.FormatInt(rel.Count, 10)})
		}
	}
	return out, nil
}

// hiddenOut is the set of rels' hidden outgoing relations (external ids,
// labels): features along them are looked up by name, never offered.
func hiddenOut(rels []store.Relation) map[string]bool {
	hidden := map[string]bool{}
	for _, r := range rels {
		if r.Hidden && r.Dir == store.Out {
			hidden[r.ID] = true
		}
	}
	return hidden
}

// headText is how the pruning prompts name the entity explored: its name,
// and for an entity without a label (named by its id) also its most
// frequent relations, so that the model reads what it is.
func headText(name string, rels []store.Relation, graphs []string) string {
	if !strings.HasSuffix(name, subgraph.NoLabel) {
		return name
	}
	if about := link.RelationsText(rels, graphs); about != "" {
		return name + "; " + about
	}
	return name
}

// attributes keeps the entity's relevant attributes in out and returns
// the ids of its literal-valued relations; head names the entity in the
// prompt. The features of hidden relations (external ids such as a VIAF
// ID) are not offered. An attribute is keyed by its name, or by its id
// when it has no label (its text is then the id followed by
// subgraph.NoLabel); each value carries its statement's qualifiers (see
// featureValues).
func (x *explorer) attributes(ctx context.Context, c *state, id, head string, hidden map[string]bool,
	out *entityFinds, b *budget) (map[string]bool, error) {
	fs, err := x.r.KG.Features(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("features of %s: %w", id, err)
	}
	literal := map[string]bool{}
	values := map[string][]string{}
	names := map[string]string{}
	var opts []llm.Option
	for _, f := range fs {
		if !slices.Contains(x.r.Graphs, f.Graph) {
			continue
		}
		literal[f.Relation] = true
		if hidden[f.Relation] {
			continue
		}
		name := subgraph.FeatureName(f)
		key := name
		if !subgraph.HasLabel(f.Relation, f.Name) {
			key = flat(f.Relation)
		}
		if _, ok := values[key]; !ok {
			opts = append(opts, llm.Option{ID: key})
			names[key] = name
		}
		values[key] = append(values[key], featureValues(f, maxFeature)...)
	}
	for i := range opts {
		opts[i].Text = names[opts[i].ID] + ": " + valuesText(values[opts[i].ID], maxAttributeText)
	}
	name := c.name(id)
	keep, err := x.prune(ctx, b, opts, x.r.cfg.AttributeWidth, llm.Task{Name: TaskPruneAttributes, Context: name},
		func(o []llm.Option) string {
			return pruneAttributesPrompt(x.r.Question, head, o, x.r.cfg.AttributeWidth)
		})
	if err != nil {
		return nil, err
	}
	for _, o := range keep {
		for _, v := range values[o.ID] {
			out.attrs = append(out.attrs, attribute{entity: name, name: names[o.ID], value: v})
		}
	}
	return literal, nil
}

// maxAttributeText bounds the values an attribute option shows.
const maxAttributeText = 200

// valuesText joins values with "; " within about max runes: the values
// that fit (the first one clipped if it alone is too long), then, when
// some are left out, how many there are ("… (12 values in all, 3
// shown)").
func valuesText(vals []string, max int) string {
	text := strings.Join(vals, "; ")
	if len([]rune(text)) <= max {
		return text
	}
	shown, n := literal.Clip(vals[0], max), 1
	for ; n < len(vals); n++ {
		next := shown + "; " + vals[n]
		if len([]rune(next)) > max {
			break
		}
		shown = next
	}
	if n == len(vals) {
		return shown
	}
	return fmt.Sprintf("%s; … (%d values in all, %d shown)", shown, len(vals), n)
}

// pruneRelations keeps the relations relevant to the question; head names
// the entity in the prompt.
func (x *explorer) pruneRelations(ctx context.Context, head string, rels []store.Relation, b *budget) ([]store.Relation, error) {
	opts := make([]llm.Option, len(rels))
	counts := map[string]int64{}
	for i, r := range rels {
		opts[i] = llm.Option{ID: "R" + strconv.Itoa(i+1), Text: subgraph.RelText(r)}
		counts[opts[i].ID] = r.Count
	}
	keep, err := x.prune(ctx, b, opts, x.r.cfg.RelationWidth, llm.Task{Name: TaskPruneRelations, Context: head},
		func(o []llm.Option) string {
			return pruneRelationsPrompt(x.r.Question, head, o, counts, x.r.cfg.RelationWidth)
		})
	if err != nil {
		return nil, err
	}
	out := make([]store.Relation, len(keep))
	for i, o := range keep {
		out[i] = rels[slices.Index(opts, o)]
	}
	return out, nil
}

// nextPage is the id of the option that asks for the next page of a
// relation's tails.
const nextPage = "NEXT"

// tails fetches the edges of id along rel one page of NeighborLimit at a
// time, ranked by relevance to the question (package hood), and keeps
// those to the relevant tail entities, at most EntityWidth over all
// pages; mediator tails are shown by their contents. When a page is cut,
// its options end with NEXT ("next page: ..."): choosing it reads the next
// page, whose choice costs one more model call of b. The returned notes
// say which pages beyond the first were read, with the total.
func (x *explorer) tails(ctx context.Context, c *state, id, head string, rel store.Relation, b *budget) ([]hood.Edge, []string, error) {
	name, label := c.name(id), subgraph.RelText(rel)
	var out []hood.Edge
	var notes []string
	offset := 0
	for n := 1; ; n++ {
		page, err := hood.Fetch(ctx, x.r.KG, []string{id}, rel, offset, x.r.cfg.NeighborLimit,
			hood.Options{Question: x.r.Question, Graphs: x.r.Graphs})
		if err != nil {
			return nil, nil, err
		}
		note := page.Note()
		if n > 1 {
			note = fmt.Sprintf("page %d: %s", n, note)
			notes = append(notes, fmt.Sprintf("%s -> %s: read page %d of the tails (%s)", name, label, n, page.Note()))
		}
		keep, more, err := x.pruneTails(ctx, b, page, head, label, note, x.r.cfg.EntityWidth-len(out))
		if errors.Is(err, errBudget) && n > 1 {
			// The page was asked for but cannot be chosen from: keep what
			// the earlier pages gave.
			notes = append(notes, fmt.Sprintf("%s -> %s: page %d was not chosen from: the budget of %d model calls "+
				"was spent", name, label, n, x.r.cfg.ExploreCalls))
			return out, notes, nil
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, keep...)
		if !more || len(out) >= x.r.cfg.EntityWidth {
			return out, notes, nil
		}
		offset = page.Offset + len(page.Edges)
	}
}

// pruneTails asks which tails of page to keep (at most width) and, when
// the page is cut, whether to read the next one (the NEXT option). The
// tails are offered by their rank numbers ("[12] Blade Runner"), never by
// their ids: a node id tells the model nothing, and a blank node's id has
// a colon that reads as a separator.
func (x *explorer) pruneTails(ctx context.Context, b *budget, page hood.Page, head, label, note string, width int) ([]hood.Edge, bool, error) {
	opts := make([]llm.Option, len(page.Edges), len(page.Edges)+1)
	for i, e := range page.Edges {
		opts[i] = llm.Option{ID: strconv.Itoa(page.Offset + i + 1), Text: e.Text()}
	}
	pick := width
	if page.More() {
		rest := page.Ranked - (page.Offset + len(page.Edges))
		opts = append(opts, llm.Option{ID: nextPage, Text: fmt.Sprintf("next page: show the next %d of the %d tail "+
			"entities", min(rest, x.r.cfg.NeighborLimit), page.Total)})
		pick++
	}
	choose := x.prune
	if page.More() {
		// Whether to read the next page is always the model's choice.
		choose = x.ask
	}
	keep, err := choose(ctx, b, opts, pick, llm.Task{Name: TaskPruneEntities, Context: head + " -> " + label},
		func(o []llm.Option) string {
			return pruneEntitiesPrompt(x.r.Question, head, label, note, o, width, page.More())
		})
	if err != nil {
		return nil, false, err
	}
	var out []hood.Edge
	more := false
	for _, o := range keep {
		if o.ID == nextPage {
			more = true
			continue
		}
		if len(out) < width {
			out = append(out, page.Edges[slices.IndexFunc(opts, func(p llm.Option) bool { return p.ID == o.ID })])
		}
	}
	return out, more, nil
}

// prune asks the model to keep at most width of opts (a KindSelect task
// built on task). Lists no longer than width are kept whole without a
// call: pruning to the width cannot shorten them. A malformed reply keeps
// nothing and is a warning.
func (x *explorer) prune(ctx context.Context, b *budget, opts []llm.Option, width int, task llm.Task,
	prompt func([]llm.Option) string) ([]llm.Option, error) {
	if len(opts) <= width {
		return opts, nil
	}
	return x.ask(ctx, b, opts, width, task, prompt)
}

// ask is prune without the shortcut: the model is asked whatever the
// length of opts.
func (x *explorer) ask(ctx context.Context, b *budget, opts []llm.Option, width int, task llm.Task,
	prompt func([]llm.Option) string) ([]llm.Option, error) {
	if err := b.take(); err != nil {
		return nil, err
	}
	task.Kind, task.Question, task.Options, task.Pick = llm.KindSelect, x.r.Question, opts, width
	texts, err := generate(ctx, x.r.Model, llm.Request{Messages: messages(prompt(opts)), N: 1,
		Temperature: x.r.cfg.EvalTemperature, Task: task})
	if err != nil {
		return nil, err
	}
	ids, err := llm.ParseSelection(first(texts), opts, width)
	if err != nil {
		x.r.Warn(ctx, "%s for %s: %v", task.Name, task.Context, err)
		return nil, nil
	}
	if bad := llm.Unoffered(first(texts), opts); bad != "" {
		x.r.Warn(ctx, "%s for %s: the reply %s", task.Name, task.Context, bad)
	}
	var out []llm.Option
	for _, id := range ids {
		out = append(out, opts[slices.IndexFunc(opts, func(o llm.Option) bool { return o.ID == id })])
	}
	return out, nil
}

// end is the End? check with its prompt: do the triples and attributes
// suffice?
func (x *explorer) end(ctx context.Context, c *state, prompt string) (bool, error) {
	texts, err := generate(ctx, x.r.Model, llm.Request{Messages: messages(prompt), N: 1,
		Temperature: x.r.cfg.EvalTemperature, Task: llm.Task{Kind: llm.KindYesNo, Name: TaskEnd,
			Question: x.r.Question, Candidate: strings.Join(c.tripleLines(), "\n"),
			Context: strings.Join(c.attributeLines(), "\n"), Facts: c.facts()}})
	if err != nil {
		return false, err
	}
	yes, _, perr := llm.ParseYesNo(first(texts))
	if perr != nil {
		x.r.Warn(ctx, "end check: %v", perr)
		return false, nil
	}
	return yes, nil
}

// decide asks whether the chain can answer now (ANSWER: text) or goes on
// with another thought (THINK).
func (x *explorer) decide(ctx context.Context, c *state) error {
	opts := []llm.Option{{ID: actionAnswer, Text: "give the final answer from the knowledge found"},
		{ID: actionThink, Text: "continue with another thought"}}
	texts, err := generate(ctx, x.r.Model, llm.Request{Messages: messages(decidePrompt(x.r.Question, c)), N: 1,
		Temperature: x.r.cfg.EvalTemperature, Task: llm.Task{Kind: llm.KindAction, Name: TaskDecide,
			Question: x.r.Question, Context: c.evidence(), Options: opts, Facts: c.facts()}})
	if err != nil {
		return err
	}
	act, rest, perr := llm.ParseAction(first(texts), []string{actionAnswer, actionThink})
	switch {
	case perr != nil:
		x.r.Warn(ctx, "decision: %v", perr)
	case act == actionAnswer && flat(firstLine(rest)) == "":
		x.r.Warn(ctx, "decision: ANSWER without an answer; the chain goes on")
	case act == actionAnswer:
		c.done, c.answer, c.act = true, clipText(flat(firstLine(rest)), maxThought), actionAnswer
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
