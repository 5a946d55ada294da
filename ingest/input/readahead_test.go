package input

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAhead(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 1000))
	boom := errors.New("decoder failed")
	tests := []struct {
		name    string
		src     io.Reader
		buffers int
		size    int
		want    []byte
		err     error
	}{
		{"one buffer", bytes.NewReader(data), 1, len(data) * 2, data, nil},
		{"many small buffers", bytes.NewReader(data), 3, 7, data, nil},
		{"one byte reads", iotest.OneByteReader(bytes.NewReader(data)), 2, 100, data, nil},
		{"empty", bytes.NewReader(nil), 2, 16, []byte{}, nil},
		{"error after data", io.MultiReader(bytes.NewReader(data[:50]), iotest.ErrReader(boom)), 2, 16, data[:50], boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ra := newReadAhead(tc.src, tc.buffers, tc.size)
			defer ra.Close()
			got, err := io.ReadAll(iotest.HalfReader(ra))
			if !errors.Is(err, tc.err) || !bytes.Equal(got, tc.want) {
				t.Errorf("read %d bytes, err %v; want %d bytes, err %v", len(got), err, len(tc.want), tc.err)
			}
		})
	}
}

func TestReadAheadClose(t *testing.T) {
	pr, pw := io.Pipe()
	ra := newReadAhead(pr, 2, 8)
	pw.Write([]byte("12345678"))
	buf := make([]byte, 8)
	if _, err := io.ReadFull(ra, buf); err != nil {
		t.Fatal(err)
	}
	ra.Close() // the goroutine is blocked in pr.Read
	if _, err := ra.Read(buf); !errors.Is(err, errClosed) {
		t.Errorf("read after close: %v", err)
	}
	pw.Close() // lets the goroutine exit
}
