package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// synthQuads makes n quads over a skewed set of nodes, with literals and
// labels, so that batches share terms and hubs span several chunks.
func synthQuads(seed uint64, n int) []quad.Quad {
	r := rand.New(rand.NewPCG(seed, 7))
	node := func() quad.Value {
		if r.IntN(4) == 0 {
			return quad.IRI(fmt.Sprintf("hub%d", r.IntN(3)))
		}
		return quad.IRI(fmt.Sprintf("n%d", r.IntN(n/3+1)))
	}
	qs := make([]quad.Quad, 0, n)
	for i := 0; i < n; i++ {
		s := quad.IRI(fmt.Sprintf("n%d", r.IntN(n/3+1)))
		switch r.IntN(5) {
		case 0:
			qs = append(qs, quad.Quad{Subject: s, Predicate: quad.IRI(store.RDFSLabel),
				Object: quad.LangString{Value: quad.String(fmt.Sprintf("label %d", r.IntN(n))), Lang: "en"}})
		case 1:
			qs = append(qs, quad.Quad{Subject: s, Predicate: quad.IRI("year"), Object: quad.Int(r.IntN(300) + 1800)})
		default:
			qs = append(qs, quad.Quad{Subject: s, Predicate: quad.IRI(fmt.Sprintf("p%d", r.IntN(20))), Object: node()})
		}
	}
	return qs
}

// dumpKeys returns every key and value of the database (meta included).
func dumpKeys(t *testing.T, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertSameKeys(t *testing.T, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("key counts differ: %d vs %d", len(a), len(b))
	}
	n := 0
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			if n++; n <= 5 {
				t.Errorf("key %q: %q vs %q (present %v)", k, v, w, ok)
			}
		}
	}
}

// TestBoundedLoadMatchesOneBatch: a load cut into many batches and sorted
// runs by a tiny memory budget, with plain or compressed temporary files,
// with its runs reduced before the final merges (small runs, fan-in 3),
// and with its batch vocabularies merged in groups of groups (fan-in 3),
// writes exactly the keys of a load done in one batch, into an empty
// database and into one holding another graph.
func TestBoundedLoadMatchesOneBatch(t *testing.T) {
	first, second := synthQuads(1, 40000), synthQuads(2, 30000)
	var dumps []map[string]string
	for _, tc := range []struct {
		mem      int64
		compress bool
		reduce   bool
		group    bool
	}{
		{DefaultMaxMemory, false, false, false}, {minMaxMemory, false, false, false}, {minMaxMemory, true, false, false},
		{minMaxMemory, false, true, false}, {minMaxMemory, false, false, true}, {minMaxMemory, true, false, true},
	} {
		mem := tc.mem
		var logs strings.Builder
		db, err := Open(t.TempDir(), Options{CompressTemp: tc.compress, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if tc.reduce {
			db.sortRun, db.sortFanIn = 2000, 3
		}
		if tc.group {
			db.vocabFanIn = 3
		}
		st1 := loadWith(t, db, "a", first, mem)
		st2 := loadWith(t, db, "b", second, mem)
		if mem == minMaxMemory && (st1.Batches < 3 || st2.Batches < 3) {
			t.Errorf("batches = %d, %d; the tiny budget should force several", st1.Batches, st2.Batches)
		}
		if reduced := strings.Count(logs.String(), "merged sorted runs"); tc.reduce != (reduced == 4) {
			t.Errorf("reduce %v: %d run reductions logged, want 4 (S and O sorters, two loads) or none", tc.reduce, reduced)
		}
		if grouped := strings.Count(logs.String(), "merged batch vocabularies in groups"); tc.group != (grouped == 4) {
			t.Errorf("group %v: %d grouped vocabulary merges logged, want 4 (two levels of groups, two loads) or none",
				tc.group, grouped)
		}
		dumps = append(dumps, dumpKeys(t, db))
		var want []quad.Quad
		for g, qs := range map[string][]quad.Quad{"a": first, "b": second} {
			for _, q := range qs {
				q.Label = quad.IRI(g)
				want = append(want, q)
			}
		}
		if got := quadSet(t, db); !maps.Equal(got, setOf(want)) {
			t.Errorf("budget %d: %d quads stored, want %d", mem, len(got), len(setOf(want)))
		}
		rels, err := db.Relations(context.Background(), []string{"hub0"}, store.In)
		if err != nil || len(rels) == 0 {
			t.Errorf("hub relations = %v, %v", rels, err)
		}
		db.Close()
	}
	for _, d := range dumps[1:] {
		assertSameKeys(t, dumps[0], d)
	}
}

func spillDirs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), spillPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestSpillFilesRemoved: the temporary directory is gone after a commit, an
// abandoned load and a cancelled commit; a cancelled commit changes nothing.
func TestSpillFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qs := synthQuads(3, 20000)
	loadWith(t, db, "a", qs, minMaxMemory)
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("after commit: %v", d)
	}
	before := dumpKeys(t, db)

	l, err := db.NewLoader(LoadOptions{Graph: "b", MaxMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range synthQuads(4, 20000) {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if len(spillDirs(t, dir)) != 1 {
		t.Errorf("a running load should have one spill directory")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled commit = %v", err)
	}
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("after cancel: %v", d)
	}
	assertSameKeys(t, before, dumpKeys(t, db))

	l, err = db.NewLoader(LoadOptions{Graph: "c"})
	if err != nil {
		t.Fatal(err)
	}
	_ = l.WriteQuad(qs[0])
	l.Close()
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("after close: %v", d)
	}
	// A directory left by a killed process is removed on the next open.
	if err := os.Mkdir(dir+"/"+spillPrefix+"stale", 0o755); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("after reopen: %v", d)
	}
}

// TestCorruptIDCounterStopsLoad: an unreadable id counter must fail the
// load instead of being taken for an empty database (which would skip the
// dictionary lookups and give stored terms second ids).
func TestCorruptIDCounterStopsLoad(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQuads(t, db, "a", synthQuads(5, 100))
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaNextID, []byte{1, 2, 3}) }); err != nil {
		t.Fatal(err)
	}
	l, err := db.NewLoader(LoadOptions{Graph: "b"})
	if err == nil {
		l.Close()
		t.Fatal("load with a corrupt id counter started")
	}
	if !strings.Contains(err.Error(), "id counter") {
		t.Errorf("error = %v", err)
	}
}

// TestLoadKeepsForeignKeys: the StreamWriter's Prepare (which drops every
// key) runs only when the keyspace is positively empty, not whenever no
// graph is registered.
func TestLoadKeepsForeignKeys(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte("x-foreign"), []byte("keep")) }); err != nil {
		t.Fatal(err)
	}
	loadQuads(t, db, "a", synthQuads(6, 100))
	if got := dumpKeys(t, db)["x-foreign"]; got != "keep" {
		t.Errorf("foreign key = %q after a load into a database without graphs", got)
	}
}

// TestNeighborsHubLimit: Neighbors with a limit reads only the chunks it
// needs. The hub's second chunk is corrupted: reading the whole list (as
// a limit-blind implementation does) fails, stopping at the limit does not.
func TestNeighborsHubLimit(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var qs []quad.Quad
	for i := 0; i < chunkSize+500; i++ {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%05d", i)), Predicate: quad.IRI("type"), Object: quad.IRI("hub")})
	}
	loadQuads(t, db, "g", qs)
	var key []byte
	err = db.bdb.View(func(txn *badger.Txn) error {
		hub, _, err := db.termID(txn, quad.IRI("hub"))
		if err != nil {
			return err
		}
		p, _, err := db.termID(txn, quad.IRI("type"))
		g, _, _ := db.termID(txn, quad.IRI("g"))
		key = withChunk(groupKey(nil, spaceOPS, hub, p, g), 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(key, []byte{0xff}) }); err != nil {
		t.Fatal(err)
	}
	ns, err := db.Neighbors(context.Background(), "hub", "", store.In, 10)
	if err != nil || len(ns) != 10 {
		t.Fatalf("neighbors = %d, %v", len(ns), err)
	}
	if _, err := db.Neighbors(context.Background(), "hub", "", store.In, 0); err == nil {
		t.Error("reading the whole corrupt list should fail")
	}
}

// TestSpillDiskFull: a full disk while spilling is reported as such (the
// load has not written anything to the database at that point).
func TestSpillDiskFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full on this system")
	}
	sd := &spillDir{path: t.TempDir()}
	w := newSpillWriter(f, "/dev/full", sd, spillWriteBuf)
	_, werr := w.Write(make([]byte, 64))
	cerr := w.Close()
	err = errors.Join(werr, cerr)
	if !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want a disk-full error", err)
	}
}

// TestLoaderPredicateCache: the predicate cache gives the batch-local id
// the batch vocabulary gives, in every batch (ids are renumbered after a
// spill), and the label flag of the graph's label configuration.
func TestLoaderPredicateCache(t *testing.T) {
	_, l := newTestLoader(t, LoadOptions{Graph: "g"})
	label := quad.IRI(store.RDFSLabel)
	for i, tc := range []struct {
		pred      quad.Value
		spill     bool // spill the batch before this step
		wantLabel bool
	}{
		{pred: quad.IRI("p1")},
		{pred: label, wantLabel: true},
		{pred: quad.IRI("p1")},
		{pred: quad.IRI("p2"), spill: true},
		{pred: quad.IRI("p1")},
		{pred: label, wantLabel: true},
		{pred: quad.String("p1")}, // not an IRI: not cached under the IRI's name
		{pred: quad.IRI(`"p1"`)},  // an IRI named like the string's name
		{pred: quad.String("p1")},
		{pred: quad.IRI(strings.Clone("p1"))}, // same name, other memory
		{pred: quad.IRI("p1"), spill: true},
		{pred: quad.IRI(strings.Clone("p1"))},
		{pred: quad.BNode("b"), wantLabel: false},
		{pred: quad.IRI("_:b")},
	} {
		if tc.spill {
			l.batch.addQuad(lquad{}) // a batch with no quads is not spilled
			if err := l.spillBatch(false); err != nil {
				t.Fatal(err)
			}
		}
		id, isLabel, err := l.predicate(tc.pred)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := encodeTerm(nil, tc.pred)
		if err != nil {
			t.Fatal(err)
		}
		if want := l.batch.intern(enc); id != want || isLabel != tc.wantLabel {
			t.Errorf("step %d (%v): id %d label %v, want %d %v", i, tc.pred, id, isLabel, want, tc.wantLabel)
		}
	}
}

// TestAddBlock: adding quads a block at a time gives every term the local
// id that interning the quad's terms one by one (subject, predicate,
// object, graph) gives, whatever the block's shape.
func TestAddBlock(t *testing.T) {
	stmt := func(i int) quad.Quad {
		return quad.Quad{Subject: quad.IRI(fmt.Sprintf("Q%d$%d", i/3, i)), Predicate: quad.IRI("ps:P31"), Object: quad.IRI("Q5")}
	}
	for _, tc := range []struct {
		name   string
		quads  func(i int) quad.Quad
		n, blk int
	}{
		{"one quad", stmt, 1, 1},
		{"repeated subjects", func(i int) quad.Quad {
			return quad.Quad{Subject: quad.IRI(fmt.Sprintf("Q%d", i/5)), Predicate: quad.IRI(fmt.Sprintf("P%d", i%7)),
				Object: quad.LangString{Value: quad.String(fmt.Sprint("label ", i)), Lang: "en"}}
		}, 5000, 2048},
		{"alternating subjects", func(i int) quad.Quad {
			if i%2 == 0 {
				return quad.Quad{Subject: quad.IRI("Q1"), Predicate: quad.IRI("p:P31"), Object: quad.IRI(fmt.Sprintf("Q1$%d", i))}
			}
			return stmt(i)
		}, 3001, 100},
		{"huge literals, block in parts", func(i int) quad.Quad {
			return quad.Quad{Subject: quad.IRI(fmt.Sprint("Q", i/3)), Predicate: quad.IRI("p"),
				Object: quad.String(strings.Repeat(fmt.Sprint(i%50), 100_000))}
		}, 120, 60},
		{"subject as object", func(i int) quad.Quad {
			return quad.Quad{Subject: quad.IRI(fmt.Sprint(i)), Predicate: quad.IRI("next"), Object: quad.IRI(fmt.Sprint(i + 1))}
		}, 999, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, l := newTestLoader(t, LoadOptions{Graph: "g"})
			var ref readBatch
			var want []lquad
			intern := func(v quad.Value) uint32 {
				enc, err := encodeTerm(nil, v)
				if err != nil {
					t.Fatal(err)
				}
				return ref.intern(enc)
			}
			qs := make([]quad.Quad, tc.n)
			for i := range qs {
				qs[i] = tc.quads(i)
				want = append(want, lquad{s: intern(qs[i].Subject), p: intern(qs[i].Predicate), o: intern(qs[i].Object),
					g: intern(quad.IRI("g"))})
			}
			for i := 0; i < len(qs); i += tc.blk {
				if err := l.addBlock(qs[i:min(i+tc.blk, len(qs))]); err != nil {
					t.Fatal(err)
				}
			}
			var got []lquad
			for _, blk := range l.batch.quads {
				got = append(got, blk...)
			}
			if !slices.Equal(got, want) || l.batch.vocab.len() != ref.vocab.len() {
				t.Fatalf("%d quads, %d terms; want %d, %d (or different ids)", len(got), l.batch.vocab.len(), len(want), ref.vocab.len())
			}
		})
	}
}

// TestAddBlockSpill: when the batch fills in the middle of a block, the
// rest of the block goes into the new batch with hashes of the new
// vocabulary (each term found again under its id, no duplicates).
func TestAddBlockSpill(t *testing.T) {
	_, l := newTestLoader(t, LoadOptions{Graph: "g", MaxMemory: minMaxMemory})
	qs := make([]quad.Quad, 3000)
	for i := range qs {
		qs[i] = quad.Quad{Subject: quad.IRI(fmt.Sprint("Q", i/10)), Predicate: quad.IRI("p"),
			Object: quad.String(fmt.Sprintf("%0100d", i%1700))} // repeats after the spill
	}
	if err := l.addBlock(qs); err != nil {
		t.Fatal(err)
	}
	if l.batchSeq < 2 {
		t.Fatal("the block did not fill a batch")
	}
	v := &l.batch.vocab
	n := v.len()
	for id := range uint32(n) {
		if got := v.intern(slices.Clone(v.term(id))); got != id {
			t.Fatalf("term %d found as %d: interned twice", id, got)
		}
	}
	var got []lquad
	for _, blk := range l.batch.quads {
		got = append(got, blk...)
	}
	tail := qs[len(qs)-len(got):]
	for k, q := range got {
		want, _ := encodeTerm(nil, tail[k].Object)
		if !bytes.Equal(v.term(q.o), want) {
			t.Fatalf("quad %d: object %q, want %q", k, v.term(q.o), want)
		}
	}
	if v.len() != n {
		t.Fatalf("vocabulary grew from %d to %d on lookups", n, v.len())
	}
}

// TestLongListsSpooled: posting lists longer than the spool threshold (a
// hub's "type" edges and that predicate's P list), written into an empty
// database and then merged with the stored lists by a second load into
// the same graph, give exactly the keys of loads that hold every list in
// memory (with plain and compressed temporary files), and every quad
// reads back.
func TestLongListsSpooled(t *testing.T) {
	hub := func(from, to int) []quad.Quad {
		var qs []quad.Quad
		for i := from; i < to; i++ {
			qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%d", i)), Predicate: quad.IRI("type"),
				Object: quad.IRI("topic")})
		}
		return qs
	}
	first := append(hub(0, 5*chunkSize), synthQuads(3, 5000)...)
	second := append(hub(3*chunkSize, 7*chunkSize+11), synthQuads(4, 5000)...)
	var dumps []map[string]string
	for _, tc := range []struct {
		spool    int
		compress bool
	}{{0, false}, {2 * chunkSize, false}, {2 * chunkSize, true}} {
		spool := tc.spool
		db, err := Open(t.TempDir(), Options{CompressTemp: tc.compress})
		if err != nil {
			t.Fatal(err)
		}
		db.listSpool = spool
		loadQuads(t, db, "a", first)
		loadQuads(t, db, "a", second)
		var want []quad.Quad
		for _, q := range append(slices.Clone(first), second...) {
			q.Label = quad.IRI("a")
			want = append(want, q)
		}
		if got := quadSet(t, db); !maps.Equal(got, setOf(want)) {
			t.Errorf("spool after %d: %d quads stored, want %d", spool, len(got), len(setOf(want)))
		}
		if ents, err := os.ReadDir(db.dir); err != nil {
			t.Fatal(err)
		} else {
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), spillPrefix) {
					t.Errorf("temporary directory %s left", e.Name())
				}
			}
		}
		dumps = append(dumps, dumpKeys(t, db))
		db.Close()
	}
	for _, d := range dumps[1:] {
		assertSameKeys(t, dumps[0], d)
	}
}

// TestCommitCancelledWhileWriting: a load cancelled once its write phase
// has begun says the graph may be partly written and how to complete it,
// and re-running it does.
func TestCommitCancelledWhileWriting(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qs := synthQuads(5, 20000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := db.NewLoader(LoadOptions{Graph: "g", Progress: func(p LoadProgress) {
		if p.Phase == "write" {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	_, err = l.Commit(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "re-run the same ingest to complete it") {
		t.Fatalf("cancelled while writing: %v", err)
	}
	st := loadQuads(t, db, "g", qs)
	if st.Read != int64(len(qs)) {
		t.Fatalf("re-run read %d quads, want %d", st.Read, len(qs))
	}
	if db.Interrupted() != nil {
		t.Error("the re-run left the load marked interrupted")
	}
}
