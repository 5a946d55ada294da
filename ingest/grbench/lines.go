package grbench

import (
	"bytes"
	"io"
)

// lineIndex counts the lines of the stream it reads, so that a node's byte
// offset can be turned into a line for errors. It keeps the offsets of the
// newlines not yet passed (those the decoder has read ahead of the node
// being built), so its memory is bounded by the read-ahead, not the file.
type lineIndex struct {
	r      io.Reader
	read   int64   // bytes read so far
	nl     []int64 // offsets of newlines at or after the last advance
	passed int64   // newlines before the last advance
}

// Read implements io.Reader, noting every newline.
func (l *lineIndex) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		l.nl = append(l.nl, l.read+int64(i+j))
		i += j + 1
	}
	l.read += int64(n)
	return n, err
}

// lineAt returns the 1-based line of byte offset off and forgets the
// newlines before it: offsets passed to lineAt must not decrease.
func (l *lineIndex) lineAt(off int64) int64 {
	k := 0
	for k < len(l.nl) && l.nl[k] < off {
		k++
	}
	l.passed += int64(k)
	l.nl = l.nl[k:]
	return l.passed + 1
}
