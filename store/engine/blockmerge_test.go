package engine

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// captureSink records the keys a bulk load writes.
type captureSink struct{ kv map[string][]byte }

func (c *captureSink) Set(_ uint32, key, val []byte) error {
	c.kv[string(key)] = bytes.Clone(val)
	return nil
}
func (c *captureSink) Delete(_ uint32, key []byte) error {
	delete(c.kv, string(key))
	return nil
}
func (c *captureSink) Done(...uint32) error { return nil }
func (c *captureSink) Flush() error         { return nil }
func (c *captureSink) Cancel()              {}

// newGroup is one group a test load writes: node, predicate, graph and the
// new members (sorted).
type newGroup struct {
	node, p, g uint64
	ids        []uint64
}

func ids(from, n uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = from + uint64(i)*3
	}
	return out
}

func entry(p, g uint64, members []uint64) sumEntry {
	e := sumEntry{p: p, g: g, count: int64(len(members))}
	if e.inline() {
		e.ids = members
	}
	return e
}

// TestSummaryWriterMerge checks the span merge of node blocks against the
// decoded reference, encodeSummary(mergeSummary(stored, new)), with the
// members of groups in both unioned, for stored blocks read through the
// forward iterator (steps and seeks).
func TestSummaryWriterMerge(t *testing.T) {
	const ga, gb = 1000, 2000 // graph ids
	cases := []struct {
		name   string
		stored map[uint64][]sumEntry             // node -> stored block
		lists  map[uint64]map[[2]uint64][]uint64 // node -> (p, g) -> members of a large stored group
		load   []newGroup
	}{
		{
			name:   "empty database",
			stored: nil,
			load:   []newGroup{{1, 5, gb, []uint64{7}}, {1, 6, gb, ids(1, 20)}, {9, 5, gb, []uint64{1, 2}}},
		},
		{
			name: "node in both graphs, other graph's groups before, between and after",
			stored: map[uint64][]sumEntry{
				3: {entry(1, ga, []uint64{4}), entry(5, ga, []uint64{8, 9}), entry(9, ga, ids(100, 40))},
			},
			load: []newGroup{{3, 2, gb, []uint64{1}}, {3, 5, gb, []uint64{2, 3}}, {3, 10, gb, ids(5, 9)}},
		},
		{
			name: "nodes only stored, only new, and in both, with long gaps",
			stored: map[uint64][]sumEntry{
				1: {entry(1, ga, []uint64{2})}, 2: {entry(1, ga, []uint64{3})}, 4: {entry(2, ga, []uint64{3})},
				5: {entry(2, ga, []uint64{3})}, 6: {entry(2, ga, []uint64{4})}, 7: {entry(2, ga, []uint64{5})},
				8: {entry(2, ga, []uint64{6})}, 9: {entry(2, ga, []uint64{7})}, 30: {entry(3, ga, []uint64{1})},
				40: {entry(3, ga, []uint64{1})}, 50: {entry(4, ga, ids(1, 9))},
			},
			load: []newGroup{
				{0, 1, gb, []uint64{1}}, {2, 1, gb, []uint64{1}}, {3, 1, gb, []uint64{1}},
				{9, 1, gb, []uint64{1}}, {45, 2, gb, []uint64{2}}, {50, 4, gb, []uint64{2}}, {60, 1, gb, []uint64{1}},
			},
		},
		{
			name: "the same graph loaded again: inline and large groups unioned",
			stored: map[uint64][]sumEntry{
				7: {entry(1, gb, []uint64{2, 4}), entry(2, gb, ids(10, 8)), entry(3, gb, ids(50, 30)), entry(4, ga, []uint64{1})},
			},
			lists: map[uint64]map[[2]uint64][]uint64{7: {{3, gb}: ids(50, 30)}},
			load: []newGroup{
				{7, 1, gb, []uint64{2, 4}},   // identical
				{7, 2, gb, []uint64{11, 12}}, // inline grows past inlineMax
				{7, 3, gb, ids(50, 30)},      // large, identical
				{7, 4, gb, []uint64{1}},      // beside the other graph's group
				{7, 5, gb, ids(1, 5000)},     // a hub list, new
			},
		},
		{
			name: "hub: a stored large group and a new large group in another graph",
			stored: map[uint64][]sumEntry{
				11: {entry(1, ga, ids(1, 9000)), entry(2, ga, []uint64{5})},
			},
			lists: map[uint64]map[[2]uint64][]uint64{11: {{1, ga}: ids(1, 9000)}},
			load:  []newGroup{{11, 1, gb, ids(2, 12000)}, {11, 2, gb, []uint64{6}}},
		},
		{
			name: "a stored entry with a zero count is dropped",
			stored: map[uint64][]sumEntry{
				12: {entry(1, ga, []uint64{5}), {p: 2, g: ga}, entry(3, ga, []uint64{6})},
			},
			load: []newGroup{{12, 4, gb, []uint64{1}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bdb, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer bdb.Close()
			err = bdb.Update(func(txn *badger.Txn) error {
				for node, es := range tc.stored {
					if err := txn.Set(appendBlockKey(nil, spaceSPO, 0, node), encodeSummary(es)); err != nil {
						return err
					}
					for pg, list := range tc.lists[node] {
						key := groupKey(nil, spaceSPO, node, pg[0], pg[1])
						for i, c := range splitChunks(list) {
							if err := txn.Set(withChunk(slices.Clone(key), uint32(i)), c); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			txn := bdb.NewTransaction(false)
			defer txn.Discard()
			sink := &captureSink{kv: map[string][]byte{}}
			w := &summaryWriter{sink: sink, space: spaceSPO, stream: streamSumS}
			if tc.stored != nil {
				w.blocks = newStoredBlocks(txn, spaceSPO, 0)
				defer w.blocks.Close()
			}
			want := map[uint64][]sumEntry{}
			for _, ng := range tc.load {
				if err := w.begin(ng.node); err != nil {
					t.Fatal(err)
				}
				key := groupKey(nil, spaceSPO, ng.node, ng.p, ng.g)
				var sl storedList
				if err := w.stored(&sl, txn, key, ng.p, ng.g); err != nil {
					t.Fatal(err)
				}
				got, err := drainStored(&sl)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := readList(txn, 1, key, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, ref) {
					t.Fatalf("stored members of %v = %v, want %v", ng, got, ref)
				}
				all := unionSorted(slices.Clone(got), ng.ids)
				if err := w.add(ng.p, ng.g, int64(len(all)), all); err != nil {
					t.Fatal(err)
				}
				want[ng.node] = append(want[ng.node], entry(ng.p, ng.g, all))
			}
			if err := w.flush(); err != nil {
				t.Fatal(err)
			}
			if len(sink.kv) != len(want) {
				t.Errorf("wrote %d blocks, want %d", len(sink.kv), len(want))
			}
			for node, upd := range want {
				ref := encodeSummary(mergeSummary(tc.stored[node], upd))
				got := sink.kv[string(appendBlockKey(nil, spaceSPO, 0, node))]
				if !bytes.Equal(got, ref) {
					dec, err := decodeSummary(got, nil)
					t.Errorf("node %d: block %v (%v), want %v", node, dec, err, mergeSummary(tc.stored[node], upd))
				}
			}
		})
	}
}

// TestSummaryWriterOrder checks that groups out of order are an error,
// not a corrupt block.
func TestSummaryWriterOrder(t *testing.T) {
	w := &summaryWriter{sink: &captureSink{kv: map[string][]byte{}}, space: spaceSPO}
	if err := w.begin(1); err != nil {
		t.Fatal(err)
	}
	for i, pg := range [][2]uint64{{2, 1}, {2, 1}} {
		err := w.add(pg[0], pg[1], 1, []uint64{1})
		if (err != nil) != (i == 1) {
			t.Fatalf("add %d: %v", i, err)
		}
	}
}

// TestSkipMembers checks that skipping the members of inline groups
// lands on each entry's end, and that a truncated stored block is an
// error of the merge, not a corrupt block.
func TestSkipMembers(t *testing.T) {
	es := []sumEntry{entry(1, 2, []uint64{1 << 40, 1<<40 + 1}), entry(3, 4, ids(1, 100)), entry(300, 400, []uint64{127, 128})}
	b := encodeSummary(es)
	r, err := newBlockReader(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		start := r.off
		got, ok, err := r.next()
		if err != nil || !ok || got.p != e.p || got.g != e.g || got.count != e.count {
			t.Fatalf("entry %d = %+v, %v, %v", i, got, ok, err)
		}
		if err := r.skipMembers(); err != nil {
			t.Fatal(err)
		}
		if one := encodeSummary([]sumEntry{e}); !bytes.Equal(b[start:r.off], one[1:]) {
			t.Errorf("entry %d bytes %x, want %x", i, b[start:r.off], one[1:])
		}
	}
	if r.off != len(b) {
		t.Errorf("entries end at %d of %d", r.off, len(b))
	}
	for n := 1; n < len(b); n++ {
		bdb, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set(appendBlockKey(nil, spaceSPO, 0, 5), b[:n]) }); err != nil {
			t.Fatal(err)
		}
		txn := bdb.NewTransaction(false)
		w := &summaryWriter{sink: &captureSink{kv: map[string][]byte{}}, blocks: newStoredBlocks(txn, spaceSPO, 0), space: spaceSPO}
		err = w.begin(5)
		if err == nil {
			if err = w.add(2, 3, 1, []uint64{1}); err == nil {
				err = w.flush()
			}
		}
		if !errors.Is(err, errBadSummary) {
			t.Errorf("block truncated to %d bytes: %v", n, err)
		}
		w.blocks.Close()
		txn.Discard()
		bdb.Close()
	}
}
