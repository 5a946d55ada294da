package lineread

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestDiscardLine(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, in, rest string
		ctx            context.Context
		want           error
	}{
		{"line end", long + "\nnext\n", "next\n", context.Background(), nil},
		{"end of input", long, "", context.Background(), io.EOF},
		{"cancelled", long + "\n", long + "\n", cancelled, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
			if err := DiscardLine(tc.ctx, br); !errors.Is(err, tc.want) && err != tc.want {
				t.Fatalf("DiscardLine = %v, want %v", err, tc.want)
			}
			if rest, _ := io.ReadAll(br); string(rest) != tc.rest {
				t.Errorf("left %q, want %q", rest, tc.rest)
			}
		})
	}
}
