package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// Relations lists the relation types of ids in direction dir.
func (db *DB) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	spaces, err := dirSpaces(dir)
	if err != nil {
		return nil, err
	}
	var out []store.Relation
	err = db.view(ctx, func(txn *badger.Txn) error {
		groups, err := db.relationCounts(txn, ids, spaces)
		if err != nil {
			return err
		}
		out, err = db.describeRelations(txn, groups)
		return err
	})
	return out, err
}

// relGroup is one (direction, predicate, graph) row of a Relations answer.
type relGroup struct {
	p, g  uint64
	count int64
	space byte
}

func cmpRelGroup(a, b relGroup) int {
	return cmp.Or(cmp.Compare(a.space, b.space), cmp.Compare(a.p, b.p), cmp.Compare(a.g, b.g))
}

// relationCounts reads the groups of ids from their node blocks (counts
// only), summed over the ids: one row per (direction, predicate, graph).
func (db *DB) relationCounts(txn *badger.Txn, ids []string, spaces []byte) ([]relGroup, error) {
	var out []relGroup
	hide := db.loadFilter()
	for _, id := range ids {
		tid, ok, err := db.resolveKnown(txn, id)
		if err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		for _, space := range spaces {
			err := readBlock(txn, db.segments(), space, tid, func(r *blockReader) error {
				out = slices.Grow(out, int(r.left))
				for {
					e, ok, err := r.next()
					if err != nil || !ok {
						return err
					}
					if hide.hidesGraph(e.g) {
						continue
					}
					out = append(out, relGroup{p: e.p, g: e.g, count: e.count, space: space})
				}
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if len(ids) < 2 {
		return out, nil // one node block per direction: no row repeats
	}
	return sumRelGroups(out), nil
}

// sumRelGroups sorts rows and merges those of the same group, adding up
// their counts.
func sumRelGroups(rows []relGroup) []relGroup {
	slices.SortFunc(rows, cmpRelGroup)
	out := rows[:0]
	for _, r := range rows {
		if n := len(out); n > 0 && cmpRelGroup(out[n-1], r) == 0 {
			out[n-1].count += r.count
			continue
		}
		out = append(out, r)
	}
	return out
}

// describeRelations turns rows into Relations in the KG order: graph,
// direction, label, id. A hub has hundreds of rows, so the predicates are
// looked up under one lock of the cache, and the sort works on small keys
// without pointers (graph rank, direction, the label's first bytes),
// comparing whole Relations only on ties.
func (db *DB) describeRelations(txn *badger.Txn, rows []relGroup) ([]store.Relation, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	graphs := db.rankGraphs(rows)
	rels := make([]store.Relation, len(rows))
	keys := make([]relKey, len(rows))
	gr := graphs[0]
	set := func(i int, pi *predInfo) {
		r := rows[i]
		if gr.g != r.g {
			gr = graphs[findGraph(graphs, r.g)]
		}
		dir := spaceDir(r.space)
		rels[i] = store.Relation{ID: pi.id, Label: pi.label, InverseLabel: pi.inverse, Dir: dir,
			Graph: gr.name, Count: r.count, Hidden: pi.hidden}
		keys[i] = relKey{k0: headBits(gr.rank, dir) | pi.sortKey[0], k1: pi.sortKey[1], i: int32(i)}
	}
	var missed []int
	db.preds.lookup(txn, func(get func(p uint64) *predInfo) {
		for i, r := range rows {
			if pi := get(r.p); pi != nil {
				set(i, pi)
			} else {
				missed = append(missed, i)
			}
		}
	})
	for _, i := range missed {
		pi, err := db.pred(txn, rows[i].p)
		if err != nil {
			return nil, err
		}
		set(i, &pi)
	}
	slices.SortFunc(keys, func(a, b relKey) int {
		switch {
		case a.k0 != b.k0:
			return cmp.Compare(a.k0, b.k0)
		case a.k1 != b.k1:
			return cmp.Compare(a.k1, b.k1)
		}
		return compareRelations(&rels[a.i], &rels[b.i])
	})
	permute(rels, keys)
	return rels, nil
}

// permute reorders rels in place so that rels[j] is the old rels[keys[j].i],
// following each cycle of the permutation once (keys[j].i is set to -1 on
// the way).
func permute(rels []store.Relation, keys []relKey) {
	for j := range keys {
		if keys[j].i < 0 {
			continue
		}
		first, cur := rels[j], j
		for {
			src := int(keys[cur].i)
			keys[cur].i = -1
			if src == j {
				rels[cur] = first
				break
			}
			rels[cur] = rels[src]
			cur = src
		}
	}
}

// relKey orders the Relations of one answer: k0 holds the graph's rank,
// the direction and the label's first 7 bytes, k1 its next 8 bytes (see
// labelSortKey); i indexes the Relation. Keys compare like the Relations
// or tie.
type relKey struct {
	k0, k1 uint64
	i      int32
}

// headBits places a graph rank (saturated at 127: more graphs tie) and a
// direction in the top byte of relKey.k0.
func headBits(rank uint32, dir store.Direction) uint64 {
	return uint64(min(rank, 127))<<57 | uint64(dir&1)<<56
}

// sortKey is the first 15 bytes of a label, big-endian and zero-padded:
// 7 in the low bytes of the first word, 8 in the second.
type sortKey [2]uint64

func labelSortKey(label string) sortKey {
	var b [16]byte
	copy(b[1:], label)
	return sortKey{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// compareRelations is store.CompareRelations without copying Relations.
func compareRelations(a, b *store.Relation) int {
	if c := cmp.Compare(a.Graph, b.Graph); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Dir, b.Dir), cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID))
}

// graphRank is a graph of a Relations answer, ranked by name.
type graphRank struct {
	g    uint64
	name string
	rank uint32
}

// rankGraphs names the distinct graphs of rows and ranks them by name
// (graphs with equal names share a rank).
func (db *DB) rankGraphs(rows []relGroup) []graphRank {
	var gs []graphRank
	for _, r := range rows {
		if findGraph(gs, r.g) < 0 {
			gs = append(gs, graphRank{g: r.g, name: db.graphName(r.g)})
		}
	}
	slices.SortFunc(gs, func(a, b graphRank) int { return cmp.Compare(a.name, b.name) })
	for i := range gs {
		if i > 0 && gs[i].name == gs[i-1].name {
			gs[i].rank = gs[i-1].rank
		} else {
			gs[i].rank = uint32(i)
		}
	}
	return gs
}

// findGraph returns the index of graph g in gs, or -1 (an answer has few
// graphs).
func findGraph(gs []graphRank, g uint64) int {
	return slices.IndexFunc(gs, func(x graphRank) bool { return x.g == g })
}
