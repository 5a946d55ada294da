package engine

import (
	"encoding/binary"
	"errors"
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
