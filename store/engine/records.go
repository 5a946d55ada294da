package engine

import (
	"encoding/json"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// Records of unfinished writes. A write too large for one transaction
// (a node delete in parts, nodedelete.go; an incremental ingest or delete
// run, writerun.go) records itself under a meta key of its own: the
// record is set in the same transaction as each part it writes, so it
// always says how far the write got, and removed by the last part (or
// right after it). A write stopped part-way, by an error or by a kill,
// therefore leaves its record behind, and every later open reports it
// (init logs it; grove stats and /v1/stats list it, see Warnings) until
// the same write is run again and completes. The bulk loader's marker
// (markerFile) is a file instead, as a bulk load writes no transactions.

// setRecord returns a transaction step that stores v, as JSON, under key:
// an extra step of applyDeltas, so the record commits with the part.
func setRecord(key []byte, v any) func(*badger.Txn) error {
	return func(txn *badger.Txn) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return txn.Set(key, b)
	}
}

// putRecord stores v under key in a transaction of its own; what names
// the record in the error.
func (db *DB) putRecord(key []byte, v any, what string) error {
	if err := db.bdb.Update(setRecord(key, v)); err != nil {
		return fmt.Errorf("record %s: %w", what, err)
	}
	return nil
}

// hasRecord reports whether a record is stored under key.
func (db *DB) hasRecord(key []byte) (bool, error) {
	var ok bool
	err := db.bdb.View(func(txn *badger.Txn) (err error) {
		_, ok, err = txnGet(txn, key)
		return err
	})
	return ok, err
}

// getRecord reads the record stored under key into v, reporting whether
// there is one.
func (db *DB) getRecord(key []byte, v any) (bool, error) {
	var ok bool
	err := db.bdb.View(func(txn *badger.Txn) error {
		b, found, err := txnGet(txn, key)
		if err != nil || !found {
			return err
		}
		ok = true
		return json.Unmarshal(b, v)
	})
	return ok, err
}

// dropRecord removes the record under key in a transaction of its own;
// what names the record in the error.
func (db *DB) dropRecord(key []byte, what string) error {
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Delete(key) }); err != nil {
		return fmt.Errorf("remove the record of %s: %w", what, err)
	}
	return nil
}

// listRecords decodes every record under prefix, in key order; what
// names the records in the error.
func listRecords[T any](db *DB, prefix, what string) ([]T, error) {
	var out []T
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var r T
			if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, &r) }); err != nil {
				return fmt.Errorf("corrupt %s record %x: %w", what, it.Item().Key(), err)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}
