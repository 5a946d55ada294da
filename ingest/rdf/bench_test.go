package rdf

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest/cputime"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// syntheticDump builds n lines shaped like a Wikidata truthy / Freebase
// dump: long IRIs, language-tagged labels, typed literals, some escapes.
func syntheticDump(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("<http://www.wikidata.org/entity/Q%d>", i/8)
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "%s <http://www.w3.org/2000/01/rdf-schema#label> \"Entity number %d\"@en .\n", s, i)
		case 1:
			fmt.Fprintf(&b, "%s <http://schema.org/description> \"a \\\"quoted\\\" description of item %d\"@en .\n", s, i)
		case 2:
			fmt.Fprintf(&b, "%s <http://www.wikidata.org/prop/direct/P569> \"1952-03-11T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n", s)
		case 3:
			fmt.Fprintf(&b, "%s <http://www.wikidata.org/prop/direct/P1082> \"+%d\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n", s, i*13)
		default:
			fmt.Fprintf(&b, "%s <http://www.wikidata.org/prop/direct/P%d> <http://www.wikidata.org/entity/Q%d> .\n", s, 31+i%8, i*7)
		}
	}
	return b.Bytes()
}

func readFilm(b *testing.B) []byte {
	b.Helper()
	f, err := os.Open(datadir.Film(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse compares this parser with cayleygraph/quad/nquads on the
// same bytes (the Freebase film sample and a synthetic Wikidata-like dump).
func BenchmarkParse(b *testing.B) {
	corpora := map[string][]byte{"film": readFilm(b), "synthetic": syntheticDump(200000)}
	for _, name := range []string{"film", "synthetic"} {
		data := corpora[name]
		lines := int64(bytes.Count(data, []byte("\n")))
		b.Run(name+"/grove", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu := cputime.Process()
			for b.Loop() {
				n := countGrove(b, data)
				if n != lines {
					b.Fatalf("parsed %d of %d lines", n, lines)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(lines*int64(b.N))/b.Elapsed().Seconds(), "lines/s")
		})
		b.Run(name+"/cayley", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu := cputime.Process()
			for b.Loop() {
				countCayley(b, data)
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(lines*int64(b.N))/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

func countGrove(b *testing.B, data []byte) int64 {
	var n int64
	w := source.WriterFunc(func(quad.Quad) error { n++; return nil })
	if err := New(Options{}).Read(context.Background(), "bench", bytes.NewReader(data), w); err != nil {
		b.Fatal(err)
	}
	return n
}

func countCayley(b *testing.B, data []byte) int64 {
	var n int64
	r := nquads.NewReader(bytes.NewReader(data), false)
	for {
		_, err := r.ReadQuad()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkDialect measures the reader with the Wikidata truthy dialect on
// the synthetic dump, against the plain reader in the same run.
func BenchmarkDialect(b *testing.B) {
	data := syntheticDump(200000)
	for _, c := range []struct {
		name string
		d    Dialect
	}{{"plain", nil}, {"truthy", WikidataTruthy{}}, {"freebase", Freebase{}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu := cputime.Process()
			for b.Loop() {
				w := source.WriterFunc(func(quad.Quad) error { return nil })
				if err := New(Options{Dialect: c.d}).Read(context.Background(), "bench", bytes.NewReader(data), w); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(200000*int64(b.N))/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// reportCPU reports the process CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
