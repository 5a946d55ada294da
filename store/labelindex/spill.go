package labelindex

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// tempFile is a temporary file: runs are written then read back, the
// FST and postings sections written, rewound and read.
type tempFile interface {
	io.ReadWriteSeeker
	io.Closer
	Name() string
}

// createTemp creates a temporary file in o.Dir (os.TempDir() if "").
// Tests replace o.create to inject write errors.
func (o SpillOptions) createTemp(pattern string) (tempFile, error) {
	dir := o.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	if o.create != nil {
		return o.create(dir, pattern)
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("labelindex: create temporary file in %s: %w", dir, err)
	}
	return f, nil
}

// discard closes and removes a temporary file.
func discard(f tempFile) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// Spill sorts the pairs held in memory and writes them to a new run file,
// which frees their memory for more pairs. Add calls it when the budget is
// passed; a caller that bounds several Builders together may call it on
// the largest. A run holds each distinct pair once: for every pair,
// uvarint(bytes shared with the previous key), uvarint(suffix length),
// the suffix, uvarint(id).
//
// Spill releases the memory of the pairs; the automatic spill keeps it for
// the next run.
func (b *Builder) Spill() error {
	return b.spill(false)
}

func (b *Builder) spill(keep bool) error {
	if len(b.entries) > 0 {
		b.sortEntries()
		path, err := b.writeRun()
		if err != nil {
			return err
		}
		b.runs = append(b.runs, path)
		b.spilled += len(b.entries)
	}
	if keep {
		b.arena, b.entries = b.arena[:0], b.entries[:0]
	} else {
		b.arena, b.entries = nil, nil
	}
	b.sorted = 0
	return nil
}

// writeRun writes the sorted entries to a new run file and returns its
// path; on error the file is removed.
func (b *Builder) writeRun() (path string, err error) {
	f, err := b.opts.createTemp("labelindex-run-*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			discard(f)
			err = fmt.Errorf("labelindex: write run file %s: %w", f.Name(), err)
		}
	}()
	w := bufio.NewWriterSize(f, 256<<10)
	var (
		prev, rec []byte
		fc        frontcode.Encoder
	)
	for i, e := range b.entries {
		k := b.key(e)
		if i > 0 && e.id == b.entries[i-1].id && bytes.Equal(k, prev) {
			continue
		}
		rec = binary.AppendUvarint(fc.Append(rec[:0], k), e.id)
		if _, err := w.Write(rec); err != nil {
			return "", err
		}
		prev = k // the arena is not touched while the run is written
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	b.runBytes += size
	return f.Name(), nil
}

// Close removes the Builder's run files and drops its pairs; the Builder
// is empty afterwards. Blobs already written do not depend on it.
func (b *Builder) Close() error {
	var errs []error
	for _, p := range b.runs {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("labelindex: remove run file: %w", err))
		}
	}
	b.runs, b.spilled, b.runBytes, b.err = nil, 0, 0, nil
	b.arena, b.entries, b.sorted = nil, nil, 0
	return errors.Join(errs...)
}

// pairSource yields (key, id) pairs sorted by key, then id.
type pairSource interface {
	nextPair() bool
	pairKey() []byte
	pairID() uint64
	err() error
	close()
}

// memPairs yields a Builder's sorted entries.
type memPairs struct {
	b   *Builder
	pos int
}

func (m *memPairs) nextPair() bool {
	m.pos++
	return m.pos <= len(m.b.entries)
}

func (m *memPairs) pairKey() []byte { return m.b.key(m.b.entries[m.pos-1]) }
func (m *memPairs) pairID() uint64  { return m.b.entries[m.pos-1].id }
func (m *memPairs) err() error      { return nil }
func (m *memPairs) close()          {}

// runReader reads one run file.
type runReader struct {
	f    *os.File
	r    *bufio.Reader
	dec  frontcode.Decoder
	k    []byte
	id   uint64
	e    error
	done bool
}

func openRun(path string, buf int) (*runReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("labelindex: open run file: %w", err)
	}
	return &runReader{f: f, r: bufio.NewReaderSize(f, buf), dec: frontcode.Decoder{MaxLen: MaxKeyLen}}, nil
}

func (r *runReader) nextPair() bool {
	if r.done {
		return false
	}
	err := r.read()
	if err != nil {
		r.done = true
		if !errors.Is(err, io.EOF) {
			r.e = fmt.Errorf("labelindex: read run file %s: %w", r.f.Name(), err)
		}
		return false
	}
	return true
}

// read decodes one pair; io.EOF only at a pair boundary.
func (r *runReader) read() error {
	k, err := r.dec.Next(r.r)
	if err == nil && len(k) == 0 {
		err = fmt.Errorf("%w: empty key", frontcode.ErrCorrupt)
	}
	if err == nil {
		r.k = k
		r.id, err = binary.ReadUvarint(r.r)
	}
	if err != nil && len(k) > 0 && errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (r *runReader) pairKey() []byte { return r.k }
func (r *runReader) pairID() uint64  { return r.id }
func (r *runReader) err() error      { return r.e }
func (r *runReader) close()          { _ = r.f.Close() }

// runMerge is the keyStream of a Builder with runs: a k-way heap merge of
// the run files and the sorted entries in memory, grouped by key.
type runMerge struct {
	h    []pairSource // sources with a current pair, a heap
	all  []pairSource
	k    []byte
	list []uint64
	e    error
}

// runMerge opens the Builder's runs; its entries must be sorted.
func (b *Builder) runMerge() keyStream {
	m := &runMerge{}
	buf := int(min(max(b.opts.Budget/int64(2*len(b.runs)+2), 4<<10), 1<<20))
	for _, p := range b.runs {
		r, err := openRun(p, buf)
		if err != nil {
			m.close()
			return &errStream{e: err}
		}
		m.all = append(m.all, r)
	}
	m.all = append(m.all, &memPairs{b: b})
	for _, s := range m.all {
		if s.nextPair() {
			m.h = append(m.h, s)
		} else if err := s.err(); err != nil {
			m.close()
			return &errStream{e: err}
		}
	}
	heap.Init(m)
	return m
}

func (m *runMerge) Len() int      { return len(m.h) }
func (m *runMerge) Swap(i, j int) { m.h[i], m.h[j] = m.h[j], m.h[i] }
func (m *runMerge) Push(any)      { panic("runMerge: no push") }

func (m *runMerge) Less(i, j int) bool {
	a, b := m.h[i], m.h[j]
	if c := bytes.Compare(a.pairKey(), b.pairKey()); c != 0 {
		return c < 0
	}
	return cmp.Less(a.pairID(), b.pairID())
}

func (m *runMerge) Pop() any {
	s := m.h[len(m.h)-1]
	m.h = m.h[:len(m.h)-1]
	return s
}

func (m *runMerge) next() bool {
	if m.e != nil || len(m.h) == 0 {
		return false
	}
	m.k = append(m.k[:0], m.h[0].pairKey()...)
	m.list = m.list[:0]
	for len(m.h) > 0 && bytes.Equal(m.h[0].pairKey(), m.k) {
		s := m.h[0]
		if id := s.pairID(); len(m.list) == 0 || m.list[len(m.list)-1] != id {
			m.list = append(m.list, id)
		}
		if s.nextPair() {
			heap.Fix(m, 0)
			continue
		}
		if m.e = s.err(); m.e != nil {
			return false
		}
		heap.Pop(m)
	}
	return true
}

func (m *runMerge) key() []byte   { return m.k }
func (m *runMerge) ids() []uint64 { return m.list }
func (m *runMerge) err() error    { return m.e }

func (m *runMerge) close() {
	for _, s := range m.all {
		s.close()
	}
}
