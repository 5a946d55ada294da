package engine

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// TestPutKV: the hand-written record is byte for byte what Badger's own
// KVToBuffer writes, for empty and long values, large versions and ids.
func TestPutKV(t *testing.T) {
	for _, tc := range []struct {
		name     string
		key, val []byte
		version  uint64
		meta     byte
		stream   uint32
	}{
		{"small", []byte("tIabc"), []byte{0, 0, 0, 0, 0, 0, 0, 7}, 1, 0, streamTerm},
		{"empty value", []byte("S\x00\x01"), nil, 3, 0, streamSPO},
		{"long key and value", []byte(strings.Repeat("k", 300)), bytes.Repeat([]byte{9}, 70000), 1 << 40, 0, 1 << 20},
		{"version and stream zero", []byte("m"), []byte("v"), 0, 0, 0},
		{"deletion", []byte("S\x00\x02"), nil, 9, bitDelete, streamSPO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mine, theirs := z.NewBuffer(1<<10, "test"), z.NewBuffer(1<<10, "test")
			defer mine.Release()
			defer theirs.Release()
			putKV(mine, tc.key, tc.val, tc.version, tc.meta, tc.stream)
			kv := &pb.KV{Key: tc.key, Value: tc.val, Version: tc.version, StreamId: tc.stream}
			if tc.meta != 0 {
				kv.Meta = []byte{tc.meta}
			}
			badger.KVToBuffer(kv, theirs)
			if !bytes.Equal(mine.Bytes(), theirs.Bytes()) {
				t.Fatalf("putKV wrote\n%x\nKVToBuffer wrote\n%x", mine.Bytes(), theirs.Bytes())
			}
		})
	}
}

func TestCompactionDue(t *testing.T) {
	cases := []struct {
		name   string
		levels []badger.LevelInfo
		due    bool
	}{
		{"nothing scored", []badger.LevelInfo{{Level: 0}, {Level: 5}, {Level: 6}}, false},
		{"L5 over its target", []badger.LevelInfo{{Level: 5, Score: 4, Adjusted: 4}, {Level: 6}}, true},
		{"L5 over but its adjusted score below 1", []badger.LevelInfo{{Level: 5, Score: 1.2, Adjusted: 0.6}}, false},
		{"L0 over: compactor 0 runs it whatever its adjusted score", []badger.LevelInfo{{Level: 0, Score: 1.4, Adjusted: 0.2}}, true},
		{"scores below 1", []badger.LevelInfo{{Level: 0, Score: 0.4}, {Level: 5, Score: 0.9, Adjusted: 3}}, false},
	}
	for _, tc := range cases {
		if got := compactionDue(tc.levels); got != tc.due {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.due)
		}
	}
}

// TestIncrementalLoadVersions: a bulk load into a database holding another
// graph writes its keyspaces with the versions of compactLate, so Badger
// compacts the node blocks first and the dictionary last; a load into an
// empty database writes one version.
func TestIncrementalLoadVersions(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	versions := func() map[byte]map[uint64]bool {
		out := map[byte]map[uint64]bool{}
		err := db.bdb.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{AllVersions: true})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				k := it.Item().Key()
				if k[0] == 'm' {
					continue // meta keys are written by transactions too
				}
				if out[k[0]] == nil {
					out[k[0]] = map[uint64]bool{}
				}
				out[k[0]][it.Item().Version()] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if st := loadWith(t, db, "a", synthQuads(1, 20000), DefaultMaxMemory); st.Writer != "stream" {
		t.Fatalf("first load writer %q", st.Writer)
	}
	first := versions()
	// As a second `grove ingest` would: the first load's meta writes are
	// flushed, so the StreamWriter can add tables above the stored ones.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	var v0 uint64
	for space, vs := range first {
		if len(vs) != 1 {
			t.Errorf("fresh load: keyspace %c has versions %v", space, vs)
		}
		for v := range vs {
			v0 = v
		}
	}
	second := synthQuads(2, 20000)
	second = append(second, quad.Quad{Subject: quad.IRI("new-node"), Predicate: quad.IRI("p1"), Object: quad.String("only in b")})
	if st := loadWith(t, db, "b", second, DefaultMaxMemory); st.Writer != "stream" {
		t.Fatalf("second load writer %q", st.Writer)
	}
	// Each keyspace's keys of the second load carry one version, and the
	// versions rise in the order Badger should merge them: node blocks,
	// then the S/O lists, then the P lists, then the term dictionary.
	after := versions()
	got := map[byte]uint64{}
	for _, space := range []byte{spaceSummary, spaceOPS, spacePred, spaceTerm} {
		for v := range after[space] {
			if v == v0 {
				continue
			}
			if got[space] != 0 {
				t.Errorf("keyspace %c: second load wrote versions %d and %d", space, got[space], v)
			}
			got[space] = v
		}
		if got[space] <= v0 {
			t.Fatalf("keyspace %c: no key written by the second load (versions %v)", space, after[space])
		}
	}
	if !(got[spaceSummary] < got[spaceOPS] && got[spaceOPS] < got[spacePred] && got[spacePred] < got[spaceTerm]) {
		t.Errorf("second load's versions R %d, O %d, P %d, t %d: want strictly rising (merge order)",
			got[spaceSummary], got[spaceOPS], got[spacePred], got[spaceTerm])
	}
}

// TestLoadPhases: a bulk load reports its commit phases in order, each
// starting at 0, into an empty database and into one holding a graph;
// the compaction wait reports non-decreasing bytes.
func TestLoadPhases(t *testing.T) {
	dir := t.TempDir()
	for i, graph := range []string{"a", "b"} {
		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var phases []string
		var compacted int64
		progress := func(p LoadProgress) {
			if n := len(phases); n == 0 || phases[n-1] != p.Phase {
				if p.Done != 0 {
					t.Errorf("load %d: phase %s starts at %d", i, p.Phase, p.Done)
				}
				phases = append(phases, p.Phase)
			}
			if p.Phase == "compact" {
				if p.Done < compacted {
					t.Errorf("load %d: compacted bytes went from %d to %d", i, compacted, p.Done)
				}
				compacted = p.Done
			}
		}
		loadOpts(t, db, LoadOptions{Graph: graph, Progress: progress}, synthQuads(uint64(i+1), 20000))
		if want := []string{"dictionary", "map", "write", "labels", "compact"}; !slices.Equal(phases, want) {
			t.Errorf("load %d: phases %v, want %v", i, phases, want)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMarkerRecordsFileGraphs: the interrupted-ingest marker names the
// files and the graph of each file loaded into another graph, and a
// reopened database reports them.
func TestMarkerRecordsFileGraphs(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fg := map[string]string{"b.nt": "mine"}
	l, err := db.NewLoader(LoadOptions{Graph: "a", Files: []string{"a.nt", "b.nt"}, FileGraphs: fg})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.writeMarker(true); err != nil {
		t.Fatal(err)
	}
	l.Close()
	db.Close()
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in := db.Interrupted()
	if in == nil || in.Graph != "a" || !slices.Equal(in.Files, []string{"a.nt", "b.nt"}) || !maps.Equal(in.FileGraphs, fg) ||
		!in.Fresh {
		t.Errorf("interrupted load %+v", in)
	}
}

// TestBulkTableSize: the tables a bulk load writes follow its budget (a
// power of two from 2 to 32 MiB), and a database opened with a load
// budget gives Badger the matching base table size and its loads that
// budget.
func TestBulkTableSize(t *testing.T) {
	for _, tc := range []struct {
		budget int64
		want   int64
	}{
		{0, 32 << 20}, // DefaultMaxMemory
		{minMaxMemory, 2 << 20},
		{256 << 20, 2 << 20},
		{512 << 20, 2 << 20},
		{1 << 30, 8 << 20},
		{1536 << 20, 16 << 20},
		{2 << 30, 32 << 20},
		{64 << 30, 32 << 20},
	} {
		if got := bulkTableSize(tc.budget); got != tc.want {
			t.Errorf("bulkTableSize(%d MiB) = %d MiB, want %d MiB", tc.budget>>20, got>>20, tc.want>>20)
		}
	}
	// Badger's StreamWriter writes tables of BaseTableSize times the
	// multiplier to the power of MaxLevels-2; compactions, tables of no
	// more than that, and below the maximum exactly that.
	for _, mem := range []int64{512 << 20, 1 << 30, 4 << 30} {
		db, err := Open(t.TempDir(), Options{LoadMemory: mem})
		if err != nil {
			t.Fatal(err)
		}
		o := db.bdb.Opts()
		top := o.BaseTableSize
		for range o.MaxLevels - 2 {
			top *= int64(o.TableSizeMultiplier)
		}
		if top != bulkTableSize(mem) {
			t.Errorf("LoadMemory %d MiB: Badger's bulk tables %d MiB, want %d MiB", mem>>20, top>>20, bulkTableSize(mem)>>20)
		}
		if mem < 2<<30 && o.TableSizeMultiplier != 1 {
			t.Errorf("LoadMemory %d MiB: table size multiplier %d, want 1", mem>>20, o.TableSizeMultiplier)
		}
		db.Close()
	}
	db, err := Open(t.TempDir(), Options{LoadMemory: 512 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := db.NewLoader(LoadOptions{Graph: "g"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.budget != 512<<20 {
		t.Errorf("a load without MaxMemory has budget %d, want the database's LoadMemory", l.budget)
	}
}

// TestBlockCacheSize: a handle opened for bulk loads with a budget gets a
// block cache of budget/64 (4 MiB at least, 128 MiB at most), any other
// the readers' 128 MiB.
func TestBlockCacheSize(t *testing.T) {
	for _, tc := range []struct {
		loadMemory, want int64
	}{
		{0, 128 << 20},
		{minMaxMemory, 4 << 20},
		{512 << 20, 8 << 20},
		{2 << 30, 32 << 20},
		{64 << 30, 128 << 20},
	} {
		if got := blockCacheSize(tc.loadMemory); got != tc.want {
			t.Errorf("blockCacheSize(%d MiB) = %d MiB, want %d MiB", tc.loadMemory>>20, got>>20, tc.want>>20)
		}
	}
	for _, mem := range []int64{0, 512 << 20} {
		db, err := Open(t.TempDir(), Options{LoadMemory: mem})
		if err != nil {
			t.Fatal(err)
		}
		if got := db.bdb.Opts().BlockCacheSize; got != blockCacheSize(mem) {
			t.Errorf("LoadMemory %d MiB: Badger's block cache %d MiB, want %d MiB", mem>>20, got>>20, blockCacheSize(mem)>>20)
		}
		db.Close()
	}
}
