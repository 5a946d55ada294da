package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// Node deletes (Cayley's node/delete: every quad a node is part of).
//
// DeleteNode reads a node's quads and deletes them while it holds the
// write lock, so no other write comes between the reading and the
// deleting. A node with up to nodeDeleteAtomic quads whose deletes fit in
// one Badger transaction is deleted in one: entirely or not at all. A
// larger node cannot be, since Badger bounds a transaction; it is deleted
// in parts, each a transaction that leaves every count consistent, and the
// unfinished delete is recorded under a meta key of its own
// (md<sha256(term)>), set by every part but the last and removed by the
// last. A delete stopped between parts (cancelled, a part failing, the
// process killed) is therefore never silent: DeleteNode's error says so,
// UnfinishedNodeDeletes lists the record on every later open (grove stats,
// grove serve's log), and running the same delete again finishes it and
// removes the record.
const (
	metaNodeDelete = "md" // + sha256 of the node's term encoding

	// nodeDeleteAtomic is the most quads DeleteNode tries to delete in
	// one transaction (a film-sized hub of 45k quads takes about 1s and
	// fits within Badger's limits at the 64 MiB memtable); a node with
	// more is deleted in parts from the start.
	nodeDeleteAtomic = 1 << 16
	// nodeDeletePart is the size of one part of a larger delete.
	nodeDeletePart = 1 << 14
)

// NodeDeleteRecord is the record of a node delete that did not finish.
type NodeDeleteRecord struct {
	// Node is the node, in N-Quads notation (<iri>, _:name or a literal).
	Node string `json:"node"`
	// Deleted is the number of its quads deleted when the record was last
	// written (by the run that wrote it).
	Deleted int `json:"deleted"`
}

// ErrNodeDeleteUnfinished is wrapped by the error of a node delete stopped
// between two of its transactions (see DeleteNode).
var ErrNodeDeleteUnfinished = errors.New("the node delete did not finish")

// DeleteNode deletes every quad in which v appears, in any position
// (subject, predicate, object or graph label), and returns how many it
// deleted. An unknown node, or one in no quad, is an error wrapping
// graph.ErrNodeNotExists. It is atomic for nodes of up to
// nodeDeleteAtomic quads; see the comment above for larger ones. On an
// error after some quads were deleted, the count says how many, and the
// error says the delete was recorded as unfinished.
func (db *DB) DeleteNode(ctx context.Context, v quad.Value) (int, error) {
	if db.opts.ReadOnly {
		return 0, errors.New("delete node: database is read-only")
	}
	if v == nil {
		return 0, fmt.Errorf("delete node: no node: %w", graph.ErrNodeNotExists)
	}
	enc, err := encodeTerm(nil, v)
	if err != nil {
		return 0, fmt.Errorf("delete node %s: %w", v, err)
	}
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	var id uint64
	var found bool
	if err := db.bdb.View(func(txn *badger.Txn) (err error) {
		id, found, err = db.termID(txn, v)
		return err
	}); err != nil {
		return 0, fmt.Errorf("delete node %s: %w", v, err)
	}
	key := nodeDeleteKey(enc)
	recorded, err := db.hasRecord(key)
	if err != nil {
		return 0, fmt.Errorf("delete node %s: %w", v, err)
	}
	if !found {
		if recorded {
			// An earlier run deleted the last quads and died before the
			// record went; nothing is left to delete.
			return 0, db.dropRecord(key, "a node delete")
		}
		return 0, fmt.Errorf("delete node %s: %w", v, graph.ErrNodeNotExists)
	}
	record := func(deleted int) func(*badger.Txn) error {
		return setRecord(key, NodeDeleteRecord{Node: quad.StringOf(v), Deleted: deleted})
	}
	finish := func(txn *badger.Txn) error { return txn.Delete(key) }
	deleted, parts := 0, 0
	size := cmp.Or(db.nodeDeleteSize, nodeDeleteAtomic)
	for {
		if err := ctxErr(ctx); err != nil {
			return deleted, db.stoppedNodeDelete(v, deleted, parts, err)
		}
		qs, more, err := db.nodeQuadsUpTo(ctx, id, size)
		if err != nil {
			return deleted, db.stoppedNodeDelete(v, deleted, parts, err)
		}
		if len(qs) == 0 {
			if deleted == 0 && !recorded {
				return 0, fmt.Errorf("delete node %s: %w", v, graph.ErrNodeNotExists)
			}
			// Quads all gone without a last part (a record of an earlier run).
			if err := db.dropRecord(key, "a node delete"); err != nil {
				return deleted, err
			}
			return deleted, nil
		}
		ds := make([]graph.Delta, len(qs))
		for i, q := range qs {
			ds[i] = graph.Delta{Quad: q, Action: graph.Delete}
		}
		extra := finish
		if more {
			extra = record(deleted + len(qs))
		}
		err = db.applyDeltas(ctx, ds, graph.IgnoreOpts{}, extra)
		if errors.Is(err, store.ErrTooBig) && size > 1 {
			size /= 2 // a part that does not fit: take smaller ones
			continue
		}
		if err != nil {
			return deleted, db.stoppedNodeDelete(v, deleted, parts, err)
		}
		deleted += len(qs)
		parts++
		if !more {
			return deleted, nil
		}
		size = min(size, cmp.Or(db.nodeDeleteSize, nodeDeletePart))
	}
}

// stoppedNodeDelete is the error of a node delete stopped by err after
// deleting some quads in parts transactions.
func (db *DB) stoppedNodeDelete(v quad.Value, deleted, parts int, err error) error {
	if parts == 0 {
		return fmt.Errorf("delete node %s: %w", v, err)
	}
	db.log.Warn("node delete stopped part-way", "node", quad.StringOf(v), "deleted", deleted, "err", err)
	return fmt.Errorf("delete node %s: %w: %d of its quads were deleted in %d transactions "+
		"(it has too many quads for one; the rest are stored, every count is consistent, "+
		"and the unfinished delete is recorded: delete the node again to finish): %w",
		v, ErrNodeDeleteUnfinished, deleted, parts, err)
}

// nodeQuadsUpTo reads up to n distinct quads with node id in any position
// and reports whether it has more.
func (db *DB) nodeQuadsUpTo(ctx context.Context, id uint64, n int) ([]quad.Quad, bool, error) {
	seen := map[quadRef]bool{}
	var refs []quadRef
	for _, d := range quad.Directions {
		it := db.QuadIterator(d, nodeRef(id)).Iterate()
		for len(refs) <= n && it.Next(ctx) {
			r, ok := it.Result().(quadRef)
			if !ok {
				it.Close()
				return nil, false, fmt.Errorf("quad iterator returned %T", it.Result())
			}
			if !seen[r] {
				seen[r] = true
				refs = append(refs, r)
			}
		}
		err := it.Err()
		it.Close()
		if err == nil {
			err = ctxErr(ctx) // an iterator may end early on a cancelled ctx
		}
		if err != nil {
			return nil, false, err
		}
		if len(refs) > n {
			break
		}
	}
	more := len(refs) > n
	refs = refs[:min(n, len(refs))]
	qs := make([]quad.Quad, len(refs))
	for i, r := range refs {
		q, err := db.Quad(r)
		if err != nil {
			return nil, false, err
		}
		qs[i] = q
	}
	return qs, more, nil
}

// nodeDeleteKey is the key of the record of an unfinished delete of the
// node whose term encodes as enc.
func nodeDeleteKey(enc []byte) []byte {
	sum := sha256.Sum256(enc)
	return append([]byte(metaNodeDelete), sum[:]...)
}

// UnfinishedNodeDeletes lists the node deletes that stopped part-way (see
// DeleteNode), by node.
func (db *DB) UnfinishedNodeDeletes() ([]NodeDeleteRecord, error) {
	out, err := listRecords[NodeDeleteRecord](db, metaNodeDelete, "node delete")
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b NodeDeleteRecord) int { return strings.Compare(a.Node, b.Node) })
	return out, nil
}
