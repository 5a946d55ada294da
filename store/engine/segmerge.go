package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// Merging segments. A bulk load of new graphs takes a node-block segment
// of its own (segment.go) so that it neither reads nor rewrites the
// stored blocks; the price is one more point read per node and segment
// for every later read. MergeSegments pays the rewrite once, when the
// user chooses to: every node block of segments 1.. is merged with the
// node's block in segment 0 and deleted, and every graph moves to
// segment 0, so a node is one read again and the database goes back to
// format 3.
//
// Crash safety: the merge first records the segment count under
// metaMerge, then moves nodes in transactions that each hold whole nodes
// (the new segment-0 block and the deletes of its other blocks commit
// together), and last, in one transaction, sets every graph's segment to
// 0 and removes metaMerge. A reader therefore finds each group in exactly
// one segment at any point, and an interrupted merge answers every read
// correctly. Writes are what it cannot take: a graph's record still names
// its old segment while some of its groups are already in segment 0, so
// ApplyDeltas and bulk loads are refused until MergeSegments is run again
// and completes the move.
var metaMerge = []byte("mx")

// ErrMergeUnfinished is wrapped by the error of every write refused while
// a merge is unfinished (an interrupted grove optimize), so that callers
// (grove serve's write routes) can tell this state from a failure.
var ErrMergeUnfinished = errors.New("an earlier merge of node-block segments did not finish " +
	"(reads are unaffected); run it again (grove optimize) before writing")

// mergeBatchBytes and mergeBatchOps bound one merge transaction, well
// below Badger's limits for the default 64 MiB memtable.
const (
	mergeBatchBytes = 2 << 20
	mergeBatchOps   = 16 << 10
)

// MergeStats reports a MergeSegments run.
type MergeStats struct {
	// Segments is the number of node-block segments in use before.
	Segments int `json:"segments_before"`
	// Blocks counts the node blocks moved into segment 0 (both
	// directions), Merged those of them combined with a block stored
	// there, and Bytes the bytes of the blocks written.
	Blocks int64 `json:"blocks_moved"`
	Merged int64 `json:"blocks_merged"`
	Bytes  int64 `json:"bytes_written"`
	// Resumed is true when an interrupted merge was completed.
	Resumed  bool          `json:"resumed"`
	Duration time.Duration `json:"duration_ns"`
}

// MergeProgress reports how far a merge is: Done bytes of node blocks
// were read from the segments being emptied, of about Total (Badger's
// estimate; Done may pass it).
type MergeProgress struct {
	Done, Total int64
}

// MergeSegments moves every node block into segment 0 (see above); call
// Flatten after it to put the merged blocks in one LSM level. It
// holds the write lock for its whole run (writers wait; readers go on and
// see every quad throughout), does nothing when one segment is in use,
// and refuses to run while an interrupted bulk load waits to be re-run
// (that load writes into its recorded segment). Cancelling ctx stops it
// between transactions, as a crash would: reads stay correct and writes
// are refused until it is run again. progress, if set, is called from
// this goroutine.
func (db *DB) MergeSegments(ctx context.Context, progress func(MergeProgress)) (MergeStats, error) {
	start := time.Now()
	if db.opts.ReadOnly {
		return MergeStats{}, errors.New("merge segments: database is read-only")
	}
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.bdb.IsClosed() {
		return MergeStats{}, errors.New("merge segments: database is closed")
	}
	if in := db.Interrupted(); in != nil {
		return MergeStats{}, fmt.Errorf("merge segments: an ingest into graph %q did not finish; re-run it first", in.Graph)
	}
	db.mu.RLock()
	resumed := db.merging > 0
	db.mu.RUnlock()
	segs := db.segments() // every segment a block may be in
	st := MergeStats{Segments: int(db.segmentsUsed()), Resumed: resumed}
	if db.segmentsUsed() <= 1 && !resumed {
		st.Duration = time.Since(start)
		return st, nil
	}
	if !resumed {
		if err := db.markMerge(segs); err != nil {
			return st, err
		}
	}
	m := &segMerger{db: db, ctx: ctx, segs: segs, st: &st, progress: progress,
		maxOps: cmp.Or(db.mergeOps, mergeBatchOps), maxBytes: cmp.Or(db.mergeBytes, mergeBatchBytes),
		stretchMax: cmp.Or(db.mergeStretch, mergeStretch)}
	m.total = m.estimate()
	for seg := uint8(1); seg < segs; seg++ {
		for _, space := range []byte{spaceSPO, spaceOPS} {
			if err := m.pass(space, seg); err != nil {
				return st, fmt.Errorf("merge segments (stopped part way: reads are correct, writes are "+
					"refused until it is run again, which completes it): %w", err)
			}
		}
	}
	if err := db.finishMerge(); err != nil {
		return st, fmt.Errorf("merge segments: %w", err)
	}
	st.Duration = time.Since(start)
	db.log.Info("merged node-block segments", "segments_before", st.Segments, "blocks_moved", st.Blocks,
		"blocks_merged", st.Merged, "bytes", st.Bytes, "resumed", resumed, "took", st.Duration.Round(time.Millisecond))
	return st, nil
}

// Flatten compacts Badger's LSM tree into one level. After MergeSegments
// the new segment-0 blocks sit in upper levels above their old versions
// and the deletes above the emptied segments, so a read checks several
// levels and the disk holds both versions until compactions reach the
// bottom: at 100M + 100M quads Flatten took 45-49 s, brought Relations
// p50 from 21 to 15-16 µs (as in a one-segment store) and the database
// from 3.6 to 3.1 GiB (BENCHMARKS.md). It holds the write lock (Badger stops its own compactions
// meanwhile, and writes would compete with it), cannot be cancelled once
// it has begun, and is crash-safe: every compaction is recorded in
// Badger's manifest as it completes. A database already in one level
// returns at once. Writes still in Badger's memtable are not flattened
// (they reach the levels when the memtable fills or the database closes):
// grove optimize closes and reopens the database after MergeSegments.
func (db *DB) Flatten(ctx context.Context) error {
	if db.opts.ReadOnly {
		return errors.New("flatten: database is read-only")
	}
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.bdb.IsClosed() {
		return errors.New("flatten: database is closed")
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	// Badger's compactions write tables through memory maps like its
	// flushes: a full disk would crash the process (writeguard.go).
	if err := db.checkWriteSpace(); err != nil {
		return fmt.Errorf("flatten: %w", err)
	}
	start := time.Now()
	if err := db.bdb.Flatten(flattenWorkers); err != nil {
		return fmt.Errorf("flatten: %w", err)
	}
	db.log.Info("flattened the LSM tree", "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// flattenWorkers is the number of compactors Flatten runs at once.
const flattenWorkers = 2

// mergeMarker is the value of metaMerge.
type mergeMarker struct {
	Segments uint8 `json:"segments"`
}

// markMerge records that a merge of segs segments has begun.
func (db *DB) markMerge(segs uint8) error {
	b, err := json.Marshal(mergeMarker{Segments: segs})
	if err != nil {
		return err
	}
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaMerge, b) }); err != nil {
		return fmt.Errorf("merge segments: record the merge: %w", err)
	}
	db.mu.Lock()
	db.merging = segs
	db.mu.Unlock()
	return nil
}

// loadMergeMarker reads metaMerge (loadMeta): the segment count of an
// unfinished merge, or 0.
func loadMergeMarker(txn *badger.Txn) (uint8, error) {
	v, err := getValue(txn, metaMerge)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	var m mergeMarker
	if err := json.Unmarshal(v, &m); err != nil || m.Segments < 2 || m.Segments > maxBlockSegments {
		return 0, fmt.Errorf("corrupt segment merge record %q", v)
	}
	return m.Segments, nil
}

// checkWritable refuses writes while a merge is unfinished; the caller
// holds writeMu.
func (db *DB) checkWritable() error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.merging > 0 {
		return ErrMergeUnfinished
	}
	return nil
}

// finishMerge moves every graph to segment 0, stores format 3 and drops
// the merge record in one transaction, then lets reads look in segment 0
// only.
func (db *DB) finishMerge() error {
	metas := db.GraphMetas()
	err := db.bdb.Update(func(txn *badger.Txn) error {
		for _, g := range metas {
			if g.Segment == 0 {
				continue
			}
			g.Segment = 0
			b, err := json.Marshal(g)
			if err != nil {
				return err
			}
			if err := txn.Set([]byte(metaGraph+g.Name), b); err != nil {
				return err
			}
		}
		if err := txn.Set(metaVersion, binary.BigEndian.AppendUint64(nil, formatVersion)); err != nil {
			return err
		}
		return txn.Delete(metaMerge)
	})
	if err != nil {
		return fmt.Errorf("record the merged segments: %w", err)
	}
	// Every block of segments 1.. is gone. Reads in this process keep
	// looking there (a miss each; see segments), a reopened database
	// does not.
	db.used.Store(1)
	return db.reloadMeta()
}

// segMerger moves the node blocks of one segment and direction at a time.
type segMerger struct {
	db       *DB
	ctx      context.Context
	segs     uint8
	st       *MergeStats
	progress func(MergeProgress)
	maxOps   int
	maxBytes int
	// stretchMax is the number of nodes walked from one snapshot.
	stretchMax int
	done       int64
	total      int64
	// The open transaction and what it holds.
	txn        *badger.Txn
	txnBytes   int
	txnOps     int
	txnMoved   int64
	txnMerged  int64
	txnWritten int64
	txnRead    int64
}

// estimate is Badger's estimate of the bytes of the blocks to move.
func (m *segMerger) estimate() int64 {
	var n uint64
	for seg := uint8(1); seg < m.segs; seg++ {
		for _, space := range []byte{spaceSPO, spaceOPS} {
			_, u := m.db.bdb.EstimateSize(blockPrefix(space, seg))
			n += u
		}
	}
	return int64(n)
}

// pass moves every node block of space in seg, in stretches of at most
// stretchMax nodes. Each stretch walks the blocks of every segment of
// space in id order from one snapshot taken when it starts (after every
// earlier transaction committed): a node moved earlier, whose blocks in
// all segments moved at once, is gone from it, and the writes of the
// stretch touch only nodes the walk has left behind. A snapshot is not
// kept longer, because Badger keeps the conflict keys of every
// transaction committed while an older snapshot is open.
func (m *segMerger) pass(space byte, seg uint8) error {
	var from uint64
	for {
		next, more, err := m.stretch(space, seg, from)
		if err != nil || !more {
			return err
		}
		from = next
	}
}

// mergeStretch is the number of nodes one snapshot of a pass walks.
const mergeStretch = 1 << 16

// stretch moves up to stretchMax nodes of space in seg from node from
// on, and returns the node to go on from and whether any are left. The
// nodes are listed by an iterator over seg; their blocks in the other
// segments are read alongside by storedBlocks, as a bulk load reads the
// stored blocks (a merge join).
func (m *segMerger) stretch(space byte, seg uint8, from uint64) (uint64, bool, error) {
	snap := m.db.bdb.NewTransaction(false)
	defer snap.Discard()
	others := make([]*storedBlocks, m.segs) // nil for seg
	for s := range m.segs {
		if s != seg {
			others[s] = newStoredBlocks(snap, space, s)
			defer others[s].Close()
		}
	}
	it := snap.NewIterator(badger.IteratorOptions{Prefix: blockPrefix(space, seg)})
	defer it.Close()
	n := 0
	for it.Seek(appendBlockKey(nil, space, seg, from)); it.Valid(); it.Next() {
		_, _, id, ok := splitBlockKey(it.Item().Key())
		if !ok {
			return 0, false, fmt.Errorf("corrupt node block key %x", it.Item().Key())
		}
		if n == m.stretchMax {
			return id, true, m.commit()
		}
		n++
		// The block in seg is copied (it may be written as it is); the
		// others are read in place, valid until their next load.
		vs, found := make([][]byte, 0, 2), make([]uint8, 0, 2)
		for s, b := range others {
			var v []byte
			var err error
			if b == nil {
				v, err = it.Item().ValueCopy(nil)
			} else {
				v, err = b.load(id)
			}
			if err != nil {
				// Never move a node whose blocks were not all read.
				return 0, false, fmt.Errorf("node %d: %w", id, err)
			}
			if v != nil {
				vs, found = append(vs, v), append(found, uint8(s))
			}
		}
		if err := m.move(space, id, vs, found); err != nil {
			return 0, false, err
		}
	}
	return 0, false, m.commit()
}

// move writes a node's blocks vs, found in segments found (in order), as
// one block in segment 0 and deletes the others, in the open transaction
// (committing the one before when this node would not fit).
func (m *segMerger) move(space byte, id uint64, vs [][]byte, found []uint8) error {
	v := vs[0] // alone, the block of the segment being emptied
	if len(vs) > 1 {
		var err error
		if v, err = mergeBlocks(vs); err != nil {
			return fmt.Errorf("node %d: %w", id, err)
		}
	}
	size := len(v) + (len(found)+1)*(3+idLen)
	if m.txnOps > 0 && (m.txnBytes+size > m.maxBytes || m.txnOps+len(found)+1 > m.maxOps) {
		if err := m.commit(); err != nil {
			return err
		}
	}
	if m.txn == nil {
		m.txn = m.db.bdb.NewTransaction(true)
	}
	if err := m.txn.Set(appendBlockKey(nil, space, 0, id), v); err != nil {
		return fmt.Errorf("node %d: %w", id, err)
	}
	for i, seg := range found {
		if seg == 0 {
			continue
		}
		if err := m.txn.Delete(appendBlockKey(nil, space, seg, id)); err != nil {
			return fmt.Errorf("node %d: %w", id, err)
		}
		m.txnRead += int64(len(vs[i]))
	}
	m.txnBytes += size
	m.txnOps += len(found) + 1
	m.txnMoved++
	m.txnWritten += int64(len(v))
	if len(vs) > 1 && found[0] == 0 {
		m.txnMerged++
	}
	return nil
}

// commit commits the open transaction, if any, and counts what it moved.
func (m *segMerger) commit() error {
	if m.txn == nil {
		return nil
	}
	txn := m.txn
	m.txn = nil
	if err := ctxErr(m.ctx); err != nil {
		txn.Discard()
		return err
	}
	// Like a cancel, a nearly full disk stops the merge between two
	// transactions, and the next run resumes it.
	if err := m.db.checkWriteSpace(); err != nil {
		txn.Discard()
		return err
	}
	if err := txn.Commit(); err != nil {
		return err
	}
	m.st.Blocks += m.txnMoved
	m.st.Merged += m.txnMerged
	m.st.Bytes += m.txnWritten
	m.done += m.txnRead
	m.txnBytes, m.txnOps, m.txnMoved, m.txnMerged, m.txnWritten, m.txnRead = 0, 0, 0, 0, 0, 0
	if m.progress != nil {
		m.progress(MergeProgress{Done: m.done, Total: m.total})
	}
	return nil
}

// mergeBlocks encodes the blocks of one node in several segments, whose
// groups must be disjoint, as one block.
func mergeBlocks(vs [][]byte) ([]byte, error) {
	r, err := newMergedReader(vs)
	if err != nil {
		return nil, err
	}
	es, err := r.all(nil)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(es); i++ {
		if cmpEntry(es[i], es[i-1]) == 0 {
			return nil, fmt.Errorf("group (%d, %d) is in two segments", es[i].p, es[i].g)
		}
	}
	return encodeSummary(es), nil
}

// Segments returns the number of node-block segments the stored graphs
// use (1 unless graphs were bulk-loaded into segments of their own).
func (db *DB) Segments() int { return int(db.segmentsUsed()) }

// MergeUnfinished reports whether a MergeSegments run was interrupted:
// reads are correct, writes are refused until it is run again.
func (db *DB) MergeUnfinished() bool {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.merging > 0
}
