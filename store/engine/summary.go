package engine

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// Node summaries. For every node and direction one key lists the node's
// (predicate, graph, edge count) groups:
//
//	R<S|O><id>  ->  n, then n x (p, g, count) as uvarints, sorted by (p, g)
//
// Listing a node's relations, its degree or its graphs is then one point
// read, whatever the node's degree: Wikidata's Q5 with millions of incoming
// edges costs the same as a leaf.
const spaceSummary = 'R'

type sumEntry struct {
	p, g  uint64
	count int64
}

func summaryKey(space byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{spaceSummary, space}, id)
}

func encodeSummary(es []sumEntry) []byte {
	b := binary.AppendUvarint(nil, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendUvarint(b, e.p)
		b = binary.AppendUvarint(b, e.g)
		b = binary.AppendUvarint(b, uint64(e.count))
	}
	return b
}

var errBadSummary = errors.New("corrupt node summary")

func decodeSummary(v []byte, dst []sumEntry) ([]sumEntry, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return dst, errBadSummary
	}
	v = v[k:]
	for i := uint64(0); i < n; i++ {
		var f [3]uint64
		for j := range f {
			x, k := binary.Uvarint(v)
			if k <= 0 {
				return dst, errBadSummary
			}
			f[j], v = x, v[k:]
		}
		dst = append(dst, sumEntry{f[0], f[1], int64(f[2])})
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
		if err := fn(groupInfo{a: id, b: e.p, g: e.g, count: e.count}); err != nil {
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

// setSummaryCount sets one group's count in a node's summary within a
// read-write transaction (count 0 removes it).
func setSummaryCount(txn *badger.Txn, space byte, id, p, g uint64, count int64) error {
	old, err := readSummary(txn, space, id)
	if err != nil {
		return err
	}
	es := mergeSummary(old, []sumEntry{{p, g, count}})
	if len(es) == 0 {
		return txn.Delete(summaryKey(space, id))
	}
	return txn.Set(summaryKey(space, id), encodeSummary(es))
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
