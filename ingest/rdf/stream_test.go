package rdf

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/internal/memtest"
	"github.com/grove-kg/grove/ingest/source"
)

// TestSyntaxReadersStream feeds 32 MiB documents through a pipe and checks
// that the heap stays far below the input size: the Turtle and RDF/XML
// readers never hold the document.
func TestSyntaxReadersStream(t *testing.T) {
	const size = 32 << 20
	tests := []struct {
		name       string
		rd         source.Reader
		head, tail string
		record     func(w io.Writer, i int)
	}{
		{"turtle", NewTurtle(Options{}), "@prefix e: <http://e/> .\n", "",
			func(w io.Writer, i int) {
				fmt.Fprintf(w, "e:s%d e:p e:o%d , [ e:q \"value %d\"@en ] ;\n  e:r ( 1 2 ) .\n", i, i%100, i)
			}},
		{"rdfxml", NewRDFXML(Options{}), `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/">` + "\n", "</rdf:RDF>\n",
			func(w io.Writer, i int) {
				fmt.Fprintf(w, "<e:T rdf:about=\"http://e/s%d\"><e:p rdf:resource=\"http://e/o%d\"/><e:q xml:lang=\"en\">value %d</e:q></e:T>\n", i, i%100, i)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				cw := &countWriter{w: pw}
				io.WriteString(cw, tt.head)
				for i := 0; cw.n < size; i++ {
					tt.record(cw, i)
				}
				io.WriteString(cw, tt.tail)
				pw.Close()
			}()
			var n int64
			var err error
			p := memtest.PeakHeap(func() {
				err = tt.rd.Read(context.Background(), "big", pr, source.WriterFunc(func(quad.Quad) error { n++; return nil }))
			})
			if err != nil || n < 500_000 {
				t.Fatalf("%d quads, %v", n, err)
			}
			if p > size/2 {
				t.Errorf("peak heap %d MiB reading a %d MiB document", p>>20, size>>20)
			}
			t.Logf("%d quads, peak heap %d MiB", n, p>>20)
		})
	}
}

type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
