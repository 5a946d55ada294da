package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// kvWriter receives the keys of one bulk load. Keys of one stream arrive in
// ascending order and streams never overlap (each is one keyspace), which is
// what Badger's StreamWriter needs to write sorted tables directly.
type kvWriter interface {
	Set(stream uint32, key, val []byte) error
	// Delete writes a deletion of key, in the stream's key order like Set:
	// it hides a stored key the load makes obsolete.
	Delete(stream uint32, key []byte) error
	// Done ends streams: their last tables are written now, before any
	// later stream's (no Set on them may follow).
	Done(streams ...uint32) error
	Flush() error
	Cancel()
}

// streamSink writes through Badger's StreamWriter: tables are built directly,
// bypassing the memtable, WAL and compactions. Each stream has its own
// buffer, so different streams may be written from different goroutines
// (one goroutine per stream). A stream's buffer is found by indexing an
// array, without a lock: Set runs once per key.
type streamSink struct {
	sw       *badger.StreamWriter
	guard    *writeGuard        // nil: no checks (in-memory databases)
	bufLimit int                // bytes a stream buffers before writing; 0: streamBufLimit
	versions [maxStreams]uint64 // the version of each stream's keys
	mu       sync.Mutex         // creating and ending streams
	bufs     [maxStreams]atomic.Pointer[streamBuf]
}

// maxStreams bounds the stream ids of a load (see loader.go).
const maxStreams = streamSegs + 2*(maxBlockSegments-1)

type streamBuf struct {
	buf *z.Buffer
	kv  pb.KV
}

// newStreamSink prepares a StreamWriter. fresh drops everything first (only
// for a database with no committed data); otherwise the tables go in one
// level above the existing data, and each stream's keys get the version
// one above the stored ones plus late(stream) (see compactLate).
func newStreamSink(bdb *badger.DB, fresh bool, late func(stream uint32) uint64) (*streamSink, error) {
	if !fresh {
		if err := settleForIncremental(bdb); err != nil {
			return nil, err
		}
	}
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
	s := &streamSink{sw: sw}
	base := bdb.MaxVersion() + 1
	for id := range s.versions {
		s.versions[id] = base
		if !fresh && late != nil {
			s.versions[id] += late(uint32(id))
		}
	}
	return s, nil
}

// Compaction order of an incremental load. The tables an incremental
// StreamWriter adds one level above the stored data are merged into the
// stored level by Badger's compactors, which take the tables of a level in
// ascending order of their largest version and stop once the level is
// back under its target size (a tenth of the level below). A table costs
// that merge its own size plus that of every stored table its key range
// overlaps, and some keyspaces of a load span the whole stored range with
// few bytes: a second graph's handful of new terms fall between the stored
// terms all over the t keyspace, its posting lists between the first
// graph's. Giving such streams a higher version makes them the last to be
// compacted, so they are usually left above the stored level (they hold no
// stale data, and reads pay one more bloom-filter probe) instead of
// rewriting the stored dictionary to insert them. The node blocks, which
// replace stored blocks and so leave stale data below, go first.
// compactLate is the version offset of a stream's keys: 0 for the first.
func compactLate(stream uint32) uint64 {
	switch stream {
	case streamSPO, streamOPS:
		return 1
	case streamPred:
		return 2
	case streamTerm:
		return 3
	}
	return 0
}

func (s *streamSink) stream(id uint32) *streamBuf {
	if b := s.bufs[id].Load(); b != nil {
		return b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bufs[id].Load()
	if b == nil {
		b = &streamBuf{buf: z.NewBuffer(8<<20, "grove.load")}
		s.bufs[id].Store(b)
	}
	return b
}

func (s *streamSink) Set(stream uint32, key, val []byte) error {
	return s.put(stream, key, val, 0)
}

// bitDelete is Badger's meta bit of a deleted key (badger's structs.go).
const bitDelete = 1 << 0

func (s *streamSink) Delete(stream uint32, key []byte) error {
	return s.put(stream, key, nil, bitDelete)
}

// streamBufLimit is the bytes of records a stream buffers before handing
// them to Badger.
const streamBufLimit = 4 << 20

// put buffers one record of a stream, writing the buffer once it holds
// streamBufLimit bytes.
func (s *streamSink) put(stream uint32, key, val []byte, meta byte) error {
	if err := s.guard.err(); err != nil {
		return err
	}
	b := s.stream(stream)
	putKV(b.buf, key, val, s.versions[stream], meta, stream)
	n := b.buf.LenNoPadding()
	if n < cmp.Or(s.bufLimit, streamBufLimit) {
		return nil
	}
	if err := s.guard.wrote(n); err != nil {
		return err
	}
	return s.write(b)
}

func (s *streamSink) write(b *streamBuf) error {
	if b.buf.LenNoPadding() == 0 {
		return nil
	}
	if err := s.sw.Write(b.buf); err != nil {
		return fmt.Errorf("stream write: %w", err)
	}
	b.buf.Reset()
	return nil
}

func (s *streamSink) Done(streams ...uint32) error {
	for _, id := range streams {
		b := s.bufs[id].Load()
		if b == nil {
			continue // never written: nothing to end
		}
		b.kv = pb.KV{StreamId: id, StreamDone: true}
		badger.KVToBuffer(&b.kv, b.buf)
		if err := s.write(b); err != nil {
			return err
		}
		s.mu.Lock()
		s.bufs[id].Store(nil)
		s.mu.Unlock()
		_ = b.buf.Release()
	}
	return nil
}

func (s *streamSink) Flush() error {
	defer s.release()
	for i := range s.bufs {
		if b := s.bufs[i].Load(); b != nil {
			if err := s.write(b); err != nil {
				return err
			}
		}
	}
	if err := s.sw.Flush(); err != nil {
		return fmt.Errorf("stream flush: %w", err)
	}
	return nil
}

func (s *streamSink) release() {
	for i := range s.bufs {
		if b := s.bufs[i].Swap(nil); b != nil {
			_ = b.buf.Release()
		}
	}
}

func (s *streamSink) Cancel() {
	s.sw.Cancel()
	s.release()
}

// putKV appends one key-value record to a StreamWriter buffer: what
// badger.KVToBuffer writes (a pb.KV in protobuf wire format: key = 1,
// value = 2, version = 4, meta = 6, stream_id = 10), encoded directly instead of
// through protobuf reflection, which cost about as much as the rest of
// the record's way into the buffer.
func putKV(buf *z.Buffer, key, val []byte, version uint64, meta byte, stream uint32) {
	n := 1 + uvarintLen(uint64(len(key))) + len(key)
	if len(val) > 0 {
		n += 1 + uvarintLen(uint64(len(val))) + len(val)
	}
	if version > 0 {
		n += 1 + uvarintLen(version)
	}
	if meta != 0 {
		n += 3
	}
	if stream > 0 {
		n += 1 + uvarintLen(uint64(stream))
	}
	out := buf.SliceAllocate(n)[:0]
	out = binary.AppendUvarint(append(out, 1<<3|2), uint64(len(key)))
	out = append(out, key...)
	if len(val) > 0 {
		out = binary.AppendUvarint(append(out, 2<<3|2), uint64(len(val)))
		out = append(out, val...)
	}
	if version > 0 {
		out = binary.AppendUvarint(append(out, 4<<3), version)
	}
	if meta != 0 {
		out = append(out, 6<<3|2, 1, meta)
	}
	if stream > 0 {
		out = binary.AppendUvarint(append(out, 10<<3), uint64(stream))
	}
	if len(out) != n {
		panic(fmt.Sprintf("putKV: record is %d bytes, %d were allocated", len(out), n))
	}
}

// uvarintLen is the length of the varint encoding of v.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// batchSink writes through a WriteBatch; it is the fallback when a
// StreamWriter cannot be used (the database has unflushed writes).
type batchSink struct{ wb *badger.WriteBatch }

func (b *batchSink) Set(_ uint32, key, val []byte) error {
	return b.wb.Set(append([]byte(nil), key...), append([]byte(nil), val...))
}
func (b *batchSink) Delete(_ uint32, key []byte) error {
	return b.wb.Delete(slices.Clone(key))
}
func (b *batchSink) Done(...uint32) error { return nil }
func (b *batchSink) Flush() error         { return b.wb.Flush() }
func (b *batchSink) Cancel()              { b.wb.Cancel() }

// settleForIncremental makes sure an incremental StreamWriter has a free
// level above all stored data. PrepareIncremental writes one level above
// the highest non-empty level; when that is L0 (ApplyDeltas data flushed
// from a memtable) it flattens the tree and then assumes the data sits on
// the last level, which Badger's Flatten does not promise: the new tables
// would overlap stored ones in the same level and the flush fails
// ("Levels Controller err: Inter: Biggest(j-1)", found by TestDifferential,
// seed 31). So the tree is flattened here, and the caller falls back to
// write batches unless the data then sits at L2 or below.
func settleForIncremental(bdb *badger.DB) error {
	top := topLevel(bdb)
	if top == 0 {
		if err := bdb.Flatten(1); err != nil {
			return fmt.Errorf("flatten before incremental stream: %w", err)
		}
		top = topLevel(bdb)
	}
	if top >= 0 && top < 2 {
		return fmt.Errorf("no free level above the stored data (highest is L%d)", top)
	}
	return nil
}

// topLevel is the highest LSM level holding a table, -1 for none.
func topLevel(bdb *badger.DB) int {
	for _, l := range bdb.Levels() {
		if l.NumTables > 0 {
			return l.Level
		}
	}
	return -1
}

// Waiting for the compactions a load triggers. Tables an incremental
// StreamWriter adds above the stored ones overflow their level, and
// Badger's compactors merge them into the level below in the background;
// a process that exits first (Close stops the compactors after the
// compaction in flight) leaves that work, and the stale versions of the
// node blocks the load rewrote, to the next process. So a bulk load ends
// only when no level is due for compaction by Badger's own rule, with the
// database as compact as the compactors make it.
const (
	compactPoll  = 50 * time.Millisecond
	compactStall = 30 * time.Second // no table moved for this long: stop waiting
)

// waitCompactions waits until no level of bdb is due for compaction (as
// Badger's compactors decide: a level whose score, and adjusted score
// unless it is L0, is at least 1), the compactors make no progress for
// compactStall, or ctx ends (the load is committed by then: a cancel only
// stops the wait). Compactions in flight when it returns finish before
// Close returns. progress, if not nil, gets the bytes that have left the
// levels above the last one since the wait began, at every poll.
func waitCompactions(ctx context.Context, bdb *badger.DB, progress func(done int64)) {
	var last []badger.LevelInfo
	since := time.Now()
	start := int64(-1)
	for {
		levels := bdb.Levels()
		if start < 0 {
			start = aboveLast(levels)
		}
		if progress != nil {
			progress(max(start-aboveLast(levels), 0))
		}
		if !compactionDue(levels) {
			return
		}
		if !sameLevels(levels, last) {
			last, since = levels, time.Now()
		} else if time.Since(since) > compactStall {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(compactPoll):
		}
	}
}

// aboveLast is the size of the tables above the last non-empty level.
func aboveLast(levels []badger.LevelInfo) int64 {
	bottom := -1
	for _, l := range levels {
		if l.NumTables > 0 {
			bottom = l.Level
		}
	}
	var n int64
	for _, l := range levels {
		if l.Level < bottom {
			n += l.Size
		}
	}
	return n
}

func compactionDue(levels []badger.LevelInfo) bool {
	for _, l := range levels {
		if l.Score >= 1 && (l.Level == 0 || l.Adjusted >= 1) {
			return true
		}
	}
	return false
}

func sameLevels(a, b []badger.LevelInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].NumTables != b[i].NumTables || a[i].Size != b[i].Size {
			return false
		}
	}
	return true
}
