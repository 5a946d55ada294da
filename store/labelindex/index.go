package labelindex

import (
	"errors"
	"fmt"

	"github.com/blevesearch/vellum"
)

// Index is an opened blob. It is read-only and safe for concurrent use. It
// keeps a reference to the bytes given to Open, which must not change.
type Index struct {
	h    header
	fst  *vellum.FST
	post []byte
}

// Open checks the header, section lengths and checksum of a blob written by
// Build or Merge and opens it. Corrupt data gives an error wrapping
// ErrCorrupt, never a panic. Open does not walk the whole FST; Verify does.
func Open(data []byte) (ix *Index, err error) {
	h, fstData, post, err := decodeHeader(data)
	if err != nil {
		return nil, err
	}
	defer recoverCorrupt(&err, "load FST")
	fst, err := vellum.Load(fstData)
	if err != nil {
		return nil, fmt.Errorf("%w: load FST: %w", ErrCorrupt, err)
	}
	if uint64(fst.Len()) != h.numKeys {
		return nil, fmt.Errorf("%w: FST holds %d keys, header says %d", ErrCorrupt, fst.Len(), h.numKeys)
	}
	return &Index{h: h, fst: fst, post: post}, nil
}

// recoverCorrupt turns a panic inside vellum's decoder, which only corrupt
// data can cause, into an error.
func recoverCorrupt(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %s: %v", ErrCorrupt, what, r)
	}
}

// Len is the number of distinct keys.
func (ix *Index) Len() int { return int(ix.h.numKeys) }

// NumIDs is the number of (key, id) pairs.
func (ix *Index) NumIDs() int { return int(ix.h.numIDs) }

// Lookup returns the sorted ids of a normalized key (see Normalize), or nil
// when the key is absent. A corrupt entry also gives nil; Verify reports it.
func (ix *Index) Lookup(normKey string) []uint64 {
	ids, _ := ix.lookup(nil, normKey, 0)
	return ids
}

// lookup appends the ids of key to dst, at most limit of them if limit > 0.
func (ix *Index) lookup(dst []uint64, key string, limit int) (ids []uint64, err error) {
	defer recoverCorrupt(&err, "lookup")
	off, ok, err := ix.fst.Get([]byte(key))
	if err != nil {
		return dst, fmt.Errorf("%w: lookup %q: %w", ErrCorrupt, key, err)
	}
	if !ok {
		return dst, nil
	}
	ids, _, err = decodePostings(dst, ix.post, off, limit)
	return ids, err
}

// Iterate calls fn for every key in byte order with its sorted ids. ids is
// reused after fn returns. It stops at and returns fn's first error, or an
// error wrapping ErrCorrupt when the index turns out to be corrupt.
func (ix *Index) Iterate(fn func(key string, ids []uint64) error) error {
	s := ix.stream()
	for s.next() {
		if err := fn(string(s.key()), s.ids()); err != nil {
			return err
		}
	}
	return s.err()
}

// Verify walks the whole index and checks every key and postings list
// against the header. It costs one Iterate.
func (ix *Index) Verify() error {
	return ix.Iterate(func(string, []uint64) error { return nil })
}

// stream walks all keys in order. Its automaton allows exactly the number of
// steps a valid FST of this header needs, and no key longer than the header
// says, so a corrupt FST cannot make it loop.
func (ix *Index) stream() *indexStream {
	depth := &depthAutomaton{max: int(ix.h.maxKeyLen)}
	return &indexStream{
		ix:    ix,
		depth: depth,
		aut:   &bounded{inner: depth, left: int(min(ix.h.trieEdges, uint64(maxInt)))},
	}
}

const maxInt = int(^uint(0) >> 1)

// indexStream is a keyStream over an Index that checks what it reads.
type indexStream struct {
	ix      *Index
	depth   *depthAutomaton
	aut     *bounded
	it      *vellum.FSTIterator
	started bool
	done    bool
	k       []byte
	list    []uint64
	off     uint64 // where the next postings list must start
	keys    uint64
	nids    uint64
	e       error
}

func (s *indexStream) next() bool {
	if s.done {
		return false
	}
	ok, err := s.advance()
	if err == nil && !ok {
		err = s.finish()
	}
	if err != nil || !ok {
		s.done, s.e = true, err
		return false
	}
	return true
}

// advance moves to the next key and decodes its postings.
func (s *indexStream) advance() (ok bool, err error) {
	defer recoverCorrupt(&err, "iterate")
	if !s.started {
		s.started = true
		s.it, err = s.ix.fst.Search(s.aut, nil, nil)
	} else {
		err = s.it.Next()
	}
	if errors.Is(err, vellum.ErrIteratorDone) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: iterate: %w", ErrCorrupt, err)
	}
	if err := s.walkError(); err != nil {
		return false, err
	}
	k, off := s.it.Current()
	if len(k) == 0 || off != s.off {
		return false, fmt.Errorf("%w: key %q after %d keys has postings offset %d, want %d", ErrCorrupt, k, s.keys, off, s.off)
	}
	s.k = k
	s.list, s.off, err = decodePostings(s.list[:0], s.ix.post, off, 0)
	s.keys++
	s.nids += uint64(len(s.list))
	return err == nil, err
}

// finish checks the totals once the walk has ended.
func (s *indexStream) finish() error {
	if err := s.walkError(); err != nil {
		return err
	}
	h := s.ix.h
	switch {
	case s.keys != h.numKeys || s.nids != h.numIDs:
		return fmt.Errorf("%w: walked %d keys and %d ids, header says %d and %d", ErrCorrupt, s.keys, s.nids, h.numKeys, h.numIDs)
	case s.off != h.postLen:
		return fmt.Errorf("%w: postings end at %d of %d bytes", ErrCorrupt, s.off, h.postLen)
	}
	return nil
}

// walkError reports a walk that went beyond the header's bounds; the
// automaton has then cut a path, so a key may be missing.
func (s *indexStream) walkError() error {
	if s.aut.exhausted || s.depth.tooDeep {
		return fmt.Errorf("%w: FST walk exceeds the %d steps and %d-byte keys of the header", ErrCorrupt, s.ix.h.trieEdges, s.ix.h.maxKeyLen)
	}
	return nil
}

func (s *indexStream) key() []byte   { return s.k }
func (s *indexStream) ids() []uint64 { return s.list }
func (s *indexStream) err() error    { return s.e }
func (s *indexStream) close()        {}
