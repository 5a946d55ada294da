package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// parallelIndexLimit is the largest load whose S and O lists are written
// concurrently from two copies of the quads (32 bytes each).
const parallelIndexLimit = 4 << 20

// commitState carries the counters of one commit.
type commitState struct {
	fresh     bool
	sink      kvWriter
	txn       *badger.Txn
	added     map[uint64]int64 // graph label -> quads added
	relations map[uint64]int64 // graph label -> new (p, g) groups
	preds     []qids           // (p, g, s) of new (s, p, g) groups
	key, val  []byte
	list      []uint64
}

func (l *Loader) commit(ctx context.Context) (LoadStats, error) {
	l.newCount = int64(len(l.newTerms))
	st := LoadStats{Read: l.read, Terms: l.newCount}
	t0 := time.Now()
	// The dictionary is only needed while reading: new terms are in
	// newTerms. Dropping it here frees its memory before the sort.
	l.dict = nil
	l.quads = l.buf.flatten()
	sortQuads(l.quads, func(a, b qids) int { return cmp4(a.s, b.s, a.p, b.p, a.g, b.g, a.o, b.o) })
	l.quads = slices.Compact(l.quads)
	l.db.log.Debug("bulk load sort", "quads", len(l.quads), "took", time.Since(t0))
	l.txn.Discard()
	cs, err := l.openSink()
	if err != nil {
		return st, err
	}
	st.Writer = "stream"
	if _, ok := cs.sink.(*batchSink); ok {
		st.Writer = "batch"
	}
	if err := l.writeMarker(); err != nil {
		cs.sink.Cancel()
		return st, err
	}
	if err := l.writeAll(ctx, cs); err != nil {
		cs.sink.Cancel()
		cs.txn.Discard()
		return st, err
	}
	cs.txn.Discard()
	l.quads = nil // written; the label index build below needs the memory more
	t := time.Now()
	if err := cs.sink.Flush(); err != nil {
		return st, err
	}
	l.db.log.Debug("bulk load flush", "took", time.Since(t))
	t = time.Now()
	labels, err := l.finish(ctx, cs)
	l.db.log.Debug("bulk load finish (labels, meta)", "took", time.Since(t))
	if err != nil {
		return st, err
	}
	for _, n := range cs.added {
		st.Added += n
	}
	st.Labels = labels
	st.Duration = time.Since(l.start)
	return st, nil
}

// openSink picks the fastest writer that is safe for the database's state.
func (l *Loader) openSink() (*commitState, error) {
	db := l.db
	db.mu.RLock()
	fresh := len(db.graphs) == 0 && db.stats.Quads == 0
	db.mu.RUnlock()
	cs := &commitState{fresh: fresh, added: map[uint64]int64{}, relations: map[uint64]int64{}}
	sink, err := newStreamSink(db.bdb, fresh)
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
// written, with the id range it reserves.
func (l *Loader) writeMarker() error {
	if l.db.opts.InMemory {
		return nil
	}
	b, err := json.Marshal(Interrupted{Graph: l.opts.Graph, Reserved: l.nextID, Files: l.opts.Files})
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(l.db.dir, markerFile), b)
}

// writeFileSync writes a file atomically (temp file, fsync, rename).
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeAll emits every keyspace in key order. The dictionary streams and
// the edge streams are independent, so they are written concurrently.
func (l *Loader) writeAll(ctx context.Context, cs *commitState) error {
	errc := make(chan error, 1)
	go func() {
		errc <- l.timed(ctx, "dictionary", func() error {
			if err := l.writeIDs(ctx, cs); err != nil {
				return err
			}
			if err := l.writeTerms(ctx, cs); err != nil {
				return err
			}
			// Written: free the new terms while the edge streams go on.
			l.newTerms = nil
			return nil
		})
	}()
	err := l.timed(ctx, "spo+ops", func() error { return l.writeIndexes(ctx, cs) })
	if derr := <-errc; err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	if err := l.timed(ctx, "pred", func() error { return l.writePred(ctx, cs) }); err != nil {
		return err
	}
	return l.timed(ctx, "meta", func() error { return l.writeMeta(ctx, cs) })
}

// timed runs one step of the commit and logs its duration.
func (l *Loader) timed(ctx context.Context, step string, fn func() error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	t := time.Now()
	err := fn()
	l.db.log.Debug("bulk load step", "step", step, "took", time.Since(t))
	return err
}

func (l *Loader) writeIDs(_ context.Context, cs *commitState) error {
	slices.SortFunc(l.newTerms, func(a, b newTerm) int { return cmp.Compare(a.id, b.id) })
	for _, t := range l.newTerms {
		if err := cs.sink.Set(streamID, idKey(t.id), []byte(t.enc)); err != nil {
			return err
		}
	}
	return nil
}

func (l *Loader) writeTerms(_ context.Context, cs *commitState) error {
	slices.SortFunc(l.newTerms, func(a, b newTerm) int { return cmp.Compare(a.enc, b.enc) })
	var v [idLen]byte
	for _, t := range l.newTerms {
		putID(v[:], t.id)
		if err := cs.sink.Set(streamTerm, termKey([]byte(t.enc)), v[:]); err != nil {
			return err
		}
	}
	return nil
}

// writeSPO writes the (s, p, g) -> objects lists; quads are sorted by s, p, g, o.
func (l *Loader) writeSPO(ctx context.Context, cs *commitState) error {
	return l.writeGroups(ctx, cs, l.quads, spaceSPO, streamSPO,
		func(q qids) (uint64, uint64, uint64, uint64) { return q.s, q.p, q.g, q.o },
		func(q qids, old int) {
			if old == 0 {
				cs.preds = append(cs.preds, qids{s: q.s, p: q.p, g: q.g})
			}
		}, true)
}

// writeIndexes writes the S lists and, concurrently on a copy re-sorted by
// o, p, g, s, the O lists: the two streams are independent, and the
// StreamWriter accepts writes from several goroutines.
func (l *Loader) writeIndexes(ctx context.Context, cs *commitState) error {
	if len(l.quads) > parallelIndexLimit {
		// Large loads re-sort in place: a second copy of every quad would
		// cost more memory than the parallelism gains.
		if err := l.writeSPO(ctx, cs); err != nil {
			return err
		}
		sortQuads(l.quads, func(a, b qids) int { return cmp4(a.o, b.o, a.p, b.p, a.g, b.g, a.s, b.s) })
		return l.writeGroups(ctx, cs, l.quads, spaceOPS, streamOPS,
			func(q qids) (uint64, uint64, uint64, uint64) { return q.o, q.p, q.g, q.s }, nil, false)
	}
	ops := slices.Clone(l.quads)
	errc := make(chan error, 1)
	go func() {
		sortQuads(ops, func(a, b qids) int { return cmp4(a.o, b.o, a.p, b.p, a.g, b.g, a.s, b.s) })
		ocs := &commitState{fresh: cs.fresh, sink: cs.sink, txn: l.db.bdb.NewTransaction(false)}
		defer ocs.txn.Discard()
		errc <- l.writeGroups(ctx, ocs, ops, spaceOPS, streamOPS,
			func(q qids) (uint64, uint64, uint64, uint64) { return q.o, q.p, q.g, q.s }, nil, false)
	}()
	err := l.writeSPO(ctx, cs)
	if oerr := <-errc; err == nil {
		err = oerr
	}
	return err
}

// writeGroups walks sorted quads, merges each group with the stored list
// and writes its chunks, and writes each node's summary once all its
// groups are done. fields maps a quad to (a, b, g, member).
func (l *Loader) writeGroups(ctx context.Context, cs *commitState, qs []qids, space byte, stream uint32,
	fields func(qids) (a, b, g, m uint64), onGroup func(q qids, old int), count bool) error {
	sum := &summaryWriter{cs: cs, space: space, stream: streamSumS}
	if space == spaceOPS {
		sum.stream = streamSumO
	}
	for i := 0; i < len(qs); {
		if i%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		a, b, g, _ := fields(qs[i])
		cs.list = cs.list[:0]
		j := i
		for ; j < len(qs); j++ {
			a2, b2, g2, m := fields(qs[j])
			if a2 != a || b2 != b || g2 != g {
				break
			}
			cs.list = append(cs.list, m)
		}
		cs.key = groupKey(cs.key, space, a, b, g)
		old, err := l.mergeGroup(cs, stream)
		if err != nil {
			return err
		}
		if onGroup != nil {
			onGroup(qs[i], old)
		}
		if count {
			cs.added[g] += int64(len(cs.list) - old)
		}
		if err := sum.add(a, sumEntry{b, g, int64(len(cs.list))}); err != nil {
			return err
		}
		i = j
	}
	return sum.flush()
}

// summaryWriter collects the groups of one node at a time (quads arrive
// sorted by node) and writes the node's summary, merged with the stored
// one unless the database was empty.
type summaryWriter struct {
	cs      *commitState
	space   byte
	stream  uint32
	node    uint64
	entries []sumEntry
}

func (w *summaryWriter) add(node uint64, e sumEntry) error {
	if len(w.entries) > 0 && node != w.node {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.node = node
	w.entries = append(w.entries, e)
	return nil
}

func (w *summaryWriter) flush() error {
	if len(w.entries) == 0 {
		return nil
	}
	es := w.entries
	slices.SortFunc(es, cmpEntry)
	if !w.cs.fresh {
		old, err := readSummary(w.cs.txn, w.space, w.node)
		if err != nil {
			return err
		}
		es = mergeSummary(old, es)
	}
	w.entries = w.entries[:0]
	return w.cs.sink.Set(w.stream, summaryKey(w.space, w.node), encodeSummary(es))
}

// mergeGroup unions cs.list with the stored list under cs.key, writes the
// result and returns the stored list's length.
func (l *Loader) mergeGroup(cs *commitState, stream uint32) (int, error) {
	old := 0
	if !cs.fresh {
		stored, err := readList(cs.txn, cs.key, nil)
		if err != nil {
			return 0, err
		}
		old = len(stored)
		cs.list = unionSorted(stored, cs.list)
	}
	for i, chunk := range splitChunks(cs.list) {
		if err := cs.sink.Set(stream, withChunk(cs.key, uint32(i)), chunk); err != nil {
			return 0, err
		}
	}
	return old, nil
}

// writePred writes the predicate -> subjects lists.
func (l *Loader) writePred(_ context.Context, cs *commitState) error {
	ps := cs.preds
	slices.SortFunc(ps, func(a, b qids) int { return cmp4(a.p, b.p, a.g, b.g, a.s, b.s, 0, 0) })
	for i := 0; i < len(ps); {
		j := i
		cs.list = cs.list[:0]
		for ; j < len(ps) && ps[j].p == ps[i].p && ps[j].g == ps[i].g; j++ {
			cs.list = append(cs.list, ps[j].s)
		}
		cs.key = predKey(cs.key, ps[i].p, ps[i].g)
		old, err := l.mergeGroup(cs, streamPred)
		if err != nil {
			return err
		}
		if old == 0 {
			cs.relations[ps[i].g]++
		}
		i = j
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
			gm = GraphMeta{Name: name, Label: g, LabelCfg: l.labelCfg}
		}
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
		{metaVersion, binary.BigEndian.AppendUint64(nil, formatVersion)},
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

// sortQuads sorts in place.
func sortQuads(qs []qids, f func(a, b qids) int) { slices.SortFunc(qs, f) }

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
