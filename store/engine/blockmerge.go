package engine

import (
	"cmp"
	"encoding/binary"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// Node blocks of a bulk load into a database that holds other data.
//
// The loader writes node blocks in ascending node order, so the stored
// blocks of one direction are read by one forward iterator (a merge-join
// with the R keyspace, not a point read per node). A stored block is not
// decoded: it is cut into the byte spans of its entries (blockSpan), the
// spans of the groups the load does not touch — typically every group,
// since another graph's groups have another graph id — are copied to the
// new block as they are, and only a group present in both (the same graph
// loaded again) has its members decoded and merged. The result is byte for
// byte what encodeSummary(mergeSummary(stored, new)) gives.

// storedBlocks reads the stored node blocks of one direction in ascending
// node order with one iterator.
type storedBlocks struct {
	it    *badger.Iterator
	space byte
	key   []byte
	raw   []byte // the block returned by the last load
}

func newStoredBlocks(txn *badger.Txn, space byte) *storedBlocks {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{spaceSummary, space}})
	it.Rewind()
	return &storedBlocks{it: it, space: space}
}

// load returns the stored block of node, nil if there is none. Nodes must
// be asked for in ascending order; the block is valid until the next call.
func (s *storedBlocks) load(node uint64) ([]byte, error) {
	for steps := 0; s.it.Valid(); steps++ {
		k := s.it.Item().Key()
		if len(k) != summaryKeyLen {
			return nil, fmt.Errorf("node block key %x: %w", k, errBadSummary)
		}
		at := getID(k[2:])
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
			s.key = binary.BigEndian.AppendUint64(append(s.key[:0], spaceSummary, s.space), node)
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

// summaryKeyLen is the length of a node block key: R, the direction and
// the node id.
const summaryKeyLen = 2 + idLen

// blockSpan is one entry of an encoded node block: its group, and where its
// bytes are (start to end, the inline members from mem).
type blockSpan struct {
	p, g            uint64
	count           int64
	start, mem, end int
}

func cmpSpan(a, b *blockSpan) int {
	if a.p != b.p {
		return cmp.Compare(a.p, b.p)
	}
	return cmp.Compare(a.g, b.g)
}

// blockSpans appends the entries of the encoded node block v to dst
// without decoding the members of inline groups.
func blockSpans(v []byte, dst []blockSpan) ([]blockSpan, error) {
	r, err := newBlockReader(v)
	if err != nil {
		return dst, err
	}
	for {
		start := r.off
		e, ok, err := r.next()
		if err != nil || !ok {
			return dst, err
		}
		mem := r.off
		if err := r.skipMembers(); err != nil {
			return dst, err
		}
		dst = append(dst, blockSpan{p: e.p, g: e.g, count: e.count, start: start, mem: mem, end: r.off})
	}
}

// skipMembers moves past the members of the current entry not yet read.
func (r *blockReader) skipMembers() error {
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

// appendEntry appends the encoding of one node block entry (as
// encodeSummary writes it) of group (p, g) with the given members; only
// the count is written for a group of more than inlineMax members.
func appendEntry(b []byte, p, g uint64, ids []uint64) []byte {
	b = binary.AppendUvarint(b, p)
	b = binary.AppendUvarint(b, g)
	n := uint64(len(ids))
	if len(ids) > inlineMax {
		return binary.AppendUvarint(b, n<<1)
	}
	b = binary.AppendUvarint(b, n<<1|1)
	var prev uint64
	for _, id := range ids {
		b = binary.AppendUvarint(b, id-prev)
		prev = id
	}
	return b
}

// summaryWriter collects the groups of one node at a time (quads arrive
// sorted by node, then group) and writes the node's block, merged with the
// stored one unless the database was empty. Buffers are reused from node
// to node.
type summaryWriter struct {
	sink   kvWriter
	blocks *storedBlocks // nil when the database was empty
	space  byte
	stream uint32
	node   uint64
	open   bool
	old    []byte      // the node's stored block (nil if none)
	spans  []blockSpan // its entries
	at     int         // spans[:at] precede the last group looked up
	enc    []byte      // the node's new entries, encoded
	news   []blockSpan // their spans in enc
	out    []byte
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
	w.node, w.open, w.at = node, true, 0
	w.enc, w.news, w.spans, w.old = w.enc[:0], w.news[:0], w.spans[:0], nil
	if w.blocks == nil {
		return nil
	}
	var err error
	if w.old, err = w.blocks.load(node); err != nil || w.old == nil {
		return err
	}
	if w.spans, err = blockSpans(w.old, w.spans); err != nil {
		return fmt.Errorf("node block %x: %w", summaryKey(w.space, node), err)
	}
	return nil
}

// stored returns the stored members of the current node's group (p, g),
// whose chunks (for a large group) are under group; groups must be asked
// for in ascending order. The result is valid until the next call.
func (w *summaryWriter) stored(txn *badger.Txn, group []byte, p, g uint64) ([]uint64, error) {
	want := blockSpan{p: p, g: g}
	for w.at < len(w.spans) && cmpSpan(&w.spans[w.at], &want) < 0 {
		w.at++
	}
	if w.at == len(w.spans) || cmpSpan(&w.spans[w.at], &want) != 0 {
		return nil, nil
	}
	sp := w.spans[w.at]
	w.ids = w.ids[:0]
	if sp.count <= inlineMax {
		r := blockReader{v: w.old[:sp.end], off: sp.mem, pending: sp.count}
		var err error
		w.ids, err = r.members(w.ids)
		return w.ids, err
	}
	err := eachStoredChunk(txn, group, func(ids []uint64) (bool, error) {
		w.ids = append(w.ids, ids...)
		return true, nil
	})
	return w.ids, err
}

// add appends a group of the current node with all its members (the
// stored ones included); groups must come in ascending (p, g) order.
func (w *summaryWriter) add(p, g uint64, ids []uint64) error {
	sp := blockSpan{p: p, g: g, count: int64(len(ids)), start: len(w.enc)}
	if n := len(w.news); n > 0 && cmpSpan(&w.news[n-1], &sp) >= 0 {
		return fmt.Errorf("internal error: groups of node %d out of order", w.node)
	}
	w.enc = appendEntry(w.enc, p, g, ids)
	sp.end = len(w.enc)
	w.news = append(w.news, sp)
	return nil
}

// flush writes the current node's block: its new groups and the stored
// groups they do not replace, in (p, g) order. Stored entries with a zero
// count are dropped, as mergeSummary does.
func (w *summaryWriter) flush() error {
	if !w.open {
		return nil
	}
	w.open = false
	if len(w.news) == 0 {
		return nil
	}
	out := w.out[:0]
	if len(w.spans) == 0 {
		out = append(binary.AppendUvarint(out, uint64(len(w.news))), w.enc...)
	} else {
		n := 0
		w.merged(func([]byte) { n++ })
		out = binary.AppendUvarint(out, uint64(n))
		w.merged(func(b []byte) { out = append(out, b...) })
	}
	w.out = out
	w.key = binary.BigEndian.AppendUint64(append(w.key[:0], spaceSummary, w.space), w.node)
	return w.sink.Set(w.stream, w.key, out)
}

// merged calls emit with the encoding of each entry of the current node's
// merged block, in order.
func (w *summaryWriter) merged(emit func([]byte)) {
	i, j := 0, 0
	for i < len(w.spans) || j < len(w.news) {
		c := -1
		switch {
		case i == len(w.spans):
			c = 1
		case j < len(w.news):
			c = cmpSpan(&w.spans[i], &w.news[j])
		}
		if c < 0 {
			if sp := &w.spans[i]; sp.count != 0 {
				emit(w.old[sp.start:sp.end])
			}
			i++
			continue
		}
		if c == 0 { // the new entry holds the union
			i++
		}
		emit(w.enc[w.news[j].start:w.news[j].end])
		j++
	}
}
