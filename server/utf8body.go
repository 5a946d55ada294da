package server

import (
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"
)

// utf8Reader passes a body through while checking it is UTF-8: JSON
// decoders replace invalid bytes with U+FFFD, so a JSON write would store
// a value other than the one sent without a word. The first invalid
// sequence fails the read with a 400 naming its byte offset.
type utf8Reader struct {
	r       io.Reader
	format  string
	offset  int64  // bytes checked before pending
	pending []byte // an incomplete sequence at the end of the last read
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if n > 0 {
		if bad := u.check(p[:n], err != nil); bad >= 0 {
			return 0, &apiError{http.StatusBadRequest, fmt.Sprintf("%s body: invalid UTF-8 at byte %d; "+
				"JSON strings must be UTF-8 (the value would be stored altered)", u.format, bad)}
		}
	} else if err != nil && len(u.pending) > 0 {
		return 0, &apiError{http.StatusBadRequest, fmt.Sprintf("%s body: invalid UTF-8 at byte %d (a truncated sequence at its end)",
			u.format, u.offset)}
	}
	return n, err
}

// check validates b after what is pending, keeping an incomplete sequence
// at its end for the next read unless last; it returns the offset of the
// first invalid byte, or -1.
func (u *utf8Reader) check(b []byte, last bool) int64 {
	buf := append(u.pending, b...)
	i := 0
	for i < len(buf) {
		if buf[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 {
			if !last && !utf8.FullRune(buf[i:]) {
				break // the rest of the sequence comes with the next read
			}
			return u.offset + int64(i)
		}
		i += size
	}
	u.offset += int64(i)
	u.pending = append(u.pending[:0], buf[i:]...)
	return -1
}
