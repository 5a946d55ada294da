package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
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
)

// LoadOptions configure a bulk load.
type LoadOptions struct {
	// Graph is the named graph the quads go into (the quad label).
	Graph string
	// KeepLabels keeps the input's own quad labels; quads without a label
	// still go into Graph.
	KeepLabels bool
	// Labels overrides the label predicates of a new graph.
	Labels *store.LabelConfig
	// Files are recorded in the interrupted-ingest marker.
	Files []string
}

// LoadStats summarises a committed load.
type LoadStats struct {
	Read     int64         `json:"read"`
	Added    int64         `json:"added"`
	Terms    int64         `json:"new_terms"`
	Labels   int64         `json:"labels"`
	Duration time.Duration `json:"duration_ns"`
	Writer   string        `json:"writer"`
}

type qids struct{ s, p, o, g uint64 }

type newTerm struct {
	id  uint64
	enc string
}

type labelEntry struct {
	g    uint64
	text string
	id   uint64
}

// Loader is a bulk load in progress. Quads added with WriteQuad are only
// buffered; nothing reaches the database until Commit, so a failed or
// abandoned load leaves the stored data exactly as it was. Only one Loader
// (or other writer) is active at a time.
type Loader struct {
	db       *DB
	opts     LoadOptions
	start    time.Time
	graph    uint64
	dict     map[string]uint64
	newTerms []newTerm
	newCount int64      // len(newTerms) when the commit began
	buf      quadBuffer // quads as read, in blocks
	quads    []qids     // all quads, contiguous, from Commit on
	labels   []labelEntry
	labelP   map[uint64]bool
	labelCfg store.LabelConfig
	nextID   uint64
	metaNext uint64
	scratch  []byte
	txn      *badger.Txn
	names    map[uint64]string // graph label id -> graph name
	read     int64
	done     bool
	// empty is set when the database has no committed data, so no term
	// can already be stored and dictionary lookups are skipped.
	empty bool
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
	db.writeMu.Lock()
	db.mu.RLock()
	l := &Loader{db: db, opts: opts, start: time.Now(), dict: map[string]uint64{},
		nextID: db.nextID, labelP: map[uint64]bool{}, labelCfg: store.DefaultLabelConfig(),
		names: map[uint64]string{}}
	if g, ok := db.graphs[opts.Graph]; ok {
		l.labelCfg = g.LabelCfg
	} else if opts.Labels != nil {
		l.labelCfg = *opts.Labels
	}
	db.mu.RUnlock()
	l.metaNext = db.committedNextID()
	l.empty = l.metaNext == 1 && db.Interrupted() == nil
	l.txn = db.bdb.NewTransaction(false)
	var err error
	if l.graph, err = l.intern(quad.IRI(opts.Graph)); err != nil {
		l.Close()
		return nil, err
	}
	l.names[l.graph] = opts.Graph
	return l, nil
}

// committedNextID is the id counter recorded in meta (without reservations
// of an interrupted load).
func (db *DB) committedNextID() uint64 {
	var next uint64 = 1
	_ = db.bdb.View(func(txn *badger.Txn) error {
		if v, err := getValue(txn, metaNextID); err == nil && len(v) == 8 {
			next = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return next
}

// intern returns the id of v, allocating one for a new term.
func (l *Loader) intern(v quad.Value) (uint64, error) {
	enc, err := encodeTerm(l.scratch[:0], v)
	if err != nil {
		return 0, err
	}
	l.scratch = enc
	if id, ok := l.dict[string(enc)]; ok {
		return id, nil
	}
	key := string(enc)
	var id uint64
	var found bool
	if !l.empty {
		if id, found, err = termIDEncoded(l.txn, enc); err != nil {
			return 0, err
		}
	}
	if !found {
		id = l.nextID
		l.nextID++
	}
	// Ids at or above the committed counter belong to an interrupted load:
	// write them again so both dictionary directions exist.
	if !found || id >= l.metaNext {
		l.newTerms = append(l.newTerms, newTerm{id, key})
	}
	l.dict[key] = id
	return id, nil
}

// WriteQuad buffers one quad. The subject must be an IRI or blank node and
// the predicate an IRI.
func (l *Loader) WriteQuad(q quad.Quad) error {
	if l.done {
		return errors.New("bulk load: already committed or closed")
	}
	if err := validQuad(q); err != nil {
		return err
	}
	var ids qids
	var err error
	if ids.s, err = l.intern(q.Subject); err != nil {
		return err
	}
	if ids.p, err = l.intern(q.Predicate); err != nil {
		return err
	}
	if ids.o, err = l.intern(q.Object); err != nil {
		return err
	}
	ids.g = l.graph
	if l.opts.KeepLabels && q.Label != nil {
		if ids.g, err = l.intern(q.Label); err != nil {
			return err
		}
		l.names[ids.g] = graphNameOf(q.Label)
	}
	l.buf.add(ids)
	l.read++
	l.noteLabel(q, ids)
	return nil
}

// noteLabel records labels and aliases for the graph's search index.
func (l *Loader) noteLabel(q quad.Quad, ids qids) {
	isLabel, ok := l.labelP[ids.p]
	if !ok {
		p := predicateName(q.Predicate)
		isLabel = slices.Contains(l.labelCfg.Label, p) || slices.Contains(l.labelCfg.Alias, p)
		l.labelP[ids.p] = isLabel
	}
	if !isLabel {
		return
	}
	if text := literalText(q.Object); text != "" {
		l.labels = append(l.labels, labelEntry{ids.g, text, ids.s})
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
func (l *Loader) Len() int64 { return l.read }

// Close abandons the load (if not committed) and releases the write lock.
func (l *Loader) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	l.txn.Discard()
	l.quads, l.dict, l.buf = nil, nil, quadBuffer{}
	l.db.writeMu.Unlock()
	return nil
}

// Commit writes the buffered quads. On error the stored data is unchanged
// in content (a crash mid-write leaves a marker; re-running the same load
// completes it, since loads are idempotent).
func (l *Loader) Commit(ctx context.Context) (LoadStats, error) {
	if l.done {
		return LoadStats{}, errors.New("bulk load: already committed or closed")
	}
	defer l.Close()
	st, err := l.commit(ctx)
	if err != nil {
		return st, fmt.Errorf("bulk load into graph %q: %w", l.opts.Graph, err)
	}
	return st, nil
}

// predicateName is the text of a predicate value (an IRI without brackets).
func predicateName(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return quad.StringOf(v)
}

// quadBuffer collects quads in fixed-size blocks, so that a growing load
// never copies (and briefly doubles) one huge slice.
type quadBuffer struct {
	blocks [][]qids
	n      int
}

const quadBlock = 1 << 20

func (b *quadBuffer) add(q qids) {
	if len(b.blocks) == 0 || len(b.blocks[len(b.blocks)-1]) == quadBlock {
		b.blocks = append(b.blocks, make([]qids, 0, quadBlock))
	}
	last := &b.blocks[len(b.blocks)-1]
	*last = append(*last, q)
	b.n++
}

// flatten moves the blocks into one slice, releasing each block as soon as
// it is copied.
func (b *quadBuffer) flatten() []qids {
	out := make([]qids, 0, b.n)
	for i := range b.blocks {
		out = append(out, b.blocks[i]...)
		b.blocks[i] = nil
	}
	b.blocks, b.n = nil, 0
	return out
}
