package engine

import (
	"cmp"
	"slices"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// An unfinished bulk load (Interrupted) leaves its keys in the database:
// node-block groups of its graphs, in node blocks shared with the stored
// graphs, and dictionary entries of its new terms. Until it is re-run,
// reads hide them, so that they answer as before the load: a loadFilter,
// set while a load is unfinished, drops the groups of every graph that is
// not registered (no GraphMeta: the graphs the load was creating) and the
// terms the load numbered (ids in the ranges its runs reserved,
// Interrupted.Ranges). What it cannot tell
// apart — edges the load added to a graph that was already registered —
// stays visible (see DB.Warnings).
//
// The filter is immutable and replaced whole (DB.setLoadFilter) when the
// graph registry or the marker changes; readers load it once per call
// without a lock. With no unfinished load it is nil and costs one nil
// check per group.
type loadFilter struct {
	// graphs are the label ids of the registered graphs.
	graphs map[uint64]struct{}
	// ranges are the term ids the load's runs reserved, ascending and
	// disjoint (Interrupted.Ranges).
	ranges []IDRange
}

// setLoadFilter rebuilds the filter from db.interrupted and db.byLabel;
// the caller holds db.mu or is opening the database.
func (db *DB) setLoadFilter() {
	in := db.interrupted
	if in == nil {
		db.hide.Store(nil)
		return
	}
	f := &loadFilter{graphs: make(map[uint64]struct{}, len(db.byLabel)), ranges: in.Ranges}
	for g := range db.byLabel {
		f.graphs[g] = struct{}{}
	}
	db.hide.Store(f)
}

// markerRanges are the term id ranges the load records in its marker:
// those of the unfinished load it re-runs, whose terms it numbers again,
// and its own, from the database's next id when it began to the next id
// after its terms.
func (l *Loader) markerRanges() []IDRange {
	return addRange(slices.Clone(l.earlier), IDRange{l.firstID, l.nextID})
}

// loadFilter returns the filter of the unfinished bulk load, or nil.
func (db *DB) loadFilter() *loadFilter { return db.hide.Load() }

// hidesGraph reports whether groups of graph g are hidden (false on nil).
func (f *loadFilter) hidesGraph(g uint64) bool {
	if f == nil {
		return false
	}
	_, ok := f.graphs[g]
	return !ok
}

// hidesTerm reports whether term id was numbered by the unfinished load
// (false on nil).
func (f *loadFilter) hidesTerm(id uint64) bool {
	return f != nil && inRanges(f.ranges, id)
}

// inRanges reports whether id is in one of the ascending, disjoint
// ranges rs.
func inRanges(rs []IDRange, id uint64) bool {
	i, _ := slices.BinarySearchFunc(rs, id, func(r IDRange, id uint64) int { return cmp.Compare(r.End, id+1) })
	return i < len(rs) && rs[i].Start <= id
}

// visibleGroups drops the groups of hidden graphs from gs, in place.
func (f *loadFilter) visibleGroups(gs []groupInfo) []groupInfo {
	if f == nil {
		return gs
	}
	return slices.DeleteFunc(gs, func(gi groupInfo) bool { return f.hidesGraph(gi.g) })
}

// visibleEntries drops the entries of hidden graphs from es, in place.
func (f *loadFilter) visibleEntries(es []sumEntry) []sumEntry {
	if f == nil {
		return es
	}
	return slices.DeleteFunc(es, func(e sumEntry) bool { return f.hidesGraph(e.g) })
}

// The read paths of the KG interface and of Cayley's iterators read node
// blocks through the methods below, which apply the filter; writers
// (updates, label index builds, recounts) read them unfiltered.

// readSummary is readSummary over the visible graphs.
func (db *DB) readSummary(txn *badger.Txn, space byte, id uint64) ([]sumEntry, error) {
	es, err := readSummary(txn, db.segments(), space, id)
	return db.loadFilter().visibleEntries(es), err
}

// nodeGroups is nodeGroups over the visible graphs.
func (db *DB) nodeGroups(txn *badger.Txn, space byte, id uint64, fn func(groupInfo) error) error {
	f := db.loadFilter()
	return nodeGroups(txn, db.segments(), space, id, func(gi groupInfo) error {
		if f.hidesGraph(gi.g) {
			return nil
		}
		return fn(gi)
	})
}

// relationGroups is relationGroups over the visible graphs.
func (db *DB) relationGroups(txn *badger.Txn, space byte, id, p uint64) ([]groupInfo, error) {
	gs, err := relationGroups(txn, db.segments(), space, id, p)
	return db.loadFilter().visibleGroups(gs), err
}

// groupCounts is groupCounts over the visible graphs.
func (db *DB) groupCounts(txn *badger.Txn, id uint64, spaces ...byte) ([]groupInfo, error) {
	gs, err := groupCounts(txn, db.segments(), id, spaces...)
	return db.loadFilter().visibleGroups(gs), err
}

// visibleTermID is termID for readers: a term the unfinished load
// numbered is not found.
func (db *DB) visibleTermID(txn *badger.Txn, v quad.Value) (uint64, bool, error) {
	id, ok, err := db.termID(txn, v)
	if ok && db.loadFilter().hidesTerm(id) {
		return 0, false, nil
	}
	return id, ok, err
}

// reserved reports whether a stored term id was numbered by an unfinished
// load, whose id blocks may be missing: one the load re-runs (its
// ranges), or one stored above the committed counter (a load of this
// handle that failed before its meta keys). Ids other writers took
// between the runs are neither.
func (l *Loader) reserved(id uint64) bool {
	return id >= l.metaNext || inRanges(l.earlier, id)
}
