package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// finish runs after the keys are flushed: it repairs the counters if an
// earlier load was interrupted, commits the label indexes, removes the
// marker and refreshes the in-memory state.
func (l *Loader) finish(lb *labelBuild) (int64, error) {
	db := l.db
	if l.startOver {
		// The interrupted load's term ids were dropped with its keys and
		// this load numbered its terms anew: cached terms may be stale.
		db.terms.Clear()
		db.labels.Clear()
	}
	if err := db.reloadMeta(); err != nil {
		return 0, err
	}
	if db.Interrupted() != nil {
		// The counters of the interrupted load may or may not have been
		// written: recompute them from the indexes.
		if err := db.recount(); err != nil {
			return 0, fmt.Errorf("recount after interrupted load: %w", err)
		}
		if err := db.reloadMeta(); err != nil {
			return 0, err
		}
	}
	if err := lb.commit(db); err != nil {
		return 0, err
	}
	if !db.opts.InMemory {
		err := os.Remove(filepath.Join(db.dir, markerFile))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("remove ingest marker: %w", err)
		}
	}
	db.mu.Lock()
	db.interrupted = nil
	db.setLoadFilter()
	db.mu.Unlock()
	return l.nlabels, nil
}

// reloadMeta re-reads the meta keys and drops the caches that writes can
// make stale (labels, relation labels, degrees). Term ids never change, so
// the term cache stays; search indexes are replaced graph by graph by the
// writes that change them.
func (db *DB) reloadMeta() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.graphs = map[string]*GraphMeta{}
	db.byLabel = map[uint64]*GraphMeta{}
	db.preds.invalidate(db.readFloor()) // and the label and degree caches
	interrupted := db.interrupted
	if err := db.loadMeta(); err != nil {
		return err
	}
	db.interrupted = interrupted
	db.setLoadFilter()
	return nil
}

// recount recomputes the exact stats from the indexes: quads per graph from
// the subjects' node blocks, relations per graph from the P lists.
func (db *DB) recount() error {
	return db.bdb.Update(func(txn *badger.Txn) error {
		quads := map[uint64]int64{}
		rels := map[uint64]int64{}
		err := scanSummaries(txn, db.segments(), spaceSPO, func(_ uint64, es []sumEntry) error {
			for _, e := range es {
				quads[e.g] += e.count
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := scanPredGroups(txn, func(p, g uint64) { rels[g]++ }); err != nil {
			return err
		}
		var nodes int64
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{spaceID}})
		for it.Rewind(); it.Valid(); it.Next() {
			err := it.Item().Value(func(v []byte) error {
				s, err := decodeIDBlock(v)
				nodes += int64(s.count())
				return err
			})
			if err != nil {
				it.Close()
				return fmt.Errorf("id block %x: %w", it.Item().Key(), err)
			}
		}
		it.Close()
		return db.writeCounts(txn, quads, rels, nodes)
	})
}

func (db *DB) writeCounts(txn *badger.Txn, quads, rels map[uint64]int64, nodes int64) error {
	db.mu.RLock()
	graphs := slices.Collect(func(yield func(GraphMeta) bool) {
		for _, g := range db.graphs {
			if !yield(*g) {
				return
			}
		}
	})
	db.mu.RUnlock()
	st := Stats{Nodes: nodes}
	for _, g := range graphs {
		g.Quads, g.Relations = quads[g.Label], rels[g.Label]
		st.Quads += g.Quads
		b, _ := json.Marshal(g)
		if err := txn.Set([]byte(metaGraph+g.Name), b); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(st)
	return txn.Set(metaStats, b)
}

// scanPredGroups visits every (p, g) of the P index.
func scanPredGroups(txn *badger.Txn, fn func(p, g uint64)) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{spacePred}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		p, g, chunk, ok := splitPred(it.Item().Key())
		if !ok {
			return fmt.Errorf("corrupt predicate key %x", it.Item().Key())
		}
		if chunk == 0 {
			fn(p, g)
		}
	}
	return nil
}
