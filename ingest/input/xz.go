package input

import (
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
)

// newXz returns an in-process xz decoder over r (github.com/ulikunitz/xz):
// no external program is needed. Concatenated streams and stream padding
// are accepted, as "xz -dc" does; a corrupt or truncated stream is a read
// error. The decoder is single-threaded, so Open runs it in a read-ahead
// goroutine.
func newXz(r io.Reader) (io.Reader, error) {
	xr, err := xz.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("xz header: %w", err)
	}
	return xr, nil
}
