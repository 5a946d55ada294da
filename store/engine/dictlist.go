package engine

import (
	"context"
	"errors"
	"io"
)

// The dictionary lists of a bulk load. The vocabulary merge writes the new
// term -> id entries in term order; writing them as Badger keys (about
// half a microsecond each, most of it inside the StreamWriter's Write,
// which runs on the calling goroutine) is the longest step of the write
// phase on one goroutine. So the merge cuts its list into segments (files
// of at most dictSegmentSize entries), and the write phase can split the
// segments into a few contiguous parts of equal work, each written as its
// own StreamWriter stream on its own goroutine: the parts are key ranges
// in order, so they are disjoint and each is sorted, which is all the
// StreamWriter needs. The id -> term blocks go on one more goroutine.
// See dictParts for why one part is the default.

// dictSegment is one file of a dictionary list: entries in term order,
// front-coded terms and delta-coded ids (dictFile).
type dictSegment struct {
	path    string
	entries int64
	bytes   int64 // term bytes
}

// dictList is a dictionary list cut into segments, in term order.
type dictList []dictSegment

func (d dictList) entries() int64 {
	var n int64
	for _, s := range d {
		n += s.entries
	}
	return n
}

func (d dictList) bytes() int64 {
	var n int64
	for _, s := range d {
		n += s.bytes
	}
	return n
}

// dictKeyWeight is the cost of one term -> id key in term bytes, used to
// balance the parts: per-key work (decoding the record in Badger, an
// entry, table building) dominates the copying of the term. Measured on
// a 20M-quad load cut by entries and bytes at a weight of 64, the part
// of 3.2M keys of 14 bytes on average took 1.8 CPU s and the part of
// 2.4M keys of 39 bytes 1.3 s: the cost follows the keys.
const dictKeyWeight = 256

// weight is the estimated work of writing a segment's keys.
func (s dictSegment) weight() int64 { return s.entries*dictKeyWeight + s.bytes }

// dictSplit sets how a load cuts its term -> id keys; zero fields mean
// the defaults (tests set them to force many segments and streams).
type dictSplit struct {
	parts   int   // streams for the term keys; 0: dictParts()
	segment int64 // entries per segment; 0: dictSegmentSize
	used    int   // streams the last write used (for the log and tests)
	// wrapSink, if set, wraps the writer of the write phase (tests record
	// the order of the streams with it).
	wrapSink func(kvWriter) kvWriter
}

// dictSegmentSize picks the number of entries per segment from an upper
// bound on the list's length (the batch vocabularies' total): about
// dictSegmentsPerList segments, so parts balance to within a few percent,
// and never tiny files.
func dictSegmentSize(upper int64) int64 {
	return max(upper/dictSegmentsPerList, 1<<10)
}

const dictSegmentsPerList = 64

// splitDict cuts segs into at most parts contiguous runs of about equal
// weight; empty runs are left out, so a list of one segment is one part.
// Each segment stays whole (a stream must be written in key order by one
// goroutine, and a segment is one sequential file).
func splitDict(segs dictList, parts int) []dictList {
	var total int64
	for _, s := range segs {
		total += s.weight()
	}
	parts = max(parts, 1)
	var out []dictList
	start := 0
	var done int64
	for i, s := range segs {
		done += s.weight()
		// Close the current part once it reaches its share of the
		// total: part k ends where the running weight first reaches
		// (k+1)/parts of it.
		k := int64(len(out) + 1)
		if len(out) < parts-1 && done*int64(parts) >= k*total {
			out = append(out, segs[start:i+1])
			start = i + 1
		}
	}
	if start < len(segs) {
		out = append(out, segs[start:])
	}
	return out
}

// dictParts is how many streams the term -> id keys are written as by
// default: one. Two streams on two goroutines cut the step's critical
// path on a 20M-quad load (1.8 instead of 2.8 CPU s on the longest
// goroutine), but at 100M quads on a loaded 2-core machine the step took
// 30.7-38.4 CPU s and 52-70 s instead of 25.0 CPU s and 39 s: Badger's
// StreamWriter.Write takes one lock per record (and holds it while a
// stream's queue is full), so concurrent Writes of key-dense streams
// contend. The split stays available (dictSplit.parts) and tested.
func dictParts() int { return 1 }

// termStream is the stream id of part i of the term -> id keys.
func termStream(i int) uint32 {
	if i == 0 {
		return streamTerm
	}
	return streamTermParts + uint32(i)
}

// streamTermParts is above every other stream id (loader.go); part i > 0
// of the term keys is stream streamTermParts+i, so there are at most
// maxTermStreams parts.
const (
	streamTermParts = 16
	maxTermStreams  = maxStreams - streamTermParts
)

// dictWriter writes a dictionary list, starting a new segment file every
// per entries.
type dictWriter struct {
	sd   *spillDir
	name string
	per  int64
	cur  dictFile
	open bool
	segs dictList
}

func (d *dictWriter) write(term []byte, id uint64) error {
	if !d.open || d.segs[len(d.segs)-1].entries == d.per {
		if err := d.closeSegment(); err != nil {
			return err
		}
		w, err := d.sd.create(d.name)
		if err != nil {
			return err
		}
		d.cur, d.open = dictFile{w: w}, true
		d.segs = append(d.segs, dictSegment{path: w.path})
	}
	s := &d.segs[len(d.segs)-1]
	s.entries++
	s.bytes += int64(len(term))
	return d.cur.write(term, id)
}

func (d *dictWriter) closeSegment() error {
	if !d.open {
		return nil
	}
	d.open = false
	return d.cur.w.Close()
}

// close ends the list and returns its segments.
func (d *dictWriter) close() (dictList, error) {
	if err := d.closeSegment(); err != nil {
		return nil, err
	}
	return d.segs, nil
}

// abort removes the open segment after an error (the spill directory
// removes the rest).
func (d *dictWriter) abort() {
	if d.open {
		d.open = false
		d.cur.w.abort()
	}
}

// eachListEntry calls fn for every entry of a dictionary list in order;
// the term is only valid during the call.
func eachListEntry(ctx context.Context, segs dictList, fn func(term []byte, id uint64) error) error {
	for _, s := range segs {
		if err := eachDictEntry(ctx, s.path, fn); err != nil {
			return err
		}
	}
	return nil
}

// eachDictEntry calls fn for every entry of one dictionary file.
func eachDictEntry(ctx context.Context, path string, fn func(term []byte, id uint64) error) error {
	r, err := openSpill(path, 256<<10)
	if err != nil {
		return err
	}
	defer r.Close()
	d := dictFileReader{r: r}
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		term, id, err := d.next()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(term, id); err != nil {
			return err
		}
	}
}
