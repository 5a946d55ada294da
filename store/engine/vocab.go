package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/grove-kg/grove/store/internal/frontcode"
	"golang.org/x/sync/errgroup"
)

// Bounded-memory dictionary encoding (the scheme of QLever's index
// builder). The input is read in batches sized from the memory budget.
// Each batch has its own dense vocabulary (term -> local id) and keeps its
// quads in local ids; a full batch is spilled with its vocabulary sorted by
// term and its quads renumbered to the sorted positions. One k-way merge of
// all batch vocabularies (of group vocabularies beyond 256 batches, see
// vocabgroup.go) with the stored dictionary (a Badger iterator over the t
// keyspace, also sorted by term) then gives every term its global id:
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
	touch   uint64 // keeps termTable.touch's loads from being optimised away
}

const quadBlock = 1 << 16

// touchBlock is the terms whose bytes a spill touches (termTable.touch)
// before encoding them.
const touchBlock = 64

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
	// The vocabulary on one goroutine, the quads and labels on another:
	// the last batch is spilled while nothing else runs.
	var g errgroup.Group
	g.Go(func() (err error) {
		sb.vocab, err = writeSpill(sd, "vocab", func(w io.Writer) error { return b.writeVocab(w, order) })
		return err
	})
	g.Go(func() (err error) {
		if sb.quads, err = writeSpill(sd, "quads", func(w io.Writer) error { return b.writeQuads(w, rank) }); err != nil {
			return err
		}
		sb.labels, err = writeSpill(sd, "labels", func(w io.Writer) error { return b.writeLabels(w, rank) })
		return err
	})
	if err := g.Wait(); err != nil {
		return sb, err
	}
	b.reset()
	return sb, nil
}

// writeVocab writes the batch's terms in order, front-coded.
func (b *readBatch) writeVocab(w io.Writer, order []uint32) error {
	var fc frontcode.Encoder
	var rec []byte
	for i := 0; i < len(order); i += touchBlock {
		blk := order[i:min(i+touchBlock, len(order))]
		b.touch += b.vocab.touch(blk)
		for _, id := range blk {
			rec = fc.Append(rec[:0], b.vocab.term(id))
			if _, err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeQuads writes the batch's quads renumbered by rank, releasing each
// block once written.
func (b *readBatch) writeQuads(w io.Writer, rank []uint32) error {
	var sub deltaWriter
	var rec []byte
	for i, blk := range b.quads {
		for j, q := range blk { // lookups only: the CPU overlaps their misses
			blk[j] = lquad{rank[q.s], rank[q.p], rank[q.o], rank[q.g]}
		}
		rec = rec[:0]
		for _, q := range blk {
			rec = appendLocalQuad(rec, &sub, q)
		}
		if _, err := w.Write(rec); err != nil {
			return err
		}
		b.quads[i] = nil // written: release the block
	}
	return nil
}

// writeLabels writes the batch's label entries renumbered by rank.
func (b *readBatch) writeLabels(w io.Writer, rank []uint32) error {
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
// stepping an iterator forward and seeking over long gaps; a term over
// maxInlineTerm bytes is one lookup of its h key.
type storedDict struct {
	it  *badger.Iterator
	txn *badger.Txn
}

func (s *storedDict) find(term []byte) (uint64, bool, error) {
	if s == nil {
		return 0, false, nil
	}
	if len(term) > maxInlineTerm {
		return termIDEncoded(s.txn, term)
	}
	id, found, err := s.findSorted(term)
	if found || err != nil || !legacyNativeType(term) {
		return id, found, err
	}
	// A native number or boolean an earlier version stored in Cayley's
	// form: one lookup, for xsd:integer, double and boolean literals not
	// found in order.
	v, err := decodeTerm(term)
	if err != nil {
		return 0, false, err
	}
	if alt := altEncoding(v, term); alt != nil {
		return termIDEncoded(s.txn, alt)
	}
	return 0, false, nil
}

// legacyNativeType reports whether an encoded term is typed xsd:integer,
// xsd:double or xsd:boolean (full IRI): the RDF forms of the natives
// earlier versions stored in Cayley's form (legacyEncoding).
func legacyNativeType(term []byte) bool {
	if len(term) <= len(xsd) || term[0] != kindTyped || string(term[1:1+len(xsd)]) != xsd {
		return false
	}
	rest := term[1+len(xsd):]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return false
	}
	switch string(rest[:i]) {
	case "integer", "double", "boolean":
		return true
	}
	return false
}

// findSorted looks term up by stepping the iterator forward.
func (s *storedDict) findSorted(term []byte) (uint64, bool, error) {
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
	vocabs := make([]string, len(l.batches))
	for i := range l.batches {
		vocabs[i] = l.batches[i].vocab
	}
	res, maps, err := l.mergeVocabs(ctx, stored, vocabs)
	if err != nil {
		return res, err
	}
	for i := range l.batches {
		l.batches[i].mapping = maps[i]
	}
	return res, nil
}

// assignIDs merges the sorted vocabularies, removes them and returns
// the dictionary and, per vocabulary, the path of its local -> global
// array.
//
// The merge runs on two goroutines: one merges the sorted vocabularies
// into distinct terms, each with the vocabularies that hold it
// (vocabMerge), and hands them over in chunks; the other looks each term
// up in the stored dictionary, assigns the id and writes it to the
// vocabularies' maps and to the dictionary lists (idAssigner). Into a
// database that already holds data the stored-dictionary scan is about
// half the work, so the two halves are of similar size.
func (l *Loader) assignIDs(ctx context.Context, stored *storedDict, vocabs []string) (dictResult, []string, error) {
	res := dictResult{next: l.nextID}
	readers, err := openVocabs(vocabs)
	defer closeVocabs(readers)
	if err != nil {
		return res, nil, err
	}
	maps := make([]string, len(readers))
	for i, v := range readers {
		if v.out, err = l.sd.createBuf("map", manyWriteBuf); err != nil {
			return res, nil, err
		}
		maps[i] = v.out.path
	}
	a := &idAssigner{l: l, stored: stored, readers: readers, res: &res, n: l.dictTerms,
		tw: &dictWriter{sd: l.sd, name: "terms"}}
	// With no stored dictionary every term is new, and the id list would
	// repeat the term list entry for entry: the write phase reads the
	// term list for both.
	if stored != nil {
		a.iw = &dictWriter{sd: l.sd, name: "ids"}
	}
	if err := runVocabMerge(ctx, readers, a.assign); err != nil {
		a.abort()
		return res, nil, err
	}
	if err := closeVocabOutputs(readers); err != nil {
		a.abort()
		return res, nil, err
	}
	if res.terms, err = a.tw.close(); err != nil {
		a.abort()
		return res, nil, err
	}
	res.ids = res.terms
	if a.iw != nil {
		if res.ids, err = a.iw.close(); err != nil {
			a.abort()
			return res, nil, err
		}
	}
	for _, p := range vocabs {
		l.sd.drop(p) // merged: only the maps are needed now
	}
	slices.SortFunc(res.reserved, func(a, b newTerm) int { return cmp.Compare(a.id, b.id) })
	return res, maps, nil
}

// openVocabs opens a reader on each sorted vocabulary file. The readers
// opened so far are returned with an error too, for closeVocabs.
func openVocabs(paths []string) ([]*vocabReader, error) {
	readers := make([]*vocabReader, 0, len(paths))
	for _, p := range paths {
		r, err := openSpill(p, 64<<10)
		if err != nil {
			return readers, err
		}
		readers = append(readers, &vocabReader{r: r})
	}
	return readers, nil
}

// closeVocabOutputs closes the readers' maps, each once.
func closeVocabOutputs(readers []*vocabReader) error {
	for _, v := range readers {
		out := v.out
		v.out = nil
		if out == nil {
			continue
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

// closeVocabs closes the readers and removes the maps not closed yet
// (after an error).
func closeVocabs(readers []*vocabReader) {
	for _, v := range readers {
		if v.r != nil {
			v.r.Close()
		}
		if v.out != nil {
			v.out.abort()
			v.out = nil
		}
	}
}

// mergedChunk is a run of distinct terms in ascending order, each with the
// indexes of the batch vocabularies that hold it: term i is
// buf[ends[i-1]:ends[i]], its batches members[mends[i-1]:mends[i]].
type mergedChunk struct {
	buf     []byte
	ends    []int
	members []int32
	mends   []int
}

func (c *mergedChunk) reset() {
	c.buf, c.ends, c.members, c.mends = c.buf[:0], c.ends[:0], c.members[:0], c.mends[:0]
}

func (c *mergedChunk) len() int { return len(c.ends) }

// term returns term i and its batches; both alias the chunk.
func (c *mergedChunk) term(i int) ([]byte, []int32) {
	from, mfrom := 0, 0
	if i > 0 {
		from, mfrom = c.ends[i-1], c.mends[i-1]
	}
	return c.buf[from:c.ends[i]], c.members[mfrom:c.mends[i]]
}

// Chunks of the vocabulary merge: mergeChunkLen terms or mergeChunkBytes of
// term text, whichever comes first; mergeChunks of them in flight.
const (
	mergeChunkLen   = 4096
	mergeChunkBytes = 256 << 10
	mergeChunks     = 4
)

// runVocabMerge merges the sorted vocabularies of readers into distinct
// terms on one goroutine and calls assign with each chunk of them, in
// order, on another. A chunk is valid only during the call. The first
// error of either side stops both.
func runVocabMerge(ctx context.Context, readers []*vocabReader, assign func(*mergedChunk) error) error {
	g, gctx := errgroup.WithContext(ctx)
	full := make(chan *mergedChunk, mergeChunks)
	free := make(chan *mergedChunk, mergeChunks+1)
	for range mergeChunks + 1 {
		free <- &mergedChunk{}
	}
	g.Go(func() error {
		defer close(full)
		return vocabMerge(gctx, readers, free, full)
	})
	g.Go(func() error {
		for c := range full {
			if err := assign(c); err != nil {
				return err
			}
			c.reset()
			free <- c
		}
		return nil
	})
	return g.Wait()
}

// vocabMerge is the k-way merge of the batch vocabularies (a heap of
// readers ordered by their current term): it fills chunks taken from free
// with the distinct terms and sends them to full.
func vocabMerge(ctx context.Context, readers []*vocabReader, free <-chan *mergedChunk, full chan<- *mergedChunk) error {
	var h []int32 // indexes into readers
	for i, v := range readers {
		ok, err := v.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, int32(i))
		}
	}
	less := func(a, b int32) bool { return bytes.Compare(readers[a].cur, readers[b].cur) < 0 }
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
	var c *mergedChunk
	send := func() error {
		select {
		case full <- c:
			c = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for len(h) > 0 {
		if c == nil {
			select {
			case c = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		c.buf = append(c.buf, readers[h[0]].cur...)
		term := c.buf[len(c.buf)-len(readers[h[0]].cur):]
		c.ends = append(c.ends, len(c.buf))
		for len(h) > 0 && bytes.Equal(readers[h[0]].cur, term) {
			c.members = append(c.members, h[0])
			ok, err := readers[h[0]].next()
			if err != nil {
				return err
			}
			if !ok {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			down(0)
		}
		c.mends = append(c.mends, len(c.members))
		if c.len() >= mergeChunkLen || len(c.buf) >= mergeChunkBytes {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if c != nil && c.len() > 0 {
		return send()
	}
	return nil
}

// idAssigner is the second half of the vocabulary merge: it gives each
// distinct term its global id (the stored one, or the next new one) and
// writes it out.
type idAssigner struct {
	l       *Loader
	stored  *storedDict
	readers []*vocabReader
	res     *dictResult
	tw, iw  *dictWriter
	n       int
}

func (a *idAssigner) assign(c *mergedChunk) error {
	l, res := a.l, a.res
	for i := range c.len() {
		if a.n%(1<<16) == 0 {
			l.progress("dictionary", int64(a.n), -1)
		}
		a.n++
		term, batches := c.term(i)
		id, found, err := a.stored.find(term)
		if err != nil {
			return err
		}
		if !found {
			id = res.next
			res.next++
			res.newCount++
			if a.iw != nil {
				if err := a.iw.write(term, id); err != nil {
					return err
				}
			}
		} else if l.reserved(id) {
			// Written by an interrupted load: write both directions again.
			res.reserved = append(res.reserved, newTerm{id, string(term)})
		}
		if !found || l.reserved(id) {
			if err := a.tw.write(term, id); err != nil {
				return err
			}
		}
		if name, ok := l.graphs[string(term)]; ok {
			l.names[id] = name
		}
		for _, b := range batches {
			if err := a.readers[b].emit(id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *idAssigner) abort() {
	a.tw.abort()
	if a.iw != nil {
		a.iw.abort()
	}
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
