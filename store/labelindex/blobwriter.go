package labelindex

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/blevesearch/vellum"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// writeBlob writes the blob of every key of s to w. The header that comes
// first holds the sections' lengths and checksum, so the FST and postings
// are written to spools first (memory, or temporary files past a quarter
// of opts.Budget each), checksummed in a second pass, then copied to w.
// The spools are removed whatever happens, and s is closed.
func writeBlob(ctx context.Context, w io.Writer, s keyStream, opts SpillOptions) error {
	defer s.close()
	fst, post := newSpool(opts), newSpool(opts)
	defer fst.remove()
	defer post.remove()
	h, err := writeSections(ctx, s, fst, post)
	if err != nil {
		return err
	}
	hdr := h.fields()
	crc := headerCRC(hdr)
	update := func(p []byte) error {
		crc = crc32.Update(crc, castagnoli, p)
		return nil
	}
	if err := errors.Join(fst.replay(update), post.replay(update)); err != nil {
		return err
	}
	sealHeader(hdr, crc)
	write := func(p []byte) error {
		if _, err := w.Write(p); err != nil {
			return fmt.Errorf("labelindex: write index: %w", err)
		}
		return nil
	}
	if err := write(hdr); err != nil {
		return err
	}
	if err := fst.replay(write); err != nil {
		return err
	}
	return post.replay(write)
}

// writeSections writes the FST and postings of every key of s and returns
// the header that describes them, without its checksum.
func writeSections(ctx context.Context, s keyStream, fst, post *spool) (header, error) {
	var h header
	fb, err := vellum.New(fst, nil)
	if err != nil {
		return h, fmt.Errorf("labelindex: start FST: %w", err)
	}
	var prev, rec []byte
	for s.next() {
		if h.numKeys%(1<<14) == 0 && ctx.Err() != nil {
			return h, fmt.Errorf("labelindex: build stopped: %w", context.Cause(ctx))
		}
		k, ids := s.key(), s.ids()
		if err := fb.Insert(k, uint64(post.n)); err != nil {
			return h, fmt.Errorf("labelindex: insert key %q: %w", k, err)
		}
		rec = appendPostings(rec[:0], ids)
		if _, err := post.Write(rec); err != nil {
			return h, err
		}
		h.numKeys++
		h.numIDs += uint64(len(ids))
		h.trieEdges += uint64(len(k) - frontcode.CommonPrefixLen(prev, k))
		h.maxKeyLen = max(h.maxKeyLen, uint32(len(k)))
		prev = append(prev[:0], k...)
	}
	if err := s.err(); err != nil {
		return h, fmt.Errorf("labelindex: read keys: %w", err)
	}
	if err := fb.Close(); err != nil {
		return h, fmt.Errorf("labelindex: finish FST: %w", err)
	}
	if err := errors.Join(fst.flush(), post.flush()); err != nil {
		return h, err
	}
	h.fstLen, h.postLen = uint64(fst.n), uint64(post.n)
	return h, nil
}

// spool holds one section of a blob being written: in memory up to limit
// bytes (no limit if < 0), then in a temporary file.
type spool struct {
	opts  SpillOptions
	limit int64
	mem   []byte
	f     tempFile
	w     *bufio.Writer
	n     int64
}

func newSpool(opts SpillOptions) *spool {
	limit := int64(-1)
	if opts.Budget > 0 {
		limit = opts.Budget / 4
	}
	return &spool{opts: opts, limit: limit}
}

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && (s.limit < 0 || int64(len(s.mem)+len(p)) <= s.limit) {
		s.mem = append(s.mem, p...)
		s.n += int64(len(p))
		return len(p), nil
	}
	if s.f == nil {
		if err := s.toFile(); err != nil {
			return 0, err
		}
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err != nil {
		return n, fmt.Errorf("labelindex: write temporary file %s: %w", s.f.Name(), err)
	}
	return n, nil
}

// toFile moves the spool from memory to a new temporary file.
func (s *spool) toFile() error {
	f, err := s.opts.createTemp("labelindex-section-*.tmp")
	if err != nil {
		return err
	}
	s.f, s.w = f, bufio.NewWriterSize(f, 256<<10)
	if _, err := s.w.Write(s.mem); err != nil {
		return fmt.Errorf("labelindex: write temporary file %s: %w", f.Name(), err)
	}
	s.mem = nil
	return nil
}

// flush writes out the buffered end of a spool on file.
func (s *spool) flush() error {
	if s.f == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("labelindex: write temporary file %s: %w", s.f.Name(), err)
	}
	return nil
}

// replay calls fn with the spool's contents in order, in pieces.
func (s *spool) replay(fn func([]byte) error) error {
	if s.f == nil {
		return fn(s.mem)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("labelindex: rewind temporary file %s: %w", s.f.Name(), err)
	}
	buf := make([]byte, 256<<10)
	for left := s.n; left > 0; {
		n, err := io.ReadFull(s.f, buf[:min(left, int64(len(buf)))])
		if err != nil {
			return fmt.Errorf("labelindex: read temporary file %s: %w", s.f.Name(), err)
		}
		if err := fn(buf[:n]); err != nil {
			return err
		}
		left -= int64(n)
	}
	return nil
}

// remove deletes the spool's file, if any.
func (s *spool) remove() {
	if s.f != nil {
		discard(s.f)
		s.f = nil
	}
	s.mem = nil
}
