package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// openAll opens path, reads everything and checks the progress counters.
func openAll(t *testing.T, path string) ([]byte, *File) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	size := int64(len(readFile(t, path)))
	if f.CompressedSize() != size || f.CompressedRead() != size {
		t.Errorf("%s: CompressedSize %d, CompressedRead %d, want both %d", path, f.CompressedSize(), f.CompressedRead(), size)
	}
	if f.Name() != path {
		t.Errorf("Name() = %q, want %q", f.Name(), path)
	}
	return data, f
}

// TestOpenFixtures decompresses files made by the gzip, zstd, bzip2 and xz
// command-line tools.
func TestOpenFixtures(t *testing.T) {
	want := readFile(t, "testdata/sample.nt")
	tests := []struct {
		file string
		comp Compression
	}{
		{"sample.nt", None},
		{"sample.nt.gz", Gzip},
		{"sample.nt.zst", Zstd},
		{"sample.nt.bz2", Bzip2},
		{"sample.nt.xz", Xz},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, f := openAll(t, filepath.Join("testdata", tc.file))
			if f.Compression() != tc.comp {
				t.Errorf("compression %v, want %v", f.Compression(), tc.comp)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decompressed %d bytes differ from the %d of sample.nt", len(got), len(want))
			}
		})
	}
}

// TestOpenRoundTrip compresses generated data larger than the read-ahead
// buffers with klauspost gzip (two concatenated members) and zstd.
func TestOpenRoundTrip(t *testing.T) {
	var plain bytes.Buffer
	for i := 0; plain.Len() < 5<<20; i++ {
		plain.WriteString("<http://example.org/s")
		plain.WriteString(strings.Repeat("x", i%97))
		plain.WriteString("> <http://example.org/p> \"v\" .\n")
	}
	dir := t.TempDir()
	half := plain.Len() / 2
	var gz bytes.Buffer
	for _, part := range [][]byte{plain.Bytes()[:half], plain.Bytes()[half:]} {
		zw := gzip.NewWriter(&gz)
		zw.Write(part)
		zw.Close()
	}
	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(plain.Bytes())
	zw.Close()
	// Two concatenated xz streams, as "xz -dc" accepts.
	xzData := append(xzBytes(t, plain.Bytes()[:half]), xzBytes(t, plain.Bytes()[half:])...)
	padded := append(slices.Clip(xzData), 0, 0, 0, 0) // stream padding
	for name, data := range map[string][]byte{"multi.gz": gz.Bytes(), "big.zst": zs.Bytes(), "multi.xz": xzData,
		"padded.xz": padded} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := openAll(t, path)
		if !bytes.Equal(got, plain.Bytes()) {
			t.Errorf("%s: round trip gave %d bytes, want %d", name, len(got), plain.Len())
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		magic string
		name  string
		want  Compression
	}{
		{"\x1f\x8b\x08\x00\x00\x00", "x.nt", Gzip},
		{"\x28\xb5\x2f\xfd\x00\x00", "x", Zstd},
		{"\x50\x2a\x4d\x18\x00\x00", "x", Zstd},
		{"BZh91AY&SY", "x.gz", Bzip2},
		{"\xfd7zXZ\x00", "x", Xz},
		{"<http://a> <b> <c> .", "dump.nt.gz", None}, // magic wins over a wrong extension
		{"BZh0xx", "x", None},
		{"", "x.gz", Gzip},
		{"\x1f", "x.GZ", Gzip},
		{"ab", "x.zst", Zstd},
		{"ab", "x.tbz2", Bzip2},
		{"ab", "x.xz", Xz},
		{"ab", "x.nt", None},
	}
	for _, tc := range tests {
		if got := Detect([]byte(tc.magic), tc.name); got != tc.want {
			t.Errorf("Detect(%q, %q) = %v, want %v", tc.magic, tc.name, got, tc.want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := Open(filepath.Join(dir, "missing.nt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := write("empty.nt.gz", "")
	if _, err := Open(empty); err == nil || !strings.Contains(err.Error(), empty+": gzip") {
		t.Errorf("empty .gz: %v", err)
	}

	corrupt := write("corrupt.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage that is not deflate data at all")
	if err := readErr(corrupt); err == nil || !strings.Contains(err.Error(), corrupt+": read gzip") {
		t.Errorf("corrupt gzip: %v", err)
	}
	bad := write("corrupt.bz2", "BZh9not really bzip2 data")
	if err := readErr(bad); err == nil || !strings.Contains(err.Error(), "bzip2") {
		t.Errorf("corrupt bzip2: %v", err)
	}
	badXz := write("corrupt.xz", "\xfd7zXZ\x00 then garbage")
	if err := readErr(badXz); err == nil || !strings.Contains(err.Error(), badXz+": xz") {
		t.Errorf("corrupt xz: %v", err)
	}
}

func readErr(path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.ReadAll(f)
	return err
}

// TestCloseEarly closes files before reading them to the end: decoder
// goroutines and xz processes must stop and later reads must fail.
func TestCloseEarly(t *testing.T) {
	var plain bytes.Buffer
	for plain.Len() < 8<<20 {
		plain.WriteString("<http://example.org/s> <http://example.org/p> \"some value\" .\n")
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	files := map[string][]byte{"big.gz": gz.Bytes()}
	files["big.xz"] = xzBytes(t, plain.Bytes())
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1000)
		if _, err := io.ReadFull(f, buf); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
		if _, err := io.ReadAll(f); err == nil {
			t.Errorf("%s: read after Close succeeded", name)
		}
	}
}

// xzBytes compresses data with github.com/ulikunitz/xz.
func xzBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOpenTruncated: a compressed stream cut off before its end is an
// error naming the file and the compression, for every compression, and
// never a clean end of the data read so far (a truncated dump loaded half
// its quads and reported success).
func TestOpenTruncated(t *testing.T) {
	want := readFile(t, "testdata/sample.nt")
	dir := t.TempDir()
	for _, file := range []string{"sample.nt.gz", "sample.nt.zst", "sample.nt.bz2", "sample.nt.xz"} {
		full := readFile(t, filepath.Join("testdata", file))
		for _, cut := range []int{len(full) - 1, len(full) - 8, len(full) / 2, 20} {
			t.Run(fmt.Sprintf("%s/%d of %d bytes", file, cut, len(full)), func(t *testing.T) {
				p := filepath.Join(dir, fmt.Sprintf("%d-%s", cut, file))
				if err := os.WriteFile(p, full[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := Open(p)
				if err != nil {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("open error does not name the file: %v", err)
					}
					return
				}
				defer f.Close()
				data, err := io.ReadAll(f)
				if err == nil {
					t.Fatalf("read %d of %d bytes of the data and no error", len(data), len(want))
				}
				if !strings.Contains(err.Error(), p+": read ") || len(data) > len(want) {
					t.Errorf("error %v after %d bytes", err, len(data))
				}
			})
		}
	}
}

// TestXzTail: the last two bytes other than zero are kept across reads
// of any size, so a stream footer ("YZ") followed by padding is told from
// input cut off before it.
func TestXzTail(t *testing.T) {
	for _, tc := range []struct {
		in     string
		footer bool
	}{
		{"xxYZ", true},
		{"xxYZ\x00\x00\x00\x00", true},
		{"xxY\x00Z", true}, // zeros are skipped wherever they are
		{"xxYZx", false},
		{"xxZY", false},
		{"", false},
		{"\x00\x00\x00\x00", false},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			tail := &xzTail{r: r}
			if _, err := io.ReadAll(tail); err != nil {
				t.Fatal(err)
			}
			if tail.footer() != tc.footer {
				t.Errorf("%q (one byte at a time %v): footer %v, want %v", tc.in, oneByte, tail.footer(), tc.footer)
			}
		}
	}
}
