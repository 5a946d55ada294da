package engine

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"
	"github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store/storetest/datadir"
)

// loadQuads bulk-loads quads into graph with the default memory budget.
func loadQuads(t testing.TB, db *DB, graph string, qs []quad.Quad) LoadStats {
	t.Helper()
	return loadWith(t, db, graph, qs, 0)
}

// loadWith bulk-loads quads into graph within the memory budget maxMem
// (0: the default).
func loadWith(t testing.TB, db *DB, graph string, qs []quad.Quad, maxMem int64) LoadStats {
	t.Helper()
	return loadOpts(t, db, LoadOptions{Graph: graph, MaxMemory: maxMem}, qs)
}

// loadOpts bulk-loads quads with opts.
func loadOpts(t testing.TB, db *DB, opts LoadOptions, qs []quad.Quad) LoadStats {
	t.Helper()
	l := startLoad(t, db, opts, qs)
	defer l.Close()
	st, err := l.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// startLoad starts a bulk load with opts and writes quads into it, leaving
// the commit (and Close) to the caller.
func startLoad(t testing.TB, db *DB, opts LoadOptions, qs []quad.Quad) *Loader {
	t.Helper()
	l, err := db.NewLoader(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			l.Close()
			t.Fatal(err)
		}
	}
	return l
}

var (
	filmOnce  sync.Once
	filmQuads []quad.Quad
	filmErr   error
)

// readFilm reads the Freebase film sample once per test binary, scoping
// blank nodes as the RDF reader does.
func readFilm(t testing.TB) []quad.Quad {
	t.Helper()
	filmPath := datadir.Film(t)
	filmOnce.Do(func() {
		f, err := os.Open(filmPath)
		if err != nil {
			filmErr = err
			return
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			filmErr = err
			return
		}
		r := nquads.NewReader(gz, false)
		for {
			q, err := r.ReadQuad()
			if errors.Is(err, io.EOF) {
				return
			} else if err != nil {
				filmErr = err
				return
			}
			for _, d := range []quad.Direction{quad.Subject, quad.Object} {
				if b, ok := q.Get(d).(quad.BNode); ok {
					q.Set(d, quad.BNode("film/"+string(b)))
				}
			}
			filmQuads = append(filmQuads, q)
		}
	})
	if filmErr != nil {
		t.Fatalf("film sample: %v", filmErr)
	}
	return filmQuads
}

// filmDB returns a fresh on-disk database holding the film sample.
func filmDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	loadQuads(t, db, "film", readFilm(t))
	return db
}

// newTestLoader opens a database in a temporary directory and a Loader on
// it; both are closed when the test ends.
func newTestLoader(t testing.TB, opts LoadOptions) (*DB, *Loader) {
	t.Helper()
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := db.NewLoader(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return db, l
}

// drainMerger reads every record of a merger and closes it.
func drainMerger(t testing.TB, m *quadMerger) []qids {
	t.Helper()
	defer m.Close()
	var got []qids
	for {
		q, ok, err := m.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		got = append(got, q)
	}
}

// splitChunks cuts a sorted list into encoded chunk values: the chunk
// format spelled out, against which listWriter and the readers are
// tested.
func splitChunks(ids []uint64) [][]byte {
	var out [][]byte
	for i := 0; i == 0 || i < len(ids); i += chunkSize {
		end := min(i+chunkSize, len(ids))
		out = append(out, encodeChunk(nil, ids[i:end], i == 0, len(ids)))
	}
	return out
}

// unionSorted merges two sorted distinct lists into a sorted distinct list:
// the reference for listWriter's merge with a stored list.
func unionSorted(a, b []uint64) []uint64 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// listCount returns the total length of a posting list (0 if absent).
func listCount(txn *badger.Txn, segs uint8, group []byte) (int64, error) {
	if isNodeGroup(group) {
		e, _, err := lookupGroup(txn, segs, group)
		return e.count, err
	}
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

// setTermBytes stores (or with term nil, removes) the term of id in a
// read-write transaction.
func setTermBytes(txn *badger.Txn, id uint64, term []byte) error {
	s, err := readIDBlock(txn, id)
	if err != nil {
		return err
	}
	s[id&(idBlockSize-1)] = term
	if s.count() == 0 {
		return txn.Delete(idBlockKey(id))
	}
	return txn.Set(idBlockKey(id), s.encode())
}

// spilled reports whether any run went to disk.
func (s *quadSorter) spilled() bool { return len(s.runs) > 0 }
