package labelindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// Segment is one small update of an index: (key, id) pairs added and pairs
// deleted. It is read-only and safe for concurrent use; it keeps a
// reference to the bytes given to OpenSegment.
//
// A segment blob is the magic "GRVLBSEG", the length of the add blob as a
// little-endian uint64, then two ordinary index blobs (see the package
// documentation): the added pairs and the deleted pairs. A pair is in at
// most one of the two.
type Segment struct {
	add, del *Index
}

const (
	segMagic      = "GRVLBSEG"
	segHeaderSize = 16
)

// WriteSegment writes the segment blob of the pairs in add and del to w.
// del's labels are normalized like add's; a pair in both counts as added.
// Either Builder may be nil.
func WriteSegment(w io.Writer, add, del *Builder) error {
	var a, d bytes.Buffer
	if err := Merge(&a, nil, add); err != nil {
		return err
	}
	if del == nil {
		del = NewBuilder()
	}
	var dels keyStream = del.stream()
	if add != nil {
		dels = &diffStream{a: dels, b: add.stream()}
	}
	if err := writeBlob(context.Background(), &d, dels, del.opts); err != nil {
		return err
	}
	hdr := binary.LittleEndian.AppendUint64([]byte(segMagic), uint64(a.Len()))
	for _, part := range [][]byte{hdr, a.Bytes(), d.Bytes()} {
		if _, err := w.Write(part); err != nil {
			return fmt.Errorf("labelindex: write segment: %w", err)
		}
	}
	return nil
}

// OpenSegment checks and opens a segment blob; corrupt data gives an error
// wrapping ErrCorrupt.
func OpenSegment(data []byte) (*Segment, error) {
	if len(data) < segHeaderSize || string(data[:8]) != segMagic {
		return nil, fmt.Errorf("%w: not a segment (bad magic or %d bytes)", ErrCorrupt, len(data))
	}
	n := binary.LittleEndian.Uint64(data[8:])
	if n > uint64(len(data)-segHeaderSize) {
		return nil, fmt.Errorf("%w: segment add section of %d bytes exceeds the %d-byte blob", ErrCorrupt, n, len(data))
	}
	body := data[segHeaderSize:]
	add, err := Open(body[:n])
	if err != nil {
		return nil, fmt.Errorf("segment adds: %w", err)
	}
	del, err := Open(body[n:])
	if err != nil {
		return nil, fmt.Errorf("segment deletes: %w", err)
	}
	return &Segment{add: add, del: del}, nil
}

// Adds and Deletes are the numbers of pairs the segment adds and deletes.
func (s *Segment) Adds() int    { return s.add.NumIDs() }
func (s *Segment) Deletes() int { return s.del.NumIDs() }

// View is a main index with segments applied in order: a pair is live when
// the newest layer that mentions it adds it. A View is immutable and safe
// for concurrent use; With returns a new one.
type View struct {
	main *Index // nil: empty
	segs []*Segment
	dels int // deleted pairs over all segments
}

// NewView returns the view of main (nil for none) with segs applied in
// order.
func NewView(main *Index, segs ...*Segment) *View {
	v := &View{main: main}
	for _, s := range segs {
		v = v.With(s)
	}
	return v
}

// With returns a new view with seg applied after v's segments.
func (v *View) With(seg *Segment) *View {
	return &View{main: v.main, segs: append(slices.Clip(v.segs), seg), dels: v.dels + seg.Deletes()}
}

// Segments is the number of segments and SegmentPairs the pairs they add
// or delete, which tell when to compact.
func (v *View) Segments() int { return len(v.segs) }

// SegmentPairs is the number of pairs all segments add or delete.
func (v *View) SegmentPairs() int {
	n := 0
	for _, s := range v.segs {
		n += s.Adds() + s.Deletes()
	}
	return n
}

// MainPairs is the number of pairs of the main index.
func (v *View) MainPairs() int {
	if v.main == nil {
		return 0
	}
	return v.main.NumIDs()
}

// Has reports whether the pair (normalized key, id) is live.
func (v *View) Has(key string, id uint64) bool {
	for i := len(v.segs) - 1; i >= 0; i-- {
		if contains(v.segs[i].del, key, id) {
			return false
		}
		if contains(v.segs[i].add, key, id) {
			return true
		}
	}
	return v.main != nil && contains(v.main, key, id)
}

func contains(ix *Index, key string, id uint64) bool {
	_, ok := slices.BinarySearch(ix.Lookup(key), id)
	return ok
}

// deadAfter reports whether the newest segment after layer i (0 = main,
// i = segment i) that mentions the pair deletes it.
func (v *View) deadAfter(i int) func(string, uint64) bool {
	if i >= len(v.segs) {
		return nil
	}
	later := v.segs[i:]
	return func(key string, id uint64) bool {
		for j := len(later) - 1; j >= 0; j-- {
			if contains(later[j].del, key, id) {
				return true
			}
			if contains(later[j].add, key, id) {
				return false
			}
		}
		return false
	}
}

// Search is Index.Search over the live pairs of the view, with the same
// ranking and the same one-hit-per-id rule.
func (v *View) Search(text string, limit int, opts SearchOptions) []Hit {
	layers := make([]*Index, 0, 1+len(v.segs))
	if v.main != nil {
		layers = append(layers, v.main)
	} else {
		layers = append(layers, nil)
	}
	for _, s := range v.segs {
		layers = append(layers, s.add)
	}
	qRunes := utf8.RuneCountInString(Normalize(text))
	best := map[uint64]ranked{}
	for i, ix := range layers {
		if ix == nil {
			continue
		}
		hits, _ := ix.searchLive(text, limit, opts, v.deadAfter(i), v.dels)
		for _, h := range hits {
			r := ranked{Hit: h, lenDiff: abs(utf8.RuneCountInString(h.Key) - qRunes)}
			if old, ok := best[h.ID]; !ok || compareRanked(r, old) < 0 {
				best[h.ID] = r
			}
		}
	}
	all := make([]ranked, 0, len(best))
	for _, r := range best {
		all = append(all, r)
	}
	slices.SortFunc(all, compareRanked)
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]Hit, len(all))
	for i, r := range all {
		out[i] = r.Hit
	}
	return out
}

// Compact writes to w the blob of the view's live pairs plus the pairs of
// add (nil for none), which win over the segments. Like Merge it streams
// the main index in key order and never copies it into memory; the
// segments, which are small, are held in memory.
func (v *View) Compact(w io.Writer, add *Builder) error {
	return v.CompactContext(context.Background(), w, add)
}

// CompactContext is Compact that stops when ctx is done. Temporary files
// use add's SpillOptions (none when add is nil).
func (v *View) CompactContext(ctx context.Context, w io.Writer, add *Builder) error {
	opts := SpillOptions{}
	if add != nil {
		opts = add.opts
	}
	return v.compact(ctx, w, add, opts)
}

// CompactSpilling is CompactContext without additions, its temporary
// files and memory bounded by opts.
func (v *View) CompactSpilling(ctx context.Context, w io.Writer, opts SpillOptions) error {
	return v.compact(ctx, w, nil, opts)
}

func (v *View) compact(ctx context.Context, w io.Writer, add *Builder, opts SpillOptions) error {
	// The final state of every pair a segment mentions, newest last.
	patch := map[string]map[uint64]bool{}
	set := func(ix *Index, live bool) error {
		return ix.Iterate(func(key string, ids []uint64) error {
			m := patch[key]
			if m == nil {
				m = map[uint64]bool{}
				patch[key] = m
			}
			for _, id := range ids {
				m[id] = live
			}
			return nil
		})
	}
	for _, s := range v.segs {
		if err := set(s.del, false); err != nil {
			return err
		}
		if err := set(s.add, true); err != nil {
			return err
		}
	}
	adds := NewBuilder()
	for key, m := range patch {
		for id, live := range m {
			if live {
				adds.addKey(key, id)
			}
		}
	}
	var s keyStream = adds.stream()
	if v.main != nil {
		s = &mergeStream{a: &dropStream{s: v.main.stream(), drop: patch}, b: s}
	}
	if add != nil {
		s = &mergeStream{a: s, b: add.stream()}
	}
	return writeBlob(ctx, w, s, opts)
}

// dropStream removes from s the pairs that drop marks not live.
type dropStream struct {
	s    keyStream
	drop map[string]map[uint64]bool
	list []uint64
}

func (d *dropStream) next() bool {
	for d.s.next() {
		m := d.drop[string(d.s.key())]
		if m == nil {
			d.list = d.s.ids()
			return true
		}
		d.list = d.list[:0:0]
		for _, id := range d.s.ids() {
			if live, ok := m[id]; !ok || live {
				d.list = append(d.list, id)
			}
		}
		if len(d.list) > 0 {
			return true
		}
	}
	return false
}

func (d *dropStream) key() []byte   { return d.s.key() }
func (d *dropStream) ids() []uint64 { return d.list }
func (d *dropStream) err() error    { return d.s.err() }
func (d *dropStream) close()        { d.s.close() }

// diffStream is the pairs of a that b does not have.
type diffStream struct {
	a, b    keyStream
	started bool
	bOK     bool
	list    []uint64
}

func (d *diffStream) next() bool {
	if !d.started {
		d.started, d.bOK = true, d.b.next()
	}
	for d.a.next() {
		for d.bOK && bytes.Compare(d.b.key(), d.a.key()) < 0 {
			d.bOK = d.b.next()
		}
		d.list = d.a.ids()
		if d.bOK && bytes.Equal(d.b.key(), d.a.key()) {
			d.list = differenceIDs(d.list[:0:0], d.a.ids(), d.b.ids())
		}
		if len(d.list) > 0 {
			return true
		}
	}
	return false
}

func (d *diffStream) key() []byte   { return d.a.key() }
func (d *diffStream) ids() []uint64 { return d.list }
func (d *diffStream) err() error    { return errors.Join(d.a.err(), d.b.err()) }

func (d *diffStream) close() {
	d.a.close()
	d.b.close()
}

// differenceIDs appends to dst the ids of the sorted list x that the
// sorted list y does not have.
func differenceIDs(dst, x, y []uint64) []uint64 {
	for _, id := range x {
		for len(y) > 0 && y[0] < id {
			y = y[1:]
		}
		if len(y) == 0 || y[0] != id {
			dst = append(dst, id)
		}
	}
	return dst
}
