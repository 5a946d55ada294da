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

// splitChunks cuts a sorted list into encoded chunk values.
func splitChunks(ids []uint64) [][]byte {
	var out [][]byte
	for i := 0; i == 0 || i < len(ids); i += chunkSize {
		end := min(i+chunkSize, len(ids))
		out = append(out, encodeChunk(nil, ids[i:end], i == 0, len(ids)))
	}
	return out
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
