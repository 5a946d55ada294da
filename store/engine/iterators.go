package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// quadShape is the set of quads having one node in one direction. Scanning
// reads the node's block (subjects, objects: inline groups directly, large
// groups chunk by chunk) or the P lists; a label has no index of its own,
// so it scans the subjects' node blocks and filters.
// Lookups never touch the database: a quad reference carries its ids.
type quadShape struct {
	db *DB
	d  quad.Direction
	id uint64
}

func (s *quadShape) String() string                 { return fmt.Sprintf("Grove(%v=%d)", s.d, s.id) }
func (s *quadShape) SubIterators() []iterator.Shape { return nil }
func (s *quadShape) Optimize(context.Context) (iterator.Shape, bool) {
	return s, false
}

func (s *quadShape) Iterate() iterator.Scanner {
	sc := &scanner{db: s.db}
	switch s.d {
	case quad.Subject, quad.Object:
		// One node block, in all segments, read as one: the quads come
		// in (p, g) order whatever the segments.
		sc.byNode, sc.node, sc.space = true, s.id, spaceSPO
		if s.d == quad.Object {
			sc.space = spaceOPS
		}
	case quad.Predicate:
		sc.prefixes, sc.fill = [][]byte{prefix1(spacePred, s.id)}, sc.fillPred
	case quad.Label:
		g := s.id
		sc.prefixes, sc.fill = allBlocks(s.db, spaceSPO), sc.fillBlock
		sc.keep = func(_, _, kg uint64) bool { return kg == g }
	default:
		sc.err = fmt.Errorf("invalid direction %v", s.d)
	}
	return sc
}

func (s *quadShape) Lookup() iterator.Index { return &quadIndex{d: s.d, id: s.id} }

func (s *quadShape) Stats(ctx context.Context) (iterator.Costs, error) {
	size, err := s.size()
	return iterator.Costs{ContainsCost: 1, NextCost: 1, Size: size}, err
}

// size counts the quads from the list headers: exact for subjects, objects
// and labels; for predicates the number of subjects having it (a lower
// bound that avoids reading the edges).
func (s *quadShape) size() (refs.Size, error) {
	var n int64
	exact := true
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		switch s.d {
		case quad.Subject, quad.Object:
			space := byte(spaceSPO)
			if s.d == quad.Object {
				space = spaceOPS
			}
			return s.db.nodeGroups(txn, space, s.id, func(gi groupInfo) error {
				n += gi.count
				return nil
			})
		case quad.Predicate:
			// The number of subjects having p: a lower bound, read from
			// the P list headers without touching the edges.
			exact = false
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix1(spacePred, s.id)})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if _, _, chunk, ok := splitPred(it.Item().Key()); ok && chunk == 0 {
					err := it.Item().Value(func(v []byte) error {
						c, err := chunkTotal(v)
						n += c
						return err
					})
					if err != nil {
						return err
					}
				}
			}
		case quad.Label:
			if name := s.db.graphName(s.id); name != "" {
				if gm, err := s.db.graphByName(name); err == nil {
					n = gm.Quads
				}
			}
		}
		return nil
	})
	return refs.Size{Value: n, Exact: exact}, err
}

// quadIndex checks membership by comparing the quad's own id.
type quadIndex struct {
	d   quad.Direction
	id  uint64
	cur refs.Ref
}

func (q *quadIndex) Contains(_ context.Context, r refs.Ref) bool {
	qr, ok := r.(quadRef)
	if ok && qr.dir(q.d) == q.id {
		q.cur = qr
		return true
	}
	q.cur = nil
	return false
}
func (q *quadIndex) String() string                 { return "GroveContains" }
func (q *quadIndex) TagResults(map[string]refs.Ref) {}
func (q *quadIndex) Result() refs.Ref               { return q.cur }
func (q *quadIndex) NextPath(context.Context) bool  { return false }
func (q *quadIndex) Err() error                     { return nil }
func (q *quadIndex) Close() error                   { return nil }

// allBlocks is the prefix of every node block of space, one per segment.
func allBlocks(db *DB, space byte) [][]byte {
	var ps [][]byte
	for seg := range db.segments() {
		ps = append(ps, blockPrefix(space, seg))
	}
	return ps
}

// scanner walks keyspace prefixes in turn, expanding each posting list into quad
// (or node) references.
type scanner struct {
	db       *DB
	prefixes [][]byte
	pi       int  // the prefix being walked
	byNode   bool // instead of prefixes: read the block of node (in space)
	node     uint64
	fill     func(key, val []byte) error
	keep     func(a, b, g uint64) bool
	txn      *badger.Txn
	it       *badger.Iterator
	buf      []refs.Ref
	pos      int
	cur      refs.Ref
	err      error
	ids      []uint64
	closed   bool
	// pending are the chunked groups of the current node block, read one
	// chunk per advance so a hub never loads its whole list at once.
	pending []groupInfo
	space   byte
	chunk   uint32
}

func (s *scanner) Next(ctx context.Context) bool {
	for s.err == nil && !s.closed {
		if s.pos < len(s.buf) {
			s.cur = s.buf[s.pos]
			s.pos++
			return true
		}
		if err := ctx.Err(); err != nil {
			s.err = err
			break
		}
		if !s.advance() {
			break
		}
	}
	s.cur = nil
	return false
}

// advance loads the next key's references into buf.
func (s *scanner) advance() bool {
	if len(s.pending) > 0 {
		return s.advancePending()
	}
	if s.txn == nil {
		if len(s.prefixes) == 0 && !s.byNode {
			s.Close()
			return false
		}
		if s.db.bdb.IsClosed() {
			s.err = store.ErrClosed
			return false
		}
		s.txn = s.db.bdb.NewTransaction(false)
	}
	if s.byNode {
		return s.advanceNode()
	}
	if s.it == nil {
		s.pi = 0
		if s.it, s.err = openIterator(s.txn, s.prefixes[0]); s.err != nil {
			return false
		}
		s.it.Rewind()
	} else {
		s.it.Next()
	}
	for !s.it.Valid() {
		// Exhausted: release the iterator now (Badger's iterator must not
		// be advanced past its end: it dereferences nil) and walk the next
		// prefix in the same transaction. After the last, Close marks the
		// scanner closed, so Next answers false from here on.
		if s.pi+1 >= len(s.prefixes) {
			s.Close()
			return false
		}
		s.it.Close()
		s.pi++
		if s.it, s.err = openIterator(s.txn, s.prefixes[s.pi]); s.err != nil {
			return false
		}
		s.it.Rewind()
	}
	s.buf, s.pos = s.buf[:0], 0
	item := s.it.Item()
	s.err = item.Value(func(v []byte) error { return s.fill(item.Key(), v) })
	return s.err == nil
}

// openIterator opens an iterator over prefix in txn, keys only. After
// the database is closed it is store.ErrClosed: Badger panics there
// instead of answering an error (a Close may come between a scanner's
// check and its iterator), and an iterator's Err must tell the caller.
func openIterator(txn *badger.Txn, prefix []byte) (it *badger.Iterator, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); !ok || !errors.Is(e, badger.ErrDBClosed) {
				panic(r)
			}
			it, err = nil, store.ErrClosed
		}
	}()
	return txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false}), nil
}

// advanceNode reads the node block of s.node once.
func (s *scanner) advanceNode() bool {
	if s.pi > 0 {
		s.Close()
		return false
	}
	s.pi = 1
	s.buf, s.pos = s.buf[:0], 0
	s.err = readBlock(s.txn, s.db.segments(), s.space, s.node, func(r *blockReader) error {
		es, err := r.all(nil)
		if err == nil {
			s.fillEntries(s.space, s.node, es)
		}
		return err
	})
	return s.err == nil
}

// decode reads the ids of one chunk into s.ids.
func (s *scanner) decode(chunk uint32, val []byte) error {
	var err error
	s.ids, err = decodeChunk(s.ids[:0], val, chunk == 0)
	return err
}

// fillBlock expands a node block (key R<S|O><id>): inline groups at once,
// chunked groups later through pending.
func (s *scanner) fillBlock(key, val []byte) error {
	space, _, node, ok := splitBlockKey(key)
	if !ok {
		return fmt.Errorf("corrupt key %x", key)
	}
	es, err := decodeSummary(val, nil)
	if err != nil {
		return fmt.Errorf("node block %x: %w", key, err)
	}
	s.fillEntries(space, node, es)
	return nil
}

// fillEntries expands the entries of a node's block.
func (s *scanner) fillEntries(space byte, node uint64, es []sumEntry) {
	s.space = space
	hide := s.db.loadFilter()
	for _, e := range es {
		if s.keep != nil && !s.keep(node, e.p, e.g) || hide.hidesGraph(e.g) {
			continue
		}
		if !e.inline() {
			s.pending = append(s.pending, groupInfo{a: node, b: e.p, g: e.g, count: e.count})
			continue
		}
		for _, m := range e.ids {
			s.buf = append(s.buf, s.ref(node, e.p, e.g, m))
		}
	}
}

// ref builds the quad reference of member m of group (a, b, g).
func (s *scanner) ref(a, b, g, m uint64) refs.Ref {
	if s.space == spaceOPS {
		return quadRef{s: m, p: b, o: a, g: g}
	}
	return quadRef{s: a, p: b, o: m, g: g}
}

// advancePending loads the next chunk of the first pending group.
func (s *scanner) advancePending() bool {
	s.buf, s.pos = s.buf[:0], 0
	gi := s.pending[0]
	item, err := s.txn.Get(withChunk(groupKey(nil, s.space, gi.a, gi.b, gi.g), s.chunk))
	if errors.Is(err, badger.ErrKeyNotFound) {
		s.pending, s.chunk = s.pending[1:], 0
		return true
	} else if err != nil {
		s.err = err
		return false
	}
	s.err = item.Value(func(v []byte) error { return s.decode(s.chunk, v) })
	if s.err != nil {
		return false
	}
	s.chunk++
	for _, m := range s.ids {
		s.buf = append(s.buf, s.ref(gi.a, gi.b, gi.g, m))
	}
	return true
}

// fillPred expands the subjects having p into their (s, p, g) lists.
func (s *scanner) fillPred(key, val []byte) error {
	p, g, chunk, ok := splitPred(key)
	if !ok {
		return fmt.Errorf("corrupt key %x", key)
	}
	if s.db.loadFilter().hidesGraph(g) {
		return nil // an unfinished bulk load's graph (see loadFilter)
	}
	if err := s.decode(chunk, val); err != nil {
		return err
	}
	subjects := append([]uint64(nil), s.ids...)
	for _, sub := range subjects {
		objs, err := readList(s.txn, s.db.segments(), groupKey(nil, spaceSPO, sub, p, g), s.ids[:0])
		if err != nil {
			return err
		}
		for _, o := range objs {
			s.buf = append(s.buf, quadRef{s: sub, p: p, o: o, g: g})
		}
	}
	return nil
}

// fillNodes expands an id block into the nodes it holds.
func (s *scanner) fillNodes(key, val []byte) error {
	first, ok := idBlockFirst(key)
	if !ok {
		return fmt.Errorf("corrupt key %x", key)
	}
	slots, err := decodeIDBlock(val)
	if err != nil {
		return fmt.Errorf("id block %x: %w", key, err)
	}
	hide := s.db.loadFilter()
	for i, t := range slots {
		if t != nil && !hide.hidesTerm(first+uint64(i)) {
			s.buf = append(s.buf, nodeRef(first+uint64(i)))
		}
	}
	return nil
}

func (s *scanner) Result() refs.Ref               { return s.cur }
func (s *scanner) NextPath(context.Context) bool  { return false }
func (s *scanner) TagResults(map[string]refs.Ref) {}
func (s *scanner) Err() error                     { return s.err }
func (s *scanner) String() string                 { return fmt.Sprintf("GroveScan(%q)", s.prefixes) }
func (s *scanner) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.it != nil {
		s.it.Close()
	}
	if s.txn != nil {
		s.txn.Discard()
	}
	return nil
}

// allShape is every node or every quad.
type allShape struct {
	db    *DB
	nodes bool
}

func (a *allShape) String() string {
	if a.nodes {
		return "GroveAllNodes"
	}
	return "GroveAllQuads"
}
func (a *allShape) SubIterators() []iterator.Shape                  { return nil }
func (a *allShape) Optimize(context.Context) (iterator.Shape, bool) { return a, false }

func (a *allShape) Iterate() iterator.Scanner {
	sc := &scanner{db: a.db, prefixes: allBlocks(a.db, spaceSPO)}
	sc.fill = sc.fillBlock
	if a.nodes {
		sc.prefixes, sc.fill = [][]byte{{spaceID}}, sc.fillNodes
	}
	return sc
}

func (a *allShape) Lookup() iterator.Index { return &allIndex{db: a.db, nodes: a.nodes} }

func (a *allShape) Stats(context.Context) (iterator.Costs, error) {
	st := a.db.Counts()
	n := st.Quads
	if a.nodes {
		n = st.Nodes
	}
	return iterator.Costs{ContainsCost: 2, NextCost: 1, Size: refs.Size{Value: n, Exact: true}}, nil
}

// allIndex checks that a node or quad exists.
type allIndex struct {
	db    *DB
	nodes bool
	cur   refs.Ref
	err   error
}

func (a *allIndex) Contains(ctx context.Context, r refs.Ref) bool {
	a.cur = nil
	var found bool
	a.err = a.db.bdb.View(func(txn *badger.Txn) error {
		switch r := r.(type) {
		case nodeRef:
			if !a.nodes {
				return nil
			}
			_, err := termBytes(txn, uint64(r))
			found = err == nil && !a.db.loadFilter().hidesTerm(uint64(r))
			return nil
		case quadRef:
			if a.nodes || a.db.loadFilter().hidesGraph(r.g) {
				return nil
			}
			list, err := readList(txn, a.db.segments(), groupKey(nil, spaceSPO, r.s, r.p, r.g), nil)
			if err != nil {
				return err
			}
			_, found = slicesBinarySearch(list, r.o)
		}
		return nil
	})
	if found {
		a.cur = r
	}
	return found
}
func (a *allIndex) String() string                 { return "GroveAllContains" }
func (a *allIndex) TagResults(map[string]refs.Ref) {}
func (a *allIndex) Result() refs.Ref               { return a.cur }
func (a *allIndex) NextPath(context.Context) bool  { return false }
func (a *allIndex) Err() error                     { return a.err }
func (a *allIndex) Close() error                   { return nil }
