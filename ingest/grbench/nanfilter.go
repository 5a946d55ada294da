package grbench

import (
	"bytes"
	"io"
)

// nonFinite lists the bare tokens that Python's json module writes for
// non-finite floats (allow_nan=True is its default). They are not JSON.
var nonFinite = [...]string{"NaN", "Infinity", "-Infinity"}

// nanFilter rewrites the bare tokens NaN, Infinity and -Infinity that occur
// outside JSON strings into an empty object padded with spaces to the same
// width ("NaN" becomes "{} "). GRBench's legal graph is written by pandas and
// Python's json.dump, so missing values appear as NaN. An empty object
// flattens to no feature at all, so a missing value yields no edge, and the
// rewrite keeps every byte offset unchanged for error messages.
//
// The filter tracks string state across reads and holds back at most
// len("-Infinity")-1 bytes when a chunk ends inside a possible token.
type nanFilter struct {
	r     io.Reader
	buf   []byte // bytes read from r, processed up to done
	done  int    // processed bytes at the start of buf, ready to hand out
	inStr bool   // inside a JSON string
	esc   bool   // the previous byte inside a string was a backslash
	err   error  // error from r, reported once buf is drained
}

// newNaNFilter wraps r.
func newNaNFilter(r io.Reader) *nanFilter {
	return &nanFilter{r: r, buf: make([]byte, 0, 64<<10)}
}

// Read implements io.Reader.
func (f *nanFilter) Read(p []byte) (int, error) {
	for f.done == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.fill()
		f.done = f.process(f.err != nil)
	}
	n := copy(p, f.buf[:f.done])
	f.buf = f.buf[:copy(f.buf, f.buf[n:])]
	f.done -= n
	return n, nil
}

// fill appends one read from r to buf.
func (f *nanFilter) fill() {
	if cap(f.buf)-len(f.buf) < 4<<10 {
		grown := make([]byte, len(f.buf), 2*cap(f.buf))
		copy(grown, f.buf)
		f.buf = grown
	}
	n, err := f.r.Read(f.buf[len(f.buf):cap(f.buf)])
	f.buf = f.buf[:len(f.buf)+n]
	if err != nil {
		f.err = err
	}
}

// process rewrites buf in place from the first unprocessed byte and returns
// how many leading bytes are final. Only bytes that might start a token cut
// by the end of buf are held back, unless atEOF.
func (f *nanFilter) process(atEOF bool) int {
	b := f.buf
	for i := f.done; i < len(b); {
		switch {
		case f.esc:
			f.esc = false
			i++
		case f.inStr:
			i = f.skipString(b, i)
		default:
			j := indexSpecial(b[i:])
			if j < 0 {
				return len(b)
			}
			i += j
			if b[i] == '"' {
				f.inStr = true
				i++
				continue
			}
			n, partial := matchNonFinite(b[i:])
			if partial && !atEOF {
				return i
			}
			if n == 0 {
				i++
				continue
			}
			b[i], b[i+1] = '{', '}'
			for k := i + 2; k < i+n; k++ {
				b[k] = ' '
			}
			i += n
		}
	}
	return len(b)
}

// skipString advances over string content from i to just past the closing
// quote, or to a backslash (setting esc), or to the end of b.
func (f *nanFilter) skipString(b []byte, i int) int {
	q := bytes.IndexByte(b[i:], '"')
	end := len(b)
	if q >= 0 {
		end = i + q
	}
	if e := bytes.IndexByte(b[i:end], '\\'); e >= 0 {
		f.esc = true
		return i + e + 1
	}
	if q < 0 {
		return len(b)
	}
	f.inStr = false
	return end + 1
}

// special marks the bytes that matter outside strings: a string start and
// the first bytes of NaN, Infinity and -Infinity.
var special = [256]bool{'"': true, 'N': true, 'I': true, '-': true}

// indexSpecial returns the index of the first special byte in b, or -1.
func indexSpecial(b []byte) int {
	for i, c := range b {
		if special[c] {
			return i
		}
	}
	return -1
}

// matchNonFinite reports the length of the non-finite token at the start of
// b (0 if none) and whether b is a proper prefix of one, so that more input
// is needed to decide.
func matchNonFinite(b []byte) (n int, partial bool) {
	for _, tok := range nonFinite {
		if len(b) >= len(tok) {
			if string(b[:len(tok)]) == tok {
				return len(tok), false
			}
		} else if string(b) == tok[:len(b)] {
			return 0, true
		}
	}
	return 0, false
}
