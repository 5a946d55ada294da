package engine

import (
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// termID looks up the id of a value; ok is false when it is not stored.
func (db *DB) termID(txn *badger.Txn, v quad.Value) (id uint64, ok bool, err error) {
	enc, err := encodeTerm(nil, v)
	if err != nil {
		return 0, false, err
	}
	return termIDEncoded(txn, enc)
}

func termIDEncoded(txn *badger.Txn, enc []byte) (uint64, bool, error) {
	item, err := txn.Get(termKey(enc))
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
	item, err := txn.Get(idKey(id))
	if err != nil {
		return nil, fmt.Errorf("term %d: %w", id, err)
	}
	var v quad.Value
	err = item.Value(func(b []byte) (err error) {
		v, err = decodeTerm(b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("term %d: %w", id, err)
	}
	db.terms.Set(id, v, int64(len(quad.StringOf(v))+32))
	return v, nil
}

// readList reads a whole posting list (all chunks) of a group key.
func readList(txn *badger.Txn, group []byte, dst []uint64) ([]uint64, error) {
	return readListLimit(txn, group, dst, 0)
}

// readListLimit reads at most limit ids (limit <= 0: all) of a posting list.
func readListLimit(txn *badger.Txn, group []byte, dst []uint64, limit int) ([]uint64, error) {
	for chunk := uint32(0); ; chunk++ {
		item, err := txn.Get(withChunk(append([]byte(nil), group...), chunk))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return dst, nil
		} else if err != nil {
			return dst, err
		}
		lim := -1
		if limit > 0 {
			lim = limit
		}
		err = item.Value(func(v []byte) (err error) {
			dst, err = decodeChunkLimit(dst, v, chunk == 0, lim)
			return err
		})
		if err != nil {
			return dst, fmt.Errorf("posting list %x: %w", group, err)
		}
		if limit > 0 && len(dst) >= limit {
			return dst[:limit], nil
		}
	}
}

// eachChunk decodes a posting list one chunk at a time and passes the ids
// to fn (the slice is reused: fn must not keep it) until fn returns false.
func eachChunk(txn *badger.Txn, group []byte, fn func(ids []uint64) (bool, error)) error {
	var ids []uint64
	key := append([]byte(nil), group...)
	for chunk := uint32(0); ; chunk++ {
		item, err := txn.Get(withChunk(key[:len(group)], chunk))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		err = item.Value(func(v []byte) (err error) {
			ids, err = decodeChunk(ids[:0], v, chunk == 0)
			return err
		})
		if err != nil {
			return fmt.Errorf("posting list %x: %w", group, err)
		}
		more, err := fn(ids)
		if err != nil || !more {
			return err
		}
	}
}

// listCount returns the total length of a posting list (0 if absent).
func listCount(txn *badger.Txn, group []byte) (int64, error) {
	item, err := txn.Get(withChunk(append([]byte(nil), group...), 0))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	var n int64
	err = item.Value(func(v []byte) (err error) {
		n, err = chunkTotal(v)
		return err
	})
	return n, err
}

// groupInfo is one (a, b, g) posting-list group found by scanGroups.
type groupInfo struct {
	a, b, g uint64
	count   int64
}

// scanGroups visits every group under prefix (an S/O key prefix of 1, 9 or
// 17 bytes) reading only chunk 0 of each group.
func scanGroups(txn *badger.Txn, prefix []byte, fn func(groupInfo) error) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
	defer it.Close()
	for it.Rewind(); it.Valid(); {
		item := it.Item()
		a, b, g, chunk, ok := splitGroup(item.Key())
		if !ok {
			return fmt.Errorf("corrupt index key %x", item.Key())
		}
		if chunk != 0 {
			it.Seek(withChunk(groupKey(nil, item.Key()[0], a, b, g+1), 0))
			continue
		}
		var n int64
		err := item.Value(func(v []byte) (err error) {
			n, err = chunkTotal(v)
			return err
		})
		if err != nil {
			return err
		}
		if err := fn(groupInfo{a, b, g, n}); err != nil {
			return err
		}
		it.Seek(withChunk(groupKey(nil, item.Key()[0], a, b, g), 1))
	}
	return nil
}
