// Package ingest turns dump files into graphs of a Grove database with one
// call: it opens each file (decompressing gzip, zstd, bzip2 or xz), detects
// its format, streams it through the matching reader and loads the quads.
//
// The bulk path (the default) streams a whole run into the engine's Loader,
// which keeps at most Options.MaxMemory in memory (the rest is spilled to
// temporary files beside the database) and writes nothing until every file
// has been read without error, so a bad line stops the command with
// file:line and the reason and leaves the database as it was. With SkipInvalid, bad records are counted, a sample is logged, and
// the load goes on.
//
// The incremental path (Incremental) applies updates and deletes through
// transactions instead. It too reads its whole input before writing, into
// a Spool: parsed quads in memory up to a quarter of Options.MaxMemory,
// the rest in a temporary file beside the database (Cayley's protobuf
// quads, every value type kept), read back batch by batch. Remote
// backends take their input from a Spool the same way (SpoolFiles). A run
// of many transactions stopped part-way is recorded in the database
// (engine.BeginWriteRun) until the same command completes it.
package ingest

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/grbench"
	"github.com/grove-kg/grove/ingest/input"
	"github.com/grove-kg/grove/ingest/musicbrainz"
	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/ingest/wikidata"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/inputerr"
)

// Options configure a run.
type Options struct {
	Graph       string
	Format      input.Format // FormatAuto detects per file
	SkipInvalid bool
	Languages   []string
	// KeepLabels keeps N-Quads graph labels (each becomes a graph).
	KeepLabels bool
	// GraphOf names, for some of the files, another graph than Graph:
	// every quad of such a file goes into that graph, whatever its own
	// label. Several graphs loaded in one bulk run cost one load into a
	// fresh database instead of one load per graph, each merged with the
	// ones before (see BENCHMARKS.md). The bulk loader only (Run).
	GraphOf map[string]string
	// Wikidata holds the Wikidata JSON reader's own options (ranks,
	// lexemes, sitelinks, entity filter); its source.Options are ignored.
	Wikidata wikidata.Options
	// GRBench holds the GRBench reader's own options.
	GRBench grbench.Options
	// MusicBrainz holds the MusicBrainz reader's own options.
	MusicBrainz musicbrainz.Options
	// MaxMemory bounds the memory the bulk loader keeps (read batches and
	// sort buffers; the rest is spilled beside the database). 0 means
	// engine.DefaultMaxMemory.
	MaxMemory int64
	// Progress, if set, receives progress reports about twice a second and
	// at every change of the bulk load's phase; calls never overlap.
	Progress func(Progress)
	Logger   *slog.Logger
	// MaxSamples is how many skipped records are logged (default 10).
	MaxSamples int
	// Check, if set, is called by SpoolFiles on every quad read, for a
	// backend that cannot store some values (PostgreSQL text holds no
	// NUL): its error stops the read, positioned at the file and line
	// (file:line: error), and nothing is written.
	Check func(quad.Quad) error
}

// Progress is a snapshot of a running ingest.
type Progress struct {
	File       string
	Done       int64 // compressed bytes read, all files
	Total      int64 // compressed bytes, all files
	Quads      int64
	Skipped    int64
	Elapsed    time.Duration
	Committing bool
	// Phase is the bulk load's phase once reading is done ("dictionary",
	// "map", "write", "labels", "compact"), or a remote backend's write's
	// ("copy", then "insert" or "delete"), with its progress (see
	// engine.LoadProgress; PhaseTotal < 0: unknown).
	Phase                 string
	PhaseDone, PhaseTotal int64
	PhaseElapsed          time.Duration
}

// Result summarises a run.
type Result struct {
	Files []FileResult     `json:"files"`
	Load  engine.LoadStats `json:"load"`
	// Applied is, for Incremental, how many quads the run added (or
	// deleted): the others were there already (or were not there), or
	// repeated an earlier quad of the run.
	Applied *int64   `json:"applied,omitempty"`
	Skipped int64    `json:"skipped"`
	Samples []string `json:"skipped_samples,omitempty"`
}

// FileResult is what one file contributed.
type FileResult struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	Quads  int64  `json:"quads"`
	// Dropped counts the file's statements its format's dialect leaves
	// out by design (Freebase's bookkeeping predicates and key
	// namespaces, names in languages not asked for, ...).
	Dropped int64 `json:"dropped,omitempty"`
	// Graph is the graph the file was loaded into (the bulk loader; with
	// KeepLabels, quads with their own label went into that graph).
	Graph string `json:"graph,omitempty"`
}

// checkGraphOf checks that every file of opts.GraphOf is loaded and every
// graph named.
func checkGraphOf(files []string, opts Options) error {
	for f, g := range opts.GraphOf {
		if g == "" {
			return fmt.Errorf("ingest: file %s: empty graph name", f)
		}
		if !slices.Contains(files, f) {
			return fmt.Errorf("ingest: file %s has a graph (%s) but is not among the files to load", f, g)
		}
	}
	return nil
}

// fileWriter returns the writer of file's quads: w itself, or a relabel
// writer that puts them into the file's own graph (GraphOf), or into
// opts.Graph when the loader keeps labels only because of GraphOf.
func fileWriter(w source.Writer, file string, opts Options) source.Writer {
	if g, ok := opts.GraphOf[file]; ok {
		return &relabel{w: w, label: quad.IRI(g)}
	}
	if len(opts.GraphOf) > 0 && !opts.KeepLabels {
		return &relabel{w: w} // the file's own labels are not kept
	}
	return w
}

// relabel sets the label of every quad (nil: the load's graph) before
// passing it on; the caller's quads are not modified.
type relabel struct {
	w     source.Writer
	label quad.Value
	buf   []quad.Quad
}

func (r *relabel) WriteQuad(q quad.Quad) error {
	q.Label = r.label
	return r.w.WriteQuad(q)
}

func (r *relabel) WriteQuads(qs []quad.Quad) error {
	r.buf = append(r.buf[:0], qs...)
	for i := range r.buf {
		r.buf[i].Label = r.label
	}
	return source.WriteAll(r.w, r.buf)
}

// Run loads files into opts.Graph through the bulk loader.
func Run(ctx context.Context, db *engine.DB, files []string, opts Options) (Result, error) {
	if len(files) == 0 {
		return Result{}, errors.New("ingest: no input files")
	}
	if err := checkGraphOf(files, opts); err != nil {
		return Result{}, err
	}
	r := newRun(opts, files)
	lo := labelling(opts)
	lo.Files, lo.FileGraphs, lo.MaxMemory, lo.Progress = files, opts.GraphOf, opts.MaxMemory, r.onPhase
	l, err := db.NewLoader(lo)
	if err != nil {
		r.stop()
		return Result{}, err
	}
	defer l.Close()
	defer r.stop()
	for _, f := range files {
		fr, err := r.readFile(ctx, f, fileWriter(l, f, opts))
		if err != nil {
			return r.result, err
		}
		fr.Graph = r.graphOf(f)
		r.result.Files = append(r.result.Files, fr)
	}
	r.committing.Store(true)
	st, err := l.Commit(ctx)
	r.result.Load = st
	return r.result, err
}

// labelling returns the load options that say which graph each quad goes
// into (LoadOptions.Label), shared by the bulk and the incremental path so
// that both store the same quads. Quads take the graph of their file
// through their label (fileWriter), so labels are kept when some file has
// its own graph.
func labelling(opts Options) engine.LoadOptions {
	return engine.LoadOptions{Graph: opts.Graph, KeepLabels: opts.KeepLabels || len(opts.GraphOf) > 0}
}

// Parse reads files into memory (for tests and small inputs), with the
// same detection, readers and error handling as Run.
func Parse(ctx context.Context, files []string, opts Options) ([]quad.Quad, Result, error) {
	var qs []quad.Quad
	res, err := parseTo(ctx, files, opts, func(q quad.Quad) error {
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		return nil, res, err
	}
	return qs, res, nil
}

// parseTo reads files with Run's detection, readers and error handling,
// handing each quad to add.
func parseTo(ctx context.Context, files []string, opts Options, add func(quad.Quad) error) (Result, error) {
	r := newRun(opts, files)
	defer r.stop()
	w := source.WriterFunc(add)
	for _, f := range files {
		fr, err := r.readFile(ctx, f, w)
		if err != nil {
			return r.result, err
		}
		r.result.Files = append(r.result.Files, fr)
	}
	return r.result, nil
}

// run tracks one ingest across files.
type run struct {
	opts       Options
	result     Result
	mu         sync.Mutex
	skipped    atomic.Int64
	quads      atomic.Int64
	done       atomic.Int64 // bytes of finished files
	total      int64
	cur        atomic.Pointer[input.File]
	committing atomic.Bool
	phase      atomic.Pointer[phaseState]
	progressMu sync.Mutex // serialises Options.Progress calls
	start      time.Time
	stdinDoc   string // the document name of standard input in this run
	quit       chan struct{}
	wg         sync.WaitGroup
}

func newRun(opts Options, files []string) *run {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSamples <= 0 {
		opts.MaxSamples = 10
	}
	r := &run{opts: opts, start: time.Now(), stdinDoc: "stdin-" + rand.Text(), quit: make(chan struct{})}
	for _, f := range files {
		if n, err := fileSize(f); err == nil {
			r.total += n
		}
	}
	if opts.Progress != nil {
		r.wg.Add(1)
		go r.report()
	}
	return r
}

func (r *run) stop() {
	close(r.quit)
	r.wg.Wait()
}

// report sends progress until stop.
func (r *run) report() {
	defer r.wg.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			r.emit()
			return
		case <-t.C:
			r.emit()
		}
	}
}

// phaseState is the bulk load's latest phase report.
type phaseState struct {
	engine.LoadProgress
	start time.Time
}

// onPhase records the loader's phase reports; the first report of a phase
// starts its clock.
func (r *run) onPhase(p engine.LoadProgress) {
	st := &phaseState{LoadProgress: p, start: time.Now()}
	old := r.phase.Load()
	if old != nil && old.Phase == p.Phase {
		st.start = old.start
	}
	r.phase.Store(st)
	if r.opts.Progress != nil && (old == nil || old.Phase != p.Phase) {
		r.emit() // every phase change is reported, however short the phase
	}
}

// emit sends one snapshot to Options.Progress; calls never overlap.
func (r *run) emit() {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.opts.Progress(r.snapshot())
}

func (r *run) snapshot() Progress {
	p := Progress{Done: r.done.Load(), Total: r.total, Quads: r.quads.Load(), Skipped: r.skipped.Load(),
		Elapsed: time.Since(r.start), Committing: r.committing.Load()}
	if ph := r.phase.Load(); ph != nil {
		p.Phase, p.PhaseDone, p.PhaseTotal, p.PhaseElapsed = ph.Phase, ph.Done, ph.Total, time.Since(ph.start)
	}
	if f := r.cur.Load(); f != nil {
		p.File = f.Name()
		p.Done += f.CompressedRead()
	}
	return p
}

// formatHint is the advice a failed format detection adds: pass --format
// when no format was recognised, nothing when reading the stream failed
// (a truncated .xz fails the same way with --format).
func formatHint(err error) string {
	if errors.Is(err, input.ErrUnknownFormat) {
		return " (pass --format)"
	}
	return ""
}

// readFile opens, detects and reads one file into w.
func (r *run) readFile(ctx context.Context, path string, w source.Writer) (FileResult, error) {
	f, err := input.Open(path)
	if err != nil {
		return FileResult{}, fmt.Errorf("ingest %s: %w", path, err)
	}
	defer f.Close()
	r.cur.Store(f)
	defer func() {
		r.done.Add(f.CompressedRead())
		r.cur.Store(nil)
	}()
	br := bufio.NewReaderSize(f, 1<<20)
	format := r.opts.Format
	if format == input.FormatAuto {
		if format, err = input.SniffName(br, path); err != nil {
			return FileResult{}, fmt.Errorf("ingest %s: %w%s", path, err, formatHint(err))
		}
	}
	doc, err := r.document(path)
	if err != nil {
		return FileResult{}, fmt.Errorf("ingest %s: %w", path, err)
	}
	reader, err := r.reader(format, r.graphOf(path), doc)
	if err != nil {
		return FileResult{}, fmt.Errorf("ingest %s: %w", path, err)
	}
	before := r.quads.Load()
	if err := reader.Read(ctx, path, br, &countingWriter{w: w, n: &r.quads}); err != nil {
		if r.opts.Format == input.FormatAuto {
			err = sniffedHint(err, format)
		}
		return FileResult{}, err
	}
	res := FileResult{Name: path, Format: format.String(), Quads: r.quads.Load() - before}
	if d, ok := reader.(dropper); ok {
		res.Dropped = d.Dropped()
	}
	return res, nil
}

// sniffedHint adds advice to a syntax error in a file whose format was
// detected as N-Triples or N-Quads (or their Freebase and Wikidata
// dialects) from its first lines: such a file may be Turtle with
// N-Triples-like lines at its start, which only --format turtle (or a
// .ttl name) reads.
func sniffedHint(err error, f input.Format) error {
	var ie *inputerr.Error
	switch f {
	case input.FormatNTriples, input.FormatNQuads, input.FormatFreebase, input.FormatWikidataTruthy:
	default:
		return err
	}
	if !errors.As(err, &ie) || ie.Line <= 0 || errors.Is(err, store.ErrUnstorable) {
		return err
	}
	return fmt.Errorf("%w (the format was detected as %s from the file's first lines; if the file is Turtle, "+
		"pass --format turtle or name it .ttl)", err, f)
}

// dropper is a reader that counts the statements its dialect dropped in
// its last Read (the RDF readers).
type dropper interface{ Dropped() int64 }

// countingWriter counts the quads handed to the writer (for progress
// reports). Runs of quads cost one counter update.
type countingWriter struct {
	w source.Writer
	n *atomic.Int64
}

var _ source.BatchWriter = (*countingWriter)(nil)

// WriteQuad counts and writes one quad.
func (c *countingWriter) WriteQuad(q quad.Quad) error {
	c.n.Add(1)
	return c.w.WriteQuad(q)
}

// WriteQuads counts and writes a run of quads, up to the first error.
func (c *countingWriter) WriteQuads(qs []quad.Quad) error {
	c.n.Add(int64(len(qs)))
	return source.WriteAll(c.w, qs)
}

// graphOf is the graph the quads of file go into.
func (r *run) graphOf(file string) string {
	if g, ok := r.opts.GraphOf[file]; ok {
		return g
	}
	return r.opts.Graph
}

// sourceOptions are the reader options of this run for a file loaded into
// graph (readers scope blank nodes by it).
func (r *run) sourceOptions(graph string) source.Options {
	return source.Options{SkipInvalid: r.opts.SkipInvalid, OnSkip: r.onSkip, Languages: r.opts.Languages,
		Graph: graph}
}

// onSkip counts a skipped record and keeps a sample.
func (r *run) onSkip(err *source.Error) {
	n := r.skipped.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.result.Skipped = n
	if len(r.result.Samples) < r.opts.MaxSamples {
		r.result.Samples = append(r.result.Samples, err.Error())
		r.opts.Logger.Warn("skipped invalid record", "err", err)
	}
}

// document names the document at path for the blank nodes a reader
// creates without a label (rdf.Options.Document): the file's name and a
// hash of its absolute, cleaned path ("export.ttl@3f2a9c0e1b7d"), so that
// every spelling of one file gives the same nodes and two files never
// share them, without the host's directories in node ids (which clients of
// grove serve and models see); for standard input, which has no path, a
// name unique to the run (a second run reading the same stream adds its
// anonymous nodes again).
func (r *run) document(path string) (string, error) {
	if path == input.Stdin {
		return r.stdinDoc, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("absolute path: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Base(abs) + "@" + hex.EncodeToString(sum[:6]), nil
}

// reader builds the reader of a format for a document (see document)
// loaded into graph.
func (r *run) reader(f input.Format, graph, doc string) (source.Reader, error) {
	so := r.sourceOptions(graph)
	switch f {
	case input.FormatNTriples, input.FormatNQuads:
		return rdf.New(rdf.Options{Options: so, KeepLabels: r.opts.KeepLabels}), nil
	case input.FormatFreebase:
		return rdf.New(rdf.Options{Options: so, Dialect: rdf.Freebase{}}), nil
	case input.FormatWikidataTruthy:
		return rdf.New(rdf.Options{Options: so, Dialect: rdf.WikidataTruthy{}}), nil
	case input.FormatTurtle:
		return rdf.NewTurtle(rdf.Options{Options: so, Document: doc}), nil
	case input.FormatRDFXML:
		return rdf.NewRDFXML(rdf.Options{Options: so, Document: doc}), nil
	case input.FormatWikidataJSON:
		o := r.opts.Wikidata
		o.Options = so
		return wikidata.New(o), nil
	case input.FormatGRBench:
		o := r.opts.GRBench
		o.Options = so
		return grbench.New(o), nil
	case input.FormatMusicBrainz:
		o := r.opts.MusicBrainz
		o.Options = so
		return musicbrainz.New(o), nil
	}
	return nil, fmt.Errorf("no reader for format %v", f)
}

// Incremental applies the quads of files to a graph through transactions
// of at most batch quads each (deletes when del is set); a batch too large
// for one transaction is split until its parts fit. It is meant for small
// updates: each transaction is atomic, the whole run is not, so the run
// is recorded in the database (engine.DB.BeginWriteRun) until its last
// transaction commits: a run stopped part-way keeps its record, which
// every later open reports, and running it again completes it. Quads go
// into the graphs the bulk loader (Run) would put them in: opts.Graph, or
// with KeepLabels the graph of their own N-Quads label.
func Incremental(ctx context.Context, db *engine.DB, files []string, opts Options, del bool, batch int) (res Result, err error) {
	if len(opts.GraphOf) > 0 {
		return Result{}, errors.New("ingest: a graph per file needs the bulk loader (not --incremental or --delete)")
	}
	if del && !opts.KeepLabels && !slices.ContainsFunc(db.GraphMetas(), func(g engine.GraphMeta) bool { return g.Name == opts.Graph }) {
		return Result{}, fmt.Errorf("ingest --delete: graph %q: %w: nothing to delete from", opts.Graph, store.ErrNotFound)
	}
	sp, res, err := SpoolFiles(ctx, files, opts, db.ScratchDir)
	if err != nil {
		return res, err
	}
	defer sp.Close()
	if batch <= 0 {
		batch = 10000
	}
	before := db.Counts().Quads
	defer func() {
		n := db.Counts().Quads - before
		if del {
			n = -n
		}
		res.Applied = &n
	}()
	lo := labelling(opts)
	action := graph.Add
	if del {
		action = graph.Delete
	}
	run, err := db.BeginWriteRun(engine.WriteRun{Graph: opts.Graph, Delete: del, Files: runFiles(files, sp.Digest()), Total: sp.Len()})
	if err != nil {
		return res, fmt.Errorf("ingest: %w", err)
	}
	var ds []graph.Delta
	i := 0 // quads applied
	err = sp.Each(ctx, batch, func(part []quad.Quad) error {
		n, err := store.ApplyInParts(part, func(b []quad.Quad) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			ds = ds[:0]
			for _, q := range b {
				q.Label = lo.Label(q)
				ds = append(ds, graph.Delta{Quad: q, Action: action})
			}
			return run.ApplyDeltasContext(ctx, ds, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
		})
		if err != nil && i+n > 0 {
			return fmt.Errorf("ingest: quads %d-%d (quads 1-%d are applied): %w", i+n+1, i+len(part), i+n, err)
		} else if err != nil {
			return fmt.Errorf("ingest: quads 1-%d: %w", len(part), err)
		}
		i += n
		return nil
	})
	if err != nil {
		return res, run.Stop(err)
	}
	return res, run.Finish()
}

// runFiles names the input files of an incremental run for its record,
// with their sizes (-1 when unknown: standard input, a file gone);
// standard input is identified by digest, the digest of the run's quads.
func runFiles(files []string, digest string) []engine.WriteRunFile {
	out := make([]engine.WriteRunFile, len(files))
	for i, f := range files {
		out[i] = engine.WriteRunFile{Name: f, Size: -1}
		if f == input.Stdin {
			out[i].Digest = digest
			continue
		}
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			out[i].Size = st.Size()
		}
		if abs, err := filepath.Abs(f); err == nil {
			out[i].Path = abs
		}
	}
	return out
}

// SpoolFiles reads files with Run's detection, readers and error
// handling into a Spool for a later pass (the incremental path, remote
// backends), each checked by opts.Check: parsed quads stay in memory up
// to a quarter of opts.MaxMemory, the rest go to a temporary directory that mkdir
// creates. On error nothing is left behind; otherwise the caller closes
// the Spool, which removes its files.
func SpoolFiles(ctx context.Context, files []string, opts Options, mkdir func() (string, error)) (*Spool, Result, error) {
	sp := newSpool(spoolBudget(opts.MaxMemory), mkdir)
	if slices.Contains(files, input.Stdin) {
		sp.digested() // standard input has no name to identify a write run by
	}
	add := sp.add
	if opts.Check != nil {
		add = func(q quad.Quad) error {
			if err := opts.Check(q); err != nil {
				return err
			}
			return sp.add(q)
		}
	}
	res, err := parseTo(ctx, files, opts, add)
	if err != nil {
		sp.Close()
		return nil, res, err
	}
	return sp, res, nil
}

// spoolBudget is the memory the incremental path keeps parsed quads in
// before it spools them to disk: a quarter of the load's budget
// (maxMemory, 0 for the default), the rest left to the transactions.
func spoolBudget(maxMemory int64) int64 {
	if maxMemory <= 0 {
		maxMemory = engine.DefaultMaxMemory
	}
	return maxMemory / 4
}
