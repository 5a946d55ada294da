// Package lineread holds what the line-based ingest readers share about
// lines over their limit.
package lineread

import (
	"bufio"
	"context"
	"errors"
)

// ctxEvery is how many buffers DiscardLine reads between checks of its
// context.
const ctxEvery = 64

// DiscardLine reads past the end of the current line: nil once its line
// end is consumed, io.EOF when the input ends first, ctx's error when ctx
// is done first (input without line ends, such as a stream of zeros, is
// otherwise read for ever), or the read error.
func DiscardLine(ctx context.Context, br *bufio.Reader) error {
	for i := 0; ; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, err := br.ReadSlice('\n'); !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
