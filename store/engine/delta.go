package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// ApplyDeltas adds and deletes quads in one Badger transaction: the
// incremental path for small updates (the bulk path is NewLoader). A quad
// with no label belongs to no named graph. Either every delta is applied
// or none is.
func (db *DB) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	return db.ApplyDeltasContext(context.Background(), in, opts)
}

// ApplyDeltasContext is ApplyDeltas bounded by ctx: once ctx ends while
// the batch's deltas are applied (checked every 256 deltas and before the
// commit), the batch stops with ctx's error and nothing of it is written.
// The server gives Cayley's writes the request's context this way, so a
// large body's part no longer runs on past the request's time limit.
func (db *DB) ApplyDeltasContext(ctx context.Context, in []graph.Delta, opts graph.IgnoreOpts) error {
	if db.opts.ReadOnly {
		return errors.New("apply deltas: database is read-only")
	}
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	return db.applyDeltas(ctx, in, opts, nil)
}

// applyDeltas is ApplyDeltas for a caller holding writeMu; extra, if not
// nil, adds its own writes to the batch's transaction (after the batch's
// own), so they commit or fail with it.
func (db *DB) applyDeltas(ctx context.Context, in []graph.Delta, opts graph.IgnoreOpts, extra func(*badger.Txn) error) error {
	if db.opts.ReadOnly {
		return errors.New("apply deltas: database is read-only")
	}
	if err := db.checkWritable(); err != nil {
		return fmt.Errorf("apply deltas: %w", err)
	}
	if err := db.checkWriteSpace(); err != nil {
		return fmt.Errorf("apply deltas: %w", err)
	}
	// Readers that may see the batch bypass the predicate cache until it
	// is emptied.
	db.preds.beginWrite(db.readFloor())
	defer func() { db.preds.endWrite(db.readFloor()) }()
	u := &updater{db: db, opts: opts, graphs: map[uint64]*GraphMeta{},
		pending: map[string]pendingVal{}, groups: map[string]*groupEdit{}, orphans: map[uint64]bool{},
		blocks: map[string][]sumEntry{}}
	db.mu.RLock()
	u.next, u.stats, u.interrupted = db.nextID, db.stats, db.interrupted
	for _, g := range db.graphs {
		c := *g
		u.graphs[g.Label] = &c
	}
	db.mu.RUnlock()
	err := db.bdb.Update(func(txn *badger.Txn) error {
		u.txn = txn
		// A batch found too large stops at once, unless it deletes quads
		// that must exist: then the rest is checked first (in memory), so
		// that a missing quad fails the whole batch rather than the part
		// of it the caller applies after splitting it.
		checkDeletes := !opts.IgnoreMissing && slices.ContainsFunc(in, func(d graph.Delta) bool { return d.Action == graph.Delete })
		var tooBig error
		for i, d := range in {
			if err := validQuad(d.Quad); err != nil {
				return invalidDelta(d, i, len(in), err)
			}
			if err := u.apply(d); err != nil {
				return err
			}
			if i%tooBigCheckEvery == tooBigCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("apply deltas: stopped after %d of %d, nothing written: %w", i+1, len(in), err)
				}
				if tooBig == nil {
					if tooBig = u.tooBig(i + 1); tooBig != nil && !checkDeletes {
						return tooBig
					}
				}
			}
		}
		if tooBig != nil {
			return tooBig
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("apply deltas: stopped before the commit, nothing written: %w", err)
		}
		if err := u.writeGroups(); err != nil {
			return err
		}
		u.grouped = true
		if err := u.dropOrphans(); err != nil {
			return err
		}
		if err := u.flush(); err != nil {
			return err
		}
		if err := u.stageLabels(in); err != nil {
			return err
		}
		if err := u.writeMeta(); err != nil {
			return err
		}
		if extra != nil {
			return extra(txn)
		}
		return nil
	})
	if err != nil {
		u.dropStagedLabels()
	}
	if tb := (*store.TooBigError)(nil); errors.As(err, &tb) {
		return fmt.Errorf("apply deltas: %d deltas are %w (Badger's limit; use smaller batches or the bulk loader; "+
			"about %d fit)", len(in), tb, tb.Fit)
	}
	if errors.Is(err, badger.ErrTxnTooBig) {
		tb := u.fit(len(in))
		return fmt.Errorf("apply deltas: %d deltas are %w (Badger's limit; use smaller batches or the bulk loader; "+
			"about %d fit): %w", len(in), tb, tb.Fit, err)
	}
	if err != nil {
		return err
	}
	if err := db.reloadMeta(); err != nil {
		return err
	}
	u.installLabels()
	return nil
}

// updater carries the state of one ApplyDeltas transaction.
type updater struct {
	db     *DB
	txn    *badger.Txn
	opts   graph.IgnoreOpts
	next   uint64
	stats  Stats
	graphs map[uint64]*GraphMeta
	staged []stagedLabels // label index updates, see stageLabels
	key    []byte
	// The batch's write-back state (overlay.go).
	pending map[string]pendingVal
	// pendingBytes is the size of the pending entries as Badger counts it
	// (see put, tooBig).
	pendingBytes int64
	grouped      bool // writeGroups ran: the edits are pending keys
	lists        int  // edited posting lists that are not a node's (their chunk keys)
	groups       map[string]*groupEdit
	blocks       map[string][]sumEntry // decoded node blocks
	order        []string
	orphans      map[uint64]bool // terms a delete may have left unused
	// interrupted is the unfinished bulk load, if any (see graph).
	interrupted *Interrupted
}

// tooBigCheckEvery is how often (in deltas) a batch checks whether its
// transaction will be over Badger's limits (updater.tooBig).
const tooBigCheckEvery = 256

// tooBig returns a *store.TooBigError once the transaction of the
// batch's first n deltas will be over Badger's limits (estimate), so that
// a batch too large stops early instead of after all its work, saying how
// many of its deltas fit.
func (u *updater) tooBig(n int) error {
	count, size := u.estimate()
	if count < u.db.bdb.MaxBatchCount() && size < u.db.bdb.MaxBatchSize() {
		return nil
	}
	return u.fit(n)
}

// estimate is a lower bound of the batch's transaction as Badger counts
// it, entries and bytes: the pending keys, and until writeGroups has made
// them pending keys too, one small entry per node block and per edited
// posting list other than a node's (which may live in its node block).
func (u *updater) estimate() (count, size int64) {
	var edited int64
	if !u.grouped {
		edited = int64(len(u.blocks) + u.lists)
	}
	return int64(len(u.pending)) + edited, u.pendingBytes + edited*entrySize(groupKeyLen, 8)
}

// fit is the error of a batch whose first n deltas make a transaction of
// the estimated size: the deltas expected to fit, with a margin.
func (u *updater) fit(n int) *store.TooBigError {
	count, size := u.estimate()
	share := min(float64(u.db.bdb.MaxBatchCount())/float64(max(count, 1)),
		float64(u.db.bdb.MaxBatchSize())/float64(max(size, 1)))
	return &store.TooBigError{Fit: max(1, int(float64(n)*share*0.85))}
}

// groupKeyLen is the length of a posting list's key (space, two ids and
// a graph), the longest an edited list or block has.
const groupKeyLen = 1 + 3*idLen

// invalidDelta is the error of the batch's delta i of n, whose quad lacks
// a term (validQuad's err). graph.DeltaError prints only its Err for such
// a quad, so Err names the delta's place in the batch and its terms: a
// "missing object" of a 10,000-quad writer batch named no quad.
func invalidDelta(d graph.Delta, i, n int, err error) error {
	return &graph.DeltaError{Delta: d, Err: fmt.Errorf("quad %d of %d in the batch (%s %s): %w",
		i+1, n, d.Action, describeQuad(d.Quad), err)}
}

// describeQuad renders a quad whose terms may be missing, in N-Quads term
// order.
func describeQuad(q quad.Quad) string {
	terms := make([]string, 0, 4)
	for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
		if v == nil {
			terms = append(terms, "(none)")
			continue
		}
		terms = append(terms, v.String())
	}
	if q.Label != nil {
		terms = append(terms, q.Label.String())
	}
	return strings.Join(terms, " ")
}

// apply applies one delta whose quad validQuad accepted.
func (u *updater) apply(d graph.Delta) error {
	var ids qids
	var err error
	for _, f := range []struct {
		v   quad.Value
		dst *uint64
	}{{d.Quad.Subject, &ids.s}, {d.Quad.Predicate, &ids.p}, {d.Quad.Object, &ids.o}, {d.Quad.Label, &ids.g}} {
		if f.v == nil {
			continue
		}
		if *f.dst, err = u.intern(f.v, d.Action == graph.Add); err != nil {
			return err
		}
	}
	switch d.Action {
	case graph.Add:
		return u.add(d, ids)
	case graph.Delete:
		return u.del(d, ids)
	}
	return &graph.DeltaError{Delta: d, Err: graph.ErrInvalidAction}
}

// intern finds or (when create) allocates a term id; 0 means absent.
func (u *updater) intern(v quad.Value, create bool) (uint64, error) {
	enc, err := encodeTerm(nil, v)
	if err != nil {
		return 0, err
	}
	id, ok, err := u.termID(enc)
	if !ok && err == nil {
		if alt := altEncoding(v, enc); alt != nil {
			id, ok, err = u.termID(alt) // the form an earlier version stored
		}
	}
	if err != nil || ok || !create {
		return id, err
	}
	id = u.next
	u.next++
	u.stats.Nodes++
	if err := u.setTerm(id, enc); err != nil {
		return 0, err
	}
	u.set(termKey(enc), binary.BigEndian.AppendUint64(nil, id))
	return id, nil
}

func (u *updater) add(d graph.Delta, q qids) error {
	// The graph's record first: it says which segment the groups go to.
	gm := u.graph(q.g, d.Quad.Label)
	added, wasEmpty, err := u.edit(groupKey(nil, spaceSPO, q.s, q.p, q.g), q.o, true)
	if err != nil {
		return err
	}
	if !added {
		if u.opts.IgnoreDup {
			return nil
		}
		return &graph.DeltaError{Delta: d, Err: graph.ErrQuadExists}
	}
	if _, _, err := u.edit(groupKey(nil, spaceOPS, q.o, q.p, q.g), q.s, true); err != nil {
		return err
	}
	if wasEmpty {
		_, newPred, err := u.edit(predKey(nil, q.p, q.g), q.s, true)
		if err != nil {
			return err
		}
		if newPred {
			gm.Relations++
		}
	}
	gm.Quads++
	u.stats.Quads++
	return nil
}

func (u *updater) del(d graph.Delta, q qids) error {
	if q.s == 0 || q.p == 0 || q.o == 0 || (d.Quad.Label != nil && q.g == 0) {
		return u.missing(d)
	}
	removed, _, err := u.edit(groupKey(nil, spaceSPO, q.s, q.p, q.g), q.o, false)
	if err != nil {
		return err
	}
	if !removed {
		return u.missing(d)
	}
	if _, _, err := u.edit(groupKey(nil, spaceOPS, q.o, q.p, q.g), q.s, false); err != nil {
		return err
	}
	gm := u.graph(q.g, d.Quad.Label)
	sg, err := u.group(groupKey(nil, spaceSPO, q.s, q.p, q.g))
	if err != nil {
		return err
	}
	if sg.count == 0 {
		if _, _, err := u.edit(predKey(nil, q.p, q.g), q.s, false); err != nil {
			return err
		}
		pg, err := u.group(predKey(nil, q.p, q.g))
		if err != nil {
			return err
		}
		if pg.count == 0 {
			gm.Relations--
		}
	}
	gm.Quads--
	u.stats.Quads--
	for _, id := range []uint64{q.s, q.p, q.o, q.g} {
		if id != 0 {
			u.orphans[id] = true
		}
	}
	return nil
}

// dropOrphans deletes the dictionary entries of terms that no quad
// references any more after the batch (checked once per term, against
// the batch's write-back state), so node counts stay exact as in every
// Cayley store. Ids are never reused.
func (u *updater) dropOrphans() error {
	if len(u.orphans) == 0 {
		return nil
	}
	livePreds := map[uint64]bool{} // predicates with a non-empty P list edited by the batch
	for k, ge := range u.groups {
		if k[0] == spacePred && ge.count > 0 {
			livePreds[getID([]byte(k[1:]))] = true
		}
	}
	ids := make([]uint64, 0, len(u.orphans))
	for id := range u.orphans {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		used, err := u.referenced(id, livePreds)
		if err != nil {
			return err
		}
		if used {
			continue
		}
		v, _, err := u.value(idBlockKey(id))
		if err != nil {
			return err
		}
		slots, err := decodeIDBlock(v)
		if err != nil {
			return err
		}
		enc := slots[id&(idBlockSize-1)]
		if enc == nil {
			continue
		}
		u.remove(termKey(enc)) // an earlier version's t key of a long term stays: see legacyTermID
		if err := u.setTerm(id, nil); err != nil {
			return err
		}
		u.stats.Nodes--
	}
	return nil
}

// referenced reports whether any quad uses id as subject, object,
// predicate or label, as the batch leaves the store.
func (u *updater) referenced(id uint64, livePreds map[uint64]bool) (bool, error) {
	for _, space := range []byte{spaceSPO, spaceOPS} {
		for seg := range u.db.segments() {
			if _, ok, err := u.value(appendBlockKey(nil, space, seg, id)); err != nil || ok {
				return ok, err
			}
		}
	}
	if livePreds[id] {
		return true, nil
	}
	if gm, ok := u.graphs[id]; ok && gm.Quads > 0 {
		return true, nil
	}
	// A stored P list of id that the batch did not empty. The batch's
	// writes are still in memory, so this iterator has no pending writes
	// to sort.
	it := u.txn.NewIterator(badger.IteratorOptions{Prefix: prefix1(spacePred, id), PrefetchValues: false})
	defer it.Close()
	for it.Rewind(); it.Valid(); {
		k := it.Item().Key()
		if len(k) < predGroup {
			return false, fmt.Errorf("corrupt predicate key %x", k)
		}
		ge, edited := u.groups[string(k[:predGroup])]
		if !edited || ge.count > 0 {
			return true, nil
		}
		it.Seek(append(predKey(nil, id, getID(k[9:])+1), 0, 0, 0, 0))
	}
	return false, nil
}

func (u *updater) missing(d graph.Delta) error {
	if u.opts.IgnoreMissing {
		return nil
	}
	return &graph.DeltaError{Delta: d, Err: graph.ErrQuadNotExist}
}

// edit inserts or removes id in the posting list under group (in the
// batch's write-back state). It reports whether the list changed and
// whether it was empty before.
func (u *updater) edit(group []byte, id uint64, insert bool) (changed, wasEmpty bool, err error) {
	ge, err := u.group(group)
	if err != nil {
		return false, false, err
	}
	wasEmpty = ge.count == 0
	return ge.edit(id, insert), wasEmpty, nil
}

// graph returns the record of the graph with label id g, creating it.
func (u *updater) graph(g uint64, label quad.Value) *GraphMeta {
	if gm, ok := u.graphs[g]; ok {
		return gm
	}
	gm := &GraphMeta{Label: g, LabelCfg: defaultLabelConfig()}
	if label != nil {
		gm.Name = graphNameOf(label)
	}
	for id, old := range u.graphs {
		if old.Name == gm.Name {
			// A stale record of the same graph: emptying a graph drops
			// its label term, so a later add interns a new id. The graph
			// stays one record (one meta key), under the new id.
			gm.LabelCfg, gm.Labels, gm.LabelGen, gm.LabelSegs = old.LabelCfg, old.Labels, old.LabelGen, old.LabelSegs
			delete(u.graphs, id)
		}
	}
	if in := u.interrupted; in != nil && in.Segment > 0 {
		// A new graph an interrupted bulk load was putting into a segment
		// of its own: its partial blocks are there, and re-running the
		// load continues there.
		if _, ok := slices.BinarySearch(in.SegmentGraphs, gm.Name); ok {
			gm.Segment = in.Segment
		}
	}
	u.graphs[g] = gm
	return gm
}

func (u *updater) writeMeta() error {
	for _, gm := range u.graphs {
		b, _ := json.Marshal(gm)
		if err := u.txn.Set([]byte(metaGraph+gm.Name), b); err != nil {
			return err
		}
	}
	sb, _ := json.Marshal(u.stats)
	if err := u.txn.Set(metaStats, sb); err != nil {
		return err
	}
	if err := u.txn.Set(metaVersion, binary.BigEndian.AppendUint64(nil, u.db.format())); err != nil {
		return err
	}
	return u.txn.Set(metaNextID, binary.BigEndian.AppendUint64(nil, u.next))
}

// NewQuadWriter returns a writer that applies quads in batches through
// ApplyDeltas, ignoring duplicates.
func (db *DB) NewQuadWriter() (quad.WriteCloser, error) {
	return &quadWriter{db: db}, nil
}

type quadWriter struct {
	db  *DB
	buf []graph.Delta
}

const quadWriterBatch = 10000

func (w *quadWriter) WriteQuad(q quad.Quad) error {
	_, err := w.WriteQuads([]quad.Quad{q})
	return err
}

func (w *quadWriter) WriteQuads(qs []quad.Quad) (int, error) {
	for i, q := range qs {
		w.buf = append(w.buf, graph.Delta{Quad: q, Action: graph.Add})
		if len(w.buf) >= quadWriterBatch {
			if err := w.flush(); err != nil {
				return i, err
			}
		}
	}
	return len(qs), nil
}

func (w *quadWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	// A batch too large for one transaction is written in parts.
	_, err := store.ApplyInParts(w.buf, func(ds []graph.Delta) error {
		return w.db.ApplyDeltas(ds, graph.IgnoreOpts{IgnoreDup: true})
	})
	w.buf = w.buf[:0]
	return err
}

func (w *quadWriter) Close() error { return w.flush() }

// Apply adds and deletes quads in graph through one transaction; the
// labels of the given quads are replaced by graph.
func (db *DB) Apply(ctx context.Context, graphName string, add, del []quad.Quad) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	label := quad.IRI(graphName)
	ds := make([]graph.Delta, 0, len(add)+len(del))
	for _, q := range del {
		q.Label = label
		ds = append(ds, graph.Delta{Quad: q, Action: graph.Delete})
	}
	for _, q := range add {
		q.Label = label
		ds = append(ds, graph.Delta{Quad: q, Action: graph.Add})
	}
	return db.ApplyDeltas(ds, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
}
