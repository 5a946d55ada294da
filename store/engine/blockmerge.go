package engine

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	badger "github.com/dgraph-io/badger/v4"
)

// Node blocks of a bulk load into a database that holds other data.
//
// The loader writes node blocks in ascending node order, so the stored
// blocks of one direction are read by one forward iterator (a merge-join
// with the R keyspace, not a point read per node). A stored block is not
// decoded into entries: the bytes of the groups the load does not touch —
// typically every group, since another graph's groups have another graph
// id — are copied to the new block as they are, and only a group present
// in both (the same graph loaded again) has its members decoded and
// unioned. The result is byte for byte what
// encodeSummary(mergeSummary(stored, new)) gives.

// storedBlocks reads the stored node blocks of one direction and segment
// in ascending node order with one iterator.
type storedBlocks struct {
	it     *badger.Iterator
	space  byte
	seg    uint8
	keyLen int
	key    []byte
	raw    []byte // the block returned by the last load
}

func newStoredBlocks(txn *badger.Txn, space byte, seg uint8) *storedBlocks {
	prefix := blockPrefix(space, seg)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	it.Rewind()
	return &storedBlocks{it: it, space: space, seg: seg, keyLen: len(prefix) + idLen}
}

// load returns the stored block of node, nil if there is none. Nodes must
// be asked for in ascending order; the block is valid until the next call.
func (s *storedBlocks) load(node uint64) ([]byte, error) {
	for steps := 0; s.it.Valid(); steps++ {
		k := s.it.Item().Key()
		if len(k) != s.keyLen {
			return nil, fmt.Errorf("node block key %x: %w", k, errBadSummary)
		}
		at := getID(k[s.keyLen-idLen:])
		if at > node {
			return nil, nil
		}
		if at == node {
			var err error
			s.raw, err = s.it.Item().ValueCopy(s.raw[:0])
			if err != nil {
				return nil, fmt.Errorf("node block %x: %w", k, err)
			}
			return s.raw, nil
		}
		// A few steps forward are cheaper than a seek; a longer gap
		// (nodes of other graphs only) is skipped by one.
		if steps == 4 {
			s.key = appendBlockKey(s.key[:0], s.space, s.seg, node)
			s.it.Seek(s.key)
			continue
		}
		s.it.Next()
	}
	return nil, nil
}

func (s *storedBlocks) Close() {
	if s != nil {
		s.it.Close()
	}
}

// skipMembers moves past the members of the current entry not yet read.
func (r *blockReader) skipMembers() error {
	if r.parts != nil {
		if r.cur < 0 {
			return nil
		}
		return r.parts[r.cur].r.skipMembers()
	}
	for ; r.pending > 0; r.pending-- {
		for {
			if r.off >= len(r.v) {
				return errBadSummary
			}
			b := r.v[r.off]
			r.off++
			if b < 0x80 {
				break
			}
		}
	}
	return nil
}

// cmpGroup orders groups by (p, g), the order of a node block's entries.
func cmpGroup(p1, g1, p2, g2 uint64) int {
	if p1 != p2 {
		return cmp.Compare(p1, p2)
	}
	return cmp.Compare(g1, g2)
}

// summaryWriter writes the node blocks of one direction of a bulk load.
// Groups arrive sorted by node, then (p, g); each node's block is built in
// one pass into a reused buffer: a stored entry (the database was not
// empty) is copied as it is once the new groups have passed it, and
// replaced by the new entry of the same group, which holds the union of
// the members. The entry count, known at the end, is written in front of
// the entries in the room left for it.
type summaryWriter struct {
	sink   kvWriter
	blocks *storedBlocks // nil when the database was empty
	space  byte
	seg    uint8
	stream uint32
	node   uint64
	open   bool
	n      int         // entries in out
	out    []byte      // room for the count, then the entries
	old    blockReader // the node's stored block, at its next entry
	cur    sumEntry    // that entry (ids unset), if have
	start  int         // where cur's bytes start in the stored block
	have   bool
	added  bool   // a group was added to the current node: the last is
	lastP  uint64 // (lastP, lastG)
	lastG  uint64
	key    []byte
	ids    []uint64
}

// begin makes node the current node, writing the previous one's block
// first if node is a new one, and reads its stored block.
func (w *summaryWriter) begin(node uint64) error {
	if w.open && node == w.node {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	w.node, w.open, w.n, w.have, w.added = node, true, 0, false, false
	w.out = append(w.out[:0], make([]byte, binary.MaxVarintLen64)...)
	if w.blocks == nil {
		return nil
	}
	v, err := w.blocks.load(node)
	if err != nil || v == nil {
		return err
	}
	if w.old, err = newBlockReader(v); err != nil {
		return w.corrupt(err)
	}
	return w.advance()
}

func (w *summaryWriter) corrupt(err error) error {
	return fmt.Errorf("node block %x: %w", appendBlockKey(nil, w.space, w.seg, w.node), err)
}

// advance reads the next stored entry into cur.
func (w *summaryWriter) advance() error {
	w.start = w.old.off
	var err error
	w.cur, w.have, err = w.old.next()
	if err != nil {
		return w.corrupt(err)
	}
	return nil
}

// copyBefore copies the stored entries before group (p, g) to the new
// block, dropping any with a zero count (as mergeSummary does), and
// returns whether the next stored entry is group (p, g).
func (w *summaryWriter) copyBefore(p, g uint64) (bool, error) {
	for w.have {
		c := cmpGroup(w.cur.p, w.cur.g, p, g)
		if c >= 0 {
			return c == 0, nil
		}
		if err := w.old.skipMembers(); err != nil {
			return false, w.corrupt(err)
		}
		if w.cur.count != 0 {
			w.out = append(w.out, w.old.v[w.start:w.old.off]...)
			w.n++
		}
		if err := w.advance(); err != nil {
			return false, err
		}
	}
	return false, nil
}

// stored sets list to the stored members of the current node's group
// (p, g): the inline members of a small group, or the chunks under group
// of a large one; it leaves list empty if the group is not stored. It must
// come before the group's add; inline members stay valid until then.
func (w *summaryWriter) stored(list *storedList, txn *badger.Txn, group []byte, p, g uint64) error {
	found, err := w.copyBefore(p, g)
	if err != nil || !found {
		return err
	}
	if !w.cur.inline() {
		list.setChunks(txn, group)
		return nil
	}
	if w.ids, err = w.old.members(w.ids[:0]); err != nil {
		return w.corrupt(err)
	}
	list.setInline(w.ids)
	return nil
}

// add appends a group of the current node with count members (the stored
// ones included; ids holds them if count <= inlineMax, the group is stored
// in chunks otherwise), in place of the stored entry of the group if there
// is one. Groups must come in ascending (p, g) order.
func (w *summaryWriter) add(p, g uint64, count int64, ids []uint64) error {
	if w.added && cmpGroup(w.lastP, w.lastG, p, g) >= 0 {
		return fmt.Errorf("internal error: groups of node %d out of order", w.node)
	}
	w.added, w.lastP, w.lastG = true, p, g
	found, err := w.copyBefore(p, g)
	if err != nil {
		return err
	}
	if found {
		if err := w.advance(); err != nil {
			return err
		}
	}
	w.out = appendEntry(w.out, p, g, count, ids)
	w.n++
	return nil
}

// flush writes the current node's block.
func (w *summaryWriter) flush() error {
	if !w.open {
		return nil
	}
	w.open = false
	// Ids never reach the maximum: this copies every stored entry left.
	if _, err := w.copyBefore(math.MaxUint64, math.MaxUint64); err != nil {
		return err
	}
	if w.n == 0 {
		return nil
	}
	var c [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(c[:], uint64(w.n))
	at := binary.MaxVarintLen64 - k
	copy(w.out[at:], c[:k])
	w.key = appendBlockKey(w.key[:0], w.space, w.seg, w.node)
	return w.sink.Set(w.stream, w.key, w.out[at:])
}

// blockRouter writes the node blocks of one direction of a bulk load, each
// group into the segment of its graph (segment.go): one summaryWriter, and
// one iterator over the stored blocks, per segment the load reaches.
// Groups arrive in the order summaryWriter needs (by node, then (p, g)),
// and routing keeps that order within each segment.
type blockRouter struct {
	sink    kvWriter
	txn     *badger.Txn // nil when the database was empty
	space   byte
	segOf   func(g uint64) uint8
	writers [maxBlockSegments]*summaryWriter
	// The segment of the last graph asked for: a load's groups mostly
	// share one graph.
	lastG   uint64
	lastSeg uint8
	have    bool
}

// writer returns the block writer of graph g's segment.
func (r *blockRouter) writer(g uint64) *summaryWriter {
	if !r.have || g != r.lastG {
		r.lastG, r.lastSeg, r.have = g, r.segOf(g), true
	}
	w := r.writers[r.lastSeg]
	if w == nil {
		w = &summaryWriter{sink: r.sink, space: r.space, seg: r.lastSeg, stream: blockStream(r.space, r.lastSeg)}
		if r.txn != nil {
			w.blocks = newStoredBlocks(r.txn, r.space, r.lastSeg)
		}
		r.writers[r.lastSeg] = w
	}
	return w
}

// flush writes the last block of every segment.
func (r *blockRouter) flush() error {
	for _, w := range r.writers {
		if w != nil {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close releases the stored-block iterators.
func (r *blockRouter) Close() {
	for _, w := range r.writers {
		if w != nil {
			w.blocks.Close()
		}
	}
}
