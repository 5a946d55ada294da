package input

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/klauspost/compress/gzip"

	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest/cputime"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// BenchmarkOpenAndParse measures decompression plus parsing of the real
// film sample (471,705 quads) end to end: Open (klauspost gzip on a
// read-ahead goroutine) against klauspost gzip and compress/gzip read
// inline, all feeding the same rdf.Reader.
func BenchmarkOpenAndParse(b *testing.B) {
	filmSample := datadir.Film(b)
	inline := func(newReader func(io.Reader) (io.Reader, error)) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) {
			f, err := os.Open(filmSample)
			if err != nil {
				return nil, err
			}
			r, err := newReader(f)
			return struct {
				io.Reader
				io.Closer
			}{r, f}, err
		}
	}
	openers := []struct {
		name string
		open func() (io.ReadCloser, error)
	}{
		{"Open", func() (io.ReadCloser, error) { return Open(filmSample) }},
		{"klauspost-inline", inline(func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) })},
		{"stdlib-inline", inline(func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) })},
	}
	for _, o := range openers {
		b.Run(o.name, func(b *testing.B) {
			cpu := cputime.Process()
			for b.Loop() {
				parseFilm(b, o.open)
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(471705*int64(b.N))/b.Elapsed().Seconds(), "quads/s")
		})
	}
}

func parseFilm(b *testing.B, open func() (io.ReadCloser, error)) {
	f, err := open()
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n := 0
	w := source.WriterFunc(func(quad.Quad) error { n++; return nil })
	if err := rdf.New(rdf.Options{}).Read(context.Background(), "film.nq.gz", f, w); err != nil {
		b.Fatal(err)
	}
	if n != 471705 {
		b.Fatalf("%d quads", n)
	}
}

// reportCPU reports the process CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGunzip decodes the film sample to io.Discard: klauspost/compress
// gzip (what Open uses) against compress/gzip.
func BenchmarkGunzip(b *testing.B) {
	data, err := os.ReadFile(datadir.Film(b))
	if err != nil {
		b.Fatal(err)
	}
	decoders := []struct {
		name string
		new  func(io.Reader) (io.Reader, error)
	}{
		{"klauspost", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{"stdlib", func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
	}
	for _, d := range decoders {
		b.Run(d.name, func(b *testing.B) {
			cpu := cputime.Process()
			for b.Loop() {
				zr, err := d.new(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, zr)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(n)
			}
			reportCPU(b, cpu)
		})
	}
}
