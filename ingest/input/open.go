// Package input opens dump files for the ingest readers: it detects and
// undoes compression, counts the compressed bytes consumed (for a progress
// bar with ETA), and sniffs which dump format the decompressed data is in.
//
// # Compression
//
// Open detects the compression from the file's magic bytes — gzip (1f 8b),
// zstd (28 b5 2f fd, and skippable frames), bzip2 ("BZh1".."BZh9") and xz
// (fd 37 7a 58 5a 00) — and falls back on the extension (.gz .tgz .zst
// .zstd .bz2 .tbz2 .xz .txz) only when the file is too short to hold a
// magic number. The magic wins over the extension: a ".gz" download that a
// server already decompressed is read as plain text.
//
// gzip and zstd use github.com/klauspost/compress (its gzip needs about 15%
// less CPU than compress/gzip on the film sample, see BenchmarkGunzip; zstd
// decodes blocks on several goroutines and accepts "--long=31" windows).
// bzip2 uses the standard library and xz github.com/ulikunitz/xz, in
// process (no "xz" program is needed). Single-threaded decoders (gzip, bzip2, xz) run in a read-ahead
// goroutine that fills a few large buffers, so decompression overlaps with
// parsing on a second core.
//
// # Progress
//
// CompressedRead is an atomic counter of the bytes read from the file so far
// and CompressedSize the file's size (-1 when unknown, e.g. stdin), which is
// what a progress bar needs: decompressed sizes are unknown up front.
//
// # Formats
//
// Sniff peeks at the start of the decompressed stream (the whole buffer of
// the bufio.Reader it is given) and names the dump format; its comment lists
// the rules. ParseFormat parses the --format flag.
package input

import (
	"bufio"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression is a compression scheme.
type Compression int

// Supported compressions.
const (
	None Compression = iota
	Gzip
	Zstd
	Bzip2
	Xz
)

// String returns "none", "gzip", "zstd", "bzip2" or "xz".
func (c Compression) String() string {
	switch c {
	case None:
		return "none"
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	case Bzip2:
		return "bzip2"
	case Xz:
		return "xz"
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// Stdin is the path that Open reads from standard input.
const Stdin = "-"

// magicLen is the longest magic number (xz).
const magicLen = 6

// File is an opened input: an io.ReadCloser over the decompressed stream.
// Read is for one goroutine; the progress methods are safe to call from any.
type File struct {
	name  string
	size  int64
	comp  Compression
	count *counter
	r     io.Reader
	close []func() error
	// closed makes reads after Close fail even when a read-ahead
	// goroutine still holds decoded bytes.
	closed atomic.Bool
}

// Name returns the path the file was opened with ("stdin" for "-").
func (f *File) Name() string { return f.name }

// Compression returns the detected compression.
func (f *File) Compression() Compression { return f.comp }

// CompressedSize returns the size of the file on disk, or -1 if unknown.
func (f *File) CompressedSize() int64 { return f.size }

// CompressedRead returns how many bytes of the file have been consumed.
func (f *File) CompressedRead() int64 { return f.count.n.Load() }

// Read reads decompressed data. Errors other than io.EOF name the file and
// the compression.
func (f *File) Read(p []byte) (int, error) {
	if f.closed.Load() {
		return 0, fmt.Errorf("%s: %w", f.name, os.ErrClosed)
	}
	n, err := f.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case f.comp != None && errors.Is(err, io.ErrUnexpectedEOF):
		// A decoder's word for a stream cut off: the load fails as
		// such instead of as a parse error of its last line.
		err = fmt.Errorf("%s: read %s: the stream ends early (is the file truncated?): %w", f.name, f.comp, err)
	default:
		err = fmt.Errorf("%s: read %s: %w", f.name, f.comp, err)
	}
	return n, err
}

// Close stops any decoder goroutines or processes and closes the file. It
// returns the first error.
func (f *File) Close() error {
	f.closed.Store(true)
	var first error
	for _, c := range f.close {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	f.close = nil
	return first
}

// Open opens path ("-" for standard input) and returns its decompressed
// stream.
func Open(path string) (*File, error) {
	raw, name, size, err := openRaw(path)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, size: size, count: &counter{r: raw}}
	if raw != os.Stdin {
		f.close = append(f.close, raw.Close)
	}
	br := bufio.NewReaderSize(f.count, 256<<10)
	magic, err := br.Peek(magicLen)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	f.comp = Detect(magic, path)
	if err := f.decoder(br); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %s: %w", name, f.comp, err)
	}
	return f, nil
}

func openRaw(path string) (*os.File, string, int64, error) {
	if path == Stdin {
		return os.Stdin, "stdin", -1, nil
	}
	raw, err := os.Open(path)
	if err != nil {
		return nil, "", 0, fmt.Errorf("open input: %w", err)
	}
	size := int64(-1)
	if st, err := raw.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return raw, path, size, nil
}

// decoder sets f.r to the decompressed stream over br.
func (f *File) decoder(br *bufio.Reader) error {
	switch f.comp {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		f.readAhead(zr)
	case Zstd:
		// Accept the 2 GiB windows of "zstd --long=31"; memory is only
		// allocated for the window a stream declares.
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(1<<31))
		if err != nil {
			return err
		}
		f.r = zr
		f.close = append([]func() error{func() error { zr.Close(); return nil }}, f.close...)
	case Bzip2:
		f.readAhead(bzip2.NewReader(br))
	case Xz:
		xr, err := newXz(br)
		if err != nil {
			return err
		}
		f.readAhead(xr)
	default:
		f.r = br
	}
	return nil
}

// readAhead decodes r on its own goroutine. Its stop runs before the file
// is closed.
func (f *File) readAhead(r io.Reader) {
	ra := newReadAhead(r, 4, 1<<20)
	f.r = ra
	f.close = append([]func() error{ra.Close}, f.close...)
}

// Detect names the compression from the first bytes of a file, or from
// name's extension when magic is shorter than every magic number.
func Detect(magic []byte, name string) Compression {
	switch {
	case hasPrefix(magic, 0x1f, 0x8b):
		return Gzip
	case hasPrefix(magic, 0x28, 0xb5, 0x2f, 0xfd):
		return Zstd
	case len(magic) >= 4 && magic[0]&0xf0 == 0x50 && magic[1] == 0x2a && magic[2] == 0x4d && magic[3] == 0x18:
		return Zstd // skippable frame 0x184D2A5?
	case len(magic) >= 4 && string(magic[:3]) == "BZh" && magic[3] >= '1' && magic[3] <= '9':
		return Bzip2
	case hasPrefix(magic, 0xfd, '7', 'z', 'X', 'Z', 0x00):
		return Xz
	case len(magic) < magicLen:
		return byExtension(name)
	}
	return None
}

func byExtension(name string) Compression {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".tgz", ".gzip":
		return Gzip
	case ".zst", ".zstd", ".tzst":
		return Zstd
	case ".bz2", ".tbz2", ".tbz":
		return Bzip2
	case ".xz", ".txz":
		return Xz
	}
	return None
}

func hasPrefix(b []byte, magic ...byte) bool {
	return len(b) >= len(magic) && string(b[:len(magic)]) == string(magic)
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n atomic.Int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
