package engine

import (
	"encoding/binary"
	"slices"
	"sync/atomic"
)

// Node-block segments. A bulk load into a database that already holds
// other graphs used to rewrite every stored node block it touched (the
// new graph's groups merged in), and Badger then merged those blocks with
// the stored ones to drop the stale copies: for a second graph sharing
// the first one's entities, a rewrite of every node block, twice. So the
// node blocks are split into segments by graph:
//
//	R<S|O><id>        segment 0 (every database before format 4)
//	R<s|o><k><id>     segment k, 1 <= k < maxBlockSegments
//
// Every graph lives in one segment (GraphMeta.Segment; 0 unless a bulk
// load put it elsewhere), so a node's groups are the union of its blocks
// in the segments in use, which never share a (p, g) group. A bulk load
// whose graphs are all new, into a database that is not empty, writes
// them into a segment of their own when it is large enough
// (Options.SegmentMinQuads, default segmentMinQuads) and a segment is free: its node blocks land in a key
// range no stored table covers, the stored blocks are neither read nor
// rewritten, and the compaction that follows only moves the new tables
// down. Any other load routes each group to its graph's segment, merged
// with the blocks stored there as before (blockmerge.go), and ApplyDeltas
// edits the block of the group's segment (overlay.go).
//
// Reads pay one point read per segment in use (readBlock): a lookup that
// misses (the node has no groups there) is mostly answered by the bloom
// filter, one that hits fetches another table block, and several blocks
// are read as one by a merged reader (1.1-1.6x the one-segment latency at
// p50 where every node is in two segments; BENCHMARKS.md). So segments are
// capped at maxBlockSegments and only loads of at least segmentMinQuads
// get one, and MergeSegments (segmerge.go) merges them back into segment
// 0 when the user chooses to pay the rewrite. The posting lists (S, O, P keys) and the
// dictionary are not segmented: their keys name the graph or hold no
// per-graph data.
const (
	maxBlockSegments = 8
	segmentMinQuads  = 1 << 20
	// formatSegments is the format version of a database with a segment
	// other than 0; formatVersion (3) databases have only segment 0 and
	// are still written as 3, so older builds keep reading them.
	formatSegments = 4
)

// blockSpace is the second key byte of a direction's node blocks in seg.
func blockSpace(space byte, seg uint8) byte {
	if seg == 0 {
		return space
	}
	return space + ('a' - 'A')
}

// appendBlockKey appends the node block key of id in space and seg to dst.
func appendBlockKey(dst []byte, space byte, seg uint8, id uint64) []byte {
	dst = append(dst, spaceSummary, blockSpace(space, seg))
	if seg > 0 {
		dst = append(dst, seg)
	}
	return binary.BigEndian.AppendUint64(dst, id)
}

// blockPrefix is the prefix of every node block of space in seg.
func blockPrefix(space byte, seg uint8) []byte {
	p := []byte{spaceSummary, blockSpace(space, seg)}
	if seg > 0 {
		p = append(p, seg)
	}
	return p
}

// splitBlockKey decodes a node block key: its direction (S or O), segment
// and node.
func splitBlockKey(k []byte) (space byte, seg uint8, id uint64, ok bool) {
	switch {
	case len(k) == 2+idLen && k[0] == spaceSummary && (k[1] == spaceSPO || k[1] == spaceOPS):
		return k[1], 0, getID(k[2:]), true
	case len(k) == 3+idLen && k[0] == spaceSummary && k[2] > 0 && k[2] < maxBlockSegments &&
		(k[1] == blockSpace(spaceSPO, k[2]) || k[1] == blockSpace(spaceOPS, k[2])):
		return k[1] - (blockSpace(spaceSPO, 1) - spaceSPO), k[2], getID(k[3:]), true
	}
	return 0, 0, 0, false
}

// segments is the number of node-block segments a read must look in:
// one more than the highest segment of a registered graph, or of an
// interrupted load, when the database was opened or since. It only grows
// while the database is open, and is raised before a load's blocks
// become visible; a merge (segmerge.go) does not lower it, since a reader
// that read it after the merge could hold a snapshot from before.
func (db *DB) segments() uint8 {
	return uint8(db.segs.Load())
}

// segmentsUsed is the number of segments the stored graphs use: segments
// until a merge empties all but segment 0.
func (db *DB) segmentsUsed() uint8 {
	return uint8(db.used.Load())
}

// useSegment makes reads look in seg from now on.
func (db *DB) useSegment(seg uint8) {
	for _, n := range []*atomic.Int32{&db.segs, &db.used} {
		for {
			c := n.Load()
			if int32(seg) < c || n.CompareAndSwap(c, int32(seg)+1) {
				break
			}
		}
	}
}

// format is the format version to store: 4 once a segment other than 0
// is in use.
func (db *DB) format() uint64 {
	if db.segmentsUsed() > 1 {
		return formatSegments
	}
	return formatVersion
}

// chooseSegment picks the node-block segment of the load's new graphs
// (segment.go) and makes reads look in it. Into an empty database: 0. A
// load naming a stored graph (Graph, or a --graph-file graph) joins that
// graph's segment; re-running an interrupted load reuses the segment it
// recorded. Otherwise a large enough load gets a new segment while fewer
// than maxBlockSegments are in use; a small one, or one past the cap,
// joins the newest segment, merged with its blocks.
func (l *Loader) chooseSegment(fresh bool) {
	db := l.db
	db.mu.RLock()
	l.known = make(map[string]uint8, len(db.graphs))
	for n, g := range db.graphs {
		l.known[n] = g.Segment
	}
	in := db.interrupted
	db.mu.RUnlock()
	segs := db.segmentsUsed()
	l.newSeg = l.pickSegment(fresh, in)
	l.segGraphs = nil
	if l.newSeg > 0 {
		// Sorted and distinct: ApplyDeltas searches it (updater.graph).
		for _, name := range l.names {
			if _, ok := l.known[name]; !ok {
				l.segGraphs = append(l.segGraphs, name)
			}
		}
		slices.Sort(l.segGraphs)
		l.segGraphs = slices.Compact(l.segGraphs)
	}
	db.useSegment(l.newSeg)
	if !fresh {
		db.log.Info("bulk load node blocks", "graph", l.opts.Graph, "segment", l.newSeg,
			"new_segment", l.newSeg >= segs, "segments", db.segmentsUsed())
	}
}

func (l *Loader) pickSegment(fresh bool, in *Interrupted) uint8 {
	if fresh {
		return 0
	}
	if s, ok := l.known[l.opts.Graph]; ok {
		return s
	}
	for _, name := range l.opts.FileGraphs {
		if s, ok := l.known[name]; ok {
			return s
		}
	}
	if in != nil {
		// Segment 0 too: an interrupted load into an empty database wrote
		// there, and a re-run in a new segment would leave those blocks
		// beside its own (counted twice). Markers older than segments
		// record none, and their loads wrote segment 0 as well.
		return in.Segment
	}
	segs := l.db.segmentsUsed()
	least := l.db.opts.SegmentMinQuads
	if least == 0 {
		least = segmentMinQuads
	}
	if least > 0 && l.read >= least && segs < maxBlockSegments {
		return segs
	}
	return segs - 1
}

// segmentOf returns the function that gives the segment of a graph's
// groups by its label id during the write phase.
func (l *Loader) segmentOf() func(g uint64) uint8 {
	return func(g uint64) uint8 {
		if s, ok := l.known[l.names[g]]; ok {
			return s
		}
		return l.newSeg
	}
}
