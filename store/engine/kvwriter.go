package engine

import (
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// kvWriter receives the keys of one bulk load. Keys of one stream arrive in
// ascending order and streams never overlap (each is one keyspace), which is
// what Badger's StreamWriter needs to write sorted tables directly.
type kvWriter interface {
	Set(stream uint32, key, val []byte) error
	Flush() error
	Cancel()
}

// streamSink writes through Badger's StreamWriter: tables are built directly,
// bypassing the memtable, WAL and compactions.
type streamSink struct {
	sw      *badger.StreamWriter
	buf     *z.Buffer
	version uint64
	kv      pb.KV
}

// newStreamSink prepares a StreamWriter. fresh drops everything first (only
// for a database with no committed data); otherwise the tables go in one
// level above the existing data.
func newStreamSink(bdb *badger.DB, fresh bool) (*streamSink, error) {
	sw := bdb.NewStreamWriter()
	var err error
	if fresh {
		err = sw.Prepare()
	} else {
		err = sw.PrepareIncremental()
	}
	if err != nil {
		sw.Cancel()
		return nil, err
	}
	return &streamSink{sw: sw, buf: z.NewBuffer(32<<20, "grove.load"), version: bdb.MaxVersion() + 1}, nil
}

func (s *streamSink) Set(stream uint32, key, val []byte) error {
	s.kv.Key, s.kv.Value, s.kv.Version, s.kv.StreamId = key, val, s.version, stream
	badger.KVToBuffer(&s.kv, s.buf)
	if s.buf.LenNoPadding() < 16<<20 {
		return nil
	}
	return s.writeBuf()
}

func (s *streamSink) writeBuf() error {
	if err := s.sw.Write(s.buf); err != nil {
		return fmt.Errorf("stream write: %w", err)
	}
	s.buf.Reset()
	return nil
}

func (s *streamSink) Flush() error {
	defer s.buf.Release()
	if err := s.writeBuf(); err != nil {
		return err
	}
	if err := s.sw.Flush(); err != nil {
		return fmt.Errorf("stream flush: %w", err)
	}
	return nil
}

func (s *streamSink) Cancel() { s.sw.Cancel() }

// batchSink writes through a WriteBatch; it is the fallback when a
// StreamWriter cannot be used (the database has unflushed writes).
type batchSink struct{ wb *badger.WriteBatch }

func (b *batchSink) Set(_ uint32, key, val []byte) error {
	return b.wb.Set(append([]byte(nil), key...), append([]byte(nil), val...))
}
func (b *batchSink) Flush() error { return b.wb.Flush() }
func (b *batchSink) Cancel()      { b.wb.Cancel() }
