package grounded

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/grove-kg/grove/reasoner/grounded/action"
	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/link"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// agent is the Graph-CoT interaction: a thought, then one action on the
// KG, then the observation it returns.
type agent struct {
	r *run
	// topics lists the query's topic nodes for the prompt.
	topics string
}

// actionInvalid is the trace action of a step whose reply named no action.
const actionInvalid = "INVALID"

// maxFeature bounds one feature value in an observation.
const maxFeature = 1500

func (a *agent) name() string { return string(Agent) }

func (a *agent) setup(_ context.Context, root *state, topics []link.Linked) {
	var parts []string
	for _, t := range topics {
		root.sub.AddEntity(t.Entity, t.Graph)
		root.sub.MarkStart(t.Entity.ID, subgraph.StartTopic)
		parts = append(parts, root.describe(t.Entity.ID))
	}
	a.topics = strings.Join(parts, ", ")
}

// thoughts samples the next "Thought i:" lines.
func (a *agent) thoughts(ctx context.Context, s *state, n int) ([]string, error) {
	i := len(s.steps) + 1
	prompt := agentPrompt(a.r.definition, a.r.Question, s, a.topics, fmt.Sprintf("Thought %d:", i))
	return a.r.sampleThoughts(ctx, prompt, n, llm.Task{Kind: llm.KindFree, Name: TaskAgentThought,
		Question: a.r.Question, Context: s.evidence()})
}

// options are the agent's actions as llm options.
func actionOptions() []llm.Option {
	specs := action.Specs()
	opts := make([]llm.Option, len(specs))
	for i, s := range specs {
		opts[i] = llm.Option{ID: string(s.Kind), Text: s.Usage() + ": " + s.Help}
	}
	return opts
}

// ground asks for the action of c's thought and carries it out. A reply
// that is not a valid action, or an action the graph cannot carry out,
// becomes an observation saying what was wrong; the step still counts.
func (a *agent) ground(ctx context.Context, c *state) error {
	i := len(c.steps)
	st := c.last()
	prompt := agentPrompt(a.r.definition, a.r.Question, c.withoutLast(), a.topics,
		fmt.Sprintf("Thought %d: %s\nAction %d:", i, st.thought, i))
	texts, err := generate(ctx, a.r.Model, llm.Request{Messages: messages(prompt), N: 1,
		Temperature: a.r.cfg.EvalTemperature, Stop: []string{"\nObservation", "\nThought"},
		Task: llm.Task{Kind: llm.KindAction, Name: TaskAgentAction, Question: a.r.Question,
			Context: c.withoutLast().evidence(), Options: actionOptions(), Facts: c.withoutLast().facts(),
			Nodes: nodeRefs(c.withoutLast()), EdgeTypes: a.r.edgeTypes, PreviousActions: previousActions(c.withoutLast())}})
	if err != nil {
		return err
	}
	reply := first(texts)
	act, perr := action.Parse(reply)
	if perr != nil {
		st.action = literal.Clip(flat(reply), 200)
		if st.action == "" {
			st.action = "(empty)"
		}
		c.act, c.problem = actionInvalid, perr.Error()
		st.observation = "Invalid action: " + strings.TrimPrefix(perr.Error(), action.ErrInvalid.Error()+": ")
		a.r.Warn(ctx, "step %d: %v", i, perr)
		return nil
	}
	for i, a := range act.Args {
		act.Args[i] = clipText(flat(a), maxThought)
	}
	st.action, c.act = act.String(), string(act.Kind)
	obs, err := a.execute(ctx, c, act)
	var bad *badAction
	if errors.As(err, &bad) {
		c.problem = bad.msg
		obs = "Invalid action: " + bad.msg
		a.r.Warn(ctx, "step %d: %s: %s", i, act, bad.msg)
	} else if err != nil {
		return err
	}
	st.observation = obs
	return nil
}

// nodeRefs are the entities the chain of s can name by id, for
// llm.Task.Nodes: what the prompt lists, structured.
func nodeRefs(s *state) []llm.NodeRef {
	nodes := s.sub.Expandable()
	ids := make([]string, len(nodes))
	for i, e := range nodes {
		ids[i] = e.ID
	}
	out := make([]llm.NodeRef, len(ids))
	for i, name := range s.sub.Names(ids) {
		out[i] = llm.NodeRef{ID: ids[i], Name: name}
	}
	return out
}

// previousActions are the actions the chain of s took, in order.
func previousActions(s *state) []string {
	var out []string
	for _, st := range s.steps {
		if st.action != "" {
			out = append(out, st.action)
		}
	}
	return out
}

// withoutLast is s without its current step (for the action prompt, which
// writes the thought itself).
func (s *state) withoutLast() *state { return s.withSteps(len(s.steps) - 1) }

// withSteps is a shallow copy of s with only its first n steps.
func (s *state) withSteps(n int) *state {
	c := *s
	c.steps = s.steps[:n]
	return &c
}

// badAction is an action the graph cannot carry out: unknown node, edge
// type or feature. Its message is shown to the model.
type badAction struct{ msg string }

func (b *badAction) Error() string { return b.msg }

func bad(format string, args ...any) error { return &badAction{msg: fmt.Sprintf(format, args...)} }

// execute carries out act on the KG and returns the observation.
func (a *agent) execute(ctx context.Context, c *state, act action.Action) (string, error) {
	switch act.Kind {
	case action.RetrieveNode:
		return a.retrieve(ctx, c, act.Arg(0))
	case action.NodeFeature:
		return a.feature(ctx, c, act.Arg(0), act.Arg(1))
	case action.NeighbourCheck:
		return a.neighbours(ctx, c, act.Arg(0), act.Arg(1))
	case action.NodeDegree:
		return a.degree(ctx, c, act.Arg(0), act.Arg(1))
	case action.Finish:
		c.done, c.answer = true, act.Arg(0)
		return "", nil
	}
	return "", bad("unknown action %s", act.Kind)
}

// retrieve searches every graph of the query for the keyword.
func (a *agent) retrieve(ctx context.Context, c *state, keyword string) (string, error) {
	var cands []store.Candidate
	for _, g := range a.r.Graphs {
		cs, err := a.r.KG.Search(ctx, g, keyword, a.r.cfg.SearchLimit)
		if err != nil {
			return "", fmt.Errorf("search %q in %s: %w", keyword, g, err)
		}
		// A property (Wikidata's P36 "capital") is an edge type or a
		// feature, not a node.
		if cs, err = link.WithoutProperties(ctx, a.r.KG, cs); err != nil {
			return "", fmt.Errorf("search %q in %s: %w", keyword, g, err)
		}
		cands = append(cands, cs...)
	}
	slices.SortStableFunc(cands, func(x, y store.Candidate) int { return cmp.Compare(y.Score, x.Score) })
	cands = cands[:min(len(cands), a.r.cfg.SearchLimit)]
	if len(cands) == 0 {
		return fmt.Sprintf("No node matches %q.", keyword), nil
	}
	parts := make([]string, len(cands))
	for i, cd := range cands {
		c.sub.AddEntity(cd.Entity, cd.Graph)
		about := flat(cd.Description)
		if about == "" {
			rels, err := a.r.KG.Relations(ctx, []string{cd.ID}, store.Both)
			if err != nil {
				return "", fmt.Errorf("relations of %s: %w", cd.ID, err)
			}
			about = link.RelationsText(rels, a.r.Graphs)
		}
		parts[i] = fmt.Sprintf("%s (%s, %s match", cd.ID, flat(cd.Name()), cd.Match)
		if about != "" {
			parts[i] += "; " + about
		}
		if len(a.r.Graphs) > 1 {
			parts[i] += ", graph " + cd.Graph
		}
		parts[i] += ")"
	}
	return fmt.Sprintf("Nodes matching %q: %s", keyword, strings.Join(parts, "; ")), nil
}

// node resolves a node argument: an id or the name of a node the chain
// has seen, or any id of the query's graphs.
func (a *agent) node(ctx context.Context, c *state, arg string) (string, error) {
	if c.sub.Has(arg) {
		return arg, nil
	}
	switch ids := c.sub.Resolve(arg); {
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) > 1:
		d := make([]string, len(ids))
		for i, id := range ids {
			d[i] = c.describe(id)
		}
		return "", bad("%q names several nodes: %s; use the node id", arg, strings.Join(d, ", "))
	}
	e, err := a.r.KG.Entity(ctx, arg)
	if errors.Is(err, store.ErrNotFound) {
		return "", bad("there is no node %q; use a node id returned by RetrieveNode or NeighbourCheck "+
			"(RetrieveNode[%s] finds nodes by name)", arg, arg)
	}
	if err != nil {
		return "", fmt.Errorf("entity %q: %w", arg, err)
	}
	g := a.r.graphOf(e)
	if g == "" || e.Literal {
		return "", bad("%q is not a node of the graph %s", arg, strings.Join(a.r.Graphs, ", "))
	}
	c.sub.AddEntity(e, g)
	return e.ID, nil
}

// feature returns a node's feature value.
func (a *agent) feature(ctx context.Context, c *state, nodeArg, name string) (string, error) {
	id, err := a.node(ctx, c, nodeArg)
	if err != nil {
		return "", err
	}
	fs, err := a.r.KG.Features(ctx, id)
	if err != nil {
		return "", fmt.Errorf("features of %s: %w", id, err)
	}
	fs = slices.DeleteFunc(fs, func(f store.Feature) bool { return !slices.Contains(a.r.Graphs, f.Graph) })
	rels, err := a.r.KG.Relations(ctx, []string{id}, store.Out)
	if err != nil {
		return "", fmt.Errorf("relations of %s: %w", id, err)
	}
	hidden := hiddenOut(rels)
	var vals []string
	var names []string // offered when the name matches none: external ids are not
	want := normName(name)
	for _, f := range fs {
		text := subgraph.FeatureName(f)
		if !hidden[f.Relation] && !slices.Contains(names, text) {
			names = append(names, text)
		}
		if normName(f.Name) == want || normName(f.Relation) == want || normName(lastSegment(f.Relation)) == want ||
			normName(text) == want {
			name = text
			vals = append(vals, featureValues(f, maxFeature)...)
		}
	}
	if len(vals) == 0 && nameFeatures[want] {
		if e, ok := c.sub.Entity(id); ok && flat(e.Label) != "" {
			vals = []string{flat(e.Label)}
		}
	}
	if len(vals) == 0 {
		return "", a.noFeature(ctx, c, id, name, names)
	}
	for _, v := range vals {
		c.addAttribute(attribute{entity: c.name(id), name: name, value: v})
	}
	return fmt.Sprintf("The %s of %s is: %s", name, c.describe(id), strings.Join(vals, "; ")), nil
}

// nameFeatures are the feature names a node's name (its label) answers
// when the node has no such feature: KG.Features leaves names out, yet
// GRBench names authors by a "name" feature.
var nameFeatures = map[string]bool{"name": true, "label": true, "title": true}

// noFeature explains a missing feature, pointing at NeighbourCheck when
// the name is an edge type.
func (a *agent) noFeature(ctx context.Context, c *state, id, name string, names []string) error {
	if rel, err := a.relation(ctx, c, id, name); err == nil {
		return bad("%s is an edge type of %s, not a feature: use NeighbourCheck[%s, %s]", subgraph.RelText(rel),
			c.describe(id), id, edgeArg(rel))
	}
	if len(names) == 0 {
		return bad("%s has no features", c.describe(id))
	}
	return bad("%s has no feature %q; its features are: %s", c.describe(id), name, strings.Join(names, ", "))
}

// relation resolves an edge type of node id: by id, label or last id
// segment among its outgoing relations, then by inverse label among its
// incoming ones, then by forward name among its incoming ones.
func (a *agent) relation(ctx context.Context, c *state, id, name string) (store.Relation, error) {
	rels, err := a.r.KG.Relations(ctx, []string{id}, store.Both)
	if err != nil {
		return store.Relation{}, fmt.Errorf("relations of %s: %w", id, err)
	}
	rels = slices.DeleteFunc(rels, func(r store.Relation) bool {
		return r.Hidden || r.Count == 0 || !slices.Contains(a.r.Graphs, r.Graph)
	})
	want := normName(name)
	forward := func(r store.Relation) bool {
		return normName(r.ID) == want || normName(r.Label) == want || normName(lastSegment(r.ID)) == want
	}
	passes := []func(store.Relation) bool{
		func(r store.Relation) bool { return r.Dir == store.Out && forward(r) },
		func(r store.Relation) bool { return r.Dir == store.In && normName(r.DisplayLabel()) == want },
		func(r store.Relation) bool { return r.Dir == store.In && forward(r) },
		// The text an observation named it by ("P1125 (no label in the KG)").
		func(r store.Relation) bool { return normName(subgraph.RelText(r)) == want },
	}
	for _, p := range passes {
		if i := slices.IndexFunc(rels, p); i >= 0 {
			return rels[i], nil
		}
	}
	return store.Relation{}, a.noEdgeType(ctx, c, id, name, rels)
}

// noEdgeType explains an edge type node id lacks, given its visible
// relations: it lists the edge types that can be followed and, apart, the
// literal-valued relations, which are features NodeFeature reads (a
// relation with both literal and node values is in both lists).
func (a *agent) noEdgeType(ctx context.Context, c *state, id, name string, rels []store.Relation) error {
	fs, err := a.r.KG.Features(ctx, id)
	if err != nil {
		return fmt.Errorf("features of %s: %w", id, err)
	}
	literals := map[string]int64{}
	for _, f := range fs {
		if slices.Contains(a.r.Graphs, f.Graph) {
			literals[f.Relation]++
		}
	}
	var edges, features []string
	for _, r := range rels {
		text := subgraph.RelText(r)
		if r.Dir == store.Out && literals[r.ID] > 0 && !slices.Contains(features, text) {
			features = append(features, text)
		}
		if (r.Dir != store.Out || literals[r.ID] < r.Count) && !slices.Contains(edges, text) {
			edges = append(edges, text)
		}
	}
	var featureText string
	if len(features) > 0 {
		featureText = fmt.Sprintf("; its features, read with %s[%s, feature] and not followed, are: %s",
			action.NodeFeature, id, strings.Join(features, ", "))
	}
	if len(edges) == 0 {
		return bad("%s has no edge types to follow%s", c.describe(id), featureText)
	}
	return bad("%s has no edge type %q; its edge types are: %s%s", c.describe(id), name,
		strings.Join(edges, ", "), featureText)
}

// nodeEdge resolves the node and edge-type arguments of NeighbourCheck and
// NodeDegree.
func (a *agent) nodeEdge(ctx context.Context, c *state, nodeArg, edge string) (string, store.Relation, error) {
	id, err := a.node(ctx, c, nodeArg)
	if err != nil {
		return "", store.Relation{}, err
	}
	rel, err := a.relation(ctx, c, id, edge)
	return id, rel, err
}

// neighbours lists a page of the neighbours of a node along an edge type,
// most relevant to the question first (see package hood), and adds the
// edges (and mediators' contents) to the chain's graph. The observation
// gives the true total; the same NeighbourCheck again lists the next
// page.
func (a *agent) neighbours(ctx context.Context, c *state, nodeArg, edge string) (string, error) {
	id, rel, err := a.nodeEdge(ctx, c, nodeArg, edge)
	if err != nil {
		return "", err
	}
	page, err := hood.Fetch(ctx, a.r.KG, []string{id}, rel, c.shown.Of([]string{id}, rel), a.r.cfg.NeighborLimit,
		hood.Options{Question: a.r.Question, Graphs: a.r.Graphs})
	if err != nil {
		return "", err
	}
	c.shown = c.shown.With([]string{id}, rel, page.Offset+len(page.Edges))
	hood.AddTo(c.sub, page, rel)
	parts := make([]string, len(page.Edges))
	for i, e := range page.Edges {
		switch {
		case e.Far.Literal:
			parts[i] = flat(e.Far.Name())
		case e.IsMediator():
			parts[i] = e.Text() + " (" + e.Far.ID + ")"
		default:
			parts[i] = c.describe(e.Far.ID)
		}
		// Each statement's qualifiers ("start time: 1789; end time:
		// 1797"), never merged across statements.
		parts[i] += subgraph.QualifiersText(e.Qualifiers)
	}
	label := subgraph.RelText(rel)
	if len(parts) == 0 {
		return fmt.Sprintf("All %d %s neighbours of %s were listed before.", page.Total, label, c.describe(id)), nil
	}
	note := page.Note()
	if page.More() {
		note += fmt.Sprintf("; repeat NeighbourCheck[%s, %s] for the next ones", id, edgeArg(rel))
	}
	return fmt.Sprintf("The %s neighbours of %s are (%s): %s", label, c.describe(id), note, fmtList(parts)), nil
}

// degree counts the neighbours of a node along an edge type.
func (a *agent) degree(ctx context.Context, c *state, nodeArg, edge string) (string, error) {
	id, rel, err := a.nodeEdge(ctx, c, nodeArg, edge)
	if err != nil {
		return "", err
	}
	n, err := a.r.KG.Degree(ctx, id, rel.ID, rel.Dir)
	if err != nil {
		return "", fmt.Errorf("degree of %s along %s: %w", id, rel.ID, err)
	}
	c.addAttribute(attribute{entity: c.name(id), name: "number of " + subgraph.RelText(rel) + " neighbours",
		value: strconv.FormatInt(n, 10)})
	return fmt.Sprintf("%s has %d %s neighbours.", c.describe(id), n, subgraph.RelText(rel)), nil
}

// edgeArg is how an action names an edge type: its label in the followed
// direction, or its text (id followed by subgraph.NoLabel) without one.
func edgeArg(rel store.Relation) string {
	if subgraph.HasLabel(rel.ID, rel.Label) {
		return rel.DisplayLabel()
	}
	return subgraph.RelText(rel)
}

// featureValues are the texts of a feature's value, each clipped to max
// runes: one per statement behind it, with that statement's qualifiers
// (subgraph.QualifiersText), so that two statements of one value (an
// index of 0.901 in 2011 and in 2012) stay two values whose qualifiers
// are never merged.
func featureValues(f store.Feature, max int) []string {
	v := literal.Clip(subgraph.FeatureValue(f), max)
	groups := store.GroupQualifiers(f.Qualifiers)
	if len(groups) == 0 {
		return []string{v}
	}
	out := make([]string, len(groups))
	for i, st := range groups {
		out[i] = v + subgraph.QualifiersText(st)
	}
	return out
}

// normName compares names loosely: case, '_' and '-' as spaces, blanks.
func normName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// lastSegment is the part of a relation id after its last '/', '#', '.'
// or ':' ("/film/film/directed_by" -> "directed_by").
func lastSegment(id string) string {
	t := strings.TrimRight(id, "/#")
	if i := strings.LastIndexAny(t, "/#.:"); i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	return t
}
