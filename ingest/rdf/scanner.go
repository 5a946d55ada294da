package rdf

import (
	"bytes"
	"errors"
	"io"
)

// errTokenTooLong reports a single term (a literal, IRI or name) longer
// than the reader's limit.
var errTokenTooLong = errors.New("term too long")

// scanner is a buffered byte reader with arbitrary look-ahead inside its
// window, line and column tracking, for the Turtle parser. The window grows
// only as far as the longest term being looked at, bounded by max.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	rerr     error // the first read error (io.EOF at the end)
	empty    int   // consecutive reads that returned nothing
	max      int
	line     int64 // 1-based line of buf[pos]
	col      int   // 1-based byte column of buf[pos]
}

func newScanner(r io.Reader, max int) *scanner {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &scanner{r: r, buf: make([]byte, 64<<10), max: max, line: 1, col: 1}
}

// fill tries to make n bytes available after pos; it reports whether it
// could. It fails at the end of the input, on a read error (see err) or
// when n exceeds the size limit.
func (s *scanner) fill(n int) bool {
	for s.end-s.pos < n {
		if s.rerr != nil {
			return false
		}
		if s.pos+n > len(s.buf) {
			if n > s.max {
				return false
			}
			if n > len(s.buf) {
				nb := make([]byte, max(n, 2*len(s.buf)))
				s.end = copy(nb, s.buf[s.pos:s.end])
				s.buf = nb
			} else {
				s.end = copy(s.buf, s.buf[s.pos:s.end])
			}
			s.pos = 0
		}
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		switch {
		case err != nil:
			s.rerr = err
		case m > 0:
			s.empty = 0
		default: // as bufio: tolerate a few empty reads
			if s.empty++; s.empty >= 100 {
				s.rerr = io.ErrNoProgress
			}
		}
	}
	return true
}

// at returns the byte i positions ahead, or -1 past the end of the input.
func (s *scanner) at(i int) int {
	if s.pos+i >= s.end && !s.fill(i+1) {
		return -1
	}
	return int(s.buf[s.pos+i])
}

// peek returns the current byte or -1.
func (s *scanner) peek() int { return s.at(0) }

// skip consumes n bytes (which must be available), tracking lines.
func (s *scanner) skip(n int) {
	b := s.buf[s.pos : s.pos+n]
	s.pos += n
	if n == 1 && b[0] != '\n' {
		s.col++
		return
	}
	if k := bytes.Count(b, newline); k > 0 {
		s.line += int64(k)
		s.col = n - bytes.LastIndexByte(b, '\n')
		return
	}
	s.col += n
}

var newline = []byte{'\n'}

// window returns the bytes available after pos without reading more,
// reading once if none are.
func (s *scanner) window() []byte {
	if s.pos >= s.end {
		s.fill(1)
	}
	return s.buf[s.pos:s.end]
}

// err returns the read error that stopped the input, nil at a clean end.
func (s *scanner) err() error {
	if s.rerr == io.EOF {
		return nil
	}
	return s.rerr
}
