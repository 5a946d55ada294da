package rtsog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/internal/fanout"
	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// FailedScore is the reward given when a score reply has no readable
// "Score:" line (the failure is recorded as a warning).
const FailedScore = 0.0

// proposal is the outcome of exploring one kept relation: its reward and
// its scored tails, best first.
type proposal struct {
	rel   store.Relation
	sr    float64
	cands []candidate
	// tails says how many tails were scored out of how many exist.
	tails string
	// total is the relation's true number of tails.
	total int64
}

// expand is the expansion with self-critic of leaf: relation exploration,
// entity exploration for every kept relation (concurrently), one child per
// relation with a tail, and the End-of-Search check of every child
// (concurrently). Model and KG calls are tagged with leaf, the checks with
// their child.
func (r *run) expand(ctx context.Context, leaf *node) ([]*node, error) {
	nctx := trace.WithNode(ctx, leaf.id)
	rels, err := r.relations(nctx, leaf)
	if err != nil {
		return nil, err
	}
	if len(rels) == 0 {
		r.Warn(nctx, "%s has no relation to follow", leaf.entity.ID)
		return nil, nil
	}
	kept, err := r.filterRelations(nctx, leaf, rels)
	if err != nil || len(kept) == 0 {
		return nil, err
	}
	props, err := fanout.Map(nctx, kept, 0, func(ctx context.Context, rel store.Relation) (proposal, error) {
		return r.exploreRelation(ctx, leaf, rel)
	})
	if err != nil {
		return nil, err
	}
	children := r.addChildren(leaf, props)
	if err := r.critique(ctx, children); err != nil {
		return nil, err
	}
	return children, nil
}

// relations lists the visible relations of the leaf's entity in both
// directions within the query's graphs, in the KG's order.
func (r *run) relations(ctx context.Context, leaf *node) ([]store.Relation, error) {
	all, err := r.KG.Relations(ctx, []string{leaf.entity.ID}, store.Both)
	if err != nil {
		return nil, fmt.Errorf("relations of %s: %w", leaf.entity.ID, err)
	}
	var out []store.Relation
	for _, rel := range all {
		if !rel.Hidden && rel.Count > 0 && slices.Contains(r.Graphs, rel.Graph) {
			out = append(out, rel)
		}
	}
	return out, nil
}

// filterRelations asks the value model which relations (at most Width) are
// relevant. A malformed reply or "none" keeps nothing (with a warning).
func (r *run) filterRelations(ctx context.Context, leaf *node, rels []store.Relation) ([]store.Relation, error) {
	opts := make([]llm.Option, len(rels))
	for i, rel := range rels {
		text := label(rel)
		if len(r.Graphs) > 1 {
			text += " [" + rel.Graph + "]"
		}
		opts[i] = llm.Option{ID: fmt.Sprintf("R%d", i+1), Text: text}
	}
	resp, err := r.value.Generate(ctx, llm.Request{
		Messages: messages(selectRelationsPrompt(r.Question, r.subs, leaf, rels, opts, r.cfg.Width)),
		N:        1, Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindSelect, Name: TaskSelectRelation, Question: r.Question,
			Context: subContext(r.subs, pathText(leaf)), Options: opts, Pick: r.cfg.Width},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TaskSelectRelation, err)
	}
	ids, err := llm.ParseSelection(first(resp.Texts), opts, r.cfg.Width)
	if err != nil {
		r.Warn(ctx, "relation filtering: %v", err)
		return nil, nil
	}
	if len(ids) == 0 {
		r.Warn(ctx, "the value model kept no relation of %s", leaf.entity.ID)
	}
	if bad := llm.Unoffered(first(resp.Texts), opts); bad != "" {
		r.Warn(ctx, "relation filtering of %s: the reply %s", leaf.entity.ID, bad)
	}
	out := make([]store.Relation, len(ids))
	for i, id := range ids {
		out[i] = rels[slices.IndexFunc(opts, func(o llm.Option) bool { return o.ID == id })]
	}
	return out, nil
}

// exploreRelation scores the relation and, concurrently, its tails.
func (r *run) exploreRelation(ctx context.Context, leaf *node, rel store.Relation) (proposal, error) {
	p := proposal{rel: rel}
	var cands []candidate
	var tails string
	err := fanout.Run(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			p.sr, err = r.score(ctx, TaskScoreRelation, scoreRelationPrompt(r.Question, r.subs, leaf, rel),
				pathText(leaf), extendedText(leaf, rel, nil))
		} else {
			cands, tails, err = r.candidates(ctx, leaf, rel)
		}
		return err
	})
	if err != nil {
		return p, err
	}
	p.cands, p.tails = cands, tails
	p.total = rel.Count
	if len(cands) == 0 {
		r.Warn(ctx, "relation %s of %s leads to no new entity", rel.ID, leaf.entity.ID)
	}
	return p, nil
}

// candidates fetches the tails of rel ranked by relevance to the question
// (package hood: the needed tail may be the last in the store's order)
// one page of at most MaxCandidates at a time, skipping the entities
// already on the path, with mediators described by their contents, and
// scores each extended path concurrently. When the relation has tails
// beyond the page, the value model also scores "more", the next page not
// yet shown (scoreMore, concurrently with the tails); the next page is
// scored when "more" beats every tail scored so far, up to Pages pages.
// Paging happens inside one expansion: it adds no node and no hop. The
// tails of every page read are returned best first (the ranking's order
// among equal scores); tails says how many were scored of how many exist.
func (r *run) candidates(ctx context.Context, leaf *node, rel store.Relation) ([]candidate, string, error) {
	var cands []candidate
	seen := map[string]bool{}
	offset, pages := 0, 0
	var total int64
	for pages < r.cfg.Pages {
		pg, err := r.candidatePage(ctx, leaf, rel, offset, seen, pages+1 < r.cfg.Pages)
		if err != nil {
			return nil, "", err
		}
		pages++
		total, offset = pg.total, pg.next
		cands = append(cands, pg.cands...)
		slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
		best := FailedScore
		if len(cands) > 0 {
			best = cands[0].score
		}
		if !pg.askedMore || pg.moreScore <= best {
			break
		}
		r.Log.Debug("rtsog: more tails", "entity", leaf.entity.ID, "relation", rel.ID, "page", pages+1)
	}
	tails := fmt.Sprintf("%d of %d", len(cands), total)
	if pages > 1 {
		tails += fmt.Sprintf(" (%d pages)", pages)
	}
	return cands, tails, nil
}

// candidatePage is one page of a relation's scored tails.
type candidatePage struct {
	cands []candidate
	// total is the relation's true number of tails; next the offset of
	// the next page.
	total int64
	next  int
	// askedMore says whether the value model scored the next page (there
	// is one and the Pages allow it), moreScore is that score.
	askedMore bool
	moreScore float64
}

// candidatePage fetches the page of rel's ranked tails at offset, keeps
// the tails not seen and not on the path (at most MaxCandidates, marking
// them seen) and scores them, and "more" when the relation goes on and
// another page is allowed, concurrently.
func (r *run) candidatePage(ctx context.Context, leaf *node, rel store.Relation, offset int, seen map[string]bool,
	allowMore bool) (candidatePage, error) {
	// Entities on the path are skipped: read enough to fill the page.
	limit := r.cfg.MaxCandidates + len(leaf.path())
	page, err := hood.Fetch(ctx, r.KG, []string{leaf.entity.ID}, rel, offset, limit,
		hood.Options{Question: r.Question + "\n" + strings.Join(r.subs, "\n"), Graphs: r.Graphs})
	if err != nil {
		return candidatePage{}, err
	}
	used := 0
	var cands []candidate
	for _, e := range page.Edges {
		if len(cands) == r.cfg.MaxCandidates {
			break
		}
		used++
		if seen[e.Far.ID] || leaf.onPath(e.Far.ID) {
			continue
		}
		seen[e.Far.ID] = true
		cands = append(cands, candidate{entity: e.Far, edge: e.Edge, described: e.Contents, desc: hood.Render(e.Contents)})
	}
	// The page read is the edges looked at; the next page starts after.
	page.Edges = page.Edges[:used]
	out := candidatePage{cands: cands, total: page.Total, next: page.Offset + used, askedMore: allowMore && page.More()}
	calls := len(out.cands)
	if out.askedMore {
		calls++
	}
	// The names shown beside "more" are read before the candidates are
	// scored concurrently (which writes their scores).
	shown := shownTails(cands)
	err = fanout.Run(ctx, calls, 0, func(ctx context.Context, i int) error {
		if i == len(out.cands) {
			var err error
			out.moreScore, err = r.scoreMore(ctx, leaf, rel, page, shown)
			return err
		}
		return r.scoreCandidate(ctx, leaf, rel, &out.cands[i])
	})
	if err != nil {
		return candidatePage{}, err
	}
	slices.SortStableFunc(out.cands, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	return out, nil
}

// shownTails renders the tails shown beside "more" as the candidates'
// paths render them, with their qualifiers: two statements of one
// relation (a value per year) differ only there.
func shownTails(cands []candidate) []string {
	shown := make([]string, len(cands))
	for i, c := range cands {
		shown[i] = tailText(c)
	}
	return shown
}

// scoreMore has the value model score "more": how likely the tail the
// question needs is among the tails of rel after page rather than among
// those shown (named shown).
func (r *run) scoreMore(ctx context.Context, leaf *node, rel store.Relation, page hood.Page, shown []string) (float64, error) {
	rest := page.Ranked - (page.Offset + len(page.Edges))
	next := min(rest, r.cfg.MaxCandidates)
	more := fmt.Sprintf("more: show the next %d of the %d tails after %s", next, page.Total, pageSpan(page))
	// The candidate is the open path "A -> r -> ?", so a reply that reads
	// only the candidate's words never rates "more" above a shown tail.
	return r.score(ctx, TaskScoreMore, scoreMorePrompt(r.Question, r.subs, leaf, rel, page.Note(), shown, more),
		pathText(leaf)+"\n"+more, extendedText(leaf, rel, nil))
}

// pageSpan is "1-10" for a page.
func pageSpan(p hood.Page) string {
	return fmt.Sprintf("%d-%d", p.Offset+1, p.Offset+len(p.Edges))
}

// scoreCandidate has the value model score the path extended by c.
func (r *run) scoreCandidate(ctx context.Context, leaf *node, rel store.Relation, c *candidate) error {
	path := extendedText(leaf, rel, c)
	s, err := r.score(ctx, TaskScorePath, scorePathPrompt(r.Question, r.subs, path), pathText(leaf), path)
	c.score = s
	return err
}

// score asks the value model for a reward in [0, 1]. An unreadable reply
// scores FailedScore with a warning; a model error is returned.
func (r *run) score(ctx context.Context, task, prompt, path, candidate string) (float64, error) {
	resp, err := r.value.Generate(ctx, llm.Request{Messages: messages(prompt), N: 1,
		Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindScore, Name: task, Question: r.Question,
			Context: subContext(r.subs, path), Candidate: candidate}})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", task, err)
	}
	s, err := llm.ParseScore(first(resp.Texts))
	if err != nil {
		r.Warn(ctx, "%s of %q: %v", task, candidate, err)
		return FailedScore, nil
	}
	return s, nil
}

// addChildren creates one child per proposal with a tail, in relation
// order: its best tail, with the reward of equation 9. Every tail scored
// (each was shown the value model) joins the run's shown entities.
func (r *run) addChildren(leaf *node, props []proposal) []*node {
	var children []*node
	for _, p := range props {
		for _, c := range p.cands {
			r.shown.addTail(c.entity, c.edge, c.described)
		}
		if len(p.cands) == 0 {
			continue
		}
		best := p.cands[0]
		c := &node{parent: leaf, depth: leaf.depth + 1, entity: best.entity, graph: p.rel.Graph, desc: best.desc,
			described: best.described, hop: &hop{rel: p.rel, edge: best.edge}, alts: p.cands[1:], total: p.total, sr: p.sr,
			sp: best.score, n: 1}
		c.q = Value(r.cfg.Alpha, c.sr, c.sp)
		c.terminal = c.entity.Literal || c.hops() >= r.cfg.MaxDepth
		c.id = r.Rec.AddNode(trace.Node{Parents: []int{leaf.id}, Depth: c.depth, State: StateEntity,
			Action: label(p.rel), Text: name(c.entity, c.desc), Value: c.q, Evaluated: true, Visits: c.n,
			Extra: childExtra(c, p.tails)})
		children = append(children, c)
	}
	return children
}

// critique runs the self-critic on every child concurrently: the policy
// model says whether the child's path answers the question (End of
// Search), which makes the child a leaf. An unreadable reply counts as
// "no" with a warning.
func (r *run) critique(ctx context.Context, children []*node) error {
	eos, err := fanout.Map(ctx, children, 0, func(ctx context.Context, c *node) (bool, error) {
		return r.endOfSearch(trace.WithNode(ctx, c.id), c)
	})
	if err != nil {
		return err
	}
	for i, c := range children {
		c.eos = eos[i]
		c.terminal = c.terminal || c.eos
		c.exhausted = c.terminal
	}
	return nil
}

func (r *run) endOfSearch(ctx context.Context, c *node) (bool, error) {
	path := pathText(c)
	resp, err := r.policy.Generate(ctx, llm.Request{Messages: messages(endOfSearchPrompt(r.Question, path)), N: 1,
		Temperature: r.cfg.EvalTemperature,
		Task: llm.Task{Kind: llm.KindYesNo, Name: TaskEndOfSearch, Question: r.Question, Candidate: path,
			Facts: hopFacts(c)}})
	if err != nil {
		return false, fmt.Errorf("%s: %w", TaskEndOfSearch, err)
	}
	yes, reason, err := llm.ParseYesNo(first(resp.Texts))
	if err != nil {
		r.Warn(ctx, "end-of-search check: %v", err)
		return false, nil
	}
	if yes {
		_ = r.Rec.UpdateNode(c.id, func(t *trace.Node) { setExtra(t, "eos", flat("yes "+reason)) })
	}
	return yes, nil
}
