package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Posting lists hold sorted, distinct term ids, delta-encoded as uvarints.
// Chunk 0 begins with the total length of the list; every chunk then holds
// its own length and the deltas (the first delta is from zero).

var errBadPosting = errors.New("corrupt posting list")

// encodeChunk appends one chunk. total is written only for chunk 0.
func encodeChunk(dst []byte, ids []uint64, first bool, total int) []byte {
	if first {
		dst = binary.AppendUvarint(dst, uint64(total))
	}
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	var prev uint64
	for _, id := range ids {
		dst = binary.AppendUvarint(dst, id-prev)
		prev = id
	}
	return dst
}

// chunkTotal reads the total list length stored in chunk 0.
func chunkTotal(v []byte) (int64, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return 0, errBadPosting
	}
	return int64(n), nil
}

// decodeChunk appends the ids of one chunk to dst.
func decodeChunk(dst []uint64, v []byte, first bool) ([]uint64, error) {
	return decodeChunkLimit(dst, v, first, -1)
}

// decodeChunkLimit appends the ids of one chunk to dst, stopping when dst
// holds limit ids (limit < 0: no limit).
func decodeChunkLimit(dst []uint64, v []byte, first bool, limit int) ([]uint64, error) {
	if first {
		_, k := binary.Uvarint(v)
		if k <= 0 {
			return dst, errBadPosting
		}
		v = v[k:]
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return dst, errBadPosting
	}
	v = v[k:]
	var prev uint64
	for i := uint64(0); i < n && (limit < 0 || len(dst) < limit); i++ {
		d, k := binary.Uvarint(v)
		if k <= 0 {
			return dst, errBadPosting
		}
		v = v[k:]
		prev += d
		dst = append(dst, prev)
	}
	return dst, nil
}

// chunkWriter writes a posting list's chunks (chunkSize ids each, the
// first with the list's length) as its ids arrive, for a list whose
// length is known in advance: a fresh load's P lists are written this way
// without being held whole. It reuses its buffers from list to list.
type chunkWriter struct {
	sink   kvWriter
	stream uint32
	key    []byte
	total  int // the list's length, recorded in its first chunk
	n      int // ids written
	chunk  uint32
	ids    []uint64
	buf    []byte
}

func (w *chunkWriter) begin(sink kvWriter, stream uint32, key []byte, total int) {
	w.sink, w.stream, w.key, w.total, w.n, w.chunk, w.ids = sink, stream, key, total, 0, 0, w.ids[:0]
}

func (w *chunkWriter) add(id uint64) error {
	w.ids = append(w.ids, id)
	if len(w.ids) == chunkSize {
		return w.write()
	}
	return nil
}

func (w *chunkWriter) write() error {
	w.buf = encodeChunk(w.buf[:0], w.ids, w.chunk == 0, w.total)
	if err := w.sink.Set(w.stream, withChunk(w.key, w.chunk), w.buf); err != nil {
		return err
	}
	w.n += len(w.ids)
	w.chunk++
	w.ids = w.ids[:0]
	return nil
}

// close writes the last chunk (the only one, empty, of an empty list) and
// checks the list had the announced length.
func (w *chunkWriter) close() error {
	if len(w.ids) > 0 || w.chunk == 0 {
		if err := w.write(); err != nil {
			return err
		}
	}
	if w.n != w.total {
		return fmt.Errorf("bulk load: list %x has %d ids, %d were counted (a bug)", w.key, w.n, w.total)
	}
	return nil
}

// writeList writes the chunks of a whole list and returns their number.
func (w *chunkWriter) writeList(sink kvWriter, stream uint32, key []byte, ids []uint64) (int, error) {
	w.begin(sink, stream, key, len(ids))
	for _, id := range ids {
		if err := w.add(id); err != nil {
			return 0, err
		}
	}
	if err := w.close(); err != nil {
		return 0, err
	}
	return int(w.chunk), nil
}

// unionSorted merges two sorted distinct lists into a sorted distinct list.
func unionSorted(a, b []uint64) []uint64 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// insertSorted adds id to a sorted list; it reports whether it was new.
func insertSorted(ids []uint64, id uint64) ([]uint64, bool) {
	i, found := slices.BinarySearch(ids, id)
	if found {
		return ids, false
	}
	return slices.Insert(ids, i, id), true
}

// removeSorted deletes id from a sorted list; it reports whether it was there.
func removeSorted(ids []uint64, id uint64) ([]uint64, bool) {
	i, found := slices.BinarySearch(ids, id)
	if !found {
		return ids, false
	}
	return slices.Delete(ids, i, i+1), true
}

func slicesBinarySearch(ids []uint64, id uint64) (int, bool) { return slices.BinarySearch(ids, id) }
