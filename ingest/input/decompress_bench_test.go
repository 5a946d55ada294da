package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/grove-kg/grove/store/storetest/cputime"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// BenchmarkDecompress reads the decompressed film sample (data/film.nq.gz,
// ~60 MB of N-Quads) through Open, compressed each way Open detects, to
// io.Discard: MB of output per CPU-second is what a dump of that
// compression costs before any parsing. gzip, zstd and xz are compressed
// in process; bzip2 needs the bzip2 program (apt-get install bzip2).
func BenchmarkDecompress(b *testing.B) {
	raw := filmText(b)
	dir := b.TempDir()
	for _, c := range []struct {
		name     string
		compress func(testing.TB, []byte) []byte
	}{
		{"gzip", gzipBytes},
		{"zstd", zstdBytes},
		{"bzip2", bzip2Bytes},
		{"xz", xzBytes},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := c.compress(b, raw)
			path := filepath.Join(dir, "film.nq."+c.name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(raw)))
			cpu := cputime.Process()
			for b.Loop() {
				decompressFile(b, path, int64(len(raw)))
			}
			b.ReportMetric(float64(len(raw))*float64(b.N)/1e6/(cputime.Process()-cpu).Seconds(), "MB/cpu-s")
		})
	}
}

// filmText is the decompressed film sample.
func filmText(b *testing.B) []byte {
	f, err := Open(datadir.Film(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// decompressFile reads path through Open and checks the size.
func decompressFile(b *testing.B, path string, want int64) {
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err != nil || n != want {
		b.Fatalf("read %d bytes (%v), want %d", n, err, want)
	}
}

func gzipBytes(tb testing.TB, raw []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(raw); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(tb testing.TB, raw []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(raw, nil)
}

// bzip2Bytes runs the bzip2 program (Go has no bzip2 encoder).
func bzip2Bytes(tb testing.TB, raw []byte) []byte {
	cmd := exec.Command("bzip2", "-c", "-9")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("bzip2 (apt-get install bzip2): %v", err)
	}
	return out
}
