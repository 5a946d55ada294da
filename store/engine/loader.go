package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/labelindex"
)

// Stream ids of the bulk load, one per keyspace.
const (
	streamID = iota + 1
	streamTerm
	streamSPO
	streamOPS
	streamPred
	streamMeta
	streamSumO // R O <id>: summaries of incoming groups
	streamSumS // R S <id>: summaries of outgoing groups
	streamHash // h <sha256>: the dictionary entries of long terms
	// streamSegs is the first of the node-block streams of segments 1 and
	// up, two per segment (O, then S).
	streamSegs
)

// blockStream is the stream id of the node blocks of space in seg.
func blockStream(space byte, seg uint8) uint32 {
	o := uint32(0)
	if space == spaceSPO {
		o = 1
	}
	if seg == 0 {
		return streamSumO + o
	}
	return streamSegs + 2*uint32(seg-1) + o
}

// LoadOptions configure a bulk load.
type LoadOptions struct {
	// Graph is the named graph the quads go into (the quad label).
	Graph string
	// KeepLabels keeps the input's own quad labels; quads without a label
	// still go into Graph.
	KeepLabels bool
	// Labels overrides the label predicates of a new graph.
	Labels *store.LabelConfig
	// Files, and the graph of each file loaded into another graph than
	// Graph, are recorded in the interrupted-ingest marker.
	Files      []string
	FileGraphs map[string]string
	// MaxMemory bounds the memory the load keeps (read batches and sort
	// buffers); the rest is spilled to temporary files beside the
	// database. Default the database's Options.LoadMemory, or
	// DefaultMaxMemory; at least 1 MiB is used.
	MaxMemory int64
	// Progress, if set, receives the phase of the commit and how far it
	// is (Total < 0 when unknown). Calls never overlap, but they may come
	// from a goroutine of the commit other than the caller's; it must not
	// block.
	Progress func(LoadProgress)
}

// Label returns the label a load with these options stores q under: q's
// own label when KeepLabels is set and q has one, else the IRI of Graph.
// Writes that must store what a bulk load stores (the ingest command's
// incremental path) label their quads with it.
func (o LoadOptions) Label(q quad.Quad) quad.Value {
	if o.ownLabel(q) {
		return q.Label
	}
	return quad.IRI(o.Graph)
}

// ownLabel reports whether q goes into the graph of its own label rather
// than into Graph.
func (o LoadOptions) ownLabel(q quad.Quad) bool { return o.KeepLabels && q.Label != nil }

// DefaultMaxMemory is the memory budget of a load when none is given;
// minMaxMemory is the smallest budget used (tests use it to force many
// batches and sorted runs).
const (
	DefaultMaxMemory = 2 << 30
	minMaxMemory     = 1 << 20
)

// LoadProgress reports one commit phase: "dictionary", "map", "write",
// "labels", "compact". Done counts quads, or terms in "dictionary" and
// bytes merged by Badger's compactors in "compact"; Total < 0 is unknown.
type LoadProgress struct {
	Phase       string
	Done, Total int64
}

// LoadStats summarises a committed load.
type LoadStats struct {
	Read  int64 `json:"read"`
	Added int64 `json:"added"`
	// Terms counts the terms the load added: those it numbered and
	// those of the interrupted load it completes (Interrupted), which
	// reads did not find before.
	Terms int64 `json:"new_terms"`
	// Labels counts the label and alias entries read for the label
	// index; the index keeps one per distinct (normalized name, entity)
	// pair, which GraphInfo.Labels counts (an entity with "Blade" and the
	// alias "blade" is two entries read and one pair).
	Labels   int64         `json:"labels"`
	Duration time.Duration `json:"duration_ns"`
	Writer   string        `json:"writer"`
	// Batches is the number of read batches spilled; LabelRuns the number
	// of sorted label runs the label index builders spilled; TempBytes
	// the peak size of the temporary files.
	Batches   int   `json:"batches"`
	LabelRuns int   `json:"label_runs"`
	TempBytes int64 `json:"temp_bytes"`
}

type qids struct{ s, p, o, g uint64 }

type newTerm struct {
	id  uint64
	enc string
}

// Loader is a bulk load in progress. Quads added with WriteQuad are read
// in batches bounded by LoadOptions.MaxMemory and spilled to temporary
// files; nothing reaches the database until Commit, so a failed or
// abandoned load leaves the stored data exactly as it was. Only one Loader
// (or other writer) is active at a time; a Loader is not safe for
// concurrent use.
type Loader struct {
	db       *DB
	opts     LoadOptions
	budget   int64
	start    time.Time
	sd       *spillDir
	batch    readBatch
	batches  []spilledBatch
	spilling chan spillResult     // the batch being spilled in the background
	graphEnc string               // encoded term of opts.Graph
	graphs   map[string]string    // encoded graph-label term -> graph name
	gLocal   int64                // local id of graphEnc in the batch, or -1
	preds    map[string]predEntry // predicate name -> batch-local id and label flag
	batchSeq uint32               // number of the current batch, from 1
	labelCfg store.LabelConfig
	labels   map[uint64]*labelindex.Builder // graph label id -> this load's labels
	nlabels  int64
	labelMu  sync.Mutex // the label builders and nlabels, during the map phase
	nextID   uint64
	// firstID is the first id the load's new terms are numbered from (the
	// database's next id when it began); metaNext is the stored counter.
	firstID  uint64
	metaNext uint64
	// earlier are the id ranges of the unfinished load it re-runs
	// (Interrupted.Ranges; none when it starts over).
	earlier []IDRange
	// startOver: the load replaces an interrupted load into an empty
	// database that committed nothing (Interrupted.Fresh), so it loads as
	// into an empty database.
	startOver bool
	newCount  int64
	// dictTerms counts the terms the dictionary phase went through before
	// the id assignment (grouped vocabulary merges), for its progress.
	dictTerms int
	// newSeg is the node-block segment of the load's new graphs, named
	// in segGraphs; known holds the segments of the graphs stored before
	// the load (see chooseSegment).
	newSeg    uint8
	segGraphs []string
	known     map[string]uint8
	scratch   []byte
	blk       encodedBlock      // the feed block being added (addBlock)
	names     map[uint64]string // graph label id -> graph name
	read      int64             // quads added to batches (by the feed goroutine)
	feed      quadFeed
	done      bool
	// empty is set when the database positively has no dictionary, so no
	// term can already be stored and dictionary lookups are skipped.
	empty bool
	// wrapSink, if set, wraps the writer of the write phase (tests record
	// the order of the streams with it).
	wrapSink func(kvWriter) kvWriter
}

// NewLoader starts a bulk load into opts.Graph. It holds the database's
// write lock until Commit or Close.
func (db *DB) NewLoader(opts LoadOptions) (*Loader, error) {
	if opts.Graph == "" {
		return nil, errors.New("bulk load: a graph name is required")
	}
	if db.opts.ReadOnly {
		return nil, errors.New("bulk load: database is read-only")
	}
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = cmp.Or(db.opts.LoadMemory, DefaultMaxMemory)
	}
	db.writeMu.Lock()
	db.mu.RLock()
	l := &Loader{db: db, opts: opts, budget: max(opts.MaxMemory, minMaxMemory),
		start: time.Now(), nextID: db.nextID, labelCfg: store.DefaultLabelConfig(),
		preds: map[string]predEntry{}, batchSeq: 1,
		graphs: map[string]string{}, names: map[uint64]string{}, gLocal: -1,
		labels: map[uint64]*labelindex.Builder{}}
	if g, ok := db.graphs[opts.Graph]; ok {
		l.labelCfg = g.LabelCfg
	} else if opts.Labels != nil {
		l.labelCfg = *opts.Labels
	}
	db.mu.RUnlock()
	fail := func(err error) (*Loader, error) {
		_ = l.sd.remove()
		db.writeMu.Unlock()
		return nil, fmt.Errorf("bulk load: %w", err)
	}
	if err := db.checkWritable(); err != nil {
		return fail(err)
	}
	var err error
	if l.metaNext, err = db.committedNextID(); err != nil {
		return fail(err)
	}
	hasTerms, err := db.hasKeys([]byte{spaceTerm})
	if err == nil && !hasTerms {
		hasTerms, err = db.hasKeys([]byte{spaceHash}) // only long terms stored
	}
	if err != nil {
		return fail(err)
	}
	in := db.Interrupted()
	db.mu.RLock()
	l.startOver = in != nil && in.Fresh && l.metaNext <= 1 && len(db.graphs) == 0
	db.mu.RUnlock()
	l.empty = !hasTerms && in == nil || l.startOver
	if l.startOver {
		l.nextID = 1
		db.log.Info("bulk load starts over: the interrupted load was into an empty database and nothing was committed since",
			"graph", opts.Graph, "interrupted_graph", in.Graph)
	}
	l.firstID = l.nextID
	if in != nil && !l.startOver {
		l.earlier = slices.Clone(in.Ranges)
	}
	enc, err := encodeTerm(nil, quad.IRI(opts.Graph))
	if err != nil {
		return fail(err)
	}
	l.graphEnc = string(enc)
	l.graphs[l.graphEnc] = opts.Graph
	if l.sd, err = newSpillDir(db); err != nil {
		return fail(err)
	}
	return l, nil
}

// committedNextID is the id counter recorded in meta (without reservations
// of an interrupted load): 1 when the key is absent, an error when it
// cannot be read or is corrupt.
func (db *DB) committedNextID() (uint64, error) {
	var next uint64 = 1
	err := db.bdb.View(func(txn *badger.Txn) error {
		v, err := getValue(txn, metaNextID)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			return nil
		case err != nil:
			return fmt.Errorf("read id counter: %w", err)
		case len(v) != 8:
			return fmt.Errorf("corrupt id counter (%d bytes)", len(v))
		}
		next = binary.BigEndian.Uint64(v)
		return nil
	})
	return next, err
}

// hasKeys reports whether any key starts with prefix (an empty prefix:
// any key at all).
func (db *DB) hasKeys(prefix []byte) (bool, error) {
	var found bool
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		it.Rewind()
		found = it.Valid()
		return nil
	})
	return found, err
}

// intern returns the batch-local id of v.
func (l *Loader) intern(v quad.Value) (uint32, error) {
	enc, err := encodeTerm(l.scratch[:0], v)
	if err != nil {
		return 0, err
	}
	l.scratch = enc
	return l.batch.intern(enc), nil
}

// WriteQuad buffers one quad. The subject must be an IRI or blank node and
// the predicate an IRI. The quad is checked here; it is encoded and added
// to the batch by the loader's own goroutine (feed.go), so an error of
// that step (a full disk while spilling) is returned by a later WriteQuad
// or by Commit. The values of q are used after WriteQuad returns: they
// must not alias memory the caller reuses (Go strings never do, unless
// made with package unsafe).
func (l *Loader) WriteQuad(q quad.Quad) error {
	if l.done {
		return errors.New("bulk load: already committed or closed")
	}
	if err := validQuad(q); err != nil {
		return err
	}
	for _, v := range [...]quad.Value{q.Subject, q.Predicate, q.Object} {
		if err := checkEncodable(v); err != nil {
			return err
		}
	}
	if l.opts.ownLabel(q) {
		if err := checkEncodable(q.Label); err != nil {
			return err
		}
	}
	return l.feed.put(l, q)
}

// encodedBlock holds the encoded subjects and objects of one feed block:
// term i is buf[ends[i-1]:ends[i]], subject and object of quad k are
// terms 2k and 2k+1; hashes[k] is the vocabulary hash of object k.
type encodedBlock struct {
	buf    []byte
	ends   []int
	hashes []uint32
	sink   uint64 // keeps the prefetch loads from being optimised away
}

func (b *encodedBlock) term(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.buf[start:b.ends[i]]
}

// blockBytes bounds the encoded terms held at a time by addBlock, so that
// a block of huge literals is not copied whole.
const blockBytes = 1 << 20

// addBlock interns a block of checked quads into the batch, in order. The
// batch vocabulary is large and its lookups miss the CPU cache (most terms
// of a Wikidata load are new, and a new term's slot is a random one), so
// the block's objects are first encoded and hashed and their places in
// the vocabulary loaded in one loop, where the CPU overlaps the misses;
// the quads are then added with those places in cache. (Subjects mostly
// repeat the previous quad's, which the batch remembers.) A block whose
// terms encode to more than blockBytes goes in several parts. It runs on
// the feed goroutine.
func (l *Loader) addBlock(qs []quad.Quad) error {
	for len(qs) > 0 {
		n, err := l.encodeBlock(qs)
		if err != nil {
			return err
		}
		if err := l.internBlock(qs[:n]); err != nil {
			return err
		}
		qs = qs[n:]
	}
	if cap(l.blk.buf) > 4*blockBytes {
		l.blk.buf = nil // grown by a huge term: do not keep it
	}
	return nil
}

// encodeBlock encodes the subjects and objects of the first quads of qs
// (at least one, up to about blockBytes) into l.blk, hashes the objects
// and prefetches their vocabulary slots. It returns how many quads it
// took.
func (l *Loader) encodeBlock(qs []quad.Quad) (int, error) {
	b := &l.blk
	b.buf, b.ends, b.hashes = b.buf[:0], b.ends[:0], b.hashes[:0]
	n := 0
	for ; n < len(qs) && (n == 0 || len(b.buf) < blockBytes); n++ {
		var err error
		if b.buf, err = encodeTerm(b.buf, qs[n].Subject); err != nil {
			return 0, err
		}
		b.ends = append(b.ends, len(b.buf))
		if b.buf, err = encodeTerm(b.buf, qs[n].Object); err != nil {
			return 0, err
		}
		b.ends = append(b.ends, len(b.buf))
		b.hashes = append(b.hashes, l.batch.vocab.hash(b.term(len(b.ends)-1)))
	}
	b.sink += l.batch.vocab.prefetch(b.hashes)
	return n, nil
}

// internBlock adds the quads encoded by encodeBlock.
func (l *Loader) internBlock(qs []quad.Quad) error {
	b := &l.blk
	seq := l.batchSeq
	for k, q := range qs {
		if l.batchSeq != seq { // a spill began a vocabulary with another hash seed
			b.hashes[k] = l.batch.vocab.hash(b.term(2*k + 1))
		}
		if err := l.addQuad(q, b.term(2*k), b.term(2*k+1), b.hashes[k]); err != nil {
			return err
		}
	}
	return nil
}

// addQuad interns one checked quad, whose subject and object encode to s
// and o (with the vocabulary hash oh), into the current batch and spills
// the batch when it is full.
func (l *Loader) addQuad(q quad.Quad, s, o []byte, oh uint32) error {
	var ids lquad
	var err error
	ids.s = l.batch.internSubject(s)
	var isLabel bool
	if ids.p, isLabel, err = l.predicate(q.Predicate); err != nil {
		return err
	}
	ids.o = l.batch.vocab.internHashed(o, oh)
	if l.opts.ownLabel(q) {
		if ids.g, err = l.intern(q.Label); err != nil {
			return err
		}
		if _, ok := l.graphs[string(l.scratch)]; !ok {
			l.graphs[string(l.scratch)] = graphNameOf(q.Label)
		}
	} else {
		if l.gLocal < 0 {
			l.gLocal = int64(l.batch.intern([]byte(l.graphEnc)))
		}
		ids.g = uint32(l.gLocal)
	}
	l.batch.addQuad(ids)
	l.read++
	if isLabel {
		l.noteLabel(q, ids)
	}
	if l.batch.size() >= l.budget/5 {
		return l.spillBatch(true)
	}
	return nil
}

// spillResult is the outcome of a batch spilled in the background.
type spillResult struct {
	sb  spilledBatch
	err error
}

// spillBatch writes the current batch to the spill directory. With async,
// the batch is sorted and written by another goroutine while reading goes
// on (at most one batch in flight, so two batches fit in the budget).
func (l *Loader) spillBatch(async bool) error {
	if err := l.waitSpill(); err != nil {
		return err
	}
	if l.batch.nquads == 0 {
		return nil
	}
	b := l.batch
	l.batch, l.gLocal = readBatch{}, -1
	// The next batch will likely hold as many terms: its refs start at
	// that size instead of growing by copies (pages not yet written cost
	// no memory).
	l.batch.vocab.refs = make([]termRef, 0, b.vocab.len())
	l.batchSeq++ // the local ids of the predicate cache are stale
	if !async {
		t := time.Now()
		sb, err := b.spill(l.sd)
		if err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		l.db.log.Debug("bulk load last batch spilled", "terms", sb.nterms, "quads", sb.nquads,
			"took", time.Since(t).Round(time.Millisecond))
		l.batches = append(l.batches, sb)
		return nil
	}
	ch := make(chan spillResult, 1)
	l.spilling = ch
	go func() {
		sb, err := b.spill(l.sd)
		ch <- spillResult{sb, err}
	}()
	return nil
}

// waitSpill waits for the batch being spilled in the background.
func (l *Loader) waitSpill() error {
	if l.spilling == nil {
		return nil
	}
	r := <-l.spilling
	l.spilling = nil
	if r.err != nil {
		return fmt.Errorf("bulk load: %w", r.err)
	}
	l.batches = append(l.batches, r.sb)
	return nil
}

// predEntry is what the loader caches about a predicate: its local id
// in batch number batch (stale in later batches) and whether it is a
// label or alias predicate.
type predEntry struct {
	id, batch uint32
	label     bool
}

// loaderPredMax bounds the loader's predicate cache; it is emptied when full.
const loaderPredMax = 1 << 16

// predicate returns the batch-local id of a predicate and whether it is a
// label or alias predicate. Dumps use few predicates over and over, while
// the batch vocabulary is large and mostly unique terms (Wikidata's
// statement ids and texts), so a lookup there misses the CPU cache every
// time; a small map by name, valid for one batch, answers instead.
func (l *Loader) predicate(v quad.Value) (uint32, bool, error) {
	iri, ok := v.(quad.IRI)
	if !ok { // rare (Cayley's own writers): not cached, as its name may be an IRI's
		id, err := l.intern(v)
		return id, l.isLabelPred(predicateName(v)), err
	}
	name := string(iri)
	e, ok := l.preds[name]
	if ok && e.batch == l.batchSeq {
		return e.id, e.label, nil
	}
	id, err := l.intern(v)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		if len(l.preds) >= loaderPredMax {
			clear(l.preds)
		}
		e.label = l.isLabelPred(name)
	}
	e.id, e.batch = id, l.batchSeq
	l.preds[name] = e
	return e.id, e.label, nil
}

// isLabelPred reports whether a predicate name is a label or alias
// predicate of the graph.
func (l *Loader) isLabelPred(name string) bool {
	return slices.Contains(l.labelCfg.Label, name) || slices.Contains(l.labelCfg.Alias, name)
}

// noteLabel records a label or alias for the graph's search index.
func (l *Loader) noteLabel(q quad.Quad, ids lquad) {
	if text := literalText(q.Object); text != "" {
		l.batch.labels = append(l.batch.labels, batchLabel{ids.s, ids.g, text})
		l.batch.bytes += int64(len(text)) + 32
	}
}

// literalText returns the text of a string-like literal, or "".
func literalText(v quad.Value) string {
	switch v := v.(type) {
	case quad.String:
		return string(v)
	case quad.LangString:
		return string(v.Value)
	case quad.TypedString:
		return string(v.Value)
	}
	return ""
}

// validQuad checks that a quad has its three required parts. RDF readers
// only produce IRI or blank-node subjects and IRI predicates; Cayley's own
// writers may use any value, which the engine stores as well.
func validQuad(q quad.Quad) error {
	switch {
	case q.Subject == nil:
		return errors.New("missing subject")
	case q.Predicate == nil:
		return errors.New("missing predicate")
	case q.Object == nil:
		return errors.New("missing object")
	}
	return nil
}

// Len is the number of quads buffered so far.
func (l *Loader) Len() int64 { return l.feed.fed }

// Close abandons the load (if not committed), removes its temporary files
// and releases the write lock.
func (l *Loader) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	_ = l.feed.stop(l) // the load is abandoned: its error does not matter
	_ = l.waitSpill()  // its files are removed with the directory
	l.batch.reset()
	l.batches, l.labels = nil, nil
	err := l.sd.remove()
	l.db.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("bulk load: remove temporary files: %w", err)
	}
	return nil
}

// Commit writes the buffered quads. On error the stored data is unchanged
// in content (a crash mid-write leaves a marker; re-running the same load
// completes it, since loads are idempotent). Cancelling ctx stops the
// commit; the temporary files are removed in every case.
func (l *Loader) Commit(ctx context.Context) (LoadStats, error) {
	if l.done {
		return LoadStats{}, errors.New("bulk load: already committed or closed")
	}
	defer l.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := l.feed.stop(l); err != nil {
		return LoadStats{Read: l.read}, fmt.Errorf("bulk load into graph %q: %w", l.opts.Graph, err)
	}
	st, err := l.commit(ctx)
	if err != nil && l.db.dir != "" {
		if _, serr := os.Stat(filepath.Join(l.db.dir, markerFile)); serr == nil {
			// The write phase had begun: say what the database holds.
			return st, fmt.Errorf("bulk load into graph %q stopped while writing: %w; the graph may be partly "+
				"written (until it is complete, %s): re-run the same ingest to complete it", l.opts.Graph, err,
				InterruptedReads)
		}
	}
	if err != nil {
		return st, fmt.Errorf("bulk load into graph %q: %w", l.opts.Graph, err)
	}
	return st, nil
}

// progress reports a phase to LoadOptions.Progress.
func (l *Loader) progress(phase string, done, total int64) {
	if l.opts.Progress != nil {
		l.opts.Progress(LoadProgress{Phase: phase, Done: done, Total: total})
	}
}

// predicateName is the text of a predicate value (an IRI without brackets).
func predicateName(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return quad.StringOf(v)
}
