package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// segmentedTwin loads graphs a, b and c (b and c into segments of their
// own, every entity in all three) and edits them.
func segmentedTwin(t *testing.T, rng *rand.Rand) *segTwin {
	tw := newSegTwin(t)
	tw.graphNames = []string{"a", "b", "c", "d"}
	tw.load(LoadOptions{Graph: "a"}, segQuads(rng, "a", 600))
	tw.load(LoadOptions{Graph: "b"}, segQuads(rng, "b", 600))
	tw.load(LoadOptions{Graph: "c"}, segQuads(rng, "c", 400))
	tw.apply("b", segQuads(rng, "b", 40)[:40], nil)
	tw.apply("d", segQuads(rng, "d", 30)[:30], nil)
	if got, want := segmentsOf(tw.seg), map[string]uint8{"a": 0, "b": 1, "c": 2, "d": 0}; !maps.Equal(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	return tw
}

// blockKeys counts the node block keys of each segment in db.
func blockKeys(t *testing.T, db *DB) map[uint8]int {
	t.Helper()
	n := map[uint8]int{}
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{spaceSummary}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if _, seg, _, ok := splitBlockKey(it.Item().Key()); ok {
				n[seg]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMergeSegments merges a database's segments into one and checks
// every read against a database that never had more than one, before and
// after more writes.
func TestMergeSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	tw := segmentedTwin(t, rng)
	tw.compare("before the merge")
	before := blockKeys(t, tw.seg)
	tw.seg.mergeStretch = 7 // many snapshots per pass
	st, err := tw.seg.MergeSegments(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A node in segments 1 and 2 is one block moved.
	if n := int64(before[1] + before[2]); st.Segments != 3 || st.Resumed || st.Blocks > n || st.Blocks < int64(max(before[1], before[2])) {
		t.Fatalf("stats %+v for block keys %v", st, before)
	}
	if st.Merged == 0 || st.Blocks == 0 {
		t.Fatalf("stats %+v: every entity is in all graphs, so blocks must be moved and merged", st)
	}
	after := blockKeys(t, tw.seg)
	if after[1] != 0 || after[2] != 0 || after[0] != blockKeys(t, tw.flat)[0] {
		t.Fatalf("block keys per segment %v after the merge; the flat database has %v", after, blockKeys(t, tw.flat))
	}
	if tw.seg.segmentsUsed() != 1 || storedFormat(t, tw.seg) != formatVersion {
		t.Fatalf("%d segments, format %d after the merge", tw.seg.segmentsUsed(), storedFormat(t, tw.seg))
	}
	if got := segmentsOf(tw.seg); !maps.Equal(got, map[string]uint8{"a": 0, "b": 0, "c": 0, "d": 0}) {
		t.Fatalf("segments %v after the merge", got)
	}
	tw.compare("merged")
	if err := tw.seg.Flatten(context.Background()); err != nil {
		t.Fatal(err)
	}
	tw.compare("flattened")
	if st, err := tw.seg.MergeSegments(context.Background(), nil); err != nil || st.Blocks != 0 || st.Segments != 1 {
		t.Fatalf("a second merge: %+v, %v", st, err)
	}

	// Writes after the merge, and a reopen; a new large graph gets a
	// segment again.
	tw.apply("c", segQuads(rng, "c", 50)[:50], nil)
	tw.load(LoadOptions{Graph: "b"}, segQuads(rng, "b", 200))
	tw.graphNames = append(tw.graphNames, "e")
	tw.load(LoadOptions{Graph: "e"}, segQuads(rng, "e", 300))
	if got := segmentsOf(tw.seg)["e"]; got != 1 {
		t.Fatalf("graph e in segment %d after the merge, want 1", got)
	}
	tw.reopen()
	tw.compare("writes after the merge")
}

// TestInterruptedMerge stops a merge between transactions and checks that
// reads stay correct, writes are refused (also after a reopen) and a
// second run completes it.
func TestInterruptedMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	tw := segmentedTwin(t, rng)
	tw.seg.mergeOps = 4
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := tw.seg.MergeSegments(ctx, func(MergeProgress) {
		if calls++; calls == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("merge returned %v, want context.Canceled", err)
	}
	keys := blockKeys(t, tw.seg)
	if keys[1] == 0 || keys[1]+keys[2] == blockKeys(t, tw.flat)[0] {
		// Not a mixed state: the test would prove nothing.
		t.Fatalf("block keys per segment %v: the merge did not stop half way", keys)
	}
	tw.compare("interrupted merge")
	check := func(step string) {
		t.Helper()
		err := tw.seg.Apply(context.Background(), "b", segQuads(rng, "b", 5)[:5], nil)
		if !errors.Is(err, ErrMergeUnfinished) {
			t.Fatalf("%s: deltas during an unfinished merge: %v", step, err)
		}
		l, err := tw.seg.NewLoader(LoadOptions{Graph: "x"})
		if !errors.Is(err, ErrMergeUnfinished) {
			if l != nil {
				l.Close()
			}
			t.Fatalf("%s: bulk load during an unfinished merge: %v", step, err)
		}
	}
	check("same process")
	tw.reopen()
	tw.compare("reopened")
	check("reopened")
	st, err := tw.seg.MergeSegments(context.Background(), nil)
	if err != nil || !st.Resumed || st.Blocks == 0 {
		t.Fatalf("resumed merge: %+v, %v", st, err)
	}
	if keys := blockKeys(t, tw.seg); keys[1] != 0 || keys[2] != 0 {
		t.Fatalf("block keys per segment %v after the resumed merge", keys)
	}
	tw.compare("resumed")
	tw.apply("b", segQuads(rng, "b", 20)[:20], []quad.Quad{})
	tw.compare("deltas after the resumed merge")
}

// TestMergeBlocks covers the encoder of a node's merged block.
func TestMergeBlocks(t *testing.T) {
	a := encodeSummary([]sumEntry{{p: 1, g: 1, count: 2, ids: []uint64{4, 9}}, {p: 3, g: 1, count: 20}})
	b := encodeSummary([]sumEntry{{p: 1, g: 2, count: 1, ids: []uint64{7}}, {p: 2, g: 2, count: 9}})
	got, err := mergeBlocks([][]byte{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := encodeSummary([]sumEntry{{p: 1, g: 1, count: 2, ids: []uint64{4, 9}}, {p: 1, g: 2, count: 1, ids: []uint64{7}},
		{p: 2, g: 2, count: 9}, {p: 3, g: 1, count: 20}})
	if string(got) != string(want) {
		t.Fatalf("merged block %x, want %x", got, want)
	}
	if _, err := mergeBlocks([][]byte{a, a}); err == nil {
		t.Fatal("a group in two blocks was merged")
	}
	if _, err := mergeBlocks([][]byte{a, {0x05, 0x01}}); err == nil {
		t.Fatal("a corrupt block was merged")
	}
}

// TestMergeWhileReading reads every entity's quads and relations while a
// merge moves the nodes in small transactions: each read must see every
// quad, before, during and after the merge.
func TestMergeWhileReading(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tw := segmentedTwin(t, rng)
	type answer struct {
		quads []string
		rels  string
	}
	ctx := context.Background()
	read := func(db *DB, v quad.Value) (answer, error) {
		var a answer
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			qs, _ := nodeQuads(t, db, d, v)
			a.quads = append(a.quads, qs...)
		}
		rels, err := db.Relations(ctx, []string{quad.ToString(v)}, store.Both)
		a.rels = fmt.Sprint(rels)
		return a, err
	}
	want := map[quad.Value]answer{}
	for _, v := range tw.entities {
		a, err := read(tw.flat, v)
		if err != nil {
			t.Fatal(err)
		}
		want[v] = a
	}
	tw.seg.mergeOps = 6
	done := make(chan struct{})
	errs := make(chan error, 2)
	for w := range 2 {
		go func() {
			sent := false
			defer func() {
				if !sent { // a helper called t.Fatal (runtime.Goexit)
					errs <- errors.New("a reader failed")
				}
			}()
			for i := w; ; i++ {
				select {
				case <-done:
					errs <- nil
					sent = true
					return
				default:
				}
				v := tw.entities[i%len(tw.entities)]
				got, err := read(tw.seg, v)
				if err != nil || !slices.Equal(got.quads, want[v].quads) || got.rels != want[v].rels {
					errs <- fmt.Errorf("%v during the merge: %d quads, want %d (%v)", v, len(got.quads), len(want[v].quads), err)
					sent = true
					return
				}
			}
		}()
	}
	st, err := tw.seg.MergeSegments(ctx, nil)
	close(done)
	for range 2 {
		if e := <-errs; e != nil {
			t.Fatal(e)
		}
	}
	if err != nil || st.Blocks == 0 {
		t.Fatalf("merge: %+v, %v", st, err)
	}
	tw.compare("after the merge")
}

// TestMergeWideNode merges a node whose block alone is larger than a merge
// transaction's bound and than Badger's value threshold (an rdf:Seq-like
// node with a distinct predicate per member, in two graphs): it moves in a
// transaction of its own.
func TestMergeWideNode(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 2 × 120k quads")
	}
	const n = 60000
	tw := newSegTwin(t)
	wide := quad.IRI("http://ex.org/wide")
	tw.entities = []quad.Value{wide, quad.IRI("http://ex.org/m7"), quad.IRI("http://ex.org/r0")}
	tw.graphNames = []string{"a", "b"}
	for _, g := range tw.graphNames {
		qs := make([]quad.Quad, 0, 2*n)
		for i := range n {
			p := quad.IRI(fmt.Sprintf("http://ex.org/%s/_%d", g, i))
			qs = append(qs, quad.Quad{Subject: wide, Predicate: p, Object: quad.IRI(fmt.Sprint("http://ex.org/m", i%50))},
				quad.Quad{Subject: quad.IRI(fmt.Sprint("http://ex.org/m", i%50)), Predicate: p, Object: wide})
		}
		tw.load(LoadOptions{Graph: g}, qs)
	}
	if got := segmentsOf(tw.seg); !maps.Equal(got, map[string]uint8{"a": 0, "b": 1}) {
		t.Fatalf("segments %v", got)
	}
	ref, err := tw.seg.ValueOf(wide)
	if err != nil || ref == nil {
		t.Fatal(ref, err)
	}
	id := uint64(ref.(nodeRef))
	block := func(seg uint8) []byte {
		var v []byte
		if err := tw.seg.bdb.View(func(txn *badger.Txn) (err error) {
			v, err = getValue(txn, appendBlockKey(nil, spaceSPO, seg, id))
			return err
		}); err != nil {
			t.Fatalf("segment %d block: %v", seg, err)
		}
		return v
	}
	blocks := [][]byte{block(0), block(1)}
	merged, err := mergeBlocks(blocks)
	if err != nil {
		t.Fatal(err)
	}
	// Above the merge's transaction bound, and above Badger's value
	// threshold (1 MiB: the block goes to the value log).
	tw.seg.mergeBytes = 256 << 10
	if len(merged) <= 1<<20 {
		t.Fatalf("the merged block is %d bytes: the test needs one above 1 MiB", len(merged))
	}
	st, err := tw.seg.MergeSegments(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Merged < 2 || blockKeys(t, tw.seg)[1] != 0 {
		t.Fatalf("stats %+v, block keys %v", st, blockKeys(t, tw.seg))
	}
	if got := block(0); !bytes.Equal(got, merged) {
		t.Fatalf("stored block of %d bytes, merged %d", len(got), len(merged))
	}
	// The wide node's quads in both directions: every quad of the
	// database (the KG calls on a node with 240k relations would take most
	// of a minute).
	check := func(step string) {
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			a, na := nodeQuads(t, tw.seg, d, wide)
			b, nb := nodeQuads(t, tw.flat, d, wide)
			if !slices.Equal(a, b) || na != nb || na != 2*n {
				t.Fatalf("%s: %d and %d quads of the wide node as %v, want %d", step, na, nb, d, 2*n)
			}
		}
	}
	check("merged")
	tw.reopen()
	check("reopened")
}
