// Package frontcode writes and reads front-coded lists of byte strings:
// the compact form Grove's temporary files give sorted keys and terms
// (the bulk loader's batch vocabularies, the label index's sorted runs).
//
// Each entry is uvarint(bytes shared with the previous entry),
// uvarint(length of the rest), then the rest. Sorted lists share long
// prefixes (IRIs of one namespace, labels of one word), so an entry costs
// a few bytes plus what is new in it. A caller may append its own fields
// after each entry (the label index writes an id); the decoder reads
// exactly one entry and leaves the reader there.
//
// An Encoder or Decoder is one list's state and is not safe for
// concurrent use; the zero value starts a list.
package frontcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// ErrCorrupt reports an entry that no Encoder writes: a shared prefix
// longer than the previous entry, or an entry longer than the decoder's
// limit.
var ErrCorrupt = errors.New("corrupt front-coded entry")

// Encoder appends front-coded entries.
type Encoder struct{ prev []byte }

// Append appends the entry for key to dst and returns the extended slice.
// The Encoder keeps its own copy of key.
func (e *Encoder) Append(dst, key []byte) []byte {
	n := CommonPrefixLen(e.prev, key)
	dst = binary.AppendUvarint(dst, uint64(n))
	dst = binary.AppendUvarint(dst, uint64(len(key)-n))
	dst = append(dst, key[n:]...)
	e.prev = append(e.prev[:0], key...)
	return dst
}

// Reader is what a Decoder reads from; *bufio.Reader is one.
type Reader interface {
	io.Reader
	io.ByteReader
}

// Decoder reads front-coded entries.
type Decoder struct {
	// MaxLen bounds an entry's length (0: 1<<32), so that a corrupt file
	// cannot make the decoder allocate without limit.
	MaxLen int
	cur    []byte
}

// Next reads one entry from r and returns it; the slice is the Decoder's
// and valid until the next call. It returns io.EOF at the end of r only
// when that falls between entries, io.ErrUnexpectedEOF when r ends inside
// one, and an error wrapping ErrCorrupt for an impossible entry.
func (d *Decoder) Next(r Reader) ([]byte, error) {
	shared, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err // io.EOF here is the end of the list
	}
	rest, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, noEOF(err)
	}
	limit := uint64(1) << 32
	if d.MaxLen > 0 {
		limit = uint64(d.MaxLen)
	}
	if shared > uint64(len(d.cur)) || rest > limit || shared+rest > limit {
		return nil, fmt.Errorf("%w: %d shared bytes and %d more after a %d-byte entry", ErrCorrupt, shared, rest, len(d.cur))
	}
	n := int(shared + rest)
	d.cur = slices.Grow(d.cur[:shared], int(rest))[:n]
	if _, err := io.ReadFull(r, d.cur[shared:]); err != nil {
		return nil, noEOF(err)
	}
	return d.cur, nil
}

// CommonPrefixLen is the length of the longest common prefix of a and b.
// It compares eight bytes at a time: terms and keys share long prefixes
// (IRIs of one namespace), and the loader and the label index call it for
// every term they write.
func CommonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// noEOF turns an end of input inside an entry into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
