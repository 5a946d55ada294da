package engine

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// Node blocks. For every node and direction one key lists the node's
// (predicate, graph, edge count) groups, and holds the members of its
// small groups inline:
//
//	R<S|O><id>  ->  n, then n x (p, g, count<<1 | inline [, count member deltas])
//
// as uvarints, sorted by (p, g). A group is inline exactly when it has at
// most inlineMax members; larger groups live in S/O posting-list chunks.
// Listing a node's relations, its degree or its graphs is one point read
// whatever the node's degree (Wikidata's Q5 with millions of incoming
// edges costs the same as a leaf), and the many small groups of a typical
// entity cost no key of their own: one key per node and direction instead
// of one per (node, predicate, graph).
const (
	spaceSummary = 'R'
	inlineMax    = 8
)

type sumEntry struct {
	p, g  uint64
	count int64
	// ids are the members of an inline group (count <= inlineMax), nil
	// for a group stored in chunks.
	ids []uint64
}

func (e sumEntry) inline() bool { return e.count <= inlineMax }

func summaryKey(space byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{spaceSummary, space}, id)
}

func encodeSummary(es []sumEntry) []byte {
	b := binary.AppendUvarint(nil, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendUvarint(b, e.p)
		b = binary.AppendUvarint(b, e.g)
		if !e.inline() {
			b = binary.AppendUvarint(b, uint64(e.count)<<1)
			continue
		}
		b = binary.AppendUvarint(b, uint64(e.count)<<1|1)
		var prev uint64
		for _, id := range e.ids {
			b = binary.AppendUvarint(b, id-prev)
			prev = id
		}
	}
	return b
}

var errBadSummary = errors.New("corrupt node summary")

// decodeSummary appends the entries of a node block to dst; the ids of
// inline groups are decoded too.
func decodeSummary(v []byte, dst []sumEntry) ([]sumEntry, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return dst, errBadSummary
	}
	v = v[k:]
	next := func() (uint64, bool) {
		x, k := binary.Uvarint(v)
		if k <= 0 {
			return 0, false
		}
		v = v[k:]
		return x, true
	}
	for i := uint64(0); i < n; i++ {
		p, ok1 := next()
		g, ok2 := next()
		c, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			return dst, errBadSummary
		}
		e := sumEntry{p: p, g: g, count: int64(c >> 1)}
		if c&1 == 1 {
			if e.count > inlineMax {
				return dst, errBadSummary
			}
			e.ids = make([]uint64, 0, e.count)
			var prev uint64
			for j := int64(0); j < e.count; j++ {
				d, ok := next()
				if !ok {
					return dst, errBadSummary
				}
				prev += d
				e.ids = append(e.ids, prev)
			}
		} else if e.inline() {
			return dst, errBadSummary
		}
		dst = append(dst, e)
	}
	return dst, nil
}

// readSummary returns a node's groups in one direction (nil if none).
func readSummary(txn *badger.Txn, space byte, id uint64) ([]sumEntry, error) {
	item, err := txn.Get(summaryKey(space, id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var es []sumEntry
	err = item.Value(func(v []byte) (err error) {
		es, err = decodeSummary(v, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("summary of node %d: %w", id, err)
	}
	return es, nil
}

// nodeGroups visits a node's groups in one direction (space S or O), from
// its summary.
func nodeGroups(txn *badger.Txn, space byte, id uint64, fn func(groupInfo) error) error {
	es, err := readSummary(txn, space, id)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := fn(groupInfo{a: id, b: e.p, g: e.g, count: e.count, ids: e.ids}); err != nil {
			return err
		}
	}
	return nil
}

// mergeSummary replaces or adds the entries of upd in old (both sorted),
// dropping entries whose count is zero.
func mergeSummary(old, upd []sumEntry) []sumEntry {
	out := make([]sumEntry, 0, len(old)+len(upd))
	i, j := 0, 0
	for i < len(old) || j < len(upd) {
		switch {
		case j == len(upd) || (i < len(old) && cmpEntry(old[i], upd[j]) < 0):
			out = append(out, old[i])
			i++
		case i == len(old) || cmpEntry(old[i], upd[j]) > 0:
			out = append(out, upd[j])
			j++
		default:
			out = append(out, upd[j])
			i++
			j++
		}
	}
	return slices.DeleteFunc(out, func(e sumEntry) bool { return e.count == 0 })
}

func cmpEntry(a, b sumEntry) int { return cmp.Or(cmp.Compare(a.p, b.p), cmp.Compare(a.g, b.g)) }

// findEntry returns the entry of group (p, g) in a node's block.
func findEntry(es []sumEntry, p, g uint64) (sumEntry, bool) {
	i, ok := slices.BinarySearchFunc(es, sumEntry{p: p, g: g}, cmpEntry)
	if !ok {
		return sumEntry{}, false
	}
	return es[i], true
}

// relationGroups visits a node's groups of one predicate in one direction,
// from its summary (no iterator: one point read).
func relationGroups(txn *badger.Txn, space byte, id, p uint64, fn func(groupInfo) error) error {
	return nodeGroups(txn, space, id, func(gi groupInfo) error {
		if gi.b != p {
			return nil
		}
		return fn(gi)
	})
}
