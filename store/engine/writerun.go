package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/cayley/graph"
)

// Incremental write runs (grove ingest --incremental and --delete). Such a
// run applies its input in many transactions, each atomic, the run as a
// whole not. So that a run stopped part-way (an error, Ctrl-C, kill -9)
// is never silent, it is recorded as a record of an unfinished write
// (records.go): BeginWriteRun stores the record before the first
// transaction, every transaction of the run (WriteRunner.ApplyDeltas)
// updates its count of quads done in the same Badger transaction, and
// Finish removes it after the last. A run stopped part-way keeps it:
// every later open logs it, grove stats and /v1/stats list it
// (UnfinishedWriteRuns, Warnings), and running the same command again,
// which is idempotent, completes the run and removes the record.
//
// A run is identified by its kind (add or delete), graph and input files
// (writeRunKey): a file by its absolute path and size, standard input by
// a digest of the quads read from it. Another run, even into the same
// graph, leaves the record of an unfinished one alone.
const metaWriteRun = "mw" // + sha256 of the run's identity

// WriteRunFile is an input file of a write run.
type WriteRunFile struct {
	// Name is the file's name as given on the command line.
	Name string `json:"name"`
	// Path is its absolute path, which identifies the run with its size
	// (empty for standard input, or when unknown: Name does).
	Path string `json:"path,omitempty"`
	// Size is its size in bytes when the run began; -1 if unknown
	// (standard input).
	Size int64 `json:"size"`
	// Digest identifies what was read when the file has no path and size
	// to identify it (standard input): a hex digest of its quads.
	Digest string `json:"digest,omitempty"`
}

// WriteRun is the record of an incremental write run (see above).
type WriteRun struct {
	Graph  string         `json:"graph"`
	Delete bool           `json:"delete,omitempty"`
	Files  []WriteRunFile `json:"files"`
	// Done is how many of the run's Total input quads were in committed
	// transactions when the record was last written.
	Done  int64 `json:"done"`
	Total int64 `json:"total"`
}

// String says what the record means and what to do about it.
func (r WriteRun) String() string {
	kind := "an incremental ingest (grove ingest --incremental)"
	if r.Delete {
		kind = "a delete (grove ingest --delete)"
	}
	files := make([]string, len(r.Files))
	for i, f := range r.Files {
		files[i] = f.Name
		switch {
		case f.Size >= 0:
			files[i] += fmt.Sprintf(" (%d bytes)", f.Size)
		case f.Digest != "":
			files[i] += fmt.Sprintf(" (standard input, quads digest %.12s)", f.Digest)
		}
	}
	return fmt.Sprintf("%s into graph %q of %s stopped after %d of %d quads; "+
		"run the same command again to complete it (it is idempotent)",
		kind, r.Graph, strings.Join(files, ", "), r.Done, r.Total)
}

// ErrWriteRunUnfinished is wrapped by the error of a write run stopped
// part-way (WriteRunner.Stop).
var ErrWriteRunUnfinished = errors.New("the run stopped part-way")

// WriteRunner applies the transactions of one recorded write run. It is
// not safe for concurrent use.
type WriteRunner struct {
	db  *DB
	key []byte
	rec WriteRun
	// earlier is set when the record of an earlier, unfinished run of the
	// same command was there when this one began; prior is how many quads
	// it had applied, which the record keeps saying until this run has
	// applied more.
	earlier bool
	prior   int64
}

// writeRunKey is the key of the record of runs of r's kind, graph and
// files (each by its path and size, or its name when it has no path,
// and its digest when it has one): another file of the same name, the
// same file changed, or other quads on standard input, is another run.
func writeRunKey(r WriteRun) []byte {
	id := struct {
		Graph  string   `json:"g"`
		Delete bool     `json:"d"`
		Files  []string `json:"f"`
	}{Graph: r.Graph, Delete: r.Delete}
	for _, f := range r.Files {
		name := f.Path
		if name == "" {
			name = f.Name
		}
		file := fmt.Sprintf("%s\x00%d", name, f.Size)
		if f.Digest != "" {
			file += "\x00" + f.Digest
		}
		id.Files = append(id.Files, file)
	}
	b, _ := json.Marshal(id) // strings and a bool: cannot fail
	sum := sha256.Sum256(b)
	return append([]byte(metaWriteRun), sum[:]...)
}

// BeginWriteRun records the write run r (its Done is ignored: 0) before
// its first transaction, replacing the record of an earlier run of the
// same command, and returns the runner that applies its transactions. It
// refuses, recording nothing, what every write would refuse (a read-only
// database, an unfinished merge).
func (db *DB) BeginWriteRun(r WriteRun) (*WriteRunner, error) {
	if db.opts.ReadOnly {
		return nil, errors.New("begin write run: database is read-only")
	}
	if err := db.checkWritable(); err != nil {
		return nil, fmt.Errorf("begin write run: %w", err)
	}
	r.Done = 0
	r.Files = slices.Clone(r.Files)
	w := &WriteRunner{db: db, key: writeRunKey(r), rec: r}
	var old WriteRun
	var err error
	if w.earlier, err = db.getRecord(w.key, &old); err != nil {
		return nil, fmt.Errorf("begin write run: %w", err)
	}
	w.prior = old.Done
	if err := db.putRecord(w.key, w.stored(r), "the write run"); err != nil {
		return nil, err
	}
	return w, nil
}

// stored is the record to store for r: its count no lower than the
// earlier run's (whose quads are applied even if this run has not
// reached them yet).
func (w *WriteRunner) stored(r WriteRun) WriteRun {
	r.Done = max(r.Done, w.prior)
	return r
}

// ApplyDeltas applies ds as DB.ApplyDeltas does, one transaction, which
// also moves the run's record on by len(ds) quads.
func (w *WriteRunner) ApplyDeltas(ds []graph.Delta, opts graph.IgnoreOpts) error {
	return w.ApplyDeltasContext(context.Background(), ds, opts)
}

// ApplyDeltasContext is ApplyDeltas bounded by ctx as
// DB.ApplyDeltasContext is: a batch whose context ends while it is applied
// writes nothing and leaves the record where it was.
func (w *WriteRunner) ApplyDeltasContext(ctx context.Context, ds []graph.Delta, opts graph.IgnoreOpts) error {
	if w.db.opts.ReadOnly {
		return errors.New("apply deltas: database is read-only")
	}
	next := w.rec
	next.Done += int64(len(ds))
	w.db.writeMu.Lock()
	defer w.db.writeMu.Unlock()
	if err := w.db.applyDeltas(ctx, ds, opts, setRecord(w.key, w.stored(next))); err != nil {
		return err
	}
	w.rec = next
	return nil
}

// Done returns how many quads the run's committed transactions held.
func (w *WriteRunner) Done() int64 { return w.rec.Done }

// Finish removes the run's record after its last transaction.
func (w *WriteRunner) Finish() error {
	return w.db.dropRecord(w.key, "the write run")
}

// Stop ends a run that failed with err and returns the error to report.
// A run that applied nothing, and found no record of an earlier run of
// the same command, changed nothing: its record is removed and err
// returned as is. Otherwise part of the input is applied and the record
// stays (saying how much): the error wraps err and ErrWriteRunUnfinished
// and says to run the same command again.
func (w *WriteRunner) Stop(err error) error {
	if w.rec.Done == 0 && !w.earlier {
		if derr := w.Finish(); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	done := w.stored(w.rec).Done
	w.db.log.Warn("write run stopped part-way", "graph", w.rec.Graph, "delete", w.rec.Delete,
		"done", done, "total", w.rec.Total, "err", err)
	return fmt.Errorf("%w (%w, after %d of its %d quads; it is recorded, and reported until the same "+
		"command is run again, which completes it: it is idempotent)", err, ErrWriteRunUnfinished, done, w.rec.Total)
}

// UnfinishedWriteRuns lists the write runs that stopped part-way (see
// above), by graph.
func (db *DB) UnfinishedWriteRuns() ([]WriteRun, error) {
	out, err := listRecords[WriteRun](db, metaWriteRun, "write run")
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b WriteRun) int { return strings.Compare(a.Graph, b.Graph) })
	return out, nil
}
