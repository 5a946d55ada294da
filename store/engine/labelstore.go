package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/mmap-go"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store/labelindex"
)

// Label index lifecycle.
//
// Each graph's label index is a main index plus delta segments
// (labelindex.View), in files under labels/:
//
//	<hash>.<gen>.idx         main index of generation gen (<hash>.idx: gen 0)
//	<hash>.<gen>.<n>.seg     n-th segment applied on top of it
//
// where <hash> is derived from the graph name. The graph's meta record
// (GraphMeta.LabelGen, LabelSegs, Labels) names the files that are live,
// so the files and the quads change together:
//
//   - ApplyDeltas writes one small segment per touched graph (the pairs
//     it adds and deletes, resolved against the store as it will be after
//     the batch) and fsyncs it before the Badger commit that names it in
//     the meta; when the segments grow past a threshold it writes a new
//     main generation instead. If the commit fails the file is removed; if
//     the process dies first, the file is named by no meta record and is
//     removed on the next open.
//   - A bulk load merges the view and its labels into a new main
//     generation, then names it (and no segments) in the meta.
//   - Open removes files no meta names, and rebuilds from the store the
//     index of a graph whose named files are missing or corrupt. A graph
//     only ApplyDeltas has written has segments and no main file (its
//     generation-0 main index is empty) until they are compacted; that is
//     not a missing file (segmentsHoldAll).
//
// Readers load a graph's view lazily, once (single flight), and install it
// only if no writer installed a newer one meanwhile. Writers install their
// view right after their commit. Search checks every hit against the
// store, so the short window between the two never returns text that an
// entity does not have.

// Compaction thresholds: a new main generation is written when a graph has
// more than maxSegments segments or its segments hold more than
// max(minCompactPairs, main pairs/8) pairs.
const (
	maxSegments     = 16
	minCompactPairs = 4096
)

// searchIndex is one graph's loaded label view and the meta it was loaded
// from. Main index files are memory-mapped; a searchIndex holds one
// reference on each mapping its view reads, and is itself referenced once
// while installed and once per reader using it (acquire/release), so a
// mapping is unmapped only when no view that reads it can be in use.
type searchIndex struct {
	view *labelindex.View
	gen  uint64
	segs []string
	maps []*mapping
	refs atomic.Int64
}

func newSearchIndex(view *labelindex.View, gen uint64, segs []string, maps []*mapping) *searchIndex {
	si := &searchIndex{view: view, gen: gen, segs: segs, maps: maps}
	si.refs.Store(1)
	return si
}

// release drops one reference; the last one releases the mappings.
func (si *searchIndex) release() {
	if si.refs.Add(-1) == 0 {
		for _, m := range si.maps {
			m.release()
		}
	}
}

// mapping is a read-only memory map of one label file, shared by the
// views that read it.
type mapping struct {
	data mmap.MMap
	refs atomic.Int64
}

// mapFile maps a whole file read-only.
func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	m := &mapping{data: data}
	m.refs.Store(1)
	return m, nil
}

func (m *mapping) retain() *mapping {
	m.refs.Add(1)
	return m
}

func (m *mapping) release() {
	if m.refs.Add(-1) == 0 {
		_ = m.data.Unmap()
	}
}

func retainAll(ms []*mapping) []*mapping {
	out := make([]*mapping, len(ms))
	for i, m := range ms {
		out[i] = m.retain()
	}
	return out
}

// labelHash names a graph's label files, so any graph name (an IRI, say)
// maps to a safe file name.
func labelHash(graph string) string {
	sum := sha256.Sum256([]byte(graph))
	return hex.EncodeToString(sum[:12])
}

func (db *DB) labelDir() string { return filepath.Join(db.dir, "labels") }

// mainFile is the path of a graph's main index of generation gen.
func (db *DB) mainFile(graph string, gen uint64) string {
	if gen == 0 {
		return filepath.Join(db.labelDir(), labelHash(graph)+".idx")
	}
	return filepath.Join(db.labelDir(), fmt.Sprintf("%s.%d.idx", labelHash(graph), gen))
}

// segFile is the file name (within labels/) of a graph's n-th segment on
// top of generation gen.
func segFile(graph string, gen uint64, n int) string {
	return fmt.Sprintf("%s.%d.%d.seg", labelHash(graph), gen, n)
}

// labelState returns the label fields of a graph's meta record.
func (db *DB) labelState(graph string) (gen uint64, segs []string, ok bool) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	g, ok := db.graphs[graph]
	if !ok {
		return 0, nil, false
	}
	return g.LabelGen, slices.Clone(g.LabelSegs), true
}

// acquire returns the label index of a graph (an empty view if it has
// none) with a reference the caller must release. Concurrent callers load
// it once; an index loaded while a writer replaced it is not installed.
func (db *DB) acquire(graph string) (*searchIndex, error) {
	if si := db.installed(graph); si != nil {
		return si, nil
	}
	mu := db.loadLock(graph)
	mu.Lock()
	defer mu.Unlock()
	if si := db.installed(graph); si != nil {
		return si, nil
	}
	gen, segs, _ := db.labelState(graph)
	view, maps, err := db.readView(graph, gen, segs)
	if err != nil {
		// The store is the truth: rebuild it into a mapped scratch file;
		// the next bulk load or compaction writes a good main generation.
		db.log.Warn("label index unreadable: rebuilding it from the store", "graph", graph, "err", err)
		if view, maps, err = db.rebuildView(context.Background(), graph); err != nil {
			return nil, err
		}
	}
	si := newSearchIndex(view, gen, segs, maps)
	db.mu.Lock()
	defer db.mu.Unlock()
	if cur, ok := db.search[graph]; ok {
		si.release() // a writer installed a newer index meanwhile
		cur.refs.Add(1)
		return cur, nil
	}
	if g, ok := db.graphs[graph]; ok && (g.LabelGen != gen || !slices.Equal(g.LabelSegs, segs)) {
		// The meta changed during the read: use what was read for this
		// call only.
		return si, nil
	}
	db.search[graph] = si
	si.refs.Add(1)
	return si, nil
}

// loadLock returns the mutex that serialises lazy loads of one graph's
// index, so loading one graph never waits for another.
func (db *DB) loadLock(graph string) *sync.Mutex {
	mu, _ := db.loading.LoadOrStore(graph, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// installed returns the installed index of a graph, acquired, or nil.
func (db *DB) installed(graph string) *searchIndex {
	db.mu.RLock()
	defer db.mu.RUnlock()
	si, ok := db.search[graph]
	if !ok {
		return nil
	}
	si.refs.Add(1) // cannot be 0: the map holds a reference
	return si
}

// readView reads a graph's main index and segments. A missing main file
// is an empty index; a missing or corrupt segment is an error.
//
// The main file is memory-mapped (the returned mapping, nil if none);
// segments, which are small, are read into memory.
func (db *DB) readView(graph string, gen uint64, segs []string) (view *labelindex.View, maps []*mapping, err error) {
	if db.opts.InMemory {
		return labelindex.NewView(nil), nil, nil
	}
	var main *labelindex.Index
	m, err := mapFile(db.mainFile(graph, gen))
	switch {
	case errors.Is(err, os.ErrNotExist) && gen == 0:
	case err != nil:
		return nil, nil, err
	default:
		if main, err = labelindex.Open(m.data); err != nil {
			m.release()
			return nil, nil, err
		}
		maps = []*mapping{m}
	}
	view = labelindex.NewView(main)
	for _, name := range segs {
		data, err := os.ReadFile(filepath.Join(db.labelDir(), name))
		if err == nil {
			var seg *labelindex.Segment
			if seg, err = labelindex.OpenSegment(data); err == nil {
				view = view.With(seg)
				continue
			}
		}
		for _, m := range maps {
			m.release()
		}
		return nil, nil, fmt.Errorf("segment %s: %w", name, err)
	}
	return view, maps, nil
}

// installSearch makes si the graph's label index, taking over the
// caller's reference, and releases the one it replaces.
func (db *DB) installSearch(graph string, si *searchIndex) {
	db.mu.Lock()
	old := db.search[graph]
	db.search[graph] = si
	if g, ok := db.graphs[graph]; ok {
		g.LabelGen, g.LabelSegs = si.gen, si.segs
	}
	db.mu.Unlock()
	if old != nil {
		old.release()
	}
}

// closeSearch releases every installed index (DB.Close).
func (db *DB) closeSearch() {
	db.mu.Lock()
	old := db.search
	db.search = map[string]*searchIndex{}
	db.mu.Unlock()
	for _, si := range old {
		si.release()
	}
}

// prepareSearch writes the merge of b into the graph's index as its next
// main generation, without naming it in the meta record (commitPrepared
// does that; discardPrepared removes it). The blob is streamed to its
// file: b's spilled runs, the current main index and the new file are
// read and written in key order, so memory does not grow with the number
// of labels. Nothing else may write the graph's labels meanwhile (a bulk
// load holds the write lock).
func (db *DB) prepareSearch(ctx context.Context, graph string, b *labelindex.Builder) (*preparedMain, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	old, err := db.acquire(graph)
	if err != nil {
		return nil, err
	}
	defer old.release()
	oldGen, oldSegs, _ := db.labelState(graph)
	return db.prepareMain(graph, oldGen, oldSegs, func(w io.Writer) error {
		return old.view.CompactContext(ctx, w, b)
	})
}

// preparedMain is a graph's next main label index: written, fsynced and
// opened, but not yet named in the graph's meta record. Until it is, the
// file is unused (a later Open removes it if the process dies).
type preparedMain struct {
	graph       string
	oldGen, gen uint64
	oldSegs     []string
	path        string
	si          *searchIndex
}

// prepareMain writes the graph's next main generation with write.
func (db *DB) prepareMain(graph string, oldGen uint64, oldSegs []string, write func(io.Writer) error) (*preparedMain, error) {
	gen := oldGen + 1
	path := db.mainFile(graph, gen)
	si, err := db.writeMain(path, gen, write)
	if err != nil {
		return nil, fmt.Errorf("write label index of graph %q: %w", graph, err)
	}
	return &preparedMain{graph: graph, oldGen: oldGen, gen: gen, oldSegs: oldSegs, path: path, si: si}, nil
}

// commitPrepared names a prepared main generation in the graph's meta
// record with its pair count, installs it and removes the files it
// replaces. On error the prepared index is discarded.
func (db *DB) commitPrepared(p *preparedMain) error {
	pairs := int64(p.si.view.MainPairs())
	err := db.bdb.Update(func(txn *badger.Txn) error {
		gm, err := db.graphByName(p.graph)
		if err != nil {
			return fmt.Errorf("graph %q is not registered: %w", p.graph, err)
		}
		gm.LabelGen, gm.LabelSegs, gm.Labels = p.gen, nil, pairs
		b, _ := json.Marshal(gm)
		return txn.Set([]byte(metaGraph+p.graph), b)
	})
	if err != nil {
		db.discardPrepared(p)
		return fmt.Errorf("label index of graph %q: %w", p.graph, err)
	}
	db.setLabelCount(p.graph, pairs)
	db.installSearch(p.graph, p.si)
	db.removeLabelFiles(db.oldLabelFiles(p.graph, p.oldGen, p.oldSegs)...)
	return nil
}

// discardPrepared drops a prepared main generation that will not be
// committed.
func (db *DB) discardPrepared(p *preparedMain) {
	p.si.release()
	db.removeLabelFiles(p.path)
}

// commitMain writes the graph's next main generation with write, names it
// in the meta record with its pair count, installs it and removes the
// files it replaces.
func (db *DB) commitMain(graph string, oldGen uint64, oldSegs []string, write func(io.Writer) error) error {
	p, err := db.prepareMain(graph, oldGen, oldSegs, write)
	if err != nil {
		return err
	}
	return db.commitPrepared(p)
}

// writeMain writes a main index file of generation gen with write and
// returns it opened, with one reference. The blob goes straight to the
// file (fsynced, then renamed into place) and is memory-mapped; an
// in-memory database keeps it in memory. On error nothing is left at path.
func (db *DB) writeMain(path string, gen uint64, write func(io.Writer) error) (*searchIndex, error) {
	if db.opts.InMemory {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return nil, err
		}
		idx, err := labelindex.Open(buf.Bytes())
		if err != nil {
			return nil, err
		}
		return newSearchIndex(labelindex.NewView(idx), gen, nil, nil), nil
	}
	if err := db.writeLabelFileWith(path, write); err != nil {
		return nil, err
	}
	si, err := db.openMain(path, gen)
	if err != nil {
		db.removeLabelFiles(path)
		return nil, err
	}
	return si, nil
}

// openMain opens a main index file: memory-mapped, or read into memory
// when it cannot be mapped.
func (db *DB) openMain(path string, gen uint64) (*searchIndex, error) {
	m, err := mapFile(path)
	if err == nil {
		idx, err := labelindex.Open(m.data)
		if err != nil {
			m.release()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return newSearchIndex(labelindex.NewView(idx), gen, nil, []*mapping{m}), nil
	}
	db.log.Warn("cannot map a label index file; keeping it in memory", "file", path, "err", err)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	idx, err := labelindex.Open(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return newSearchIndex(labelindex.NewView(idx), gen, nil, nil), nil
}

// labelBuildBudget is the memory a label index rebuild or compaction
// outside a bulk load keeps before it spills to temporary files.
const labelBuildBudget = 256 << 20

// labelScratch returns an empty spilling Builder for rebuilds and
// compactions outside a bulk load (labelSpill).
func (db *DB) labelScratch() *labelindex.Builder {
	return labelindex.NewSpillingBuilder(db.labelSpill())
}

// labelSpill bounds the memory of a label index rebuild or compaction
// outside a bulk load; its temporary files go in labelScratchDir.
func (db *DB) labelSpill() labelindex.SpillOptions {
	return labelindex.SpillOptions{Dir: db.labelScratchDir(), Budget: labelBuildBudget}
}

// labelScratchDir is where label index temporary files go: labels/ (named
// *.tmp, so an open after a crash removes them), or "" (the system's
// temporary directory) for an in-memory or read-only database.
func (db *DB) labelScratchDir() string {
	if db.opts.InMemory || db.opts.ReadOnly || os.MkdirAll(db.labelDir(), 0o755) != nil {
		return ""
	}
	return db.labelDir()
}

// oldLabelFiles lists the paths of a replaced generation and its segments.
func (db *DB) oldLabelFiles(graph string, gen uint64, segs []string) []string {
	out := []string{db.mainFile(graph, gen)}
	for _, s := range segs {
		out = append(out, filepath.Join(db.labelDir(), s))
	}
	return out
}

// writeLabelFile writes and fsyncs one small label file.
func (db *DB) writeLabelFile(path string, data []byte) error {
	return db.writeLabelFileWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeLabelFileWith streams one label file through write into path
// (writeFileAtomic), creating its directory; nothing in memory.
func (db *DB) writeLabelFileWith(path string, write func(io.Writer) error) error {
	if db.opts.InMemory {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, write)
}

func (db *DB) removeLabelFiles(paths ...string) {
	if db.opts.InMemory {
		return
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("cannot remove a label index file", "file", p, "err", err)
		}
	}
}

// stagedLabels is a label update of one graph written before the commit
// of an ApplyDeltas batch and installed after it.
type stagedLabels struct {
	graph string
	si    *searchIndex // installed after the commit
	file  string       // written by this batch
	old   []string     // replaced files to remove after the commit
}

// labelTouch is one (graph, subject, key) a batch may have changed.
type labelTouch struct {
	label, subj quad.Value
	key         string
}

// stageLabels resolves the label pairs the batch touched against the
// store as it is at the end of the batch (inside the transaction), writes
// them as a segment (or a new main generation) per graph, and records the
// files and the new pair counts in the graphs' meta records, which the
// caller writes in the same transaction. The caller must call
// installLabels after a successful commit and dropStagedLabels after a
// failed one.
func (u *updater) stageLabels(in []graph.Delta) error {
	byGraph := map[string][]labelTouch{}
	seen := map[string]bool{}
	for _, d := range in {
		name := ""
		if d.Quad.Label != nil {
			name = graphNameOf(d.Quad.Label)
		}
		gm := u.graphNamed(name, 0)
		cfg := defaultLabelConfig()
		if gm != nil {
			cfg = gm.LabelCfg
		}
		p := predicateName(d.Quad.Predicate)
		if !containsStr(cfg.Label, p) && !containsStr(cfg.Alias, p) {
			continue
		}
		key := labelindex.Normalize(literalText(d.Quad.Object))
		if key == "" {
			continue
		}
		k := name + "\x00" + quad.ToString(d.Quad.Subject) + "\x00" + key
		if !seen[k] {
			seen[k] = true
			byGraph[name] = append(byGraph[name], labelTouch{label: d.Quad.Label, subj: d.Quad.Subject, key: key})
		}
	}
	names := make([]string, 0, len(byGraph))
	for n := range byGraph {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := u.stageGraph(name, byGraph[name]); err != nil {
			return err
		}
	}
	return nil
}

// stageGraph stages the label update of one graph.
func (u *updater) stageGraph(name string, touches []labelTouch) error {
	db := u.db
	cur, err := db.acquire(name)
	if err != nil {
		return err
	}
	defer cur.release()
	view := cur.view
	gid, err := u.lookup(touches[0].label)
	if err != nil {
		return err
	}
	gm := u.graphNamed(name, gid)
	if gm == nil {
		return nil // the batch left no quad in the graph
	}
	add, del := labelindex.NewBuilder(), labelindex.NewBuilder()
	var change int64
	for _, t := range touches {
		now, err := u.lookup(t.subj)
		if err != nil {
			return err
		}
		before, err := db.committedTermID(t.subj)
		if err != nil {
			return err
		}
		ids := []uint64{now}
		if before != now {
			ids = append(ids, before) // dropped (and maybe re-created) in this batch
		}
		for _, id := range ids {
			if id == 0 {
				continue
			}
			live := false
			// A named graph whose label term the batch dropped has no
			// quads left, so no labels either.
			if id == now && (gid != 0 || name == "") {
				if live, err = u.hasLabelKey(id, gid, gm, t.key); err != nil {
					return err
				}
			}
			if view.Has(t.key, id) == live {
				continue
			}
			if live {
				add.AddKey(t.key, id)
				change++
			} else {
				del.AddKey(t.key, id)
				change--
			}
		}
	}
	if add.Len()+del.Len() == 0 {
		return nil
	}
	var sb bytes.Buffer
	if err := labelindex.WriteSegment(&sb, add, del); err != nil {
		return err
	}
	seg, err := labelindex.OpenSegment(sb.Bytes())
	if err != nil {
		return err
	}
	st := stagedLabels{graph: name}
	next := view.With(seg)
	gen, segs := gm.LabelGen, gm.LabelSegs
	if next.Segments() > maxSegments || next.SegmentPairs() > max(minCompactPairs, next.MainPairs()/8) {
		st.old = db.oldLabelFiles(name, gm.LabelGen, gm.LabelSegs)
		gen, segs = gm.LabelGen+1, nil
		st.file = db.mainFile(name, gen)
		// Streamed to the file: the main index is never copied into memory.
		st.si, err = db.writeMain(st.file, gen, func(w io.Writer) error {
			return next.CompactSpilling(context.Background(), w, db.labelSpill())
		})
	} else {
		segs = append(slices.Clone(gm.LabelSegs), segFile(name, gm.LabelGen, len(gm.LabelSegs)+1))
		st.file = filepath.Join(db.labelDir(), segs[len(segs)-1])
		if err = db.writeLabelFile(st.file, sb.Bytes()); err == nil {
			// The new view reads the current one's mapped main file too.
			st.si = newSearchIndex(next, gen, segs, retainAll(cur.maps))
		}
	}
	if err != nil {
		return fmt.Errorf("write label index of graph %q: %w", name, err)
	}
	gm.LabelGen, gm.LabelSegs = gen, segs
	gm.Labels += change
	u.staged = append(u.staged, st)
	return nil
}

// lookup returns the term id of v in the transaction (0: absent).
func (u *updater) lookup(v quad.Value) (uint64, error) {
	if v == nil {
		return 0, nil
	}
	return u.intern(v, false)
}

// committedTermID returns the term id of v before the running batch (0:
// absent); the caller holds the write lock, so the latest committed state
// is the state before the batch.
func (db *DB) committedTermID(v quad.Value) (uint64, error) {
	var id uint64
	err := db.bdb.View(func(txn *badger.Txn) (err error) {
		id, _, err = db.termID(txn, v)
		return err
	})
	return id, err
}

// graphNamed finds the batch's record of a graph by name, preferring the
// one whose label term is gid.
func (u *updater) graphNamed(name string, gid uint64) *GraphMeta {
	if gm, ok := u.graphs[gid]; ok && gm.Name == name {
		return gm
	}
	var found *GraphMeta
	for _, gm := range u.graphs {
		if gm.Name == name && (found == nil || gm.Quads > found.Quads) {
			found = gm
		}
	}
	return found
}

// hasLabelKey reports whether node id has, in graph gid, a label or alias
// whose normalized text is key.
func (u *updater) hasLabelKey(id, gid uint64, gm *GraphMeta, key string) (bool, error) {
	for _, p := range append(slices.Clone(gm.LabelCfg.Label), gm.LabelCfg.Alias...) {
		pid, err := u.lookup(quad.IRI(p))
		if err != nil || pid == 0 {
			if err != nil {
				return false, err
			}
			continue
		}
		vals, err := readList(u.txn, u.db.segments(), groupKey(nil, spaceSPO, id, pid, gid), nil)
		if err != nil {
			return false, err
		}
		for _, v := range vals {
			t, err := u.db.term(u.txn, v)
			if err != nil {
				return false, err
			}
			if labelindex.Normalize(literalText(t)) == key {
				return true, nil
			}
		}
	}
	return false, nil
}

// installLabels makes the staged views current after the commit and
// removes the files they replaced.
func (u *updater) installLabels() {
	for _, st := range u.staged {
		u.db.installSearch(st.graph, st.si)
		u.db.removeLabelFiles(st.old...)
	}
	u.staged = nil
}

// dropStagedLabels removes the files staged for a batch that did not
// commit.
func (u *updater) dropStagedLabels() {
	for _, st := range u.staged {
		st.si.release()
		u.db.removeLabelFiles(st.file)
	}
	u.staged = nil
}

// rebuildView builds a graph's label index from the store: every label
// and alias quad of the graph, collected by a spilling Builder. It serves
// a database whose label files cannot be written or read: the index is
// written to an unnamed scratch file and memory-mapped (the returned
// mapping), so a read-only open of a large graph does not hold its index
// in the heap; an in-memory database keeps it in memory.
func (db *DB) rebuildView(ctx context.Context, graph string) (*labelindex.View, []*mapping, error) {
	b, err := db.storedLabels(ctx, graph)
	defer b.Close()
	if err != nil {
		return nil, nil, err
	}
	if db.opts.InMemory {
		var buf bytes.Buffer
		if err := labelindex.MergeContext(ctx, &buf, nil, b); err != nil {
			return nil, nil, err
		}
		idx, err := labelindex.Open(buf.Bytes())
		if err != nil {
			return nil, nil, err
		}
		return labelindex.NewView(idx), nil, nil
	}
	m, err := db.mapScratchIndex(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	idx, err := labelindex.Open(m.data)
	if err != nil {
		m.release()
		return nil, nil, err
	}
	return labelindex.NewView(idx), []*mapping{m}, nil
}

// mapScratchIndex writes the index of b's labels to a temporary file (in
// labelScratchDir), maps it and removes its name: the pages stay on disk,
// not in the heap, and the file goes away with the last reference or the
// process.
func (db *DB) mapScratchIndex(ctx context.Context, b *labelindex.Builder) (*mapping, error) {
	f, err := os.CreateTemp(db.labelScratchDir(), "rebuild-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("label index rebuild: %w", err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := labelindex.MergeContext(ctx, w, nil, b); err != nil {
		return nil, fmt.Errorf("label index rebuild: %w", err)
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("label index rebuild: write %s: %w", f.Name(), err)
	}
	return mapFile(f.Name())
}

// storedLabels collects every label and alias quad of a graph in the
// store into a spilling Builder, which the caller must Close.
func (db *DB) storedLabels(ctx context.Context, graph string) (*labelindex.Builder, error) {
	b := db.labelScratch()
	gm, missing := db.graphByName(graph)
	if missing != nil {
		return b, nil // an unregistered graph has no labels
	}
	err := db.view(ctx, func(txn *badger.Txn) error {
		for _, p := range append(slices.Clone(gm.LabelCfg.Label), gm.LabelCfg.Alias...) {
			if err := db.addStoredLabels(txn, b, gm.Label, p); err != nil {
				return err
			}
		}
		return b.Err()
	})
	if err != nil {
		return b, fmt.Errorf("rebuild label index of graph %q: %w", graph, err)
	}
	return b, nil
}

// addStoredLabels adds to b the objects of every quad of predicate p in
// graph g.
func (db *DB) addStoredLabels(txn *badger.Txn, b *labelindex.Builder, g uint64, p string) error {
	pid, found, err := db.termID(txn, quad.IRI(p))
	if err != nil || !found {
		return err
	}
	subjects, err := readList(txn, db.segments(), predKey(nil, pid, g), nil)
	if err != nil {
		return err
	}
	for _, s := range subjects {
		vals, err := readList(txn, db.segments(), groupKey(nil, spaceSPO, s, pid, g), nil)
		if err != nil {
			return err
		}
		for _, v := range vals {
			t, err := db.term(txn, v)
			if err != nil {
				return err
			}
			b.Add(literalText(t), s)
		}
		if err := b.Err(); err != nil {
			return err // a failed spill: stop before the pairs pile up in memory
		}
	}
	return nil
}

// checkLabelFiles runs on open, without loading any index: it rebuilds
// (and, when writable, rewrites) the index of every graph whose named
// label files are missing (a generation-0 main file is not missing when the
// segments hold every label, see segmentsHoldAll), and removes label files
// that no graph names
// (left by a batch that died before its commit, or replaced by a later
// generation). Corrupt files are found, and rebuilt into a scratch file,
// when first loaded.
func (db *DB) checkLabelFiles(ctx context.Context) error {
	if db.opts.InMemory {
		return nil
	}
	live := map[string]bool{}
	for _, g := range db.GraphMetas() {
		files := db.oldLabelFiles(g.Name, g.LabelGen, g.LabelSegs)
		missing := false
		for i, f := range files {
			if _, err := os.Stat(f); err != nil {
				// A missing generation-0 main file is an empty index when
				// the segments hold every label: a graph whose labels were
				// only ever written by ApplyDeltas has no main file.
				missing = missing || i > 0 || g.LabelGen > 0 || g.Labels > 0 && !db.segmentsHoldAll(g)
				continue
			}
			live[filepath.Base(f)] = true
		}
		if g.LabelGen == 0 && g.Labels == 0 && live[filepath.Base(files[0])] {
			// Written before label counts were kept: read the count
			// from the file's header once.
			if n, err := labelindex.ReadPairCount(files[0]); err == nil {
				db.setLabelCount(g.Name, n)
			}
		}
		if !missing {
			continue
		}
		if db.opts.ReadOnly {
			db.log.Warn("label index files missing: rebuilding the index from the store in memory, for this process "+
				"only (the database is open read-only; a writable open, e.g. grove optimize, rebuilds the files)", "graph", g.Name)
			view, maps, err := db.rebuildView(ctx, g.Name)
			if err != nil {
				return err
			}
			db.installSearch(g.Name, newSearchIndex(view, g.LabelGen, g.LabelSegs, maps))
			db.setLabelCount(g.Name, int64(view.MainPairs()))
			continue
		}
		db.log.Warn("label index files missing: rebuilding the index from the store", "graph", g.Name)
		if err := db.rewriteFromStore(ctx, g); err != nil {
			return err
		}
		gen, _, _ := db.labelState(g.Name)
		live[filepath.Base(db.mainFile(g.Name, gen))] = true
	}
	if db.opts.ReadOnly {
		return nil
	}
	entries, err := os.ReadDir(db.labelDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("label indexes: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if !live[n] && (strings.HasSuffix(n, ".idx") || strings.HasSuffix(n, ".seg") || strings.HasSuffix(n, ".tmp")) {
			db.removeLabelFiles(filepath.Join(db.labelDir(), n))
		}
	}
	return nil
}

// segmentsHoldAll reports whether the segments of a graph's label index
// account for all its labels (g.Labels, the pairs the segments add less
// those they delete), so that its generation-0 main index is empty, which
// is the state ApplyDeltas leaves a graph in until it compacts the
// segments into generation 1. A main file lost under segments does not
// add up (unless it held no pairs, when nothing was lost). Segments are
// small: without a main index they hold at most about minCompactPairs
// pairs between them.
func (db *DB) segmentsHoldAll(g GraphMeta) bool {
	if g.LabelGen != 0 || len(g.LabelSegs) == 0 {
		return false
	}
	var n int64
	for _, name := range g.LabelSegs {
		data, err := os.ReadFile(filepath.Join(db.labelDir(), name))
		if err != nil {
			return false
		}
		seg, err := labelindex.OpenSegment(data)
		if err != nil {
			return false
		}
		n += int64(seg.Adds()) - int64(seg.Deletes())
	}
	return n == g.Labels
}

// rewriteFromStore writes a new main generation of a graph's index from
// the label quads in the store, streamed to its file.
func (db *DB) rewriteFromStore(ctx context.Context, g GraphMeta) error {
	b, err := db.storedLabels(ctx, g.Name)
	defer b.Close()
	if err != nil {
		return err
	}
	return db.commitMain(g.Name, g.LabelGen, g.LabelSegs, func(w io.Writer) error {
		return labelindex.MergeContext(ctx, w, nil, b)
	})
}

func (db *DB) setLabelCount(graph string, n int64) {
	db.mu.Lock()
	if g, ok := db.graphs[graph]; ok {
		g.Labels = n
	}
	db.mu.Unlock()
}
