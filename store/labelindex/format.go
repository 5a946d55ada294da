package labelindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
)

// Blob layout constants; see the package documentation.
const (
	magic      = "GRVLBLIX"
	version    = 1
	headerSize = 64
	crcOffset  = 56
)

// ErrCorrupt is wrapped by every error about a malformed blob.
var ErrCorrupt = errors.New("labelindex: corrupt index")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is the fixed-size prefix of a blob.
type header struct {
	maxKeyLen uint32 // longest key in bytes
	numKeys   uint64 // distinct keys in the FST
	numIDs    uint64 // sum of the postings list lengths
	trieEdges uint64 // distinct non-empty key prefixes: the steps of a full walk
	fstLen    uint64
	postLen   uint64
}

// fields returns the 64-byte header with a zero checksum.
func (h header) fields() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint16(b[8:], version)
	binary.LittleEndian.PutUint16(b[10:], 0) // flags
	binary.LittleEndian.PutUint32(b[12:], h.maxKeyLen)
	binary.LittleEndian.PutUint64(b[16:], h.numKeys)
	binary.LittleEndian.PutUint64(b[24:], h.numIDs)
	binary.LittleEndian.PutUint64(b[32:], h.trieEdges)
	binary.LittleEndian.PutUint64(b[40:], h.fstLen)
	binary.LittleEndian.PutUint64(b[48:], h.postLen)
	return b
}

// sealHeader stores the checksum crc in the header hdr.
func sealHeader(hdr []byte, crc uint32) {
	binary.LittleEndian.PutUint32(hdr[crcOffset:], crc)
}

// headerCRC is the CRC-32C of the header without its CRC field: the start
// of the blob's checksum, which continues over the body.
func headerCRC(hdr []byte) uint32 {
	c := crc32.Update(0, castagnoli, hdr[:crcOffset])
	return crc32.Update(c, castagnoli, hdr[crcOffset+4:headerSize])
}

// checksum is the CRC-32C of the header without its CRC field, then the
// body.
func checksum(hdr []byte, body ...[]byte) uint32 {
	c := headerCRC(hdr)
	for _, b := range body {
		c = crc32.Update(c, castagnoli, b)
	}
	return c
}

// decodeHeader parses and checks the header of a whole blob and returns it
// with the FST and postings sections.
func decodeHeader(data []byte) (h header, fst, post []byte, err error) {
	if len(data) < headerSize {
		return h, nil, nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrCorrupt, len(data), headerSize)
	}
	if string(data[:8]) != magic {
		return h, nil, nil, fmt.Errorf("%w: bad magic %q", ErrCorrupt, data[:8])
	}
	if v := binary.LittleEndian.Uint16(data[8:]); v != version {
		return h, nil, nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, v, version)
	}
	if f, r := binary.LittleEndian.Uint16(data[10:]), binary.LittleEndian.Uint32(data[60:]); f != 0 || r != 0 {
		return h, nil, nil, fmt.Errorf("%w: flags %#x / reserved %#x must be zero", ErrCorrupt, f, r)
	}
	h = header{
		maxKeyLen: binary.LittleEndian.Uint32(data[12:]),
		numKeys:   binary.LittleEndian.Uint64(data[16:]),
		numIDs:    binary.LittleEndian.Uint64(data[24:]),
		trieEdges: binary.LittleEndian.Uint64(data[32:]),
		fstLen:    binary.LittleEndian.Uint64(data[40:]),
		postLen:   binary.LittleEndian.Uint64(data[48:]),
	}
	body := uint64(len(data) - headerSize)
	if h.fstLen > body || h.postLen != body-h.fstLen {
		return h, nil, nil, fmt.Errorf("%w: section lengths %d+%d do not add up to the %d body bytes", ErrCorrupt, h.fstLen, h.postLen, body)
	}
	fst = data[headerSize : headerSize+h.fstLen]
	post = data[headerSize+h.fstLen:]
	if got, want := checksum(data, fst, post), binary.LittleEndian.Uint32(data[crcOffset:]); got != want {
		return h, nil, nil, fmt.Errorf("%w: checksum %#08x, header says %#08x", ErrCorrupt, got, want)
	}
	return h, fst, post, h.check()
}

// check verifies that the header counts are consistent with each other and
// with the section sizes, which bounds every walk of the index.
func (h header) check() error {
	switch {
	case h.maxKeyLen > MaxKeyLen:
		return fmt.Errorf("%w: max key length %d exceeds %d", ErrCorrupt, h.maxKeyLen, MaxKeyLen)
	case h.numKeys > h.postLen/2:
		// Every postings list takes at least two bytes: count and one id.
		return fmt.Errorf("%w: %d keys cannot fit %d postings bytes", ErrCorrupt, h.numKeys, h.postLen)
	case h.numIDs < h.numKeys || h.numIDs > h.postLen:
		return fmt.Errorf("%w: %d ids for %d keys in %d postings bytes", ErrCorrupt, h.numIDs, h.numKeys, h.postLen)
	}
	hi, lo := bits.Mul64(h.numKeys, uint64(h.maxKeyLen))
	if hi != 0 || h.trieEdges > lo || (h.numKeys > 0) != (h.trieEdges > 0) {
		return fmt.Errorf("%w: %d trie edges for %d keys of at most %d bytes", ErrCorrupt, h.trieEdges, h.numKeys, h.maxKeyLen)
	}
	return nil
}

// appendPostings appends the postings list of ids (sorted, distinct,
// non-empty) to dst.
func appendPostings(dst []byte, ids []uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	prev := uint64(0)
	for i, id := range ids {
		if i == 0 {
			dst = binary.AppendUvarint(dst, id)
		} else {
			dst = binary.AppendUvarint(dst, id-prev)
		}
		prev = id
	}
	return dst
}

// decodePostings appends the postings list at off in post to dst, or its
// first limit ids if limit > 0, and returns it with the offset just past the
// list (meaningless when the list was cut).
func decodePostings(dst []uint64, post []byte, off uint64, limit int) ([]uint64, uint64, error) {
	if off >= uint64(len(post)) {
		return dst, 0, fmt.Errorf("%w: postings offset %d outside the %d-byte section", ErrCorrupt, off, len(post))
	}
	pos := int(off)
	n, err := readUvarint(post, &pos)
	if err != nil || n == 0 || n > uint64(len(post)-pos) {
		return dst, 0, fmt.Errorf("%w: postings at %d: bad count %d", ErrCorrupt, off, n)
	}
	if limit > 0 {
		n = min(n, uint64(limit))
	}
	var id uint64
	for i := range n {
		d, err := readUvarint(post, &pos)
		if err == nil && i > 0 && (d == 0 || d > math.MaxUint64-id) {
			err = fmt.Errorf("delta %d after id %d", d, id)
		}
		if err != nil {
			return dst, 0, fmt.Errorf("%w: postings at %d, id %d: %w", ErrCorrupt, off, i, err)
		}
		id += d
		dst = append(dst, id)
	}
	return dst, uint64(pos), nil
}

// readUvarint reads one uvarint at *pos and advances it.
func readUvarint(b []byte, pos *int) (uint64, error) {
	v, n := binary.Uvarint(b[*pos:])
	if n <= 0 {
		return 0, errors.New("truncated or overlong varint")
	}
	*pos += n
	return v, nil
}

// ReadPairCount reads the number of (key, id) pairs from the header of the
// index file at path, without reading or checking the rest of the file.
func ReadPairCount(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	hdr := make([]byte, headerSize)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return 0, fmt.Errorf("%w: %s: short header: %w", ErrCorrupt, path, err)
	}
	if string(hdr[:8]) != magic {
		return 0, fmt.Errorf("%w: %s: bad magic", ErrCorrupt, path)
	}
	return int64(binary.LittleEndian.Uint64(hdr[24:])), nil
}
