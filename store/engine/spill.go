package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/klauspost/compress/s2"

	"github.com/grove-kg/grove/store"
)

// Spill files. A bulk load keeps at most its memory budget in RAM; the rest
// goes to temporary files in one directory beside the database (inside the
// database directory, so that it is on the same disk and a later Open can
// find and remove what a killed load left behind). The directory is removed
// when the load ends, whether it commits, fails or is cancelled.
const spillPrefix = "ingest-spill-"

// spillDir is the temporary directory of one bulk load. create and drop
// may be called from several goroutines.
type spillDir struct {
	path     string
	compress bool // s2-compress the files (Options.CompressTemp)
	seq      atomic.Int64
	written  atomic.Int64 // bytes written to spill files so far
	peak     atomic.Int64 // largest total size of live spill files
	live     atomic.Int64
}

// newSpillDir creates the spill directory of a load into db.
func newSpillDir(db *DB) (*spillDir, error) {
	p, err := db.ScratchDir()
	if err != nil {
		return nil, err
	}
	return &spillDir{path: p, compress: db.opts.CompressTemp}, nil
}

// ScratchDir creates a new temporary directory for a write into db: in
// the database directory (on its disk; an Open removes what a killed
// process left there), or in os.TempDir for an in-memory database. The
// caller removes it when done. A full disk is said plainly.
func (db *DB) ScratchDir() (string, error) {
	base := db.dir
	if db.opts.InMemory || base == "" {
		base = os.TempDir()
	}
	p, err := os.MkdirTemp(base, spillPrefix)
	if err != nil {
		return "", fmt.Errorf("create temporary directory for the load: %w", diskErr(err))
	}
	return p, nil
}

// remove deletes the directory and everything in it.
func (s *spillDir) remove() error {
	if s == nil {
		return nil
	}
	return os.RemoveAll(s.path)
}

// create opens a new spill file, buffered by spillWriteBuf bytes.
func (s *spillDir) create(name string) (*spillWriter, error) {
	return s.createBuf(name, spillWriteBuf)
}

// createBuf opens a new spill file buffered by about buf bytes (files
// written many at a time use small buffers).
func (s *spillDir) createBuf(name string, buf int) (*spillWriter, error) {
	p := filepath.Join(s.path, fmt.Sprintf("%06d-%s", s.seq.Add(1), name))
	if s.compress {
		p += s2Suffix
	}
	f, err := os.Create(p)
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", diskErr(err))
	}
	return newSpillWriter(f, p, s, buf), nil
}

// newSpillWriter writes the spill file f, created at path, for s, with
// about buf bytes of buffers; a path ending in s2Suffix is compressed (in
// blocks of at most spillBlock bytes).
func newSpillWriter(f *os.File, path string, s *spillDir, buf int) *spillWriter {
	w := &spillWriter{f: f, path: path, sd: s}
	w.cw = countingWriter{w: f}
	if !strings.HasSuffix(path, s2Suffix) {
		w.w = bufio.NewWriterSize(&w.cw, buf)
		return w
	}
	block := min(spillBlock, max(buf, 16<<10))
	w.z = s2.NewWriter(&w.cw, s2.WriterConcurrency(1), s2.WriterBlockSize(block))
	w.w = bufio.NewWriterSize(w.z, min(64<<10, block))
	return w
}

// Compressed spill files (Options.CompressTemp) are s2 streams named with
// s2Suffix; spillBlock is their block size (each open writer or reader
// holds about two blocks).
const (
	s2Suffix   = ".s2"
	spillBlock = 256 << 10
)

// spillWriteBuf is the write buffer of a spill file, and manyWriteBuf that
// of the files the dictionary phase writes one per read batch at once
// (a dump of billions of quads is read in hundreds of batches).
const (
	spillWriteBuf = 1 << 20
	manyWriteBuf  = 64 << 10
)

// countingWriter counts the bytes that reach a spill file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// notePeak raises the recorded peak of temporary bytes to n if n is larger.
// Besides the spill files, n may count the label builders' run files,
// which live in the same directory.
func (s *spillDir) notePeak(n int64) {
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// drop removes one spill file that is no longer needed.
func (s *spillDir) drop(path string) {
	if fi, err := os.Stat(path); err == nil {
		s.live.Add(-fi.Size())
	}
	_ = os.Remove(path)
}

// removeStaleSpills deletes spill directories that a killed load left in
// the database directory.
func removeStaleSpills(dir string, log interface{ Info(string, ...any) }) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), spillPrefix) {
			if os.RemoveAll(filepath.Join(dir, e.Name())) == nil {
				log.Info("removed temporary files of an interrupted load", "dir", e.Name())
			}
		}
	}
}

// spillWriter is a buffered temporary file, compressed with s2 if the
// spill directory says so. Errors name the file and say plainly when the
// disk is full.
type spillWriter struct {
	f    *os.File
	cw   countingWriter
	z    *s2.Writer
	w    *bufio.Writer
	path string
	sd   *spillDir
}

func (w *spillWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("write temporary file %s: %w", w.path, diskErr(err))
	}
	return n, nil
}

// Close flushes and closes the file; the data is not synced (spill files
// do not outlive the process that reads them).
func (w *spillWriter) Close() error {
	ferr := w.w.Flush()
	if w.z != nil {
		ferr = errors.Join(ferr, w.z.Close())
	}
	cerr := w.f.Close()
	w.sd.written.Add(w.cw.n)
	w.sd.notePeak(w.sd.live.Add(w.cw.n))
	if err := errors.Join(ferr, cerr); err != nil {
		return fmt.Errorf("write temporary file %s: %w", w.path, diskErr(err))
	}
	return nil
}

// abort closes and removes a file after an error.
func (w *spillWriter) abort() {
	_ = w.f.Close()
	_ = os.Remove(w.path)
}

// errDiskFull marks errors caused by a full disk, and errTooManyFiles
// those caused by the limit on open files: the store's sentinels, so that
// callers outside the engine (the HTTP server) can tell them apart.
var (
	errDiskFull     = store.ErrDiskFull
	errTooManyFiles = store.ErrTooManyFiles
)

// diskErr adds errDiskFull to ENOSPC errors and errTooManyFiles to EMFILE
// and ENFILE errors, with what to do, so that callers and users see the
// cause at once.
func diskErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC):
		return store.MarkDiskFull(err, "the database")
	case (errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)) && !errors.Is(err, errTooManyFiles):
		return fmt.Errorf("%w (a bulk load keeps up to 512 temporary files open to merge its vocabularies, "+
			"768 to merge sorted runs, and Badger one file per table: raise the limit with ulimit -n, or give --max-memory more "+
			"for fewer, larger batches and tables, and re-run): %w", errTooManyFiles, err)
	}
	return err
}

// spillReader reads a spill file sequentially.
type spillReader struct {
	f *os.File
	r *bufio.Reader
}

func openSpill(path string, buf int) (*spillReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read temporary file: %w", diskErr(err))
	}
	if !strings.HasSuffix(path, s2Suffix) {
		return &spillReader{f: f, r: bufio.NewReaderSize(f, buf)}, nil
	}
	z := s2.NewReader(f, s2.ReaderMaxBlockSize(spillBlock))
	return &spillReader{f: f, r: bufio.NewReaderSize(z, buf)}, nil
}

func (r *spillReader) Close() error { return r.f.Close() }

// readFull reads len(p) bytes; io.EOF only at a record boundary.
func (r *spillReader) readFull(p []byte) error {
	_, err := io.ReadFull(r.r, p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("temporary file %s is truncated: %w", r.f.Name(), err)
	}
	return err
}

// bytesPerQuadWritten is what one loaded quad is taken to cost on disk
// when the write phase starts (its temporary files are on disk already):
// the 40 bytes per quad databases are held to, above every database
// measured (22-23 for grove gen's N-Triples, 38 for Wikidata JSON). It was
// 64, which refused a 700M-quad load at 512 MiB with 40 GB free (45 GB
// asked for); at 40 the load went through and its database took 12.2 GB.
const bytesPerQuadWritten = 40

// checkDiskSpace refuses to start writing when the database's disk clearly
// cannot hold the load and the margin the write guard keeps (writeguard.go),
// so that a full disk is reported before anything is written and the
// database stays as it was.
func (l *Loader) checkDiskSpace() error {
	if l.db.opts.InMemory {
		return nil
	}
	free, ok := l.db.freeSpace()
	if !ok {
		return nil
	}
	if l.startOver {
		// The interrupted load's files go before anything is written.
		free += tableFilesSize(l.db.dir)
	}
	need := uint64(l.read)*bytesPerQuadWritten + uint64(l.sd.live.Load())/4 + diskMargin(bulkTableSize(l.tableBudget()), l.read)
	if free < need {
		return fmt.Errorf("%w: the load needs about %d MiB on %s, %d MiB are free; nothing was written",
			errDiskFull, need>>20, l.db.dir, free>>20)
	}
	return nil
}

// tableFilesSize is the bytes of Badger's tables in dir (Badger's own
// DB.Size needs its metrics, which Open turns off). Value logs are left
// out: they are sparse files of a fixed apparent size, and bulk loads put
// only values over 1 MiB in them.
func tableFilesSize(dir string) uint64 {
	var n uint64
	paths, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += uint64(fi.Size())
		}
	}
	return n
}
