package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// Encodings of the temporary files. Temporary disk is what limits the
// largest load on a given machine, so every spill file is compact at
// little CPU cost:
//
//   - sorted term lists (batch vocabularies, the merge's t and i files) are
//     front-coded (package frontcode): each term stores the length of the
//     prefix it shares with the previous term, then the rest;
//   - batch quads and id maps store varint deltas against the previous
//     record (subjects and ids mostly ascend or repeat);
//   - sorted runs store the first differing key field as a delta (extsort.go).

// nextTerm reads the next term of a front-coded spill file (the format
// is package frontcode's); the term is valid until the next call. io.EOF
// only at the end of the list.
func nextTerm(d *frontcode.Decoder, r *spillReader) ([]byte, error) {
	t, err := d.Next(r.r)
	switch {
	case err == nil || errors.Is(err, io.EOF):
		return t, err
	case errors.Is(err, frontcode.ErrCorrupt), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("temporary file %s is corrupt: %w", r.f.Name(), errors.Join(err, errBadRun))
	}
	return nil, fmt.Errorf("read temporary file %s: %w", r.f.Name(), err)
}

// noEOF turns an end of file inside a record into ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// zigzag maps a signed delta to an unsigned varint value.
func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// deltaWriter appends uint64 values as zigzag varint deltas.
type deltaWriter struct{ prev uint64 }

func (d *deltaWriter) append(dst []byte, v uint64) []byte {
	dst = binary.AppendUvarint(dst, zigzag(int64(v-d.prev)))
	d.prev = v
	return dst
}

// deltaReader reads what deltaWriter wrote.
type deltaReader struct{ prev uint64 }

func (d *deltaReader) next(r *bufio.Reader) (uint64, error) {
	u, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, err
	}
	d.prev += uint64(unzigzag(u))
	return d.prev, nil
}

// appendLocalQuad encodes a batch quad in local ids: the subject as a
// delta against the previous subject, the rest as varints.
func appendLocalQuad(dst []byte, sub *deltaWriter, q lquad) []byte {
	dst = sub.append(dst, uint64(q.s))
	dst = binary.AppendUvarint(dst, uint64(q.p))
	dst = binary.AppendUvarint(dst, uint64(q.o))
	return binary.AppendUvarint(dst, uint64(q.g))
}

// maxLocalQuad is the longest encoded local quad (a 10-byte subject
// delta, three 5-byte ids).
const maxLocalQuad = 10 + 3*5

// readLocalQuad is the inverse of appendLocalQuad; io.EOF only between
// records.
func readLocalQuad(r *bufio.Reader, sub *deltaReader) (lquad, error) {
	c, err := peekRecord(r, maxLocalQuad)
	if err != nil {
		return lquad{}, err
	}
	s := sub.prev + uint64(unzigzag(c.next()))
	p, o, g := c.next(), c.next(), c.next()
	if err := c.done(r); err != nil {
		return lquad{}, err
	}
	if s >= 1<<32 || p >= 1<<32 || o >= 1<<32 || g >= 1<<32 {
		return lquad{}, errBadRun
	}
	sub.prev = s
	return lquad{s: uint32(s), p: uint32(p), o: uint32(o), g: uint32(g)}, nil
}

// varintCursor decodes a record of varints from bytes peeked from a
// bufio.Reader, which is much cheaper than reading them byte by byte
// through io.ByteReader.
type varintCursor struct {
	b     []byte
	n     int
	short bool // fewer bytes than a whole record were left in the file
	bad   bool
}

// peekRecord returns a cursor over the next record of at most max bytes;
// io.EOF at the end of the file.
func peekRecord(r *bufio.Reader, max int) (varintCursor, error) {
	b, err := r.Peek(max)
	if len(b) == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		return varintCursor{}, err
	}
	return varintCursor{b: b, short: len(b) < max}, nil
}

func (c *varintCursor) byte() byte {
	if c.n >= len(c.b) {
		c.bad = true
		return 0
	}
	c.n++
	return c.b[c.n-1]
}

func (c *varintCursor) next() uint64 {
	v, k := binary.Uvarint(c.b[min(c.n, len(c.b)):])
	if k <= 0 {
		c.bad = true
		return 0
	}
	c.n += k
	return v
}

// done consumes the record from r, or says why it is broken.
func (c *varintCursor) done(r *bufio.Reader) error {
	switch {
	case c.bad && c.short:
		return io.ErrUnexpectedEOF
	case c.bad:
		return errBadRun
	}
	_, err := r.Discard(c.n)
	return err
}
