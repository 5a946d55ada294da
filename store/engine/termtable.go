package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// termTable is the vocabulary of one read batch: term bytes -> dense local
// id. The terms are copied into an arena of large chunks and found through
// an open-addressing hash table of 8-byte slots, so interning a new term
// allocates nothing per term and the table holds no pointers per term:
// the garbage collector neither allocates nor scans anything that grows
// with the batch (a Go map of strings costs a string allocation per term
// and is scanned on every GC cycle). Not safe for concurrent use.
type termTable struct {
	chunks [][]byte  // the arena; terms never span chunks
	refs   []termRef // local id -> location of its bytes
	// slots: 0 is empty, else the low 32 bits of the term's hash << 32 |
	// (id + 1). The hash bits pick the home slot (so the table can grow
	// without rehashing the bytes) and filter most mismatches without
	// touching the arena.
	slots []uint64
	seed  maphash.Seed
	bytes int64 // arena bytes in use
}

type termRef struct{ chunk, off, n uint32 }

const (
	termChunk = 1 << 20
	// termTableOverhead approximates the memory of one term beyond its
	// bytes: its ref and its share of the slots (load at most 3/4, tables
	// double) plus arena slack.
	termTableOverhead = 12 + 16 + 4
)

func (t *termTable) len() int { return len(t.refs) }

// term returns the bytes of local id; the slice aliases the arena.
func (t *termTable) term(id uint32) []byte {
	r := t.refs[id]
	return t.chunks[r.chunk][r.off : r.off+r.n : r.off+r.n]
}

// intern returns the local id of term, adding a copy of it if it is new.
func (t *termTable) intern(term []byte) uint32 {
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint64, 1<<12)
	}
	h := uint32(maphash.Bytes(t.seed, term))
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := t.add(term)
			t.slots[i] = uint64(h)<<32 | uint64(id+1)
			if uint64(len(t.refs))*4 > uint64(len(t.slots))*3 {
				t.grow()
			}
			return id
		}
		if uint32(s>>32) == h && bytes.Equal(t.term(uint32(s)-1), term) {
			return uint32(s) - 1
		}
	}
}

// add copies term into the arena and gives it the next id.
func (t *termTable) add(term []byte) uint32 {
	n := len(term)
	last := len(t.chunks) - 1
	if last < 0 || cap(t.chunks[last])-len(t.chunks[last]) < n {
		t.chunks = append(t.chunks, make([]byte, 0, max(termChunk, n)))
		last++
	}
	c := t.chunks[last]
	t.refs = append(t.refs, termRef{chunk: uint32(last), off: uint32(len(c)), n: uint32(n)})
	t.chunks[last] = append(c, term...)
	t.bytes += int64(n)
	return uint32(len(t.refs) - 1)
}

// grow doubles the slot table, placing every entry by its stored hash bits.
func (t *termTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// dropIndex frees the hash slots; term and len keep working.
func (t *termTable) dropIndex() { t.slots = nil }

// sortedOrder returns the local ids in ascending term order. The sort
// compares an 8-byte big-endian prefix held in the sorted records first,
// so most comparisons touch neither the refs nor the arena.
func (t *termTable) sortedOrder() []uint32 {
	type rec struct {
		prefix uint64
		id     uint32
	}
	recs := make([]rec, len(t.refs))
	for i := range recs {
		var p [8]byte
		copy(p[:], t.term(uint32(i)))
		recs[i] = rec{binary.BigEndian.Uint64(p[:]), uint32(i)}
	}
	slices.SortFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(a.prefix, b.prefix); c != 0 {
			return c
		}
		return bytes.Compare(t.term(a.id), t.term(b.id))
	})
	order := make([]uint32, len(recs))
	for i, r := range recs {
		order[i] = r.id
	}
	return order
}
