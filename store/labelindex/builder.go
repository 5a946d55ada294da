package labelindex

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"os"
	"slices"
)

// Builder collects (label, id) pairs in any order and writes them as one
// blob. Labels are normalized on Add and kept in a single byte arena, so a
// label costs about 16 bytes plus its key bytes. A Builder made by
// NewBuilder keeps everything in memory; one made by NewSpillingBuilder
// writes sorted runs to temporary files whenever its memory passes a
// budget, and Build, Merge and View.Compact merge those runs back (see the
// package documentation). A Builder is not safe for concurrent use; Close
// removes its temporary files.
type Builder struct {
	arena    []byte
	entries  []entry
	sorted   int // entries[:sorted] are in order (sortEntries ran since the last add)
	skipped  int
	opts     SpillOptions
	runs     []string // sorted run files, oldest first
	spilled  int      // pairs written to runs
	runBytes int64    // bytes of the run files
	err      error    // first spill error, reported by Build, Merge and Err
}

// entry is one added pair; ref packs the key's arena offset (high 48 bits)
// and length (low 16 bits).
type entry struct {
	ref uint64
	id  uint64
}

const (
	refLenBits = 16
	entrySize  = 16 // bytes of one entry
)

// SpillOptions bound the memory of a Builder.
type SpillOptions struct {
	// Dir receives the temporary files: sorted runs, and the FST and
	// postings sections while a blob is written. "" means os.TempDir().
	Dir string
	// Budget is the number of bytes of keys and entries held in memory
	// before they are sorted and written as a run; the FST and postings
	// sections stay in memory up to a quarter of it each. <= 0 means no
	// limit: everything stays in memory, as with NewBuilder.
	Budget int64

	create func(dir, pattern string) (tempFile, error) // tests: nil is os.CreateTemp
}

// NewBuilder returns an empty Builder that keeps everything in memory.
func NewBuilder() *Builder {
	return &Builder{}
}

// NewSpillingBuilder returns an empty Builder whose memory stays near
// opts.Budget whatever the number of labels.
func NewSpillingBuilder(opts SpillOptions) *Builder {
	if opts.Dir == "" {
		opts.Dir = os.TempDir()
	}
	return &Builder{opts: opts}
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
	b.checkBudget()
}

// AddKey records a pair whose key is already normalized (a key from
// Normalize, a Hit or Iterate); an empty key is skipped like in Add.
func (b *Builder) AddKey(key string, id uint64) {
	if key == "" {
		b.skipped++
		return
	}
	b.addKey(key, id)
	b.checkBudget()
}

func (b *Builder) addKey(key string, id uint64) {
	start := len(b.arena)
	b.arena = append(b.arena, key...)
	b.entries = append(b.entries, entry{ref: uint64(start)<<refLenBits | uint64(len(key)), id: id})
}

// checkBudget spills the pairs in memory when they pass the budget. A
// spill error is kept for Build, Merge and Err; the pairs stay in memory.
func (b *Builder) checkBudget() {
	if b.opts.Budget > 0 && b.err == nil && b.inMemory() > b.opts.Budget {
		b.err = b.spill(true)
	}
}

// inMemory is the size of the keys and entries held, in bytes.
func (b *Builder) inMemory() int64 {
	return int64(len(b.arena)) + entrySize*int64(len(b.entries))
}

// Footprint is the memory the Builder holds for its pairs, in bytes: the
// capacity of its slices, which is kept after an automatic spill for the
// next run and released by Spill.
func (b *Builder) Footprint() int64 {
	return int64(cap(b.arena)) + entrySize*int64(cap(b.entries))
}

// Len is the number of pairs added and not skipped, duplicates included.
func (b *Builder) Len() int { return b.spilled + len(b.entries) }

// Skipped is the number of labels that were empty after normalization.
func (b *Builder) Skipped() int { return b.skipped }

// Runs is the number of sorted runs written to temporary files so far.
func (b *Builder) Runs() int { return len(b.runs) }

// RunBytes is the size of the run files written so far (0 after Close).
func (b *Builder) RunBytes() int64 { return b.runBytes }

// Err is the first error met while spilling a run, if any.
func (b *Builder) Err() error { return b.err }

// Build writes the index blob of every pair added so far to w. The
// Builder stays usable: more pairs may be added and Build called again.
func (b *Builder) Build(w io.Writer) error {
	return b.BuildContext(context.Background(), w)
}

// BuildContext is Build that stops when ctx is done.
func (b *Builder) BuildContext(ctx context.Context, w io.Writer) error {
	return writeBlob(ctx, w, b.stream(), b.opts)
}

// Merge writes to w the blob of the union of old and add: every key of
// either, with the union of their ids. It streams both in key order, so old
// is never copied into memory; old and add may be nil. It fails if old
// turns out to be corrupt.
func Merge(w io.Writer, old *Index, add *Builder) error {
	return MergeContext(context.Background(), w, old, add)
}

// MergeContext is Merge that stops when ctx is done. Temporary files use
// add's SpillOptions.
func MergeContext(ctx context.Context, w io.Writer, old *Index, add *Builder) error {
	if add == nil {
		add = NewBuilder()
	}
	s := add.stream()
	if old != nil {
		s = &mergeStream{a: old.stream(), b: s}
	}
	return writeBlob(ctx, w, s, add.opts)
}

func (b *Builder) key(e entry) []byte {
	off := e.ref >> refLenBits
	return b.arena[off : off+e.ref&(1<<refLenBits-1)]
}

// sortEntries sorts the pairs in memory by key, then id.
func (b *Builder) sortEntries() {
	if b.sorted == len(b.entries) {
		return // nothing added since the last sort (WriteSegment streams add twice)
	}
	defer func() { b.sorted = len(b.entries) }()
	slices.SortFunc(b.entries, func(x, y entry) int {
		if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	})
}

// stream sorts the entries and returns every pair grouped by key: the
// entries alone, or merged with the spilled runs.
func (b *Builder) stream() keyStream {
	if b.err != nil {
		return &errStream{e: b.err}
	}
	b.sortEntries()
	if len(b.runs) == 0 {
		return &builderStream{b: b}
	}
	return b.runMerge()
}

// keyStream yields keys in strictly increasing byte order, each with its
// sorted, distinct, non-empty ids. key and ids are valid until the next call
// to next. close releases open files; it may be called more than once.
type keyStream interface {
	next() bool
	key() []byte
	ids() []uint64
	err() error
	close()
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
func (s *builderStream) close()        {}

// errStream is an empty stream that fails.
type errStream struct{ e error }

func (s *errStream) next() bool    { return false }
func (s *errStream) key() []byte   { return nil }
func (s *errStream) ids() []uint64 { return nil }
func (s *errStream) err() error    { return s.e }
func (s *errStream) close()        {}

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

func (m *mergeStream) close() {
	m.a.close()
	m.b.close()
}

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
