package input

import (
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
)

// newXz returns an in-process xz decoder over r (github.com/ulikunitz/xz):
// no external program is needed. Concatenated streams and stream padding
// are accepted, as "xz -dc" does; a corrupt or truncated stream is a read
// error (io.ErrUnexpectedEOF for one cut off). The decoder is
// single-threaded, so Open runs it in a read-ahead goroutine.
func newXz(r io.Reader) (io.Reader, error) {
	tail := &xzTail{r: r}
	xr, err := xz.NewReader(tail)
	if err != nil {
		return nil, fmt.Errorf("xz header: %w", err)
	}
	return &xzStream{xr: xr, tail: tail}, nil
}

// xzStream ends with io.ErrUnexpectedEOF where the decoder would end
// cleanly on input that stops before a stream footer: ulikunitz/xz
// v0.5.15 reads a stream cut right after its header (or between blocks)
// as empty.
type xzStream struct {
	xr   io.Reader
	tail *xzTail
}

func (s *xzStream) Read(p []byte) (int, error) {
	n, err := s.xr.Read(p)
	if err == io.EOF && !s.tail.footer() {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// xzTail passes r through and keeps its last two bytes other than zero:
// every xz stream ends with a footer whose last bytes are the magic "YZ",
// and only zero bytes (stream padding) may follow it.
type xzTail struct {
	r    io.Reader
	last [2]byte
}

func (t *xzTail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	// The last two non-zero bytes of p[:n], most recent last, shifted
	// in after those already kept.
	var got []byte
	for i := n - 1; i >= 0 && len(got) < 2; i-- {
		if p[i] != 0 {
			got = append(got, p[i])
		}
	}
	for i := len(got) - 1; i >= 0; i-- {
		t.last[0], t.last[1] = t.last[1], got[i]
	}
	return n, err
}

// footer reports whether the input read so far ends with a stream footer
// (and padding).
func (t *xzTail) footer() bool { return t.last == [2]byte{'Y', 'Z'} }
