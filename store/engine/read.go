package engine

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// termID looks up the id of a value; ok is false when it is not stored.
// A native number or boolean is looked up in its stored form and then in
// its RDF form (altEncoding).
func (db *DB) termID(txn *badger.Txn, v quad.Value) (id uint64, ok bool, err error) {
	enc, err := encodeTerm(nil, v)
	if err != nil {
		return 0, false, err
	}
	id, ok, err = termIDEncoded(txn, enc)
	if ok || err != nil {
		return id, ok, err
	}
	if alt := altEncoding(v, enc); alt != nil {
		return termIDEncoded(txn, alt)
	}
	return 0, false, nil
}

func termIDEncoded(txn *badger.Txn, enc []byte) (uint64, bool, error) {
	item, err := txn.Get(termKey(enc))
	if errors.Is(err, badger.ErrKeyNotFound) && legacyLongTerm(enc) {
		return legacyTermID(txnGetter(txn), enc)
	}
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("term lookup: %w", err)
	}
	var id uint64
	err = item.Value(func(v []byte) error {
		if len(v) != idLen {
			return errBadTerm
		}
		id = getID(v)
		return nil
	})
	return id, err == nil, err
}

// term returns the value of an id, from the cache when possible.
func (db *DB) term(txn *badger.Txn, id uint64) (quad.Value, error) {
	if v, ok := db.terms.Get(id); ok {
		return v, nil
	}
	b, err := termBytes(txn, id)
	if err != nil {
		return nil, fmt.Errorf("term %d: %w", id, err)
	}
	v, err := decodeTerm(b)
	if err != nil {
		return nil, fmt.Errorf("term %d: %w", id, err)
	}
	db.terms.Set(id, v, int64(len(quad.StringOf(v))+32))
	return v, nil
}

// readList reads a whole posting list (all chunks) of a group key.
func readList(txn *badger.Txn, segs uint8, group []byte, dst []uint64) ([]uint64, error) {
	return readListLimit(txn, segs, group, dst, 0)
}

// isNodeGroup reports whether group is an S or O group key (whose members
// may be inline in the node block) rather than a P key.
func isNodeGroup(group []byte) bool {
	return len(group) == groupLen && (group[0] == spaceSPO || group[0] == spaceOPS)
}

// lookupGroup finds an S or O group's entry in its node block (in the
// first segs segments).
func lookupGroup(txn *badger.Txn, segs uint8, group []byte) (sumEntry, bool, error) {
	es, err := readSummary(txn, segs, group[0], getID(group[1:]))
	if err != nil {
		return sumEntry{}, false, err
	}
	e, ok := findEntry(es, getID(group[9:]), getID(group[17:]))
	return e, ok, nil
}

// readListLimit reads at most limit ids (limit <= 0: all) of a posting list.
func readListLimit(txn *badger.Txn, segs uint8, group []byte, dst []uint64, limit int) ([]uint64, error) {
	if isNodeGroup(group) {
		e, ok, err := lookupGroup(txn, segs, group)
		if err != nil || !ok {
			return dst, err
		}
		if e.inline() {
			return appendLimit(dst, e.ids, limit), nil
		}
	}
	return storedMembers(txn, group, dst, limit)
}

// groupChunks passes the members of a group whose node-block entry is
// known to fn one chunk at a time (an inline group is one chunk; the
// slice is reused: fn must not keep it) until fn returns false.
func groupChunks(txn *badger.Txn, space byte, gi groupInfo, fn func(ids []uint64) (bool, error)) error {
	if gi.count <= inlineMax {
		_, err := fn(gi.ids)
		return err
	}
	return eachStoredChunk(txn, groupKey(nil, space, gi.a, gi.b, gi.g), fn)
}

// groupMembers reads at most limit (<= 0: all) members of a group whose
// node-block entry is known.
func groupMembers(txn *badger.Txn, space byte, gi groupInfo, dst []uint64, limit int) ([]uint64, error) {
	if gi.count <= inlineMax {
		return appendLimit(dst, gi.ids, limit), nil
	}
	return storedMembers(txn, groupKey(nil, space, gi.a, gi.b, gi.g), dst, limit)
}

// appendLimit appends ids to dst until dst holds limit ids (limit <= 0:
// all of them).
func appendLimit(dst, ids []uint64, limit int) []uint64 {
	if limit > 0 && len(dst)+len(ids) > limit {
		ids = ids[:max(limit-len(dst), 0)]
	}
	return append(dst, ids...)
}

// storedMembers appends the ids of a posting list stored in chunk keys to
// dst until dst holds limit ids (limit <= 0: all), decoding no more of a
// chunk than it needs: a hub's first chunk holds thousands of ids.
func storedMembers(txn *badger.Txn, group []byte, dst []uint64, limit int) ([]uint64, error) {
	if limit <= 0 {
		limit = -1
	}
	key := append(make([]byte, 0, len(group)+4), group...)
	for chunk := uint32(0); limit < 0 || len(dst) < limit; chunk++ {
		item, err := txn.Get(withChunk(key[:len(group)], chunk))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return dst, nil
		} else if err != nil {
			return dst, err
		}
		err = item.Value(func(v []byte) (err error) {
			dst, err = decodeChunkLimit(dst, v, chunk == 0, limit)
			return err
		})
		if err != nil {
			return dst, fmt.Errorf("posting list %x: %w", group, err)
		}
	}
	return dst, nil
}

// eachStoredChunk walks the chunk keys of a group (storedList reads them).
func eachStoredChunk(txn *badger.Txn, group []byte, fn func(ids []uint64) (bool, error)) error {
	var s storedList
	s.setChunks(txn, group)
	for {
		if err := s.load(); err != nil || !s.more {
			return err
		}
		more, err := fn(s.ids)
		if err != nil || !more {
			return err
		}
	}
}

// groupInfo is one (a, b, g) posting-list group of a node block.
type groupInfo struct {
	a, b, g uint64
	count   int64
	ids     []uint64 // members of an inline group
}

// scanSummaries visits every node block of one direction (space S or O)
// in the first segs segments, one segment after the other: a node with
// groups in several segments is visited once per segment.
func scanSummaries(txn *badger.Txn, segs uint8, space byte, fn func(node uint64, es []sumEntry) error) error {
	var es []sumEntry
	for seg := range segs {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: blockPrefix(space, seg)})
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			_, _, node, ok := splitBlockKey(k)
			if !ok {
				it.Close()
				return fmt.Errorf("corrupt node block key %x", k)
			}
			err := it.Item().Value(func(v []byte) (err error) {
				es, err = decodeSummary(v, es[:0])
				return err
			})
			if err != nil {
				err = fmt.Errorf("node block %x: %w", k, err)
			} else {
				err = fn(node, es)
			}
			if err != nil {
				it.Close()
				return err
			}
		}
		it.Close()
	}
	return nil
}

// getFunc reads a key's value from some view of the store (ok false when
// the key is absent): a transaction (txnGetter) or an update batch, which
// sees its own pending writes (updater.value).
type getFunc func(key []byte) (v []byte, ok bool, err error)

// txnGetter reads keys through txn (txnGet).
func txnGetter(txn *badger.Txn) getFunc {
	return func(key []byte) ([]byte, bool, error) { return txnGet(txn, key) }
}

// txnGet reads key's value (a copy) through txn; ok is false when the key
// is absent.
func txnGet(txn *badger.Txn, key []byte) ([]byte, bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	v, err := item.ValueCopy(nil)
	return v, err == nil, err
}

// legacyTermID looks up, through get, the t key an earlier version wrote
// for a term of over maxInlineTerm bytes (see maxLegacyTerm). Such a key
// is longer than a transaction may delete, so it outlives the term's
// removal: the id counts only while its id block still holds the term.
func legacyTermID(get getFunc, enc []byte) (uint64, bool, error) {
	v, ok, err := get(append([]byte{spaceTerm}, enc...))
	if err != nil || !ok {
		return 0, false, err
	}
	if len(v) != idLen {
		return 0, false, errBadTerm
	}
	id := getID(v)
	b, _, err := get(idBlockKey(id))
	if err != nil {
		return 0, false, err
	}
	slots, err := decodeIDBlock(b)
	if err != nil {
		return 0, false, err
	}
	return id, bytes.Equal(slots[id&(idBlockSize-1)], enc), nil
}
