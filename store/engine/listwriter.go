package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	badger "github.com/dgraph-io/badger/v4"
)

// Writing the posting lists of a bulk load. The merge of the sorted runs
// produces each list's ids in ascending order, one list after another, and
// a list can be as long as the dump's largest hub: Wikidata's scholarly
// articles or humans and Freebase's common.topic have tens of millions of
// incoming "instance of" / "type" edges, and the P list of that predicate
// has a hundred million subjects or more. A listWriter writes one list at
// a time without holding it whole:
//
//   - The first chunk records the list's length, known only at its end. So
//     a list is held in memory up to spoolAfter ids; past that its first
//     chunk stays in memory and every further chunk is encoded, as it
//     fills, into a temporary file (the load's spill directory). When the
//     list ends, chunk 0 is written with the length, then the spooled
//     chunks are copied behind it in key order. A long list costs one
//     sequential write and read of its encoded chunks (a few bytes per id).
//   - In a load into a database that holds data, a list is the union of the
//     stored list and the new ids. The stored list is read chunk by chunk
//     (storedList) and merged with the ids as they arrive, so it is never
//     held whole either; stored chunk keys past the union's last chunk
//     (ApplyDeltas leaves chunks partly empty, so a union can take fewer)
//     are deleted.
//
// Memory is at most spoolAfter ids plus two chunks and the file buffers,
// whatever the length of a list. A listWriter is used by one goroutine and
// reuses its buffers from list to list.
type listWriter struct {
	sd *spillDir
	// spoolAfter is the length past which a list is spooled; a multiple
	// of chunkSize, at least 2*chunkSize (0: spoolAfterIDs; smaller in
	// tests).
	spoolAfter int
	stored     storedList
	// ids are the ids not yet encoded: the whole list, or for a spooled
	// one chunk 0 and then the chunk being filled.
	ids   []uint64
	n     int          // ids in the list so far
	spool *spillWriter // chunks 1.. of a spooled list, nil otherwise
	spun  uint32       // chunks in spool
	buf   []byte
	rbuf  []byte
	key   []byte
}

// spoolAfterIDs is the number of ids (8 bytes each) a list may hold in
// memory before it is spooled: 2 MiB.
const spoolAfterIDs = 64 * chunkSize

// begin starts a new list. The caller then sets up the stored list to
// merge (w.stored: empty after begin) and adds the new ids.
func (w *listWriter) begin() {
	w.ids, w.n, w.spun = w.ids[:0], 0, 0
	w.stored.reset()
	if w.spoolAfter < 2*chunkSize || w.spoolAfter%chunkSize != 0 {
		w.spoolAfter = spoolAfterIDs
	}
}

// add adds the next id (greater than the previous one), after the stored
// ids below it.
func (w *listWriter) add(id uint64) error {
	if w.stored.pending() {
		if err := w.mergeStored(id); err != nil {
			return err
		}
	}
	return w.emit(id)
}

// mergeStored adds the stored ids below id and skips one equal to it. Ids
// never reach the maximum uint64, which close uses to add them all.
func (w *listWriter) mergeStored(id uint64) error {
	for w.stored.pending() {
		s, ok, err := w.stored.head()
		if err != nil || !ok || s > id {
			return err
		}
		w.stored.pos++
		if s == id {
			return nil
		}
		if err := w.emit(s); err != nil {
			return err
		}
	}
	return nil
}

// emit appends one id of the union.
func (w *listWriter) emit(id uint64) error {
	w.ids = append(w.ids, id)
	w.n++
	if w.spool == nil && len(w.ids) < w.spoolAfter || w.spool != nil && len(w.ids) < 2*chunkSize {
		return nil
	}
	return w.spoolChunks()
}

// spoolChunks encodes the full chunks after chunk 0 into the spool file,
// keeping chunk 0's ids.
func (w *listWriter) spoolChunks() error {
	if w.spool == nil {
		if w.sd == nil {
			return errors.New("internal error: a bulk load's list writer has no temporary directory")
		}
		f, err := w.sd.create("list")
		if err != nil {
			return err
		}
		w.spool = f
	}
	for i := chunkSize; i < len(w.ids); i += chunkSize {
		w.buf = encodeChunk(w.buf[:0], w.ids[i:i+chunkSize], false, 0)
		w.rbuf = binary.AppendUvarint(w.rbuf[:0], uint64(len(w.buf)))
		if _, err := w.spool.Write(w.rbuf); err != nil {
			return err
		}
		if _, err := w.spool.Write(w.buf); err != nil {
			return err
		}
		w.spun++
	}
	w.ids = w.ids[:chunkSize]
	return nil
}

// close ends the list: it merges the stored ids left, writes the chunks
// under key to stream of sink (for a P list, chunked, or any list longer
// than inlineMax; a shorter S or O list lives inline in its node block),
// deletes stored chunk keys the list no longer uses, and returns the
// list's length and the stored list's. After close, w.ids holds the whole
// list if it has at most inlineMax ids.
func (w *listWriter) close(sink kvWriter, stream uint32, key []byte, chunked bool) (total, old int, err error) {
	if err := w.mergeStored(math.MaxUint64); err != nil {
		return 0, 0, err
	}
	chunks := 0
	if chunked || w.n > inlineMax {
		if chunks, err = w.writeChunks(sink, stream, key); err != nil {
			return 0, 0, err
		}
	}
	for i := chunks; i < int(w.stored.chunk); i++ {
		if err := sink.Delete(stream, withChunk(key, uint32(i))); err != nil {
			return 0, 0, err
		}
	}
	return w.n, w.stored.n, nil
}

// writeChunks writes the list's chunks and returns their number.
func (w *listWriter) writeChunks(sink kvWriter, stream uint32, key []byte) (int, error) {
	if w.spool == nil {
		chunk := 0
		for i := 0; i == 0 || i < len(w.ids); i += chunkSize {
			if err := w.set(sink, stream, key, chunk, w.ids[i:min(i+chunkSize, len(w.ids))]); err != nil {
				return 0, err
			}
			chunk++
		}
		return chunk, nil
	}
	if err := w.set(sink, stream, key, 0, w.ids[:chunkSize]); err != nil {
		return 0, err
	}
	if err := w.copySpool(sink, stream, key); err != nil {
		return 0, err
	}
	chunks := 1 + int(w.spun)
	if len(w.ids) > chunkSize {
		if err := w.set(sink, stream, key, chunks, w.ids[chunkSize:]); err != nil {
			return 0, err
		}
		chunks++
	}
	return chunks, nil
}

// set writes chunk number chunk of the list, holding ids.
func (w *listWriter) set(sink kvWriter, stream uint32, key []byte, chunk int, ids []uint64) error {
	w.buf = encodeChunk(w.buf[:0], ids, chunk == 0, w.n)
	w.key = withChunk(append(w.key[:0], key...), uint32(chunk))
	return sink.Set(stream, w.key, w.buf)
}

// copySpool writes the spooled chunks 1..spun and removes the spool file.
func (w *listWriter) copySpool(sink kvWriter, stream uint32, key []byte) error {
	f := w.spool
	w.spool = nil
	if err := f.Close(); err != nil {
		f.abort()
		return err
	}
	defer w.sd.drop(f.path)
	r, err := openSpill(f.path, 256<<10)
	if err != nil {
		return err
	}
	defer r.Close()
	for c := uint32(1); c <= w.spun; c++ {
		n, err := binary.ReadUvarint(r.r)
		if err != nil {
			return spoolErr(f.path, err)
		}
		if n > uint64(binary.MaxVarintLen64*(chunkSize+1)) {
			return spoolErr(f.path, errBadPosting)
		}
		if cap(w.buf) < int(n) {
			w.buf = make([]byte, n)
		}
		w.buf = w.buf[:n]
		if _, err := io.ReadFull(r.r, w.buf); err != nil {
			return spoolErr(f.path, err)
		}
		w.key = withChunk(append(w.key[:0], key...), c)
		if err := sink.Set(stream, w.key, w.buf); err != nil {
			return err
		}
	}
	return nil
}

func spoolErr(path string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read temporary file %s: %w", path, err)
}

// release removes the spool file of a list left unfinished by an error.
func (w *listWriter) release() {
	if w.spool != nil {
		w.spool.abort()
		w.spool = nil
	}
}

// storedList reads a stored posting list in ascending order, one chunk at
// a time: the members of an inline group, or the chunks under a group key
// read lazily through a transaction. It counts the ids and chunk keys it
// has read.
type storedList struct {
	txn    *badger.Txn
	key    []byte   // group key, then room for the chunk number
	glen   int      // length of the group key in key
	ids    []uint64 // the current chunk (in buf) or the inline members
	buf    []uint64
	pos    int    // next id in ids
	more   bool   // chunks are left to read
	chunk  uint32 // next chunk to read
	n      int    // ids read
	chunks int    // chunk keys read
}

// reset makes the list empty.
func (s *storedList) reset() {
	s.txn, s.ids, s.pos, s.more, s.chunk, s.n = nil, nil, 0, false, 0, 0
}

// setInline makes the list the members of an inline group (ids is used,
// not copied, until the next reset).
func (s *storedList) setInline(ids []uint64) {
	s.reset()
	s.ids, s.n = ids, len(ids)
}

// setChunks makes the list the one stored in chunk keys under group.
func (s *storedList) setChunks(txn *badger.Txn, group []byte) {
	s.reset()
	s.txn, s.more = txn, true
	s.key = append(s.key[:0], group...)
	s.glen = len(group)
}

// pending reports whether ids may be left.
func (s *storedList) pending() bool { return s.pos < len(s.ids) || s.more }

// head returns the next id without consuming it (pos++ does); ok is false
// at the end of the list.
func (s *storedList) head() (id uint64, ok bool, err error) {
	for s.pos == len(s.ids) {
		if !s.more {
			return 0, false, nil
		}
		if err := s.load(); err != nil {
			return 0, false, err
		}
	}
	return s.ids[s.pos], true, nil
}

// load reads the next chunk, or notes the end of the list.
func (s *storedList) load() error {
	s.key = withChunk(s.key[:s.glen], s.chunk)
	item, err := s.txn.Get(s.key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		s.more = false
		return nil
	} else if err != nil {
		return err
	}
	first := s.chunk == 0
	err = item.Value(func(v []byte) (err error) {
		s.buf, err = decodeChunk(s.buf[:0], v, first)
		return err
	})
	if err != nil {
		return fmt.Errorf("posting list %x: %w", s.key[:s.glen], err)
	}
	s.ids, s.pos = s.buf, 0
	s.chunk++
	s.n += len(s.ids)
	return nil
}
