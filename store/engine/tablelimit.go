package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/grove-kg/grove/store/dirlock"
)

// Badger keeps every table of the LSM tree open and memory-mapped while the
// database is open: one file descriptor and one memory map per table. A bulk
// load's tables are bulkTableSize(budget) each (2 MiB at a 512 MiB budget,
// 32 MiB from 2 GiB on), so a large load at a small budget can need more
// tables than the process may open (ulimit -n) or map (vm.max_map_count,
// 65,530 by default on Linux). Running into either fails the write phase
// when its last tables are created, after the read, sort and dictionary
// phases of what may be hours; checkTableFiles refuses the load before
// anything is written instead, and says which limit or budget would do.

// tableBytesPerQuad is the fewest bytes of tables a read quad has taken in
// the loads measured: 17.4 in the 700M-quad grove gen load at 512 MiB
// (12.2 GB, duplicates included in the quads read), 23 in the 20M one, 38
// for Wikidata JSON. A load is refused only when it needs more files than
// the limit at 16 bytes per quad, so as not to refuse loads that fit; the
// limit it suggests counts tableBytesPerQuadMost, so that a user who
// follows the advice does not meet the write guard (writeguard.go) later.
const (
	tableBytesPerQuad     = 16
	tableBytesPerQuadMost = 40
)

// fileHeadroom is what a load is assumed to hold open beside the tables
// and the runs it merges when the process's open files or maps cannot be
// counted (not Linux). Where they can, the count before the write phase is
// used, plus laterHeadroom for what the load opens after it (Badger's
// memtables and logs, the label index's files). Measured on the 20M-quad
// load at 512 MiB: 17 files and 78 memory maps before the write phase
// (the Go runtime's and the binary's maps), 20 and 87 beside the 219
// tables at its end.
const (
	fileHeadroom  = 64
	laterHeadroom = 32
)

// fileNeed is what a bulk load needs open at the end of its write phase.
type fileNeed struct {
	stored int   // tables in the database before the load
	read   int64 // quads the load read
	runs   int   // sorted runs its merges may hold open (an upper bound)
	others int64 // files or maps the process holds beside the stored tables; < 0 when unknown
}

// at is the files (or maps) the load needs at this budget if its tables
// take bytesPerQuad per read quad: the stored tables, the new ones, the
// runs, the margin the write guard keeps for the tables in flight, and
// what the process holds beside them.
func (n fileNeed) at(budget, bytesPerQuad int64) int64 {
	size := bulkTableSize(budget)
	head := int64(fileHeadroom)
	if n.others >= 0 {
		head = n.others + laterHeadroom
	}
	return int64(n.stored) + newTables(n.read, bytesPerQuad, size) + int64(n.runs) + inFlightTables(size) + head
}

// newTables is the tables of size a load of read quads writes at
// bytesPerQuad.
func newTables(read, bytesPerQuad, size int64) int64 { return (read*bytesPerQuad + size - 1) / size }

// checkTableFiles refuses to start writing when the tables the load would
// leave cannot all be open at once. It returns the most files (or maps)
// the load may need, for the write guard's advice (0 when unlimited).
func (l *Loader) checkTableFiles(spo, ops *quadSorter) (int64, error) {
	if l.db.opts.InMemory {
		return 0, nil
	}
	limit, what := l.db.openLimit()
	if limit <= 0 {
		return 0, nil
	}
	n := fileNeed{read: l.read, runs: l.writeRuns(spo, ops), others: -1}
	// A load that starts over drops the interrupted load's tables first.
	stored := 0
	for _, lv := range l.db.bdb.Levels() {
		stored += lv.NumTables
	}
	if !l.startOver {
		n.stored = stored
	}
	if open := l.db.openCount(what); open > 0 {
		n.others = max(open-int64(stored), 0)
	}
	return n.at(l.tableBudget(), tableBytesPerQuadMost), tableLimitErr(n, l.tableBudget(), limit, what)
}

// tableBudget is the budget the load's tables are sized from.
func (l *Loader) tableBudget() int64 { return cmp.Or(l.db.opts.LoadMemory, DefaultMaxMemory) }

// writeRuns is the number of sorted runs the write phase may hold open:
// the S and O sorters' (as many as one merge reads), the P sorter's, which
// spills as many runs as the S one (same records, same buffer), and the
// label index builders', which merge all theirs at once beside the write.
func (l *Loader) writeRuns(spo, ops *quadSorter) int {
	runs := 2*min(len(spo.runs), spo.maxRuns()) + min(len(ops.runs), ops.maxRuns())
	for _, b := range l.labels {
		runs += b.Runs()
	}
	return runs
}

// tableLimitErr is the error for a load needing n at budget under a limit
// of limit open files or maps set by what; nil if it fits.
func tableLimitErr(n fileNeed, budget, limit int64, what string) error {
	low, high := n.at(budget, tableBytesPerQuad), n.at(budget, tableBytesPerQuadMost)
	if low <= limit {
		return nil
	}
	fix := fmt.Sprintf("raise %s to at least %d", what, high)
	for b := budget; bulkTableSize(b) < maxBulkTable; {
		b += 256 << 20
		if n.at(b, tableBytesPerQuadMost) <= limit {
			fix += fmt.Sprintf(", or give --max-memory %d MiB or more (larger tables)", b>>20)
			break
		}
	}
	size := bulkTableSize(budget)
	others := "what the process holds open"
	if n.others >= 0 {
		others = fmt.Sprintf("the %d the process holds open", n.others)
	}
	return fmt.Errorf("%w: %d quads would leave %d to %d tables of %d MiB (%d stored), and Badger keeps each open "+
		"and mapped; with the sorted runs and %s that needs %d to %d, over the %s of %d: %s; nothing was written",
		errTooManyFiles, n.read, newTables(n.read, tableBytesPerQuad, size), newTables(n.read, tableBytesPerQuadMost, size),
		size>>20, n.stored, others, low, high, what, limit, fix)
}

// openCount is the files, or the memory maps when what is the map limit,
// the process holds open now (0 when unknown). Tests set db.openFiles.
func (db *DB) openCount(what string) int64 {
	switch {
	case db.openFiles != nil:
		return db.openFiles()
	case what == mapLimitName:
		return openMaps()
	}
	return openFiles()
}

// mapLimitName names the limit on memory maps.
const mapLimitName = "vm.max_map_count"

// openLimit is the number of files and memory maps this process may hold,
// whichever is less, and what sets it (0 when unknown or unbounded). Tests
// set db.fileLimit.
func (db *DB) openLimit() (int64, string) {
	if db.fileLimit > 0 {
		return db.fileLimit, "ulimit -n"
	}
	files, maps := openFileLimit(), mapLimit()
	switch {
	case files <= 0 && maps <= 0:
		return 0, ""
	case maps > 0 && (files <= 0 || maps < files):
		return maps, mapLimitName
	case files == math.MaxInt64:
		return 0, ""
	}
	return files, "ulimit -n"
}

// openErr says, when Badger could not open a database for want of files
// or maps, how many tables it holds and what to raise, and when another
// process holds it, which.
func openErr(dir string, err error) error {
	// Badger's errors here are text only (its y.Wrapf does not wrap).
	switch msg := err.Error(); {
	case dirlock.IsLocked(err):
		return inUseErr(dirlock.Holders(dir))
	case strings.Contains(msg, "no manifest found"):
		// A read-only open of a directory Badger never wrote.
		return fmt.Errorf("%w (no MANIFEST in %s)", ErrNoDatabase, dir)
	}
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) && !errors.Is(err, syscall.ENOMEM) {
		return err
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	return fmt.Errorf("%w (the database has %d tables and Badger keeps each open and mapped: "+
		"raise ulimit -n and, on Linux, vm.max_map_count above that): %w", errTooManyFiles, len(tables), err)
}
