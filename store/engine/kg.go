package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

var _ store.KG = (*DB)(nil)

// view runs fn in a read transaction, checking ctx first.
func (db *DB) view(ctx context.Context, fn func(txn *badger.Txn) error) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	return db.bdb.View(fn)
}

// usable returns ErrClosed after Close and the context's error once it is
// done.
func (db *DB) usable(ctx context.Context) error {
	if db.bdb.IsClosed() {
		return store.ErrClosed
	}
	return ctxErr(ctx)
}

// resolveKnown is resolve for batch members: an unknown id is skipped
// (ok false), not an error.
func (db *DB) resolveKnown(txn *badger.Txn, id string) (tid uint64, ok bool, err error) {
	tid, err = db.resolve(txn, id)
	if errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	}
	return tid, err == nil, err
}

// resolve maps an entity id to its term id.
func (db *DB) resolve(txn *badger.Txn, id string) (uint64, error) {
	if id == "" {
		return 0, fmt.Errorf("empty id: %w", store.ErrNotFound)
	}
	tid, ok, err := db.cachedTermID(txn, valueOfID(id))
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("entity %q: %w", id, store.ErrNotFound)
	}
	return tid, nil
}

// resolveRelation maps a relation id to its predicate term id.
func (db *DB) resolveRelation(txn *badger.Txn, rel string) (uint64, error) {
	tid, ok, err := db.cachedTermID(txn, quad.IRI(rel))
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("relation %q: %w", rel, store.ErrNotFound)
	}
	return tid, nil
}

// cachedTermID is termID through the read cache (db.preds); a term
// numbered by an unfinished bulk load is not found (see loadFilter).
func (db *DB) cachedTermID(txn *badger.Txn, v quad.Value) (uint64, bool, error) {
	enc, err := encodeTerm(nil, v)
	if err != nil {
		return 0, false, err
	}
	if tid, ok := db.preds.id(txn, enc); ok {
		return tid, true, nil
	}
	tid, ok, err := termIDEncoded(txn, enc)
	if ok && db.loadFilter().hidesTerm(tid) {
		// Numbered by an unfinished bulk load (see loadFilter).
		return 0, false, nil
	}
	if err == nil && ok {
		db.preds.putID(txn, enc, tid)
	}
	return tid, ok, err
}

// Graphs lists the named graphs that hold quads.
func (db *DB) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	if err := db.usable(ctx); err != nil {
		return nil, err
	}
	var out []store.GraphInfo
	for _, g := range db.GraphMetas() {
		if g.Quads == 0 {
			// A graph whose quads were all deleted keeps its record (its
			// label configuration, for quads added to it later) but is
			// listed no more than in a fresh load of the same quads.
			continue
		}
		out = append(out, store.GraphInfo{Name: g.Name, Quads: g.Quads, Relations: g.Relations, Labels: g.Labels})
	}
	return out, nil
}

// Entity returns the description of one node.
func (db *DB) Entity(ctx context.Context, id string) (store.Entity, error) {
	var e store.Entity
	err := db.view(ctx, func(txn *badger.Txn) error {
		tid, err := db.resolve(txn, id)
		if err != nil {
			return err
		}
		if e, err = db.entity(txn, tid); err != nil {
			return err
		}
		e.Graphs, err = db.graphsOf(txn, tid)
		return err
	})
	return e, err
}

// entity builds the store.Entity of a term.
func (db *DB) entity(txn *badger.Txn, tid uint64) (store.Entity, error) {
	li, err := db.info(txn, tid)
	if err != nil {
		return store.Entity{}, err
	}
	v, err := db.term(txn, tid)
	if err != nil {
		return store.Entity{}, err
	}
	// The aliases are cached: the caller gets its own copy.
	e := store.Entity{ID: nodeID(v), Label: li.label, Description: li.desc, Aliases: slices.Clone(li.aliases),
		Literal: li.literal}
	if li.literal {
		e.ID = v.String()
	}
	return e, nil
}

// graphsOf lists the graphs a node has edges in.
func (db *DB) graphsOf(txn *badger.Txn, tid uint64) ([]string, error) {
	return db.homeGraphs(txn, tid, nil)
}

// dirSpaces maps a direction to the index keyspaces to read.
func dirSpaces(dir store.Direction) ([]byte, error) {
	switch dir {
	case store.Out:
		return []byte{spaceSPO}, nil
	case store.In:
		return []byte{spaceOPS}, nil
	case store.Both:
		return []byte{spaceSPO, spaceOPS}, nil
	}
	return nil, fmt.Errorf("invalid direction %d", dir)
}

func spaceDir(space byte) store.Direction {
	if space == spaceOPS {
		return store.In
	}
	return store.Out
}

// Edges returns edges of relation from ids in direction dir.
func (db *DB) Edges(ctx context.Context, ids []string, relation string, dir store.Direction, limit int) ([]store.Edge, error) {
	if dir != store.Out && dir != store.In {
		return nil, fmt.Errorf("edges: direction must be out or in, not %v", dir)
	}
	var out []store.Edge
	err := db.view(ctx, func(txn *badger.Txn) error {
		p, err := db.resolveRelation(txn, relation)
		if errors.Is(err, store.ErrNotFound) {
			return nil // an unknown relation has no edges
		} else if err != nil {
			return err
		}
		pi, err := db.pred(txn, p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if limit > 0 && len(out) >= limit {
				break
			}
			tid, ok, err := db.resolveKnown(txn, id)
			if err != nil {
				return err
			} else if !ok {
				continue
			}
			if out, err = db.edgesOf(ctx, txn, tid, pi, p, dir, limit, out); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// edgesOf appends the edges of one node along predicate p; a hub's edges
// stop at ctx's end.
func (db *DB) edgesOf(ctx context.Context, txn *badger.Txn, tid uint64, pi predInfo, p uint64, dir store.Direction,
	limit int, out []store.Edge) ([]store.Edge, error) {
	var space byte = spaceSPO
	if dir == store.In {
		space = spaceOPS
	}
	self, err := db.entity(txn, tid)
	if err != nil {
		return out, err
	}
	groups, err := db.relationGroups(txn, space, tid, p)
	if err != nil {
		return out, err
	}
	out = slices.Grow(out, edgeCount(groups, limit-len(out)))
	for _, gi := range groups {
		left := 0
		if limit > 0 {
			left = limit - len(out)
			if left <= 0 {
				break
			}
		}
		members, err := groupMembers(txn, space, gi, nil, left)
		if err != nil {
			return out, err
		}
		// Outgoing edges share their subject's statements: read them once.
		var byObject map[uint64][]store.Feature
		if pi.stmt != 0 && dir != store.In {
			if byObject, err = db.statementQualifiers(txn, tid, nil, pi, gi.g, 0); err != nil {
				return out, err
			}
		}
		for i, m := range members {
			if i%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctxErr(ctx); err != nil {
					return out, err
				}
			}
			other, err := db.entity(txn, m)
			if err != nil {
				return out, err
			}
			e := store.Edge{Subject: self, Relation: pi.id, RelationLabel: pi.label, Object: other,
				Graph: db.graphName(gi.g)}
			e.Qualifiers = byObject[m]
			if dir == store.In {
				e.Subject, e.Object = other, self
				if pi.stmt != 0 {
					qs, err := db.statementQualifiers(txn, m, nil, pi, gi.g, tid)
					if err != nil {
						return out, err
					}
					e.Qualifiers = qs[tid]
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// edgeCount is the number of edges groups hold, capped at left when left
// is positive (what a limit leaves).
func edgeCount(groups []groupInfo, left int) int {
	var n int64
	for _, gi := range groups {
		n += gi.count
	}
	if left > 0 {
		n = min(n, int64(left))
	}
	return int(n)
}

// statementQualifiers reads the statements of s along pi and returns
// their qualifiers by statement value, each statement's together and
// naming its node (see store.Edge.Qualifiers): for every value at once, or
// with only != 0 for that value alone (no other statement's qualifiers
// are read). es is s's outgoing node block when the caller has read it
// (nil: read here).
func (db *DB) statementQualifiers(txn *badger.Txn, s uint64, es []sumEntry, pi predInfo, g, only uint64) (map[uint64][]store.Feature, error) {
	if es == nil {
		var err error
		if es, err = db.readSummary(txn, spaceSPO, s); err != nil {
			return nil, err
		}
	}
	stmts, err := entryMembers(txn, spaceSPO, s, es, pi.stmt, g)
	if err != nil || len(stmts) == 0 {
		return nil, err
	}
	out := map[uint64][]store.Feature{}
	for _, t := range stmts {
		// One read of the statement's node block gives both its value and
		// its qualifiers.
		tes, err := db.readSummary(txn, spaceSPO, t)
		if err != nil {
			return nil, err
		}
		vals, err := entryMembers(txn, spaceSPO, t, tes, pi.value, g)
		if err != nil {
			return nil, err
		}
		if only != 0 {
			if _, ok := slices.BinarySearch(vals, only); !ok {
				continue
			}
			vals = []uint64{only}
		}
		if len(vals) == 0 {
			continue
		}
		fs, err := db.groupFeatures(txn, t, tes, func(pid string) bool { return strings.HasPrefix(pid, store.QualifierPrefix) }, false, false)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			continue
		}
		v, err := db.term(txn, t)
		if err != nil {
			return nil, err
		}
		for i := range fs {
			fs[i].Statement = nodeID(v)
		}
		for _, o := range vals {
			out[o] = append(out[o], fs...)
		}
	}
	return out, nil
}

// features lists the literal or entity values of t's predicates accepted
// by keep, rendered for humans. Qualifier predicates are named after the
// qualifying property's label. With quals, a value made by statements
// carries their qualifiers (store.Feature.Qualifiers).
func (db *DB) features(txn *badger.Txn, t uint64, keep func(pid string) bool, literalsOnly, quals bool) ([]store.Feature, error) {
	es, err := db.readSummary(txn, spaceSPO, t)
	if err != nil {
		return nil, err
	}
	return db.groupFeatures(txn, t, es, keep, literalsOnly, quals)
}

// groupFeatures is features of t given its outgoing node block es.
func (db *DB) groupFeatures(txn *badger.Txn, t uint64, es []sumEntry, keep func(pid string) bool, literalsOnly, quals bool) ([]store.Feature, error) {
	var out []store.Feature
	for _, e := range es {
		gi := groupInfo{a: t, b: e.p, g: e.g, count: e.count, ids: e.ids}
		pi, err := db.pred(txn, gi.b)
		if err != nil {
			return nil, err
		}
		if !keep(pi.id) {
			continue
		}
		vals, err := groupMembers(txn, spaceSPO, gi, nil, 0)
		if err != nil {
			return nil, err
		}
		var byValue map[uint64][]store.Feature
		// Hidden relations (external ids) are looked up, not reasoned
		// about: their statements' qualifiers are not read.
		if quals && pi.stmt != 0 && !pi.hidden {
			if byValue, err = db.statementQualifiers(txn, t, es, pi, gi.g, 0); err != nil {
				return nil, err
			}
		}
		for _, v := range vals {
			ent, err := db.entity(txn, v)
			if err != nil {
				return nil, err
			}
			if literalsOnly && !ent.Literal {
				continue
			}
			f := store.Feature{Relation: pi.id, Name: pi.label, Value: ent.Name(), Graph: db.graphName(gi.g)}
			if !ent.Literal {
				f.ValueID = ent.ID
			}
			f.Qualifiers = byValue[v]
			out = append(out, f)
		}
	}
	return out, nil
}

// entryMembers returns the members of group (p, g) of node a, given a's
// node block es in space: nil when a has no such group.
func entryMembers(txn *badger.Txn, space byte, a uint64, es []sumEntry, p, g uint64) ([]uint64, error) {
	e, ok := findEntry(es, p, g)
	if !ok {
		return nil, nil
	}
	return groupMembers(txn, space, groupInfo{a: a, b: p, g: g, count: e.count, ids: e.ids}, nil, 0)
}

// predLabelByID returns the label of a predicate given by id.
func (db *DB) predLabelByID(txn *badger.Txn, id string) string {
	tid, ok, err := db.visibleTermID(txn, quad.IRI(id))
	if err != nil || !ok {
		return deriveLabel(id)
	}
	pi, err := db.pred(txn, tid)
	if err != nil {
		return deriveLabel(id)
	}
	return pi.label
}

// Features returns the literal-valued properties of a node, each with the
// qualifiers of the statements that make it.
func (db *DB) Features(ctx context.Context, id string) ([]store.Feature, error) {
	var out []store.Feature
	err := db.view(ctx, func(txn *badger.Txn) error {
		tid, err := db.resolve(txn, id)
		if err != nil {
			return err
		}
		preds := db.labelPreds(txn)
		names := map[string]bool{}
		for p, kind := range preds {
			if kind != kindDesc {
				if v, err := db.term(txn, p); err == nil {
					names[nodeID(v)] = true
				}
			}
		}
		// Labels and aliases are the entity's name (see Entity), not
		// features; descriptions and every other literal are.
		out, err = db.features(txn, tid, func(pid string) bool { return !internalPredicate(pid) && !names[pid] }, true, true)
		return err
	})
	return out, err
}

// Degree counts the edges of id along relation ("" = all) in direction dir.
func (db *DB) Degree(ctx context.Context, id, relation string, dir store.Direction) (int64, error) {
	spaces, err := dirSpaces(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	err = db.view(ctx, func(txn *badger.Txn) error {
		tid, p, err := db.resolveWithRelation(txn, id, relation)
		if errors.Is(err, errNoRelation) {
			return nil
		} else if err != nil {
			return err
		}
		groups, err := db.groupCounts(txn, tid, spaces...)
		for _, gi := range groups {
			if gi.b == p || (p == 0 && !db.hiddenPred(txn, gi.b)) {
				n += gi.count
			}
		}
		return err
	})
	return n, err
}

// errNoRelation: the entity exists but the relation does not, so there is
// nothing to follow.
var errNoRelation = errors.New("no such relation")

// resolveWithRelation resolves an entity and an optional relation (0 for
// ""); an unknown relation returns errNoRelation.
func (db *DB) resolveWithRelation(txn *badger.Txn, id, relation string) (tid, p uint64, err error) {
	if tid, err = db.resolve(txn, id); err != nil || relation == "" {
		return tid, 0, err
	}
	p, err = db.resolveRelation(txn, relation)
	if errors.Is(err, store.ErrNotFound) {
		return tid, 0, errNoRelation
	}
	return tid, p, err
}

func (db *DB) hiddenPred(txn *badger.Txn, p uint64) bool {
	pi, err := db.pred(txn, p)
	return err == nil && pi.hidden
}

// Neighbors returns the distinct entities reached from id.
func (db *DB) Neighbors(ctx context.Context, id, relation string, dir store.Direction, limit int) ([]store.Entity, error) {
	spaces, err := dirSpaces(dir)
	if err != nil {
		return nil, err
	}
	var out []store.Entity
	seen := map[uint64]bool{}
	err = db.view(ctx, func(txn *badger.Txn) error {
		tid, p, err := db.resolveWithRelation(txn, id, relation)
		if errors.Is(err, errNoRelation) {
			return nil
		} else if err != nil {
			return err
		}
		for _, space := range spaces {
			if out, err = db.neighborsIn(txn, space, tid, p, limit, seen, out); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func (db *DB) neighborsIn(txn *badger.Txn, space byte, tid, p uint64, limit int,
	seen map[uint64]bool, out []store.Entity) ([]store.Entity, error) {
	var groups []groupInfo
	err := db.nodeGroups(txn, space, tid, func(gi groupInfo) error {
		if gi.b == p || (p == 0 && !db.hiddenPred(txn, gi.b)) {
			groups = append(groups, gi)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	for _, gi := range groups {
		// Read the list chunk by chunk and stop at the limit: a hub's
		// incoming list can hold millions of ids.
		err := groupChunks(txn, space, gi, func(members []uint64) (bool, error) {
			for _, m := range members {
				if limit > 0 && len(out) >= limit {
					return false, nil
				}
				if seen[m] {
					continue
				}
				seen[m] = true
				e, err := db.entity(txn, m)
				if err != nil {
					return false, err
				}
				if !e.Literal {
					out = append(out, e)
				}
			}
			return true, nil
		})
		if err != nil || (limit > 0 && len(out) >= limit) {
			return out, err
		}
	}
	return out, nil
}

// SameAs returns the links of id into other graphs.
func (db *DB) SameAs(ctx context.Context, id, graph string) ([]store.Link, error) {
	var out []store.Link
	err := db.view(ctx, func(txn *badger.Txn) error {
		tid, err := db.resolve(txn, id)
		if err != nil {
			return err
		}
		via := map[uint64]string{}
		for _, name := range []string{store.GroveSameAs, store.OWLSameAs} {
			if p, ok, err := db.visibleTermID(txn, quad.IRI(name)); err != nil {
				return err
			} else if ok {
				via[p] = name
			}
		}
		if len(via) == 0 {
			return nil
		}
		home, err := db.homeGraphs(txn, tid, via)
		if err != nil {
			return err
		}
		for p, name := range via {
			if out, err = db.links(txn, tid, p, name, graph, home, via, out); err != nil {
				return err
			}
		}
		slices.SortFunc(out, func(a, b store.Link) int {
			return cmp.Or(cmp.Compare(a.Graph, b.Graph), cmp.Compare(a.Target.ID, b.Target.ID))
		})
		return nil
	})
	return out, err
}

// homeGraphs lists the graphs where a node has edges through predicates
// other than links (nil: any predicate).
func (db *DB) homeGraphs(txn *badger.Txn, tid uint64, links map[uint64]string) ([]string, error) {
	groups, err := db.groupCounts(txn, tid, spaceSPO, spaceOPS)
	if err != nil {
		return nil, err
	}
	seen := map[uint64]bool{}
	for _, gi := range groups {
		if _, isLink := links[gi.b]; !isLink {
			seen[gi.g] = true
		}
	}
	var out []string
	for g := range seen {
		if n := db.graphName(g); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// links follows p in both directions from tid and keeps the targets' home
// graphs that are graph, or, when graph is "", that are not home graphs of
// tid itself.
func (db *DB) links(txn *badger.Txn, tid, p uint64, via, graph string, home []string,
	linkPreds map[uint64]string, out []store.Link) ([]store.Link, error) {
	for _, space := range []byte{spaceSPO, spaceOPS} {
		groups, err := db.relationGroups(txn, space, tid, p)
		if err != nil {
			return out, err
		}
		var targets []uint64
		for _, gi := range groups {
			if targets, err = groupMembers(txn, space, gi, targets, 0); err != nil {
				return out, err
			}
		}
		for _, t := range targets {
			e, err := db.entity(txn, t)
			if err != nil {
				return out, err
			}
			gs, err := db.homeGraphs(txn, t, linkPreds)
			if err != nil {
				return out, err
			}
			for _, g := range gs {
				keep := g == graph || (graph == "" && !slices.Contains(home, g))
				if keep && !containsLink(out, e.ID, g) {
					out = append(out, store.Link{Target: e, Graph: g, Via: via})
				}
			}
		}
	}
	return out, nil
}

func containsLink(ls []store.Link, id, g string) bool {
	return slices.ContainsFunc(ls, func(l store.Link) bool { return l.Target.ID == id && l.Graph == g })
}
