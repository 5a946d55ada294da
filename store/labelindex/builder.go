package labelindex

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/blevesearch/vellum"
)

// Builder collects (label, id) pairs in any order and writes them as one
// blob. Labels are normalized on Add and kept in a single byte arena, so a
// few million labels cost about 16 bytes each plus their key bytes. A Builder
// is not safe for concurrent use.
type Builder struct {
	arena   []byte
	entries []entry
	skipped int
}

// entry is one added pair; ref packs the key's arena offset (high 48 bits)
// and length (low 16 bits).
type entry struct {
	ref uint64
	id  uint64
}

const refLenBits = 16

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{}
}

// Add records that label (or alias) names entity id. Labels that normalize
// to "" are skipped and counted by Skipped. Duplicates are allowed.
func (b *Builder) Add(label string, id uint64) {
	start := len(b.arena)
	b.arena = appendNormalized(b.arena, label)
	n := len(b.arena) - start
	if n == 0 {
		b.skipped++
		return
	}
	b.entries = append(b.entries, entry{ref: uint64(start)<<refLenBits | uint64(n), id: id})
}

// AddKey records a pair whose key is already normalized (a key from
// Normalize, a Hit or Iterate); an empty key is skipped like in Add.
func (b *Builder) AddKey(key string, id uint64) {
	if key == "" {
		b.skipped++
		return
	}
	b.addKey(key, id)
}

func (b *Builder) addKey(key string, id uint64) {
	start := len(b.arena)
	b.arena = append(b.arena, key...)
	b.entries = append(b.entries, entry{ref: uint64(start)<<refLenBits | uint64(len(key)), id: id})
}

// without returns a new Builder of b's pairs that other does not have.
func (b *Builder) without(other *Builder) *Builder {
	type pair struct {
		key string
		id  uint64
	}
	has := map[pair]bool{}
	for _, e := range other.entries {
		has[pair{string(other.key(e)), e.id}] = true
	}
	out := NewBuilder()
	for _, e := range b.entries {
		if k := string(b.key(e)); !has[pair{k, e.id}] {
			out.addKey(k, e.id)
		}
	}
	return out
}

// Len is the number of pairs added and not skipped, duplicates included.
func (b *Builder) Len() int { return len(b.entries) }

// Skipped is the number of labels that were empty after normalization.
func (b *Builder) Skipped() int { return b.skipped }

// Build writes the index blob of every pair added so far to w. The FST and
// postings are assembled in memory first, since the header that precedes
// them holds their lengths and checksum. The Builder stays usable: more
// pairs may be added and Build called again.
func (b *Builder) Build(w io.Writer) error {
	return writeBlob(w, b.stream())
}

// Merge writes to w the blob of the union of old and add: every key of
// either, with the union of their ids. It streams both in key order, so old
// is never copied into memory; old and add may be nil. It fails if old
// turns out to be corrupt.
func Merge(w io.Writer, old *Index, add *Builder) error {
	if add == nil {
		add = NewBuilder()
	}
	var s keyStream = add.stream()
	if old != nil {
		s = &mergeStream{a: old.stream(), b: s}
	}
	return writeBlob(w, s)
}

func (b *Builder) key(e entry) []byte {
	off := e.ref >> refLenBits
	return b.arena[off : off+e.ref&(1<<refLenBits-1)]
}

// stream sorts the entries and returns them grouped by key.
func (b *Builder) stream() *builderStream {
	slices.SortFunc(b.entries, func(x, y entry) int {
		if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	})
	return &builderStream{b: b}
}

// keyStream yields keys in strictly increasing byte order, each with its
// sorted, distinct, non-empty ids. key and ids are valid until the next call
// to next.
type keyStream interface {
	next() bool
	key() []byte
	ids() []uint64
	err() error
}

// builderStream groups a Builder's sorted entries by key.
type builderStream struct {
	b    *Builder
	pos  int
	k    []byte
	list []uint64
}

func (s *builderStream) next() bool {
	es := s.b.entries
	if s.pos >= len(es) {
		return false
	}
	s.k = s.b.key(es[s.pos])
	s.list = s.list[:0]
	for ; s.pos < len(es) && bytes.Equal(s.b.key(es[s.pos]), s.k); s.pos++ {
		if id := es[s.pos].id; len(s.list) == 0 || s.list[len(s.list)-1] != id {
			s.list = append(s.list, id)
		}
	}
	return true
}

func (s *builderStream) key() []byte   { return s.k }
func (s *builderStream) ids() []uint64 { return s.list }
func (s *builderStream) err() error    { return nil }

// mergeStream is the union of two key streams.
type mergeStream struct {
	a, b         keyStream
	started      bool
	aOK, bOK     bool
	takeA, takeB bool // which streams the current key came from
	merged       []uint64
	cur          []byte
	curIDs       []uint64
}

func (m *mergeStream) next() bool {
	if !m.started {
		m.started = true
		m.aOK, m.bOK = m.a.next(), m.b.next()
	} else {
		if m.takeA {
			m.aOK = m.a.next()
		}
		if m.takeB {
			m.bOK = m.b.next()
		}
	}
	if m.err() != nil {
		return false
	}
	m.takeA, m.takeB = m.aOK, m.bOK
	if m.aOK && m.bOK {
		c := bytes.Compare(m.a.key(), m.b.key())
		m.takeA, m.takeB = c <= 0, c >= 0
	}
	switch {
	case m.takeA && m.takeB:
		m.cur = m.a.key()
		m.merged = unionIDs(m.merged[:0], m.a.ids(), m.b.ids())
		m.curIDs = m.merged
	case m.takeA:
		m.cur, m.curIDs = m.a.key(), m.a.ids()
	case m.takeB:
		m.cur, m.curIDs = m.b.key(), m.b.ids()
	default:
		return false
	}
	return true
}

func (m *mergeStream) key() []byte   { return m.cur }
func (m *mergeStream) ids() []uint64 { return m.curIDs }

func (m *mergeStream) err() error {
	if err := m.a.err(); err != nil {
		return err
	}
	return m.b.err()
}

// unionIDs appends the sorted union of the sorted, distinct lists x and y to
// dst.
func unionIDs(dst, x, y []uint64) []uint64 {
	for len(x) > 0 && len(y) > 0 {
		switch {
		case x[0] < y[0]:
			dst, x = append(dst, x[0]), x[1:]
		case x[0] > y[0]:
			dst, y = append(dst, y[0]), y[1:]
		default:
			dst, x, y = append(dst, x[0]), x[1:], y[1:]
		}
	}
	dst = append(dst, x...)
	return append(dst, y...)
}

// writeBlob writes the blob of every key of s to w.
func writeBlob(w io.Writer, s keyStream) error {
	var fst bytes.Buffer
	fb, err := vellum.New(&fst, nil)
	if err != nil {
		return fmt.Errorf("labelindex: start FST: %w", err)
	}
	var (
		h    header
		post []byte
		prev []byte
	)
	for s.next() {
		k, ids := s.key(), s.ids()
		if err := fb.Insert(k, uint64(len(post))); err != nil {
			return fmt.Errorf("labelindex: insert key %q: %w", k, err)
		}
		post = appendPostings(post, ids)
		h.numKeys++
		h.numIDs += uint64(len(ids))
		h.trieEdges += uint64(len(k) - commonPrefixLen(prev, k))
		h.maxKeyLen = max(h.maxKeyLen, uint32(len(k)))
		prev = append(prev[:0], k...)
	}
	if err := s.err(); err != nil {
		return fmt.Errorf("labelindex: read keys: %w", err)
	}
	if err := fb.Close(); err != nil {
		return fmt.Errorf("labelindex: finish FST: %w", err)
	}
	h.fstLen, h.postLen = uint64(fst.Len()), uint64(len(post))
	for _, part := range [][]byte{h.encode(fst.Bytes(), post), fst.Bytes(), post} {
		if _, err := w.Write(part); err != nil {
			return fmt.Errorf("labelindex: write index: %w", err)
		}
	}
	return nil
}

func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
