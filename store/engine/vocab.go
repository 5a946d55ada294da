package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/grove-kg/grove/store/internal/frontcode"
)

// Bounded-memory dictionary encoding (the scheme of QLever's index
// builder). The input is read in batches sized from the memory budget.
// Each batch has its own dense vocabulary (term -> local id) and keeps its
// quads in local ids; a full batch is spilled with its vocabulary sorted by
// term and its quads renumbered to the sorted positions. One k-way merge of
// all batch vocabularies with the stored dictionary (a Badger iterator over
// the t keyspace, also sorted by term) then gives every term its global id:
// stored terms keep theirs, new terms get sequential ids in term order, so
// both dictionary keyspaces come out in key order. The merge writes per
// batch a dense local -> global array, read sequentially because local ids
// are sorted positions; mapping a batch's quads needs only its own array.

// lquad is a quad in batch-local ids.
type lquad struct{ s, p, o, g uint32 }

// batchLabel is a label or alias found while reading, in batch-local ids.
type batchLabel struct {
	s, g uint32
	text string
}

// readBatch is the batch being read.
type readBatch struct {
	vocab  termTable
	quads  [][]lquad // blocks of quadBlock, so growing never copies
	nquads int
	labels []batchLabel
	bytes  int64 // label bytes
	// lastS is the encoded subject of the previous quad and lastSID its
	// id: dumps list an entity's quads together, so most subjects repeat.
	lastS   []byte
	lastSID uint32
}

const quadBlock = 1 << 16

func (b *readBatch) addQuad(q lquad) {
	if len(b.quads) == 0 || len(b.quads[len(b.quads)-1]) == quadBlock {
		b.quads = append(b.quads, make([]lquad, 0, quadBlock))
	}
	last := &b.quads[len(b.quads)-1]
	*last = append(*last, q)
	b.nquads++
}

func (b *readBatch) intern(enc []byte) uint32 { return b.vocab.intern(enc) }

// internSubject is intern with a shortcut for a repeated subject.
func (b *readBatch) internSubject(enc []byte) uint32 {
	if b.lastS != nil && bytes.Equal(enc, b.lastS) {
		return b.lastSID
	}
	b.lastSID = b.vocab.intern(enc)
	b.lastS = append(b.lastS[:0], enc...)
	return b.lastSID
}

func (b *readBatch) size() int64 {
	return b.bytes + b.vocab.bytes + int64(b.vocab.len())*termTableOverhead + int64(b.nquads)*16
}

func (b *readBatch) reset() { *b = readBatch{} }

// spilledBatch names the files of one spilled batch.
type spilledBatch struct {
	vocab, quads, labels, mapping string
	nterms                        int
	nquads                        int64
}

// spill writes the batch to sd and resets it: the vocabulary front-coded
// in term order, the quads and labels renumbered to the sorted positions.
func (b *readBatch) spill(sd *spillDir) (spilledBatch, error) {
	b.vocab.dropIndex() // the slots are no longer needed: free them before the sort
	order := b.vocab.sortedOrder()
	rank := make([]uint32, len(order))
	for i, id := range order {
		rank[id] = uint32(i)
	}
	sb := spilledBatch{nterms: len(order), nquads: int64(b.nquads)}
	var err error
	if sb.vocab, err = writeSpill(sd, "vocab", func(w io.Writer) error {
		var fc frontcode.Encoder
		var rec []byte
		for _, id := range order {
			rec = fc.Append(rec[:0], b.vocab.term(id))
			if _, err := w.Write(rec); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return sb, err
	}
	if sb.quads, err = writeSpill(sd, "quads", func(w io.Writer) error {
		var sub deltaWriter
		var rec []byte
		for i, blk := range b.quads {
			rec = rec[:0]
			for _, q := range blk {
				rec = appendLocalQuad(rec, &sub, lquad{rank[q.s], rank[q.p], rank[q.o], rank[q.g]})
			}
			if _, err := w.Write(rec); err != nil {
				return err
			}
			b.quads[i] = nil // written: release the block
		}
		return nil
	}); err != nil {
		return sb, err
	}
	if sb.labels, err = writeSpill(sd, "labels", func(w io.Writer) error {
		var rec []byte
		for _, l := range b.labels {
			rec = binary.AppendUvarint(rec[:0], uint64(rank[l.s]))
			rec = binary.AppendUvarint(rec, uint64(rank[l.g]))
			rec = binary.AppendUvarint(rec, uint64(len(l.text)))
			rec = append(rec, l.text...)
			if _, err := w.Write(rec); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return sb, err
	}
	b.reset()
	return sb, nil
}

// writeSpill creates a spill file, fills it and returns its path.
func writeSpill(sd *spillDir, name string, fill func(io.Writer) error) (string, error) {
	w, err := sd.create(name)
	if err != nil {
		return "", err
	}
	if err := fill(w); err != nil {
		w.abort()
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return w.path, nil
}

// vocabReader reads one batch's sorted vocabulary during the merge and
// writes the batch's local -> global array.
type vocabReader struct {
	r   *spillReader
	dec frontcode.Decoder
	cur []byte
	out *spillWriter
	ids deltaWriter
	rec []byte
}

func (v *vocabReader) next() (bool, error) {
	t, err := nextTerm(&v.dec, v.r)
	if errors.Is(err, io.EOF) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	v.cur = t
	return true, nil
}

// emit appends the global id of the current term to the batch's map.
func (v *vocabReader) emit(id uint64) error {
	v.rec = v.ids.append(v.rec[:0], id)
	_, err := v.out.Write(v.rec)
	return err
}

// dictResult is what the vocabulary merge produced.
type dictResult struct {
	terms    dictList  // entries to write as t keys (new and reserved), in term order
	ids      dictList  // entries of new ids (in term and id order), for the i blocks
	reserved []newTerm // terms of an interrupted load found again, to write again
	newCount int64
	next     uint64
}

// storedDict looks terms up in the stored dictionary in ascending order,
// stepping an iterator forward and seeking over long gaps.
type storedDict struct {
	it *badger.Iterator
}

func (s *storedDict) find(term []byte) (uint64, bool, error) {
	if s == nil {
		return 0, false, nil
	}
	it := s.it
	for steps := 0; it.Valid(); steps++ {
		c := bytes.Compare(it.Item().Key()[1:], term)
		if c == 0 {
			var id uint64
			err := it.Item().Value(func(v []byte) error {
				if len(v) != idLen {
					return fmt.Errorf("corrupt dictionary entry for %q", term)
				}
				id = getID(v)
				return nil
			})
			return id, err == nil, err
		}
		if c > 0 {
			return 0, false, nil
		}
		if steps == 8 {
			it.Seek(termKey(term))
			continue
		}
		it.Next()
	}
	return 0, false, nil
}

// mergeVocab assigns global ids to the terms of every batch; see the top
// of this file. l.graphs maps encoded graph-label terms to graph names;
// their global ids are recorded in names.
func (l *Loader) mergeVocab(ctx context.Context, stored *storedDict) (dictResult, error) {
	res := dictResult{next: l.nextID}
	var readers []*vocabReader
	defer func() {
		for _, v := range readers {
			v.r.Close()
			if v.out != nil {
				v.out.abort()
			}
		}
	}()
	var h []*vocabReader
	for i := range l.batches {
		r, err := openSpill(l.batches[i].vocab, 64<<10)
		if err != nil {
			return res, err
		}
		v := &vocabReader{r: r}
		readers = append(readers, v)
		if v.out, err = l.sd.create("map"); err != nil {
			return res, err
		}
		l.batches[i].mapping = v.out.path
		ok, err := v.next()
		if err != nil {
			return res, err
		}
		if ok {
			h = append(h, v)
		}
	}
	less := func(a, b *vocabReader) bool { return bytes.Compare(a.cur, b.cur) < 0 }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	tw := &dictWriter{sd: l.sd, name: "terms"}
	// With no stored dictionary every term is new, and the id list would
	// repeat the term list entry for entry: the write phase reads the
	// term list for both.
	var iw *dictWriter
	if stored != nil {
		iw = &dictWriter{sd: l.sd, name: "ids"}
	}
	fail := func(err error) (dictResult, error) {
		tw.abort()
		if iw != nil {
			iw.abort()
		}
		return res, err
	}
	var term []byte
	for n := 0; len(h) > 0; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return fail(err)
			}
			l.progress("dictionary", int64(n), -1)
		}
		term = append(term[:0], h[0].cur...)
		id, found, err := stored.find(term)
		if err != nil {
			return fail(err)
		}
		if !found {
			id = res.next
			res.next++
			res.newCount++
			if iw != nil {
				if err := iw.write(term, id); err != nil {
					return fail(err)
				}
			}
		} else if id >= l.metaNext {
			// Written by an interrupted load: write both directions again.
			res.reserved = append(res.reserved, newTerm{id, string(term)})
		}
		if !found || id >= l.metaNext {
			if err := tw.write(term, id); err != nil {
				return fail(err)
			}
		}
		if name, ok := l.graphs[string(term)]; ok {
			l.names[id] = name
		}
		for len(h) > 0 && bytes.Equal(h[0].cur, term) {
			v := h[0]
			if err := v.emit(id); err != nil {
				return fail(err)
			}
			ok, err := v.next()
			if err != nil {
				return fail(err)
			}
			if !ok {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			down(0)
		}
	}
	for _, v := range readers {
		out := v.out
		v.out = nil
		if err := out.Close(); err != nil {
			return fail(err)
		}
	}
	var err error
	if res.terms, err = tw.close(); err != nil {
		return fail(err)
	}
	res.ids = res.terms
	if iw != nil {
		if res.ids, err = iw.close(); err != nil {
			return fail(err)
		}
	}
	for i := range l.batches {
		l.sd.drop(l.batches[i].vocab) // merged: only the maps are needed now
	}
	slices.SortFunc(res.reserved, func(a, b newTerm) int { return cmpU64(a.id, b.id) })
	return res, nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readMapping loads a batch's local -> global array.
func readMapping(path string, n int) ([]uint64, error) {
	r, err := openSpill(path, 1<<20)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := make([]uint64, n)
	var d deltaReader
	for i := range m {
		if m[i], err = d.next(r.r); err != nil {
			return nil, fmt.Errorf("id map %s: %w", path, noEOF(err))
		}
	}
	return m, nil
}

// dictFile writes the merge's dictionary entries (term, id) in term order:
// the term front-coded, the id as a delta.
type dictFile struct {
	w   *spillWriter
	fc  frontcode.Encoder
	ids deltaWriter
	rec []byte
}

func (f *dictFile) write(term []byte, id uint64) error {
	f.rec = f.fc.Append(f.rec[:0], term)
	f.rec = f.ids.append(f.rec, id)
	_, err := f.w.Write(f.rec)
	return err
}

// dictFileReader reads what dictFile wrote.
type dictFileReader struct {
	r   *spillReader
	dec frontcode.Decoder
	ids deltaReader
}

// next returns the next entry (the term is valid until the next call), or
// io.EOF after the last.
func (f *dictFileReader) next() ([]byte, uint64, error) {
	term, err := nextTerm(&f.dec, f.r)
	if err != nil {
		return nil, 0, err
	}
	id, err := f.ids.next(f.r.r)
	if err != nil {
		return nil, 0, fmt.Errorf("temporary file %s: %w", f.r.f.Name(), noEOF(err))
	}
	return term, id, nil
}
