package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"

	"github.com/grove-kg/grove/store"
)

// A Spool holds the quads of a parse for the pass that applies them, so
// that a write whose input fails to parse changes nothing, in bounded
// memory: the first quads stay in memory up to a budget, the rest go to
// a temporary file in Cayley's protobuf quads format (pquads, which keeps
// every value type the readers make: IRIs, blank nodes, strings, typed
// and language strings, booleans). A Spool is not safe for concurrent
// use; Close removes its file.
type Spool struct {
	mem      []quad.Quad
	memBytes int64
	budget   int64
	mkdir    func() (string, error) // creates the file's directory
	dir      string                 // created on the first quad past the budget
	path     string
	f        *os.File
	bw       *bufio.Writer
	pw       *pquads.Writer
	onFile   int64
	maxMsg   int
	digest   hash.Hash // of the quads added, when asked for (digested)
}

// spoolFile is the name of a spool's file in its directory.
const spoolFile = "quads.pq"

// newSpool returns a spool that keeps budget bytes of quads (estimated,
// see quadBytes) in memory and creates its file's directory with mkdir.
func newSpool(budget int64, mkdir func() (string, error)) *Spool {
	return &Spool{budget: budget, mkdir: mkdir}
}

// quadBytes estimates the memory a parsed quad takes: four interface
// values and what they point to.
func quadBytes(q quad.Quad) int64 {
	return 64 + valueBytes(q.Subject) + valueBytes(q.Predicate) + valueBytes(q.Object) + valueBytes(q.Label)
}

// valueBytes estimates the memory behind one quad value.
func valueBytes(v quad.Value) int64 {
	switch v := v.(type) {
	case nil:
		return 0
	case quad.IRI:
		return 16 + int64(len(v))
	case quad.BNode:
		return 16 + int64(len(v))
	case quad.String:
		return 16 + int64(len(v))
	case quad.TypedString:
		return 32 + int64(len(v.Value)+len(v.Type))
	case quad.LangString:
		return 32 + int64(len(v.Value)+len(v.Lang))
	default:
		return 32
	}
}

// add appends q.
func (s *Spool) add(q quad.Quad) error {
	if s.digest != nil {
		io.WriteString(s.digest, q.NQuad()+"\n") // a hash.Hash never fails
	}
	if s.pw == nil {
		if n := quadBytes(q); s.memBytes+n <= s.budget || len(s.mem) == 0 {
			s.mem = append(s.mem, q)
			s.memBytes += n
			return nil
		}
		if err := s.create(); err != nil {
			return err
		}
	}
	if err := s.write(q); err != nil {
		return s.fileErr("write", err)
	}
	s.onFile++
	return nil
}

// write encodes q into the file; a value pquads cannot encode (it
// panics) is an error.
func (s *Spool) write(q quad.Quad) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("quad %v: %v", q, r)
		}
	}()
	return s.pw.WriteQuad(q)
}

// create opens the spool's file.
func (s *Spool) create() error {
	dir, err := s.mkdir()
	if err != nil {
		return err
	}
	s.dir, s.path = dir, filepath.Join(dir, spoolFile)
	if s.f, err = os.Create(s.path); err != nil {
		return s.fileErr("create", err)
	}
	s.bw = bufio.NewWriterSize(s.f, 1<<20)
	s.pw = pquads.NewWriter(s.bw, &pquads.Options{Full: false})
	return nil
}

// fileErr names the spool's file, and marks a full disk
// (store.ErrDiskFull).
func (s *Spool) fileErr(op string, err error) error {
	return fmt.Errorf("%s temporary file %s: %w", op, s.path, store.MarkDiskFull(err, s.dir))
}

// digested makes the spool keep a digest of the quads added from now on
// (Digest).
func (s *Spool) digested() { s.digest = sha256.New() }

// Digest is a hex SHA-256 of the quads added (as N-Quads lines, in
// order), which identifies input that has no file to name it (standard
// input); "" unless the spool was asked to keep one.
func (s *Spool) Digest() string {
	if s.digest == nil {
		return ""
	}
	return hex.EncodeToString(s.digest.Sum(nil))
}

// Len is the number of quads spooled.
func (s *Spool) Len() int64 { return int64(len(s.mem)) + s.onFile }

// Each calls fn on the quads in order, batch at a time (a batch read
// back from the file also ends at the spool's memory budget); fn must not
// keep the slice. It stops at fn's first error or when ctx ends.
func (s *Spool) Each(ctx context.Context, batch int, fn func([]quad.Quad) error) error {
	for i := 0; i < len(s.mem); i += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(s.mem[i:min(i+batch, len(s.mem))]); err != nil {
			return err
		}
	}
	if s.pw == nil {
		return nil
	}
	return s.eachOnFile(ctx, batch, fn)
}

// eachOnFile reads the spool's file back, batch quads at a time.
func (s *Spool) eachOnFile(ctx context.Context, batch int, fn func([]quad.Quad) error) error {
	if s.bw != nil {
		s.maxMsg = s.pw.MaxSize()
		if err := s.bw.Flush(); err != nil {
			return s.fileErr("write", err)
		}
		if err := s.f.Close(); err != nil {
			return s.fileErr("write", err)
		}
		s.bw, s.f = nil, nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return s.fileErr("open", err)
	}
	defer f.Close()
	r := pquads.NewReader(bufio.NewReaderSize(f, 1<<20), s.maxMsg+64)
	buf := make([]quad.Quad, 0, min(int64(batch), s.onFile, 1<<16))
	var bufBytes int64
	for read := int64(0); read < s.onFile; {
		q, err := r.ReadQuad()
		if err != nil {
			return s.fileErr("read", fmt.Errorf("quad %d of %d: %w", read+1, s.onFile, noEOF(err)))
		}
		read++
		buf, bufBytes = append(buf, q), bufBytes+quadBytes(q)
		// A batch read back from the file holds no more than the
		// spool's memory budget (at least 1 MiB), whatever batch is.
		if len(buf) == batch || bufBytes >= max(s.budget, 1<<20) || read == s.onFile {
			bufBytes = 0
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// noEOF turns an end of file before the last quad into an error that
// says so.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Close removes the spool's file and directory.
func (s *Spool) Close() error {
	s.mem = nil
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}
