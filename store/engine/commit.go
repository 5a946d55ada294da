package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"golang.org/x/sync/errgroup"
)

// commitState carries the counters of one commit.
type commitState struct {
	fresh     bool
	sink      kvWriter
	txn       *badger.Txn
	added     map[uint64]int64 // graph label -> quads added
	relations map[uint64]int64 // graph label -> new (p, g) groups
	preds     *predFeed        // (p, g, s) of new (s, p, g) groups
	key, val  []byte
	lists     listWriter // the posting lists (buffers reused)
}

// commit runs the phases of a bulk load: dictionary merge, mapping the
// batches to global ids into the S and O sorters, writing every keyspace,
// and the label indexes. Everything up to the write phase only touches
// the temporary directory, so a failure there (a full disk, a cancel)
// leaves the database exactly as it was.
func (l *Loader) commit(ctx context.Context) (LoadStats, error) {
	st := LoadStats{Read: l.read}
	if err := l.spillBatch(false); err != nil {
		return st, err
	}
	st.Batches = len(l.batches)
	var dict dictResult
	err := l.phase(ctx, "dictionary", func() error {
		var stored *storedDict
		if !l.empty {
			txn := l.db.bdb.NewTransaction(false)
			defer txn.Discard()
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{spaceTerm}, PrefetchValues: false})
			defer it.Close()
			it.Rewind()
			stored = &storedDict{it: it, txn: txn}
		}
		var err error
		dict, err = l.mergeVocab(ctx, stored)
		return err
	})
	if err != nil {
		return st, err
	}
	l.nextID, l.newCount = dict.next, dict.newCount
	// The terms of an interrupted load it numbers again were hidden
	// until now: they are new to readers too.
	st.Terms = dict.newCount + int64(len(dict.reserved))
	spo := l.newSorter("spo", orderSPO)
	ops := l.newSorter("ops", orderOPS)
	if err := l.phase(ctx, "map", func() error { return l.mapBatches(ctx, spo, ops) }); err != nil {
		return st, err
	}
	if err := l.checkDiskSpace(); err != nil {
		return st, err
	}
	mostFiles, err := l.checkTableFiles(spo, ops)
	if err != nil {
		return st, err
	}
	lb := l.startSearch(ctx)
	defer lb.abort(l.db)
	st.LabelRuns = lb.runs
	cs, err := l.openSink()
	if err != nil {
		return st, err
	}
	if ss, ok := cs.sink.(*streamSink); ok && !l.db.opts.InMemory {
		ss.guard = l.db.newWriteGuard(bulkTableSize(l.tableBudget()), l.read, min(len(spo.runs), spo.maxRuns()), mostFiles)
		if l.db.guardEvery > 0 {
			ss.bufLimit = int(min(l.db.guardEvery, streamBufLimit))
		}
		defer ss.guard.watch(cmp.Or(l.db.guardTick, guardTick))()
	}
	st.Writer = "stream"
	if _, ok := cs.sink.(*batchSink); ok {
		st.Writer = "batch"
	}
	if l.wrapSink != nil {
		cs.sink = l.wrapSink(cs.sink)
	}
	l.chooseSegment(cs.fresh)
	if err := l.writeMarker(cs.fresh); err != nil {
		cs.sink.Cancel()
		return st, err
	}
	err = l.phase(ctx, "write", func() error { return l.writeAll(ctx, cs, dict, spo, ops) })
	cs.txn.Discard()
	if err != nil {
		cs.sink.Cancel()
		return st, diskErr(err)
	}
	t := time.Now()
	if err := cs.sink.Flush(); err != nil {
		return st, diskErr(err)
	}
	l.db.log.Debug("bulk load flush", "took", time.Since(t))
	var labels int64
	err = l.phase(ctx, "labels", func() (err error) {
		labels, err = l.finish(lb)
		return err
	})
	if err != nil {
		return st, err
	}
	// The load is committed: a cancel only stops the wait (which is why
	// the phase itself runs without ctx's cancellation).
	_ = l.phase(context.WithoutCancel(ctx), "compact", func() error {
		waitCompactions(ctx, l.db.bdb, func(done int64) { l.progress("compact", done, -1) })
		return nil
	})
	for _, n := range cs.added {
		st.Added += n
	}
	st.Labels = labels
	st.TempBytes = l.sd.peak.Load()
	st.Duration = time.Since(l.start)
	return st, nil
}

// phase runs one phase of the commit and logs it.
func (l *Loader) phase(ctx context.Context, name string, fn func() error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	l.progress(name, 0, -1)
	t := time.Now()
	err := fn()
	if err == nil {
		err = ctxErr(ctx)
	}
	l.db.log.Info("bulk load phase", "graph", l.opts.Graph, "phase", name, "quads", l.read,
		"took", time.Since(t).Round(time.Millisecond), "temp_bytes", l.sd.live.Load(), "ok", err == nil)
	return err
}

// sorterShare: each of a load's three quad sorters has a sixth of the
// budget.
const sorterShare = 6

// newSorter returns one of the load's three quad sorters (with the
// database's test settings).
func (l *Loader) newSorter(name string, order quadOrder) *quadSorter {
	s := newQuadSorter(l.sd, name, order, l.budget/sorterShare)
	if l.db.sortRun > 0 {
		s.limit = l.db.sortRun
	}
	s.fanIn = l.db.sortFanIn
	return s
}

// mapBatches maps every batch's quads to global ids and feeds the sorters,
// the S sorter on one goroutine and the O sorter on another (each reads
// the batch files itself; radix sorting and writing runs is the work),
// and leaves each with few enough runs to merge at once (reduceRuns).
// The label entries are collected for the search index on the first.
// A batch's files are removed once both have read them.
func (l *Loader) mapBatches(ctx context.Context, spo, ops *quadSorter) error {
	readers := make([]atomic.Int32, len(l.batches))
	release := func(i int) {
		if readers[i].Add(1) == 2 {
			b := &l.batches[i]
			for _, p := range []string{b.quads, b.labels, b.mapping} {
				l.sd.drop(p)
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx) // one failing stops the other
	g.Go(func() error {
		return l.mapInto(gctx, spo, true, release)
	})
	g.Go(func() error {
		return l.mapInto(gctx, ops, false, release)
	})
	return g.Wait()
}

// mapInto feeds every batch's quads, in global ids, to one sorter; with
// primary it also reports progress. The labels of the even batches are
// mapped by the primary goroutine and those of the odd ones by the other
// (mapping labels is about a fifth of the phase's work; on one goroutine
// it left the other idle for the last quarter of the phase).
func (l *Loader) mapInto(ctx context.Context, s *quadSorter, primary bool, release func(int)) error {
	var done int64
	for i := range l.batches {
		b := &l.batches[i]
		m, err := readMapping(b.mapping, b.nterms)
		if err != nil {
			return err
		}
		if err := l.mapBatch(ctx, b.quads, m, s, primary, &done); err != nil {
			return err
		}
		if (i%2 == 0) == primary {
			if err := l.mapLabels(b.labels, m); err != nil {
				return err
			}
		}
		release(i)
	}
	// Settle the sorter here, before the write phase: its buffers are
	// freed for Badger's, and a failed run reduction changes nothing
	// stored.
	t := time.Now()
	n, err := s.settle(ctx)
	if err != nil {
		return err
	}
	if len(s.runs) < n {
		l.db.log.Info("bulk load merged sorted runs", "sorter", s.name, "runs", n, "left", len(s.runs),
			"took", time.Since(t).Round(time.Millisecond))
	}
	return nil
}

// mapBatch feeds one batch's quads file to s through the batch's map. The
// quads are read a block at a time and then mapped in a loop of lookups
// only: the map is larger than the CPU cache, and independent loads let
// the CPU overlap the misses, which a lookup after each read did not.
func (l *Loader) mapBatch(ctx context.Context, path string, m []uint64, s *quadSorter, primary bool, done *int64) error {
	r, err := openSpill(path, 1<<20)
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		sub    deltaReader
		local  [mapBlock]lquad
		global [mapBlock]qids
	)
	n := uint32(len(m))
	for {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		if primary {
			l.progress("map", *done, l.read)
		}
		k, err := readLocalBlock(r.r, &sub, local[:], n)
		if err != nil {
			return fmt.Errorf("temporary file %s is corrupt: %w", path, err)
		}
		for i, lq := range local[:k] {
			global[i] = qids{s: m[lq.s], p: m[lq.p], o: m[lq.o], g: m[lq.g]}
		}
		for _, q := range global[:k] {
			if err := s.add(q); err != nil {
				return err
			}
		}
		*done += int64(k)
		if k < mapBlock {
			return nil
		}
	}
}

// mapBlock is the quads mapBatch reads before it maps them.
const mapBlock = 1024

// readLocalBlock reads up to len(dst) quads into dst and returns how many;
// fewer than len(dst) means the end of the file. Every id must be below n.
func readLocalBlock(r *bufio.Reader, sub *deltaReader, dst []lquad, n uint32) (int, error) {
	for k := range dst {
		lq, err := readLocalQuad(r, sub)
		if errors.Is(err, io.EOF) {
			return k, nil
		} else if err != nil {
			return k, err
		}
		if lq.s >= n || lq.p >= n || lq.o >= n || lq.g >= n {
			return k, errBadRun
		}
		dst[k] = lq
	}
	return len(dst), nil
}

// mapLabels reads a batch's label entries in global ids into the graphs'
// label builders, which spill sorted runs to keep within their budget.
func (l *Loader) mapLabels(path string, m []uint64) error {
	r, err := openSpill(path, 256<<10)
	if err != nil {
		return err
	}
	defer r.Close()
	var chunk labelChunk
	for {
		more, err := chunk.read(r, path, len(m))
		if err != nil {
			return err
		}
		if err := l.addLabels(&chunk, m, !more); err != nil || !more {
			return err
		}
	}
}

// labelChunk holds up to labelChunkLen label entries of a batch file, read
// outside the lock that addLabels takes.
type labelChunk struct {
	s, g []uint64
	ends []int
	text []byte
}

const labelChunkLen = 1024

// read fills the chunk from r; more is false at the end of the file.
func (c *labelChunk) read(r *spillReader, path string, nterms int) (more bool, err error) {
	c.s, c.g, c.ends, c.text = c.s[:0], c.g[:0], c.ends[:0], c.text[:0]
	for len(c.s) < labelChunkLen {
		s, err := binary.ReadUvarint(r.r)
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		g, err2 := binary.ReadUvarint(r.r)
		n, err3 := binary.ReadUvarint(r.r)
		if err = errors.Join(err, err2, err3); err != nil || s >= uint64(nterms) || g >= uint64(nterms) {
			return false, fmt.Errorf("temporary file %s is corrupt: %v", path, err)
		}
		at := len(c.text)
		c.text = slices.Grow(c.text, int(n))[:at+int(n)]
		if err := r.readFull(c.text[at:]); err != nil {
			return false, err
		}
		c.s, c.g, c.ends = append(c.s, s), append(c.g, g), append(c.ends, len(c.text))
	}
	return true, nil
}

// addLabels adds a chunk's labels, in global ids, to the label builders,
// checking their memory every labelCheckEvery labels and after the last
// chunk of a file. Both map goroutines call it.
func (l *Loader) addLabels(c *labelChunk, m []uint64, last bool) error {
	l.labelMu.Lock()
	defer l.labelMu.Unlock()
	from := 0
	for i, s := range c.s {
		// The builder keeps a compact normalized copy of the text.
		l.labelBuilder(m[c.g[i]]).Add(string(c.text[from:c.ends[i]]), m[s])
		from = c.ends[i]
		if l.nlabels++; l.nlabels%labelCheckEvery == 0 {
			if err := l.boundLabels(); err != nil {
				return err
			}
		}
	}
	if last {
		return l.boundLabels()
	}
	return nil
}

// openSink picks the fastest writer that is safe for the database's state.
// The StreamWriter's Prepare drops every key, so it is used only after a
// positive check that the keyspace is empty; otherwise the tables go in
// incrementally above the stored data.
func (l *Loader) openSink() (*commitState, error) {
	db := l.db
	any, err := db.hasKeys(nil)
	if err != nil {
		return nil, fmt.Errorf("check for stored data: %w", err)
	}
	// The same test as the dictionary phase's (NewLoader: l.empty), which
	// took no stored term when the load starts over.
	fresh := !any && db.Interrupted() == nil || l.startOver
	cs := &commitState{fresh: fresh, added: map[uint64]int64{}, relations: map[uint64]int64{}}
	sink, err := newStreamSink(db.bdb, fresh, compactLate)
	if err != nil && l.startOver {
		// Write batches would keep the interrupted load's keys, which the
		// dictionary phase did not take into account.
		return nil, fmt.Errorf("start over after the interrupted load: %w", err)
	}
	if err != nil {
		db.log.Debug("stream writer unavailable, using write batches", "err", err)
		cs.sink = &batchSink{wb: db.bdb.NewWriteBatch()}
	} else {
		cs.sink = sink
	}
	cs.txn = db.bdb.NewTransaction(false)
	return cs, nil
}

// writeMarker records the load in the database directory before any key is
// written, with the id ranges it reserves (markerRanges); fresh: it writes
// into an emptied database.
func (l *Loader) writeMarker(fresh bool) error {
	if l.db.opts.InMemory {
		return nil
	}
	in := Interrupted{Graph: l.opts.Graph, Ranges: l.markerRanges(), Start: l.firstID, Reserved: l.nextID,
		Files: l.opts.Files, FileGraphs: l.opts.FileGraphs, Segment: l.newSeg, SegmentGraphs: l.segGraphs, Fresh: fresh}
	if n := len(in.Ranges); n > 0 {
		in.Start, in.Reserved = in.Ranges[0].Start, in.Ranges[n-1].End
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(l.db.dir, markerFile), b)
}

// writeFileSync writes a small file atomically (see writeFileAtomic).
func writeFileSync(path string, data []byte) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomic streams a file through write into path.tmp, fsyncs it
// and renames it to path, so a reader sees the old file or the whole new
// one; on error the temporary file is removed.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	return os.Rename(tmp, path)
}

// writeAll emits every keyspace in key order: the dictionary first (its
// streams are closed before any list is written, so a crash never leaves
// a list naming an id whose term is not stored), then the S and O lists
// concurrently (independent streams, one goroutine each; the P sorter is
// fed from a third), the P lists as soon as the S lists are done, and the
// meta keys.
func (l *Loader) writeAll(ctx context.Context, cs *commitState, dict dictResult, spo, ops *quadSorter) error {
	if err := l.step("dictionary keys", func() error { return l.writeDict(ctx, cs, dict) }); err != nil {
		return err
	}
	cs.preds = newPredFeed(l.newSorter("pred", orderPGS))
	defer cs.preds.stop()
	err := l.step("S, O and P lists", func() error {
		g, ctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			ocs := &commitState{fresh: cs.fresh, sink: cs.sink, txn: l.db.bdb.NewTransaction(false)}
			defer ocs.txn.Discard()
			return l.step("O lists", func() error { return l.writeSorted(ctx, ocs, ops, spaceOPS, streamOPS) })
		})
		g.Go(func() error {
			err := l.step("S lists", func() error {
				return l.writeSorted(ctx, cs, spo, spaceSPO, streamSPO)
			})
			if err != nil {
				return err
			}
			return l.step("P lists", func() error { return l.writePred(ctx, cs) })
		})
		return g.Wait()
	})
	if err != nil {
		return err
	}
	return l.writeMeta(ctx, cs)
}

// step runs one step of the write phase and logs its time at debug level,
// with the CPU time the whole process used meanwhile (steps may overlap).
func (l *Loader) step(name string, fn func() error) error {
	t, c := time.Now(), processCPU()
	err := fn()
	l.db.log.Debug("bulk load write step", "step", name, "took", time.Since(t).Round(time.Millisecond),
		"cpu", (processCPU() - c).Round(time.Millisecond), "temp_bytes", l.sd.live.Load())
	return err
}

// writeDict streams the new dictionary entries from the merge's lists:
// the term -> id keys first, ended before the first id block is written,
// then the id blocks, ended before it returns; the lists are removed.
// The order makes a kill at any point recoverable: an interrupted load
// leaves term keys whose id blocks may be missing, which the re-run finds
// and writes again (idAssigner.assign: reserved), never an id block
// without its term key, which the re-run could not find and would number
// its term again, leaving a second node for it.
func (l *Loader) writeDict(ctx context.Context, cs *commitState, dict dictResult) error {
	l.db.log.Debug("bulk load dictionary", "new_entries", dict.terms.entries, "term_bytes", dict.terms.bytes)
	if err := writeTermKeys(ctx, cs.sink, dict.terms); err != nil {
		return err
	}
	if err := cs.sink.Done(streamTerm, streamHash); err != nil {
		return err
	}
	if err := l.writeIDBlocks(ctx, cs, dict); err != nil {
		return err
	}
	for _, p := range []string{dict.terms.path, dict.ids.path} { // written: free their disk
		if p != "" {
			l.sd.drop(p) // the two may be one file: dropping twice is harmless
		}
	}
	return cs.sink.Done(streamID)
}

// writeIDBlocks writes the id blocks of the reserved and new entries.
func (l *Loader) writeIDBlocks(ctx context.Context, cs *commitState, dict dictResult) error {
	w := idBlockWriter{cs: cs}
	// Reserved ids (an interrupted load's) are all below this load's
	// new ids, so the two lists in sequence are in id order.
	for _, t := range dict.reserved {
		if err := w.add(t.id, []byte(t.enc)); err != nil {
			return err
		}
	}
	err := eachListEntry(ctx, dict.ids, func(term []byte, id uint64) error { return w.add(id, term) })
	if err != nil {
		return err
	}
	return w.flush()
}

// writeTermKeys writes the term -> id keys of a list as one stream, and
// those of terms over maxInlineTerm bytes, sorted by hash, as another.
func writeTermKeys(ctx context.Context, sink kvWriter, list dictList) error {
	key := []byte{spaceTerm}
	var idb [idLen]byte
	var long []hashedTerm
	err := eachListEntry(ctx, list, func(term []byte, id uint64) error {
		if len(term) > maxInlineTerm {
			long = append(long, hashedTerm{key: hashKey(term), id: id})
			return nil
		}
		key = append(key[:1], term...) // the sink copies the key
		putID(idb[:], id)
		return sink.Set(streamTerm, key, idb[:])
	})
	if err != nil {
		return err
	}
	slices.SortFunc(long, func(a, b hashedTerm) int { return bytes.Compare(a.key, b.key) })
	for _, h := range long {
		putID(idb[:], h.id)
		if err := sink.Set(streamHash, h.key, idb[:]); err != nil {
			return err
		}
	}
	return nil
}

// hashedTerm is the dictionary entry of a long term: its h key and id. A
// load holds these in memory (41 bytes for each term of over 64 KB).
type hashedTerm struct {
	key []byte
	id  uint64
}

// idBlockWriter groups id -> term entries (in id order) into blocks,
// merged with the stored block unless the database was empty. The terms
// of the open block are copied into one reused arena.
type idBlockWriter struct {
	cs       *commitState
	block    uint64
	slots    idSlots
	open     bool
	arena    []byte
	key, val []byte
}

// add sets the term of id; term is copied.
func (w *idBlockWriter) add(id uint64, term []byte) error {
	b := id >> idBlockBits
	if w.open && b != w.block {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if !w.open {
		w.block, w.open, w.slots = b, true, idSlots{}
		if !w.cs.fresh {
			stored, err := readIDBlock(w.cs.txn, id)
			if err != nil {
				return err
			}
			w.slots = stored
		}
	}
	// Earlier slots keep pointing at the old array if append moves it.
	start := len(w.arena)
	w.arena = append(w.arena, term...)
	w.slots[id&(idBlockSize-1)] = w.arena[start:len(w.arena):len(w.arena)]
	return nil
}

func (w *idBlockWriter) flush() error {
	if !w.open {
		return nil
	}
	w.open = false
	w.key = append(w.key[:0], make([]byte, 1+idLen)...) // no allocation once grown
	w.key[0] = spaceID
	putID(w.key[1:], w.block)
	w.val = w.slots.appendTo(w.val[:0])
	w.arena = w.arena[:0] // the sink has copied the block
	return w.cs.sink.Set(streamID, w.key, w.val)
}

// writeSorted writes the S (space S, quads in s, p, g, o order) or O lists
// from a sorter.
func (l *Loader) writeSorted(ctx context.Context, cs *commitState, s *quadSorter, space byte, stream uint32) error {
	m, err := s.finish(ctx)
	if err != nil {
		return err
	}
	defer m.Close()
	fields := func(q qids) (uint64, uint64, uint64, uint64) { return q.s, q.p, q.g, q.o }
	var onGroup func(q qids, old int) error
	if space == spaceOPS {
		fields = func(q qids) (uint64, uint64, uint64, uint64) { return q.o, q.p, q.g, q.s }
	} else {
		// After an interrupted load a stored group may be that load's,
		// written without its P entry: then every group goes to the P
		// lists (merged with the stored ones, so none is listed twice).
		rerun := l.db.Interrupted() != nil
		onGroup = func(q qids, old int) error {
			if old == 0 || rerun {
				return cs.preds.add(qids{s: q.s, p: q.p, g: q.g})
			}
			return nil
		}
	}
	return l.writeGroups(ctx, cs, m.next, space, stream, fields, onGroup, space == spaceSPO)
}

// writeGroups walks sorted quads, merges each group with the stored list
// and writes its chunks (listWriter), and writes each node's summary once
// all its groups are done. fields maps a quad to (a, b, g, member).
func (l *Loader) writeGroups(ctx context.Context, cs *commitState, next func() (qids, bool, error), space byte,
	stream uint32, fields func(qids) (a, b, g, m uint64), onGroup func(q qids, old int) error, count bool) error {
	blocks := &blockRouter{sink: cs.sink, space: space, segOf: l.segmentOf()}
	if !cs.fresh {
		blocks.txn = cs.txn
	}
	defer blocks.Close()
	lw := l.listWriter(cs)
	defer lw.release()
	var sum *summaryWriter
	var first qids
	var ca, cb, cg uint64
	open := false
	begin := func() error {
		sum = blocks.writer(cg)
		if err := sum.begin(ca); err != nil {
			return err
		}
		cs.key = groupKey(cs.key, space, ca, cb, cg)
		lw.begin()
		if cs.fresh {
			return nil
		}
		return sum.stored(&lw.stored, cs.txn, cs.key, cb, cg)
	}
	flush := func() error {
		total, old, err := lw.close(cs.sink, stream, cs.key, false)
		if err != nil {
			return err
		}
		if onGroup != nil {
			if err := onGroup(first, old); err != nil {
				return err
			}
		}
		if count {
			cs.added[cg] += int64(total - old)
		}
		return sum.add(cb, cg, int64(total), lw.ids)
	}
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
			if count {
				l.progress("write", int64(n), l.read)
			}
		}
		q, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		a, b, g, m := fields(q)
		if open && (a != ca || b != cb || g != cg) {
			if err := flush(); err != nil {
				return err
			}
			open = false
		}
		if !open {
			first, ca, cb, cg, open = q, a, b, g, true
			if err := begin(); err != nil {
				return err
			}
		}
		if err := lw.add(m); err != nil {
			return err
		}
	}
	if open {
		if err := flush(); err != nil {
			return err
		}
	}
	return blocks.flush()
}

// listWriter returns the posting-list writer of cs, which spools long
// lists to the load's temporary directory.
func (l *Loader) listWriter(cs *commitState) *listWriter {
	cs.lists.sd, cs.lists.spoolAfter = l.sd, l.db.listSpool
	return &cs.lists
}

// writePred writes the predicate -> subjects lists, each merged with the
// stored list if there is one, chunk by chunk (listWriter): memory stays
// bounded however many subjects a predicate has (P31 of a Wikidata dump:
// 100M+).
func (l *Loader) writePred(ctx context.Context, cs *commitState) error {
	m, err := cs.preds.finish(ctx)
	if err != nil {
		return err
	}
	defer m.Close()
	lw := l.listWriter(cs)
	defer lw.release()
	var p, g uint64
	open := false
	flush := func() error {
		_, old, err := lw.close(cs.sink, streamPred, cs.key, true)
		if err == nil && old == 0 {
			cs.relations[g]++
		}
		return err
	}
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		q, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if open && (q.p != p || q.g != g) {
			if err := flush(); err != nil {
				return err
			}
			open = false
		}
		if !open {
			p, g, open = q.p, q.g, true
			cs.key = predKey(cs.key, p, g)
			lw.begin()
			if !cs.fresh {
				lw.stored.setChunks(cs.txn, cs.key)
			}
		}
		if err := lw.add(q.s); err != nil {
			return err
		}
	}
	if open {
		return flush()
	}
	return nil
}

// writeMeta writes the graph records, id counter, stats and version.
func (l *Loader) writeMeta(_ context.Context, cs *commitState) error {
	db := l.db
	db.mu.RLock()
	graphs := map[string]GraphMeta{}
	for n, g := range db.graphs {
		graphs[n] = *g
	}
	stats := db.stats
	db.mu.RUnlock()
	for g, n := range cs.added {
		name, err := l.graphLabelName(cs, g)
		if err != nil {
			return err
		}
		gm, ok := graphs[name]
		if !ok {
			gm = GraphMeta{Name: name, LabelCfg: l.labelCfg, Segment: l.newSeg}
		}
		// The label id of this load: a graph emptied by deletes lost its
		// label term, so its record may name a dropped id.
		gm.Label = g
		gm.Quads += n
		gm.Relations += cs.relations[g]
		graphs[name] = gm
		stats.Quads += n
	}
	stats.Nodes += l.newCount
	names := make([]string, 0, len(graphs))
	for n := range graphs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b, _ := json.Marshal(graphs[n])
		if err := cs.sink.Set(streamMeta, []byte(metaGraph+n), b); err != nil {
			return err
		}
	}
	sb, _ := json.Marshal(stats)
	for _, kv := range [][2][]byte{
		{metaNextID, binary.BigEndian.AppendUint64(nil, l.nextID)},
		{metaStats, sb},
		{metaVersion, binary.BigEndian.AppendUint64(nil, db.format())},
	} {
		if err := cs.sink.Set(streamMeta, kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// graphLabelName returns the graph name of a label term.
func (l *Loader) graphLabelName(_ *commitState, g uint64) (string, error) {
	if n, ok := l.names[g]; ok {
		return n, nil
	}
	return "", fmt.Errorf("internal error: no name for graph label %d", g)
}

// graphNameOf is the graph name of a quad label value.
func graphNameOf(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return quad.StringOf(v)
}

func cmp4(a1, b1, a2, b2, a3, b3, a4, b4 uint64) int {
	if c := cmp.Compare(a1, b1); c != 0 {
		return c
	}
	if c := cmp.Compare(a2, b2); c != 0 {
		return c
	}
	if c := cmp.Compare(a3, b3); c != 0 {
		return c
	}
	return cmp.Compare(a4, b4)
}
