package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2"

	"github.com/grove-kg/grove/store"
)

// formatVersion is stored in the database and checked on open.
const formatVersion = 3

// Meta keys.
var (
	metaVersion = []byte("mv")
	metaNextID  = []byte("mn")
	metaStats   = []byte("ms")
	metaGraph   = "mg" // + graph name
)

// markerFile exists in the database directory while a bulk load is writing.
const markerFile = "INGEST_IN_PROGRESS"

// Options configure Open.
type Options struct {
	// InMemory keeps everything in memory (tests); Dir is then ignored.
	InMemory bool
	// ReadOnly opens the database without write access and with a shared
	// lock: any number of read-only opens, from any processes, can hold it
	// at once, but not beside a writable one (Open then fails with
	// ErrInUse naming the holders). A database whose writer was killed is
	// briefly opened for writing first, to replay its log.
	ReadOnly bool
	// Logger receives engine and Badger logs; nil discards them.
	Logger *slog.Logger
	// CacheMB is the size of the term and label caches in MiB (default 64).
	CacheMB int
	// CompressTemp compresses the temporary files of bulk loads with s2:
	// about 0.6x the scratch disk (14 instead of 24 bytes per quad at 20M
	// quads) for about 10% more CPU.
	CompressTemp bool
	// SegmentMinQuads is the smallest bulk load of new graphs into a
	// database holding data that gets a node-block segment of its own
	// (see segment.go): 0 means 2^20 quads, a negative value never.
	SegmentMinQuads int64
	// Compression is the compression of the tables this handle writes:
	// CompressionSnappy or CompressionZSTD; empty means the one the
	// database recorded, snappy if none. A writable Open records a choice
	// made here for later opens (see compression.go).
	Compression string
	// LoadMemory is the memory budget of the bulk loads run through this
	// handle (LoadOptions.MaxMemory defaults to it; 0 means
	// DefaultMaxMemory). It also sizes the tables bulk loads write, which
	// Badger builds in memory (see bulkTableSize), and with them those of
	// Badger's compactions, so it is fixed at Open. Set, it also shrinks
	// Badger's block cache to suit bulk loads (blockCacheSize).
	LoadMemory int64
}

// Stats are exact database-wide counts.
type Stats struct {
	Quads int64 `json:"quads"`
	Nodes int64 `json:"nodes"`
}

// GraphMeta is what the engine records about each named graph.
type GraphMeta struct {
	Name string `json:"name"`
	// Label is the term id of the graph's label IRI.
	Label     uint64 `json:"label"`
	Quads     int64  `json:"quads"`
	Relations int64  `json:"relations"`
	// Labels is the number of (normalized label, entity) pairs in the
	// graph's label index, kept with every index write so that Graphs
	// never loads an index to count.
	Labels   int64             `json:"labels"`
	LabelCfg store.LabelConfig `json:"label_config"`
	// LabelGen and LabelSegs name the graph's live label index files: the
	// main index of generation LabelGen and the delta segments on top of
	// it, in order (see labelstore.go).
	LabelGen  uint64   `json:"label_gen,omitempty"`
	LabelSegs []string `json:"label_segs,omitempty"`
	// Segment is the node-block segment of the graph's groups (see
	// segment.go); 0 for most graphs.
	Segment uint8 `json:"segment,omitempty"`
}

// Interrupted describes a bulk load that did not finish.
type Interrupted struct {
	Graph string `json:"graph"`
	// Ranges are the term ids the runs of the load numbered, ascending and
	// disjoint: each run's range starts at the database's next id when it
	// began and ends at the next id after its terms, and a re-run keeps
	// the ranges of the runs before it (whose terms it numbers again).
	// Ids another writer took between two runs are in none of them.
	Ranges []IDRange `json:"id_ranges,omitempty"`
	// Start and Reserved are the start of the first range and the end of
	// the last. A marker written before Ranges were recorded has only
	// them (and Start 0 in one older still: the stored next id at open is
	// used), which are read as the one range [Start, Reserved).
	Start    uint64   `json:"start_id,omitempty"`
	Reserved uint64   `json:"reserved_next_id"`
	Files    []string `json:"files"`
	// FileGraphs names the graph of each file loaded into another graph
	// than Graph (grove ingest --graph-file NAME=FILE).
	FileGraphs map[string]string `json:"file_graphs,omitempty"`
	// Segment is the node-block segment the load's new graphs, named in
	// SegmentGraphs, went into; re-running the load uses it again, and so
	// do writes to those graphs before that (ApplyDeltas).
	Segment       uint8    `json:"segment,omitempty"`
	SegmentGraphs []string `json:"segment_graphs,omitempty"`
	// Fresh is set when the load started on an empty database. Until
	// something is committed, the next load starts over: it drops the
	// interrupted load's keys (Badger's StreamWriter adds each table it
	// writes to the LSM tree at once) instead of merging with them, which
	// would need their disk space again and the slower incremental path.
	Fresh bool `json:"fresh,omitempty"`
}

// IDRange is the term ids [Start, End).
type IDRange struct {
	Start uint64 `json:"start"`
	End   uint64 `json:"end"`
}

// addRange appends r to the ascending, disjoint ranges rs, which end at
// or before r.Start, joining it to the last one when they meet; an empty
// r is left out.
func addRange(rs []IDRange, r IDRange) []IDRange {
	switch n := len(rs); {
	case r.Start >= r.End:
		return rs
	case n > 0 && rs[n-1].End == r.Start:
		rs[n-1].End = r.End
		return rs
	}
	return append(rs, r)
}

// DB is an open Grove database: a Badger key-value store holding the term
// dictionary, the posting-list indexes and the label indexes of every graph.
// It implements store.KG and Cayley's graph.QuadStore.
type DB struct {
	dir  string
	bdb  *badger.DB
	log  *slog.Logger
	opts Options
	// compression is the table compression this handle writes.
	compression string
	terms       *ristretto.Cache[uint64, quad.Value]
	labels      *ristretto.Cache[uint64, labelInfo]
	// degrees caches node degrees for search ranking.
	degrees *ristretto.Cache[uint64, int64]
	// preds caches predicates and resolved ids, and says when labels
	// and degrees may be read and filled (see predCache).
	preds *predCache

	mu          sync.RWMutex // guards the fields below and serialises writers
	nextID      uint64
	stats       Stats
	graphs      map[string]*GraphMeta
	byLabel     map[uint64]*GraphMeta
	interrupted *Interrupted
	// hide is the read filter of an unfinished bulk load, nil without one
	// (loadfilter.go); replaced whole under mu, read without it.
	hide atomic.Pointer[loadFilter]
	// merging is the segment count of an unfinished MergeSegments, or 0
	// (segmerge.go): writes are refused while it is set.
	merging uint8
	// mergeOps, if set, caps the writes of one MergeSegments transaction
	// (tests interrupt merges between small transactions).
	mergeOps int
	// mergeBytes, if set, caps the bytes of one MergeSegments transaction
	// (tests: a node larger than the cap).
	mergeBytes int
	// sortRun and sortFanIn, if set, are the records per sorted run and the
	// runs merged at once of bulk loads (tests force run reductions).
	sortRun, sortFanIn int
	// listSpool, if set, is the length past which a bulk load spools a
	// posting list (listWriter.spoolAfter; tests spool short lists).
	listSpool int
	// vocabFanIn, if set, is the number of batch vocabularies a bulk
	// load merges at once (tests force grouped merges).
	vocabFanIn int
	// fileLimit, if set, replaces the limit on open files and memory maps
	// bulk loads check their tables against (tablelimit.go).
	fileLimit int64
	// freeDisk and openFiles, if set, replace the free space and open
	// file count bulk loads check (spill.go, writeguard.go).
	freeDisk  func(dir string) (uint64, bool)
	openFiles func() int64
	// guardEvery, if set, is the bytes of records between two checks of a
	// write phase and bounds the stream buffers (tests check small loads).
	guardEvery int64
	// guardTick, if set, is the time between two reads of the free
	// space by a write phase's watcher.
	guardTick time.Duration
	// nodeDeleteSize, if set, is the most quads one node-delete
	// transaction takes (tests delete nodes in several; nodedelete.go).
	nodeDeleteSize int
	// mergeStretch, if set, is the number of nodes a merge walks from one
	// snapshot (tests take several).
	mergeStretch int
	search       map[string]*searchIndex
	loading      sync.Map // graph name -> *sync.Mutex of its lazy label index load
	// segs is the number of node-block segments reads look in; used is
	// the number the stored graphs use, which a merge lowers (segment.go,
	// segmerge.go).
	segs    atomic.Int32
	used    atomic.Int32
	writeMu sync.Mutex
}

// checkReplaySpace refuses to open a database whose last writer was
// killed (it left a memtable log, *.mem, that Badger replays on open
// through a memory map) on a disk with less than minWriteSpace free: the
// replay would fault and kill the process (SIGBUS), read-only opens
// included.
func checkReplaySpace(dir string, free func(string) (uint64, bool)) error {
	logs, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil || len(logs) == 0 {
		return nil
	}
	if n, ok := free(dir); ok && n < minWriteSpace {
		return fmt.Errorf("open database %s: its last writer did not close it, and replaying its log (%s) needs "+
			"about %d MiB of free disk where %d MiB are free: free some space and retry (no data is lost)",
			dir, filepath.Base(logs[0]), minWriteSpace>>20, n>>20)
	}
	return nil
}

// openBadger opens Badger. A read-only open of a database whose writer
// was killed fails until Badger has replayed its log, which needs write
// access: the log is then replayed by a writable open (an exclusive lock,
// for a moment), which is closed at once, and the database opened
// read-only again.
func openBadger(bopts badger.Options, log *slog.Logger) (*badger.DB, error) {
	bdb, err := badger.Open(bopts)
	if err == nil || !bopts.ReadOnly || !strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error()) {
		return bdb, err
	}
	log.Info("the database was not closed cleanly: replaying its log before opening it read-only", "dir", bopts.Dir)
	w, err := badger.Open(bopts.WithReadOnly(false))
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("replay the log: %w", err)
	}
	return badger.Open(bopts)
}

// Open opens (creating if needed) the database in dir.
func Open(dir string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() && !opts.InMemory {
		return nil, fmt.Errorf("open database %s: it is a file, not a database directory", dir)
	}
	compression, chosen, err := tableCompression(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	bopts := withCompression(badger.DefaultOptions(dir), compression).
		WithLogger(badgerLogger{log}).
		WithReadOnly(opts.ReadOnly).
		WithNumVersionsToKeep(1).
		WithMetricsEnabled(false).
		WithBaseTableSize(baseTableSize(opts.LoadMemory)).
		WithMemTableSize(memTableSize).
		WithBlockCacheSize(blockCacheSize(opts.LoadMemory))
	bopts.TableSizeMultiplier = tableSizeMultiplier(opts.LoadMemory)
	switch {
	case opts.InMemory:
		bopts = bopts.WithInMemory(true).WithDir("").WithValueDir("")
	case opts.ReadOnly:
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("open database %s: %w (no such directory)", dir, ErrNoDatabase)
		}
	default:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
	}
	if !opts.InMemory {
		if err := checkReplaySpace(dir, freeDisk); err != nil {
			return nil, err
		}
	}
	bdb, err := openBadger(bopts, log)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, openErr(dir, err))
	}
	if !opts.InMemory && !opts.ReadOnly {
		removeStaleSpills(dir, log)
		if chosen {
			if err := recordCompression(dir, compression); err != nil {
				bdb.Close()
				return nil, fmt.Errorf("open database %s: %w", dir, err)
			}
		}
	}
	db := &DB{dir: dir, bdb: bdb, log: log, opts: opts, compression: compression, graphs: map[string]*GraphMeta{},
		byLabel: map[uint64]*GraphMeta{}, search: map[string]*searchIndex{}}
	db.segs.Store(1)
	db.used.Store(1)
	if err := db.init(); err != nil {
		bdb.Close()
		return nil, err
	}
	return db, nil
}

// Tables written by bulk loads. Badger's StreamWriter writes a load's
// tables at the bottom level, each of the bottom level's largest size
// (see baseTableSize), and builds each table in memory: its uncompressed
// blocks (several times the table's size, as the blocks compress well) and their
// compressed copies, in an allocator that grows by doubling and that
// Badger's pool keeps for the next table. In heap profiles of the write
// phase that came to 15-18 times the table size with 32 MiB tables, 26-30
// times with 8 MiB and up to 70 times with 4 MiB (allocators of 56 MiB),
// whatever the budget: with a 512 MiB budget and 32 MiB tables the live
// heap stayed above the limit and the GC ran back to back (1,900 cycles
// in a 38 s write phase on 20M quads).
//
// So the table size follows the budget: a table being built is counted
// as 20 times its size, and Badger gets what the write phase leaves of
// 70% of the Go memory limit (room for the GC to work) after the
// loader's own buffers then (the P sorter's sixth and the label index's
// eighth of the budget) and writeFixed. That gives 2 MiB tables at 512
// MiB, 8 MiB at 1 GiB, 16 MiB at 1.5 GiB and 32 MiB from 2 GiB on.
// Smaller tables cost open files on large stores (Badger keeps one per
// table), which the error for running out of them says.
const (
	minBulkTable = 2 << 20
	maxBulkTable = 32 << 20
	bulkLevels   = 32 // 2^(MaxLevels-2) with Badger's default 7 levels
	// writeFixed is what the write phase holds whatever the budget:
	// Badger's memtable arena, the stream buffers (streamSink) and the
	// merges' read buffers (up to 96 MiB).
	writeFixed = 210 << 20
	// tableCost is the memory a table being built is counted at, in
	// times its size; gcRoomPct the share of the Go limit the write phase
	// may fill, leaving the rest for the GC to work in.
	tableCost = 20
	gcRoomPct = 70
)

// bulkTableSize is the size of the tables a bulk load with this budget
// writes: a power of two.
func bulkTableSize(budget int64) int64 {
	if budget <= 0 {
		budget = DefaultMaxMemory
	}
	share := GoMemoryLimit(budget)*gcRoomPct/100 - budget/sorterShare - budget/labelShare - writeFixed
	t := int64(minBulkTable)
	for t < maxBulkTable && 2*t*tableCost <= share {
		t *= 2
	}
	return t
}

// memTableSize is Badger's memtable size (its default). Badger allocates a
// memtable's arena whole: the memtable plus room for its largest batch
// (15%) and that batch's skiplist nodes (about as much again).
const (
	memTableSize  = 64 << 20
	memTableArena = memTableSize * 13 / 10
)

// GoMemoryLimit is the Go soft memory limit (debug.SetMemoryLimit) for a
// process whose bulk loads keep to budget: the budget plus one memtable
// arena. A bulk load writes through Badger's StreamWriter, which starts by
// allocating a fresh memtable that the load never writes to: heap to the
// Go runtime, if not always resident memory. Without it, a 20M-quad load
// with a 512 MiB budget (8 MiB tables) ran the GC 550 times in a 19.1 s
// write phase, with it 77 times in 13.8 s, at the same peak anonymous
// memory (489 and 501 MiB).
func GoMemoryLimit(budget int64) int64 { return budget + memTableArena }

// blockCacheSize is the size of Badger's block cache: readCache, sized for
// KG lookups, unless the handle is opened for bulk loads with an explicit
// budget (loadMemory > 0), which get budget/64 at most. A load reads
// stored data once and in key order (the dictionary merge reads every
// stored term, a load into stored graphs their node blocks and lists), so
// a cache gains it nothing, and it fills: 117 MiB of the heap in a 100M-quad
// load into a database holding 20M at a 512 MiB budget, where it was
// counted nowhere and made the GC run 2,500 times.
func blockCacheSize(loadMemory int64) int64 {
	if loadMemory > 0 {
		return min(readCache, max(loadMemory/64, minLoadCache))
	}
	return readCache
}

const (
	readCache    = 128 << 20
	minLoadCache = 4 << 20
)

// baseTableSize and tableSizeMultiplier are Badger's BaseTableSize and
// TableSizeMultiplier for bulkTableSize(budget). A compaction into level i
// writes tables of BaseTableSize times the multiplier to the power of i
// less Badger's base level, which Badger moves down through empty levels
// to just above the stored data (level 4 or 5 after bulk loads, which fill
// only the bottom levels); the StreamWriter's tables are 32 times
// BaseTableSize. With the maximum table size that is Badger's own growth
// from 1 MiB tables. For smaller tables, the same growth from
// bulkTableSize/32 made the compaction of a load into a database holding
// data cut it into tables 8-16 times smaller than the ones the load wrote:
// a 100M-quad load into a database of 20M at 512 MiB left 7,306 tables,
// half of them under 270 KB (1,345 with this rule, and a 1.1x faster
// load). So below the maximum every level's tables are bulkTableSize.
func baseTableSize(budget int64) int64 {
	if t := bulkTableSize(budget); t < maxBulkTable {
		return t
	}
	return maxBulkTable / bulkLevels
}

func tableSizeMultiplier(budget int64) int {
	if bulkTableSize(budget) < maxBulkTable {
		return 1
	}
	return 2
}

func (db *DB) init() error {
	mb := int64(db.opts.CacheMB)
	if mb <= 0 {
		mb = 64
	}
	var err error
	db.terms, err = ristretto.NewCache(&ristretto.Config[uint64, quad.Value]{
		NumCounters: mb << 12, MaxCost: mb << 19, BufferItems: 64})
	if err != nil {
		return fmt.Errorf("term cache: %w", err)
	}
	db.labels, err = ristretto.NewCache(&ristretto.Config[uint64, labelInfo]{
		NumCounters: mb << 12, MaxCost: mb << 19, BufferItems: 64})
	if err != nil {
		return fmt.Errorf("label cache: %w", err)
	}
	db.degrees, err = ristretto.NewCache(&ristretto.Config[uint64, int64]{
		NumCounters: 1 << 20, MaxCost: 1 << 17, BufferItems: 64})
	if err != nil {
		return fmt.Errorf("degree cache: %w", err)
	}
	db.preds = newPredCache(db.labels.Clear, db.degrees.Clear)
	if err := db.loadMeta(); err != nil {
		return err
	}
	if err := db.checkMarker(); err != nil {
		return err
	}
	recs, err := db.UnfinishedNodeDeletes()
	if err != nil {
		return err
	}
	for _, r := range recs {
		db.log.Warn("an earlier node delete did not finish; every count is consistent, delete the node again to finish it",
			"node", r.Node, "deleted", r.Deleted)
	}
	runs, err := db.UnfinishedWriteRuns()
	if err != nil {
		return err
	}
	for _, r := range runs {
		db.log.Warn(r.String(), "graph", r.Graph, "delete", r.Delete, "done", r.Done, "total", r.Total)
	}
	if db.merging > 0 {
		db.log.Warn(mergeWarning)
	}
	return db.checkLabelFiles(context.Background())
}

// loadMeta reads the format version, id counter, stats and graph registry.
func (db *DB) loadMeta() error {
	return db.bdb.View(func(txn *badger.Txn) error {
		v, err := getValue(txn, metaVersion)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			db.nextID = 1
		case err != nil:
			return err
		case len(v) != 8 || (binary.BigEndian.Uint64(v) != formatVersion && binary.BigEndian.Uint64(v) != formatSegments):
			return fmt.Errorf("database format version %x is not supported (want %d or %d)", v, formatVersion, formatSegments)
		}
		if v, err := getValue(txn, metaNextID); err == nil && len(v) == 8 {
			db.nextID = binary.BigEndian.Uint64(v)
		}
		if db.merging, err = loadMergeMarker(txn); err != nil {
			return err
		}
		if db.merging > 0 {
			db.useSegment(db.merging - 1)
		}
		if v, err := getValue(txn, metaStats); err == nil {
			if err := json.Unmarshal(v, &db.stats); err != nil {
				return fmt.Errorf("corrupt stats: %w", err)
			}
		}
		return db.loadGraphs(txn)
	})
}

func (db *DB) loadGraphs(txn *badger.Txn) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(metaGraph)})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var g GraphMeta
		err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &g) })
		if err != nil {
			return fmt.Errorf("corrupt graph record %q: %w", it.Item().Key(), err)
		}
		if g.Segment >= maxBlockSegments {
			return fmt.Errorf("graph record %q: segment %d out of range", it.Item().Key(), g.Segment)
		}
		db.graphs[g.Name] = &g
		db.byLabel[g.Label] = &g
		db.useSegment(g.Segment)
	}
	return nil
}

// InterruptedReads says what reads answer while a bulk load is
// unfinished (see loadFilter), for warnings.
const InterruptedReads = "reads answer as before it, except for edges it added to graphs that existed " +
	"before it, and for a new graph of it once an incremental write to that graph registers it"

// checkMarker detects an interrupted bulk load and hides what it wrote
// from reads (setLoadFilter).
func (db *DB) checkMarker() error {
	if db.opts.InMemory {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(db.dir, markerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read ingest marker: %w", err)
	}
	var in Interrupted
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("corrupt ingest marker %s: %w", markerFile, err)
	}
	if in.Segment >= maxBlockSegments {
		return fmt.Errorf("corrupt ingest marker %s: segment %d out of range", markerFile, in.Segment)
	}
	slices.Sort(in.SegmentGraphs) // searched by ApplyDeltas
	if len(in.Ranges) == 0 {
		if in.Start == 0 {
			in.Start = db.nextID // the stored counter, unless a write since raised it
		}
		in.Ranges = addRange(nil, IDRange{in.Start, in.Reserved})
	}
	for i, r := range in.Ranges {
		if r.Start == 0 || r.Start > r.End || i > 0 && r.Start < in.Ranges[i-1].End {
			return fmt.Errorf("corrupt ingest marker %s: id ranges %v not ascending", markerFile, in.Ranges)
		}
	}
	if n := len(in.Ranges); n > 0 {
		in.Start, in.Reserved = in.Ranges[0].Start, max(in.Reserved, in.Ranges[n-1].End)
	}
	db.interrupted = &in
	db.setLoadFilter()
	db.nextID = max(db.nextID, in.Reserved)
	db.useSegment(in.Segment)
	db.log.Warn("an earlier ingest did not finish; "+InterruptedReads+"; re-run the same ingest to complete it",
		"graph", in.Graph, "files", in.Files, "file_graphs", in.FileGraphs)
	return nil
}

// Close closes the database; it is idempotent, and every later KG call
// returns store.ErrClosed.
func (db *DB) Close() error {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.bdb.IsClosed() {
		return nil
	}
	db.closeSearch()
	db.terms.Close()
	db.labels.Close()
	db.degrees.Close()
	return db.bdb.Close()
}

// Dir returns the database directory ("" in memory).
func (db *DB) Dir() string { return db.dir }

// Counts returns exact database-wide counts.
func (db *DB) Counts() Stats {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.stats
}

// mergeWarning is the warning about an unfinished merge (Warnings and
// the log of every open).
const mergeWarning = "a grove optimize run did not finish; reads are correct, writes are refused " +
	"until it is run again (grove optimize, which needs the database alone), which completes it"

// Warnings describes, one sentence each, every write that did not finish
// and what to do about it: an interrupted bulk load, incremental write
// runs and node deletes stopped part-way, an interrupted merge (grove
// optimize). It is what Open logs, for grove stats and grove serve's
// /v1/stats to show; nil when there is none.
func (db *DB) Warnings() ([]string, error) {
	var out []string
	if in := db.Interrupted(); in != nil {
		out = append(out, fmt.Sprintf("an ingest into graph %q of %s did not finish; %s; "+
			"re-run the same ingest to complete it", in.Graph, strings.Join(in.Files, ", "), InterruptedReads))
	}
	runs, err := db.UnfinishedWriteRuns()
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		out = append(out, r.String())
	}
	dels, err := db.UnfinishedNodeDeletes()
	if err != nil {
		return nil, err
	}
	for _, r := range dels {
		out = append(out, fmt.Sprintf("a delete of node %s stopped after %d of its quads; every count is "+
			"consistent, delete the node again to finish it", r.Node, r.Deleted))
	}
	if db.MergeUnfinished() {
		out = append(out, mergeWarning)
	}
	return out, nil
}

// Interrupted reports an unfinished bulk load, or nil.
func (db *DB) Interrupted() *Interrupted {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.interrupted
}

// GraphMetas returns the registered graphs sorted by name.
func (db *DB) GraphMetas() []GraphMeta {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]GraphMeta, 0, len(db.graphs))
	for _, g := range db.graphs {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b GraphMeta) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// graphByName returns a copy of the graph record, taken under the lock
// (label writers update records in place), or an ErrNotFound error.
func (db *DB) graphByName(name string) (GraphMeta, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	g, ok := db.graphs[name]
	if !ok {
		return GraphMeta{}, fmt.Errorf("graph %q: %w", name, store.ErrNotFound)
	}
	return *g, nil
}

// graphName maps a label term id to its graph name ("" if unregistered).
func (db *DB) graphName(label uint64) string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if g, ok := db.byLabel[label]; ok {
		return g.Name
	}
	return ""
}

func getValue(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// badgerLogger sends Badger's logs to slog, errors and warnings only above
// debug level.
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, a ...any) {
	b.l.Error(fmt.Sprintf(f, a...), "component", "badger")
}
func (b badgerLogger) Warningf(f string, a ...any) {
	msg := fmt.Sprintf(f, a...)
	if benignWarning(msg) {
		b.l.Debug(msg, "component", "badger")
		return
	}
	b.l.Warn(msg, "component", "badger")
}

// benignWarning reports Badger warnings about what Grove does on purpose,
// logged at debug level: two compactors of a Flatten racing for the same
// tables (the loser finds nothing to do), and the block cache statistics
// Badger's cache monitor prints each minute while blocks live under 10 s
// and under 40% of reads hit, which is what a bulk load does (it reads
// stored data once, through a cache kept small on purpose, see
// blockCacheSize).
func benignWarning(msg string) bool {
	return strings.Contains(msg, "Unable to fill tables") ||
		strings.Contains(msg, "Block cache might be too small") ||
		strings.Contains(msg, "Cache life expectancy")
}
func (b badgerLogger) Infof(f string, a ...any) {
	b.l.Debug(fmt.Sprintf(f, a...), "component", "badger")
}
func (b badgerLogger) Debugf(f string, a ...any) {
	b.l.Debug(fmt.Sprintf(f, a...), "component", "badger")
}

// ctxCheckEvery is how many items a long read loop handles between two
// checks of its context (a check costs a lock; an item a few lookups).
const ctxCheckEvery = 64

// ctxErr returns ctx.Err() without blocking.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
