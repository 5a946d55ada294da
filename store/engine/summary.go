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

func encodeSummary(es []sumEntry) []byte {
	b := binary.AppendUvarint(nil, uint64(len(es)))
	for _, e := range es {
		b = appendEntry(b, e.p, e.g, e.count, e.ids)
	}
	return b
}

// appendEntry appends one entry of a node block: group (p, g) with count
// members, and the members (ids) of an inline group.
func appendEntry(b []byte, p, g uint64, count int64, ids []uint64) []byte {
	b = binary.AppendUvarint(b, p)
	b = binary.AppendUvarint(b, g)
	if count > inlineMax {
		return binary.AppendUvarint(b, uint64(count)<<1)
	}
	b = binary.AppendUvarint(b, uint64(count)<<1|1)
	var prev uint64
	for _, id := range ids {
		b = binary.AppendUvarint(b, id-prev)
		prev = id
	}
	return b
}

var errBadSummary = errors.New("corrupt node summary")

// blockReader decodes a node block one entry at a time, so that a reader
// decodes only what it uses: the members of an inline group are decoded
// on request (members) and skipped otherwise.
type blockReader struct {
	v []byte
	// off is the read position: an index rather than a re-sliced v, since
	// storing a slice into a reader on the heap costs a write barrier per
	// varint while the GC runs.
	off     int
	left    uint64 // entries not yet read
	pending int64  // inline members of the current entry not yet read
	// parts are a node's blocks in several segments read as one block
	// (newMergedReader): next takes the part whose next entry has the
	// smallest (p, g), and members reads from it. nil for one block.
	parts []blockPart
	cur   int // the part of the current entry, -1 for none
}

// blockPart is one block of a merged reader, positioned after the
// header of its next entry (head).
type blockPart struct {
	r    blockReader
	head sumEntry
	ok   bool
}

// newMergedReader reads the blocks vs, whose groups are disjoint (the
// segments of one node), as one block in (p, g) order.
func newMergedReader(vs [][]byte) (blockReader, error) {
	m := blockReader{parts: make([]blockPart, len(vs)), cur: -1}
	for i, v := range vs {
		r, err := newBlockReader(v)
		if err != nil {
			return m, err
		}
		m.left += r.left
		p := &m.parts[i]
		p.r = r
		if p.head, p.ok, err = p.r.next(); err != nil {
			return m, err
		}
	}
	return m, nil
}

// nextMerged is next for a merged reader.
func (r *blockReader) nextMerged() (sumEntry, bool, error) {
	if r.cur >= 0 {
		p := &r.parts[r.cur]
		var err error
		if p.head, p.ok, err = p.r.next(); err != nil {
			return sumEntry{}, false, err
		}
	}
	r.cur = -1
	for i := range r.parts {
		p := &r.parts[i]
		if p.ok && (r.cur < 0 || cmpGroup(p.head.p, p.head.g, r.parts[r.cur].head.p, r.parts[r.cur].head.g) < 0) {
			r.cur = i
		}
	}
	if r.cur < 0 {
		return sumEntry{}, false, nil
	}
	r.left--
	return r.parts[r.cur].head, true, nil
}

func newBlockReader(v []byte) (blockReader, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return blockReader{}, errBadSummary
	}
	return blockReader{v: v, off: k, left: n}, nil
}

func (r *blockReader) uvarint() (uint64, error) {
	x, k := binary.Uvarint(r.v[r.off:])
	if k <= 0 {
		return 0, errBadSummary
	}
	r.off += k
	return x, nil
}

// next reads the group (p, g, count) of the next entry; ok is false after
// the last one. Members of the previous entry that were not read are
// skipped.
func (r *blockReader) next() (e sumEntry, ok bool, err error) {
	if r.parts != nil {
		return r.nextMerged()
	}
	for ; r.pending > 0; r.pending-- {
		if _, err := r.uvarint(); err != nil {
			return e, false, err
		}
	}
	if r.left == 0 {
		return e, false, nil
	}
	r.left--
	var c uint64
	if e.p, err = r.uvarint(); err == nil {
		if e.g, err = r.uvarint(); err == nil {
			c, err = r.uvarint()
		}
	}
	if err != nil {
		return e, false, err
	}
	e.count = int64(c >> 1)
	if (c&1 == 1) != e.inline() {
		return e, false, errBadSummary
	}
	if c&1 == 1 {
		r.pending = e.count
	}
	return e, true, nil
}

// members appends the members of the current entry, an inline group, to
// dst.
func (r *blockReader) members(dst []uint64) ([]uint64, error) {
	if r.parts != nil {
		if r.cur < 0 {
			return dst, nil
		}
		return r.parts[r.cur].r.members(dst)
	}
	var prev uint64
	for ; r.pending > 0; r.pending-- {
		d, err := r.uvarint()
		if err != nil {
			return dst, err
		}
		prev += d
		dst = append(dst, prev)
	}
	return dst, nil
}

// decodeSummary appends the entries of a node block to dst; the ids of
// inline groups are decoded too.
func decodeSummary(v []byte, dst []sumEntry) ([]sumEntry, error) {
	r, err := newBlockReader(v)
	if err != nil {
		return dst, err
	}
	return r.all(dst)
}

// all appends the remaining entries to dst, with the members of inline
// groups.
func (r *blockReader) all(dst []sumEntry) ([]sumEntry, error) {
	for {
		e, ok, err := r.next()
		if err != nil || !ok {
			return dst, err
		}
		if e.inline() {
			if e.ids, err = r.members(make([]uint64, 0, e.count)); err != nil {
				return dst, err
			}
		}
		dst = append(dst, e)
	}
}

// readBlock passes a node's block in one direction, as the union of its
// blocks in the first segs segments (see segment.go), to fn (no call if
// the node has none). The value is only valid during fn, which must not
// read the database. A node present in one segment is read in place;
// blocks in several segments (groups of different graphs) are copied and
// read as one (newMergedReader).
func readBlock(txn *badger.Txn, segs uint8, space byte, id uint64, fn func(r *blockReader) error) error {
	var items [maxBlockSegments]*badger.Item
	found := items[:0]
	var key [3 + idLen]byte
	for seg := range segs {
		item, err := txn.Get(appendBlockKey(key[:0], space, seg, id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			continue
		} else if err != nil {
			return err
		}
		found = append(found, item)
	}
	switch len(found) {
	case 0:
		return nil
	case 1:
		return found[0].Value(func(v []byte) error {
			r, err := newBlockReader(v)
			return passBlock(r, err, id, fn)
		})
	}
	vs := make([][]byte, len(found))
	for i, item := range found {
		var err error
		if vs[i], err = item.ValueCopy(nil); err != nil {
			return fmt.Errorf("summary of node %d: %w", id, err)
		}
	}
	r, err := newMergedReader(vs)
	return passBlock(r, err, id, fn)
}

// passBlock passes r to fn unless making it failed (err), naming the node
// in an error.
func passBlock(r blockReader, err error, id uint64, fn func(r *blockReader) error) error {
	if err == nil {
		err = fn(&r)
	}
	if err != nil {
		return fmt.Errorf("summary of node %d: %w", id, err)
	}
	return nil
}

// readSummary returns a node's groups in one direction (nil if none).
func readSummary(txn *badger.Txn, segs uint8, space byte, id uint64) ([]sumEntry, error) {
	var es []sumEntry
	err := readBlock(txn, segs, space, id, func(r *blockReader) (err error) {
		es, err = r.all(nil)
		return err
	})
	return es, err
}

// nodeGroups visits a node's groups in one direction (space S or O), from
// its summary.
func nodeGroups(txn *badger.Txn, segs uint8, space byte, id uint64, fn func(groupInfo) error) error {
	es, err := readSummary(txn, segs, space, id)
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

// relationGroups returns a node's groups of predicate p in one direction
// (one per graph), from its node block: one point read, and only the
// members of p's inline groups are decoded.
func relationGroups(txn *badger.Txn, segs uint8, space byte, id, p uint64) ([]groupInfo, error) {
	var out []groupInfo
	err := readBlock(txn, segs, space, id, func(r *blockReader) error {
		for {
			e, ok, err := r.next()
			if err != nil || !ok || e.p > p {
				return err
			}
			if e.p < p {
				continue
			}
			gi := groupInfo{a: id, b: p, g: e.g, count: e.count}
			if e.inline() {
				if gi.ids, err = r.members(make([]uint64, 0, e.count)); err != nil {
					return err
				}
			}
			out = append(out, gi)
		}
	})
	return out, err
}

// groupCounts returns a node's groups in the given directions (spaces S
// and O) without their members: ids is nil even for inline groups, so the
// result must not reach groupChunks or groupMembers.
func groupCounts(txn *badger.Txn, segs uint8, id uint64, spaces ...byte) ([]groupInfo, error) {
	var out []groupInfo
	for _, space := range spaces {
		err := readBlock(txn, segs, space, id, func(r *blockReader) error {
			for {
				e, ok, err := r.next()
				if err != nil || !ok {
					return err
				}
				out = append(out, groupInfo{a: id, b: e.p, g: e.g, count: e.count})
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
