package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// termTable is the vocabulary of one read batch: term bytes -> dense local
// id. The terms are copied into an arena of large chunks and found through
// an open-addressing hash table of 8-byte slots, so interning a new term
// allocates nothing per term and the table holds no pointers per term:
// the garbage collector neither allocates nor scans anything that grows
// with the batch (a Go map of strings costs a string allocation per term
// and is scanned on every GC cycle). A caller with many terms at hand
// hashes them (hash), loads their slots in one loop (prefetch) and then
// interns them with internHashed: a large table misses the cache on
// nearly every lookup, and that way the misses overlap. Not safe for
// concurrent use.
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
func (t *termTable) intern(term []byte) uint32 { return t.internHashed(term, t.hash(term)) }

// hash returns the hash of term that internHashed and prefetch take.
func (t *termTable) hash(term []byte) uint32 {
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint64, 1<<12)
	}
	return uint32(maphash.Bytes(t.seed, term))
}

// internHashed is intern with the term's hash h (from hash) given.
func (t *termTable) internHashed(term []byte, h uint32) uint32 {
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

// prefetch loads the home slots of the terms with hashes hs (from hash),
// then the locations of the terms whose slot has the same hash bits, and
// returns a value depending on the loads. Each loop only issues
// independent loads, so the CPU keeps many cache misses in flight at once
// where intern would wait for them one by one; interning the same terms
// then finds their places in cache.
func (t *termTable) prefetch(hs []uint32) uint64 {
	if len(t.slots) == 0 {
		return 0
	}
	mask := uint32(len(t.slots) - 1)
	var acc uint64
	for _, h := range hs {
		acc += t.slots[h&mask]
	}
	for _, h := range hs {
		if s := t.slots[h&mask]; s != 0 && uint32(s>>32) == h {
			acc += uint64(t.refs[uint32(s)-1].off)
		}
	}
	return acc
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

// touch loads the first byte of each term of ids (and its ref) and
// returns a value depending on the loads. Like prefetch it only issues
// independent loads, so that a caller about to read terms in an order
// unrelated to the arena's (the sorted spill) has their cache misses in
// flight at once rather than one after the other.
func (t *termTable) touch(ids []uint32) uint64 {
	var acc uint64
	for _, id := range ids {
		if r := t.refs[id]; r.n > 0 {
			acc += uint64(t.chunks[r.chunk][r.off])
		}
	}
	return acc
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

// sortedOrder returns the local ids in ascending term order. It is an
// MSD radix sort on 8-byte digits: records carry the digit at the current
// depth, so most of the work is radix passes over 16-byte records, and a
// term's bytes are read once per depth its group needs (terms often share
// long prefixes, such as a namespace or a datatype IRI, which made a
// comparison sort compare whole terms again and again).
func (t *termTable) sortedOrder() []uint32 {
	recs := make([]termRec, len(t.refs))
	for i := range recs {
		recs[i].id = uint32(i)
	}
	t.sortLevel(recs, make([]termRec, len(recs)), 0, true)
	order := make([]uint32, len(recs))
	for i, r := range recs {
		order[i] = r.id
	}
	return order
}

// termRec is a term being sorted: its id and the 8 bytes of it at the
// current depth (big-endian, zero-padded).
type termRec struct {
	digit uint64
	id    uint32
}

// sortDepth sorts recs, whose terms are all longer than depth and share
// their first depth bytes, using tmp (as long as recs) as scratch.
func (t *termTable) sortDepth(recs, tmp []termRec, depth int) { t.sortLevel(recs, tmp, depth, false) }

// sortLevel is sortDepth; with split, the groups of equal digits at this
// level are sorted on two goroutines (each its half of the records and of
// tmp), for the top level of a large table: the last batch of a load is
// spilled while nothing else runs.
func (t *termTable) sortLevel(recs, tmp []termRec, depth int, split bool) {
	if len(recs) < 2 {
		return
	}
	depth += t.sharedPrefix(recs, depth)
	for i := range recs {
		var d [8]byte
		copy(d[:], t.term(recs[i].id)[depth:])
		recs[i].digit = binary.BigEndian.Uint64(d[:])
	}
	if len(recs) < 64 {
		slices.SortFunc(recs, func(a, b termRec) int {
			return cmp.Or(cmp.Compare(a.digit, b.digit), bytes.Compare(t.term(a.id)[depth:], t.term(b.id)[depth:]))
		})
		return
	}
	bits := uint(8)
	if len(recs) >= 1<<14 {
		bits = 16
	}
	radixSortDigits(recs, tmp, bits)
	if !split || len(recs) < splitSortMin {
		t.sortGroups(recs, tmp, depth)
		return
	}
	mid := len(recs) / 2 // moved to the next group boundary
	for mid < len(recs) && recs[mid].digit == recs[mid-1].digit {
		mid++
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.sortGroups(recs[mid:], tmp[mid:], depth)
	}()
	t.sortGroups(recs[:mid], tmp[:mid], depth)
	<-done
}

// splitSortMin is the smallest table whose sort uses two goroutines.
const splitSortMin = 1 << 16

// sortGroups sorts each run of records with the same digit (sorted by
// digit) by the bytes after it.
func (t *termTable) sortGroups(recs, tmp []termRec, depth int) {
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && recs[j].digit == recs[i].digit {
			j++
		}
		if j-i > 1 {
			t.sortTies(recs[i:j], tmp[i:j], depth)
		}
		i = j
	}
}

// sharedPrefix returns how many bytes after depth every term of recs
// shares, when that is at least 8 (else 0), keeping every term longer than
// depth plus it. Skipping a long shared prefix at once (a datatype IRI, a
// URL's scheme and host) reads each term once instead of once per 8-byte
// digit of the prefix; a group without one costs a look at two terms.
func (t *termTable) sharedPrefix(recs []termRec, depth int) int {
	first := t.term(recs[0].id)[depth:]
	n := len(first) - 1
	for _, r := range recs[1:] {
		term := t.term(r.id)[depth:]
		n = frontcode.CommonPrefixLen(first[:min(n, len(term)-1)], term)
		if n < 8 {
			return 0
		}
	}
	return n
}

// sortTies orders terms with the same digit at depth: those that end
// within it (each a prefix of the longer ones, so by length) come first,
// then the rest sorted on the next digit.
func (t *termTable) sortTies(recs, tmp []termRec, depth int) {
	end := depth + 8
	n := 0
	for i := range recs {
		if len(t.term(recs[i].id)) <= end {
			recs[i], recs[n] = recs[n], recs[i]
			n++
		}
	}
	slices.SortFunc(recs[:n], func(a, b termRec) int {
		return cmp.Compare(len(t.term(a.id)), len(t.term(b.id)))
	})
	t.sortDepth(recs[n:], tmp[n:], end)
}

// radixSortDigits sorts recs by digit (LSD on bits-wide radix digits,
// skipping those that are the same in every record), with tmp as scratch;
// the result is in recs.
func radixSortDigits(recs, tmp []termRec, bits uint) {
	var all, any uint64 = ^uint64(0), 0
	for _, r := range recs {
		all &= r.digit
		any |= r.digit
	}
	mask := uint64(1)<<bits - 1
	src, dst := recs, tmp
	count := make([]int, 1<<bits)
	for shift := uint(0); shift < 64; shift += bits {
		if (all^any)>>shift&mask == 0 {
			continue // every record has this digit
		}
		clear(count)
		for _, r := range src {
			count[r.digit>>shift&mask]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, r := range src {
			d := r.digit >> shift & mask
			dst[count[d]] = r
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &recs[0] {
		copy(recs, src)
	}
}
