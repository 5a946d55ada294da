package engine

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// opRecorder is a kvWriter that records its Sets and Deletes in order.
type opRecorder struct {
	kvWriter
	ops []recordedOp
}

type recordedOp struct {
	del      bool
	key, val []byte
}

func (r *opRecorder) Set(_ uint32, key, val []byte) error {
	r.ops = append(r.ops, recordedOp{key: slices.Clone(key), val: slices.Clone(val)})
	return nil
}

func (r *opRecorder) Delete(_ uint32, key []byte) error {
	r.ops = append(r.ops, recordedOp{del: true, key: slices.Clone(key)})
	return nil
}

// drainStored reads a stored list to its end.
func drainStored(s *storedList) ([]uint64, error) {
	var out []uint64
	for {
		id, ok, err := s.head()
		if err != nil || !ok {
			return out, err
		}
		out = append(out, id)
		s.pos++
	}
}

// storeChunks writes a list cut into chunks of the given sizes (the last
// takes the rest) under group, as ApplyDeltas may leave it: chunks partly
// or wholly empty.
func storeChunks(t *testing.T, bdb *badger.DB, group []byte, list []uint64, sizes []int) {
	t.Helper()
	err := bdb.Update(func(txn *badger.Txn) error {
		rest := list
		for i, n := range sizes {
			if i == len(sizes)-1 {
				n = len(rest)
			}
			v := encodeChunk(nil, rest[:n], i == 0, len(list))
			rest = rest[n:]
			if err := txn.Set(withChunk(slices.Clone(group), uint32(i)), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestListWriter: whatever its length, whether it is spooled, and whatever
// the stored list it is merged with (none, inline members, chunks partly
// or wholly empty), a list comes out as exactly splitChunks over the union
// (the format's reference), followed by deletions of the stored chunk keys
// past its last chunk, with the union's and the stored list's lengths; and
// no spool file is left behind.
func TestListWriter(t *testing.T) {
	bdb, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	seq := func(from, step uint64, n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = from + uint64(i)*step
		}
		return out
	}
	type storedKind struct {
		name   string
		list   []uint64
		sizes  []int // chunk sizes; nil: inline
		inline bool
	}
	stored := []storedKind{
		{name: "nothing stored"},
		{name: "inline", list: []uint64{1, 8, 10, 1 << 40}, inline: true},
		{name: "one chunk", list: seq(2, 5, 100), sizes: []int{100}},
		{name: "chunks partly and wholly empty", list: seq(4, 2, 3*chunkSize), sizes: []int{10, 0, chunkSize, 7, 0, 0}},
		{name: "long, interleaved", list: seq(1, 2, 5*chunkSize+3), sizes: []int{chunkSize, chunkSize, chunkSize, chunkSize, chunkSize, 3}},
	}
	lengths := []int{0, 1, inlineMax, inlineMax + 1, chunkSize, chunkSize + 1, 2*chunkSize - 1, 2 * chunkSize,
		2*chunkSize + 1, 7*chunkSize + 17}
	tmp := t.TempDir()
	for _, sk := range stored {
		for _, n := range lengths {
			for _, chunked := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d new/chunked=%v", sk.name, n, chunked)
				t.Run(name, func(t *testing.T) {
					group := groupKey(nil, spaceSPO, uint64(n)+1, 7, 9)
					if sk.sizes != nil {
						storeChunks(t, bdb, group, sk.list, sk.sizes)
						defer func() {
							_ = bdb.DropPrefix(group)
						}()
					}
					newIDs := seq(3, 3, n)
					sd := &spillDir{path: tmp}
					w := &listWriter{sd: sd, spoolAfter: 2 * chunkSize}
					txn := bdb.NewTransaction(false)
					defer txn.Discard()
					w.begin()
					switch {
					case sk.inline:
						w.stored.setInline(slices.Clone(sk.list))
					case sk.sizes != nil:
						w.stored.setChunks(txn, group)
					}
					for _, id := range newIDs {
						if err := w.add(id); err != nil {
							t.Fatal(err)
						}
					}
					rec := &opRecorder{}
					total, old, err := w.close(rec, streamSPO, group, chunked)
					if err != nil {
						t.Fatal(err)
					}
					union := unionSorted(slices.Clone(sk.list), newIDs)
					if total != len(union) || old != len(sk.list) {
						t.Errorf("close = %d, %d; want %d, %d", total, old, len(union), len(sk.list))
					}
					var want []recordedOp
					if chunked || len(union) > inlineMax {
						for i, c := range splitChunks(union) {
							want = append(want, recordedOp{key: withChunk(slices.Clone(group), uint32(i)), val: c})
						}
					} else if !slices.Equal(w.ids, union) {
						t.Errorf("inline members %v, want %v", w.ids, union)
					}
					for i := len(want); i < len(sk.sizes); i++ {
						want = append(want, recordedOp{del: true, key: withChunk(slices.Clone(group), uint32(i))})
					}
					if len(rec.ops) != len(want) {
						t.Fatalf("%d writes, want %d", len(rec.ops), len(want))
					}
					for i := range want {
						g := rec.ops[i]
						if g.del != want[i].del || !bytes.Equal(g.key, want[i].key) || !bytes.Equal(g.val, want[i].val) {
							t.Fatalf("write %d: delete=%v key %x, want delete=%v key %x (or the value differs)",
								i, g.del, g.key, want[i].del, want[i].key)
						}
					}
					if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
						t.Errorf("%d spool files left", len(ents))
					}
				})
			}
		}
	}
}

// TestListWriterRelease: a list abandoned after it was spooled (an error
// elsewhere) leaves no file once released, and the next list is whole.
func TestListWriterRelease(t *testing.T) {
	tmp := t.TempDir()
	w := &listWriter{sd: &spillDir{path: tmp}, spoolAfter: 2 * chunkSize}
	w.begin()
	for i := range 3 * chunkSize {
		if err := w.add(uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Fatalf("%d spool files while a long list is written, want 1", len(ents))
	}
	w.release()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d spool files left after release", len(ents))
	}
	w.begin()
	for _, id := range []uint64{5, 6, 7, 8, 9, 10, 11, 12, 13} {
		if err := w.add(id); err != nil {
			t.Fatal(err)
		}
	}
	rec := &opRecorder{}
	if total, _, err := w.close(rec, streamPred, predKey(nil, 1, 2), true); err != nil || total != 9 || len(rec.ops) != 1 {
		t.Fatalf("close after release: %d ids, %d writes, %v", total, len(rec.ops), err)
	}
}
