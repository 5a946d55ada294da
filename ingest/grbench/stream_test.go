package grbench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/internal/memtest"
	"github.com/grove-kg/grove/ingest/source"
)

// TestStreams reads a 64 MiB graph.json through a pipe and checks that the
// heap stays far below the input size: the reader holds one node at a time
// plus the node-id index (a few dozen bytes per id), never the document.
func TestStreams(t *testing.T) {
	const size = 64 << 20
	title := strings.Repeat("a long paper title ", 40)
	pr, pw := io.Pipe()
	go func() {
		n := 0
		w := func(format string, args ...any) {
			k, _ := fmt.Fprintf(pw, format, args...)
			n += k
		}
		w(`{"paper_nodes": {`)
		for i := 0; n < size; i++ {
			if i > 0 {
				w(",")
			}
			w(`"p%d": {"features": {"title": "%s %d", "year": 2015}, "neighbors": {"author": ["a%d"], "venue": ["v%d"]}}`, i, title, i, i%1000, i%50)
		}
		w(`}}`)
		pw.Close()
	}()
	var n int64
	var err error
	p := memtest.PeakHeap(func() {
		err = New(Options{}).Read(context.Background(), "graph.json", pr, source.WriterFunc(func(quad.Quad) error { n++; return nil }))
	})
	if err != nil || n < 100_000 {
		t.Fatalf("%d quads, %v", n, err)
	}
	if p > size/2 {
		t.Errorf("peak heap %d MiB reading a %d MiB graph.json", p>>20, size>>20)
	}
	t.Logf("%d quads, peak heap %d MiB", n, p>>20)
}
