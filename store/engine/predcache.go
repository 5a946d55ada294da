package engine

import (
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
)

// predCache holds what the KG calls need about predicates: the
// description of every predicate looked up (predInfo: label, inverse
// label, hidden, statement ids) and the label predicates; and the term ids
// of the entities and relations they resolve. A hub's Relations looks up
// hundreds of predicates, and every call resolves its ids: a reasoner asks
// about the same entities again and again.
//
// Writes make entries stale, so validity follows Badger's read
// timestamps. invalidate, called once a write is visible, empties the
// cache and sets a floor: the read timestamp of a snapshot that sees the
// write. A transaction whose snapshot is older than the floor neither
// reads nor fills the cache, so a value computed from a snapshot taken
// before a write is never stored after it. While an incremental write is
// in flight (beginWrite .. endWrite), snapshots newer than the one taken
// at beginWrite bypass the cache: they may see the commit, and the cache
// still holds the state before it until endWrite empties it. Older
// snapshots, which cannot see it, keep using the cache, so reads during a
// long batch stay fast. Every entry a reader gets is therefore what its
// own snapshot holds.
//
// The same validity guards the DB's entity label and degree caches
// (ristretto, outside this type): their readers check fresh, fill them
// through fill, and invalidate empties them with the maps here.
//
// It is safe for concurrent use, and no I/O happens under its lock: a miss
// is computed by the caller and offered back with put.
type predCache struct {
	mu    sync.RWMutex
	valid atomic.Pointer[validity] // replaced under mu, read without it
	preds map[uint64]*predInfo     // entries are never modified
	ids   map[string]uint64        // encoded term -> term id
	// labels are the label predicates (nil until computed).
	labels map[uint64]labelKind
	// clears empty the external caches this one guards.
	clears []func()
}

// validity says which snapshots may use the caches.
type validity struct {
	floor   uint64 // the entries are valid for read timestamps >= floor
	writing int    // incremental writes in flight
	before  uint64 // while writing: the newest read timestamp that cannot see the write
}

func (v *validity) usable(ts uint64) bool {
	return ts >= v.floor && (v.writing == 0 || ts <= v.before)
}

// predCacheMax bounds the predicates; beyond it lookups are computed, not
// cached (Freebase has some 100k predicates, Wikidata some 40k with its
// statement and qualifier forms). idCacheMax bounds the term ids: a full
// map is emptied and refilled.
const (
	predCacheMax = 1 << 18
	idCacheMax   = 1 << 16
)

// newPredCache returns an empty cache that also empties the external
// caches of clears whenever it is invalidated.
func newPredCache(clears ...func()) *predCache {
	c := &predCache{preds: map[uint64]*predInfo{}, ids: map[string]uint64{}, clears: clears}
	c.valid.Store(&validity{})
	return c
}

// usable reports whether txn may read and fill the caches.
func (c *predCache) usable(txn *badger.Txn) bool {
	return c.valid.Load().usable(txn.ReadTs())
}

// fresh reports whether txn may read the external caches (no lock: a
// reader that checks just before an invalidation may get an entry newer
// than its snapshot, never an older one).
func (c *predCache) fresh(txn *badger.Txn) bool { return c.usable(txn) }

// fill runs put, which stores what txn read in an external cache without
// I/O, if txn may fill the caches; atomically with invalidation, so no
// value read before a write lands after it.
func (c *predCache) fill(txn *badger.Txn, put func()) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.usable(txn) {
		put()
	}
}

func (c *predCache) pred(txn *badger.Txn, p uint64) (predInfo, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.usable(txn) {
		return predInfo{}, false
	}
	if pi, ok := c.preds[p]; ok {
		return *pi, true
	}
	return predInfo{}, false
}

// lookup runs fn with a getter for many predicates under one read lock;
// fn must not do I/O nor modify or keep the entries. The getter finds
// nothing (nil) when txn may not use the cache.
func (c *predCache) lookup(txn *badger.Txn, fn func(get func(p uint64) *predInfo)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	usable := c.usable(txn)
	fn(func(p uint64) *predInfo {
		if !usable {
			return nil
		}
		return c.preds[p]
	})
}

func (c *predCache) putPred(txn *badger.Txn, p uint64, pi predInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.usable(txn) && len(c.preds) < predCacheMax {
		c.preds[p] = &pi
	}
}

// id returns the cached id of an encoded term.
func (c *predCache) id(txn *badger.Txn, enc []byte) (uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.usable(txn) {
		return 0, false
	}
	id, ok := c.ids[string(enc)]
	return id, ok
}

func (c *predCache) putID(txn *badger.Txn, enc []byte, id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.usable(txn) {
		return
	}
	if len(c.ids) >= idCacheMax {
		c.ids = map[string]uint64{}
	}
	c.ids[string(enc)] = id
}

// labelPreds returns the cached label predicates (see DB.labelPreds). The
// map is shared: callers must not modify it.
func (c *predCache) labelPreds(txn *badger.Txn) (map[uint64]labelKind, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.usable(txn) || c.labels == nil {
		return nil, false
	}
	return c.labels, true
}

func (c *predCache) putLabelPreds(txn *badger.Txn, m map[uint64]labelKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.usable(txn) {
		c.labels = m
	}
}

// beginWrite starts a write that commits nothing before it returns:
// until the matching endWrite, snapshots newer than now bypass the caches.
func (c *predCache) beginWrite(now uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := *c.valid.Load()
	if v.writing == 0 || now < v.before {
		v.before = now
	}
	v.writing++
	c.valid.Store(&v)
}

// endWrite ends a write begun with beginWrite and invalidates the caches.
func (c *predCache) endWrite(floor uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := *c.valid.Load()
	v.writing--
	c.reset(v, floor)
}

// invalidate empties the caches after a write that snapshots from read
// timestamp floor on can see.
func (c *predCache) invalidate(floor uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset(*c.valid.Load(), floor)
}

// reset empties the maps and the external caches and raises the floor of
// v, the new validity; c.mu is held.
func (c *predCache) reset(v validity, floor uint64) {
	c.preds = map[uint64]*predInfo{}
	c.ids = map[string]uint64{}
	c.labels = nil
	for _, clear := range c.clears {
		clear()
	}
	v.floor = max(v.floor, floor)
	c.valid.Store(&v)
}

// readFloor is the read timestamp of a snapshot taken now: every write
// that returned before the call is visible from it. A closed database
// gets the highest timestamp, which no reader reaches.
func (db *DB) readFloor() uint64 {
	if db.bdb.IsClosed() {
		return ^uint64(0)
	}
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	return txn.ReadTs()
}
