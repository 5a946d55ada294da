package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// External sort of quads. A quadSorter keeps at most its budget of 32-byte
// records in memory; a full buffer is sorted, de-duplicated and written to
// a spill file as one sorted run. finish returns a merger that streams all
// runs in order, without duplicates. Not safe for concurrent use.
//
// The runs of a sorter grow with the input (a 2 GiB load budget spills a
// run per ~5.4M quads per sorter: ~1,500 runs for 8B quads), while every
// run a merge reads holds a file descriptor and a read buffer. So a merge
// never reads more than maxMergeRuns runs at once: reduceRuns first merges
// the oldest runs into longer ones (each record is rewritten about once
// per factor of maxMergeRuns beyond it), which keeps memory and open files
// bounded whatever the input size.

// quadOrder is the sort order of a sorter.
type quadOrder uint8

const (
	orderSPO quadOrder = iota // s, p, g, o
	orderOPS                  // o, p, g, s
	orderPGS                  // p, g, s
)

func (o quadOrder) cmp(a, b qids) int {
	switch o {
	case orderOPS:
		return cmp4(a.o, b.o, a.p, b.p, a.g, b.g, a.s, b.s)
	case orderPGS:
		return cmp4(a.p, b.p, a.g, b.g, a.s, b.s, a.o, b.o)
	}
	return cmp4(a.s, b.s, a.p, b.p, a.g, b.g, a.o, b.o)
}

const quadRecLen = 32

type quadSorter struct {
	sd    *spillDir
	name  string
	order quadOrder
	buf   []qids
	tmp   []qids   // radix sort scratch
	dig   []uint16 // radix sort digits
	limit int
	runs  []string
	fanIn int // runs merged at once; 0 means maxMergeRuns (tests lower it)
	// tailOut: a record of the buffer came after one it sorts before by
	// the order's last two fields. The P sorter is fed in subject order
	// (by the S lists), so its buffers rarely are: they then need only a
	// radix sort on (p, g) (sortQuads).
	tailOut bool
}

// maxMergeRuns bounds the runs one merge reads at once, and runReadBuf is
// the read buffer of each: the three sorters' merges hold at most 768
// files and 96 MiB of buffers. With a 2 GiB budget a load reduces runs
// from about 1.4B quads on; at 3B it rewrites about half the records once.
const (
	maxMergeRuns = 256
	runReadBuf   = 128 << 10
)

// sortBytesPerQuad is the memory one buffered record costs: itself, its
// radix-sort scratch copy and digit.
const sortBytesPerQuad = 2*quadRecLen + 2

// newQuadSorter sorts in order with at most budget bytes of records and
// sort scratch in memory (at least 64k records).
func newQuadSorter(sd *spillDir, name string, order quadOrder, budget int64) *quadSorter {
	limit := max(int(budget/sortBytesPerQuad), 1<<16)
	return &quadSorter{sd: sd, name: name, order: order, limit: limit}
}

func (s *quadSorter) add(q qids) error {
	if len(s.buf) == cap(s.buf) {
		s.grow()
	}
	if s.order == orderPGS && len(s.buf) > 0 && !s.tailOut {
		last := &s.buf[len(s.buf)-1]
		s.tailOut = q.s < last.s || (q.s == last.s && q.o < last.o)
	}
	s.buf = append(s.buf, q)
	if len(s.buf) >= s.limit {
		return s.spill()
	}
	return nil
}

// sorterFirstBuf is the first buffer of a sorter, in records; copyStep
// the records moved per copy call when the buffer grows.
const (
	sorterFirstBuf = 1 << 20
	copyStep       = 1 << 17
)

// grow gives the buffer room: first sorterFirstBuf records (a small load
// stays small), then at once the limit (add spills a full buffer, so grow
// never runs at the limit). Each record is copied at most once on its way
// to a full buffer. Growing by steps (append's 1.25x, or doubling) copied
// and page-faulted each record up to four times and touched every
// intermediate buffer (~3% of a 200k-entity Wikidata load's wall time); a buffer made at the
// limit costs only the pages the records fill, since the pages of a fresh
// large allocation are not touched until written. The copy goes in steps
// so that the goroutine stays preemptible: one memmove of a hundred
// megabytes held up every GC's stack scan (the GC spins signalling a
// goroutine it cannot stop).
func (s *quadSorter) grow() {
	n := s.limit
	if cap(s.buf) < sorterFirstBuf {
		n = min(sorterFirstBuf, s.limit)
	}
	buf := make([]qids, len(s.buf), n)
	for i := 0; i < len(s.buf); i += copyStep {
		copy(buf[i:], s.buf[i:min(i+copyStep, len(s.buf))])
	}
	s.buf = buf
}

func (s *quadSorter) sortBuf() {
	if len(s.buf) == 0 {
		return
	}
	if cap(s.tmp) < len(s.buf) {
		s.tmp = make([]qids, len(s.buf), cap(s.buf))
		s.dig = make([]uint16, len(s.buf), cap(s.buf))
	}
	sorted := sortQuads(s.buf, s.tmp, s.dig, s.order, s.order == orderPGS && !s.tailOut)
	if &sorted[0] != &s.buf[0] {
		s.buf, s.tmp = sorted, s.buf
	}
	s.buf = slices.Compact(s.buf)
	s.tailOut = false // the next records start a new buffer
}

// spill writes the buffer as one sorted run.
func (s *quadSorter) spill() error {
	s.sortBuf()
	w, err := s.sd.create(s.name)
	if err != nil {
		return err
	}
	var enc runEncoder
	enc.order = s.order
	var rec []byte
	for _, q := range s.buf {
		rec = enc.append(rec[:0], q)
		if _, err := w.Write(rec); err != nil {
			w.abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	s.runs = append(s.runs, w.path)
	s.buf = s.buf[:0]
	return nil
}

// finish ends input. If nothing was spilled, the merger reads the sorted
// buffer; otherwise the rest is spilled too and the runs are merged, at
// most maxMergeRuns at a time (reduceRuns).
func (s *quadSorter) finish(ctx context.Context) (*quadMerger, error) {
	if len(s.runs) == 0 {
		s.sortBuf()
		m := &quadMerger{order: s.order, sd: s.sd, mem: s.buf}
		s.buf, s.tmp, s.dig = nil, nil, nil
		return m, nil
	}
	if _, err := s.settle(ctx); err != nil {
		return nil, err
	}
	return openRuns(s.sd, s.order, s.runs)
}

// settle ends the input of a sorter that spilled: what its buffer holds
// becomes its last run, the buffers are dropped (so that the write phase,
// where Badger's table builders need the memory, does not hold them), and
// the runs are reduced to what one merge reads. It returns the number of
// runs before the reduction. A sorter that never spilled is left as it
// is: finish merges its records from memory.
func (s *quadSorter) settle(ctx context.Context) (int, error) {
	if len(s.runs) == 0 {
		return 0, nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return 0, err
		}
	}
	s.buf, s.tmp, s.dig = nil, nil, nil
	n := len(s.runs)
	return n, s.reduceRuns(ctx, s.maxRuns())
}

func (s *quadSorter) maxRuns() int { return cmp.Or(s.fanIn, maxMergeRuns) }

// reduceRuns merges the oldest runs into one until at most limit are
// left; the first merge takes just enough runs to reach limit in the fewest
// rewrites when one merge is enough. The merged runs' files are removed.
func (s *quadSorter) reduceRuns(ctx context.Context, limit int) error {
	limit = max(limit, 2)
	for len(s.runs) > limit {
		k := min(s.maxRuns(), len(s.runs)-limit+1)
		path, err := s.mergeRuns(ctx, s.runs[:k])
		if err != nil {
			return err
		}
		s.runs = append(slices.Clone(s.runs[k:]), path)
	}
	return nil
}

// mergeRuns merges the runs at paths into a new run and returns its path;
// the merged runs' files are removed once it is written, and kept when it
// fails.
func (s *quadSorter) mergeRuns(ctx context.Context, paths []string) (string, error) {
	m, err := openRuns(s.sd, s.order, paths)
	if err != nil {
		return "", err
	}
	w, err := s.sd.create(s.name)
	if err == nil {
		if err = copyRun(ctx, m, w, s.order); err != nil {
			w.abort()
		} else {
			err = w.Close()
		}
	}
	if err != nil {
		m.closeRuns()
		return "", err
	}
	m.Close()
	return w.path, nil
}

// copyRun writes what m streams to w as one sorted run.
func copyRun(ctx context.Context, m *quadMerger, w *spillWriter, order quadOrder) error {
	enc := runEncoder{order: order}
	var rec []byte
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		q, ok, err := m.next()
		if err != nil || !ok {
			return err
		}
		rec = enc.append(rec[:0], q)
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
}

// openRuns returns a merger over the sorted runs at paths; its Close
// removes their files.
func openRuns(sd *spillDir, order quadOrder, paths []string) (*quadMerger, error) {
	m := &quadMerger{order: order, sd: sd}
	for _, p := range paths {
		r, err := openSpill(p, runReadBuf)
		if err != nil {
			m.Close()
			return nil, err
		}
		src := &runReader{r: r, path: p, order: order}
		m.all = append(m.all, src)
		ok, err := src.next()
		if err != nil {
			m.Close()
			return nil, err
		}
		if ok {
			m.heap = append(m.heap, src)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

// Sorted runs are stored compactly: each record names the first key field
// (in the run's order) that differs from the previous record, the
// difference of that field, and the following fields in full, all as
// uvarints. Records of one node or group share their leading fields, so a
// record takes a few bytes instead of 32.

// keys returns the fields of q in the order's sequence.
func (o quadOrder) keys(q qids) [4]uint64 {
	switch o {
	case orderOPS:
		return [4]uint64{q.o, q.p, q.g, q.s}
	case orderPGS:
		return [4]uint64{q.p, q.g, q.s, q.o}
	}
	return [4]uint64{q.s, q.p, q.g, q.o}
}

// quad is the inverse of keys.
func (o quadOrder) quad(k [4]uint64) qids {
	switch o {
	case orderOPS:
		return qids{o: k[0], p: k[1], g: k[2], s: k[3]}
	case orderPGS:
		return qids{p: k[0], g: k[1], s: k[2], o: k[3]}
	}
	return qids{s: k[0], p: k[1], g: k[2], o: k[3]}
}

// runEncoder writes the records of one sorted run.
type runEncoder struct {
	order quadOrder
	prev  [4]uint64
}

func (e *runEncoder) append(dst []byte, q qids) []byte {
	k := e.order.keys(q)
	i := 0
	for i < 4 && k[i] == e.prev[i] {
		i++
	}
	dst = append(dst, byte(i))
	if i < 4 {
		dst = binary.AppendUvarint(dst, k[i]-e.prev[i])
		for j := i + 1; j < 4; j++ {
			dst = binary.AppendUvarint(dst, k[j])
		}
	}
	e.prev = k
	return dst
}

var errBadRun = errors.New("corrupt sorted run")

// runReader is one sorted run being merged.
type runReader struct {
	r     *spillReader
	path  string
	order quadOrder
	prev  [4]uint64
	cur   qids
}

func (r *runReader) next() (bool, error) {
	c, err := peekRecord(r.r.r, 1+4*binary.MaxVarintLen64)
	if errors.Is(err, io.EOF) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	i := int(c.byte())
	if i > 4 {
		return false, fmt.Errorf("%s: %w", r.path, errBadRun)
	}
	k := r.prev
	if i < 4 {
		k[i] += c.next()
		for j := i + 1; j < 4; j++ {
			k[j] = c.next()
		}
	}
	if err := c.done(r.r.r); err != nil {
		return false, fmt.Errorf("%s: %w", r.path, errBadRun)
	}
	r.prev = k
	r.cur = r.order.quad(k)
	return true, nil
}

// quadMerger streams the sorted, distinct quads of a sorter.
type quadMerger struct {
	order quadOrder
	sd    *spillDir
	mem   []qids
	pos   int
	heap  []*runReader
	all   []*runReader
	last  qids
	any   bool
}

// next returns the next distinct quad in order.
func (m *quadMerger) next() (qids, bool, error) {
	for {
		q, ok, err := m.pop()
		if err != nil || !ok {
			return q, ok, err
		}
		if m.any && q == m.last {
			continue
		}
		m.last, m.any = q, true
		return q, true, nil
	}
}

func (m *quadMerger) pop() (qids, bool, error) {
	if m.heap == nil {
		if m.pos >= len(m.mem) {
			return qids{}, false, nil
		}
		m.pos++
		return m.mem[m.pos-1], true, nil
	}
	if len(m.heap) == 0 {
		return qids{}, false, nil
	}
	top := m.heap[0]
	q := top.cur
	ok, err := top.next()
	if err != nil {
		return q, false, err
	}
	if !ok {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
		if len(m.heap) == 0 {
			return q, true, nil
		}
	}
	m.down(0)
	return q, true, nil
}

func (m *quadMerger) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && m.order.cmp(h[r].cur, h[l].cur) < 0 {
			j = r
		}
		if m.order.cmp(h[j].cur, h[i].cur) >= 0 {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// Close releases the runs and deletes their files.
func (m *quadMerger) Close() {
	all := m.all
	m.closeRuns()
	for _, r := range all {
		m.sd.drop(r.path)
	}
}

// closeRuns releases the runs and keeps their files.
func (m *quadMerger) closeRuns() {
	for _, r := range m.all {
		r.r.Close()
	}
	m.all, m.heap, m.mem = nil, nil, nil
}
