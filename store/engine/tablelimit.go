package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"syscall"
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
// (12.2 GB, duplicates included in the quads read), 38 for Wikidata JSON.
// The check counts 16 so as not to overcount the tables; the runs and the
// tables in flight it adds are upper bounds, so a load close to the limit
// may be refused although it would have fit.
const tableBytesPerQuad = 16

// fileHeadroom is what a load holds open beside the tables and the runs it
// merges: Badger's manifest, logs and registries, the input, the process's
// own files and maps. A 20M-quad load at 512 MiB ended with 235 open files
// for 219 tables.
const fileHeadroom = 64

// tableNeed is the files (and maps) a load of read quads at this budget
// needs at the end of its write phase: the tables already stored, the
// ones it writes, the sorted runs its merges hold open (runs), and the
// margin the write guard keeps for the tables in flight (writeguard.go).
func tableNeed(stored int, read int64, budget int64, runs int) int64 {
	size := bulkTableSize(budget)
	return int64(stored) + newTables(read, size) + int64(runs) + inFlightTables(size) + fileHeadroom
}

// newTables is the fewest tables of size a load of read quads writes.
func newTables(read, size int64) int64 { return (read*tableBytesPerQuad + size - 1) / size }

// checkTableFiles refuses to start writing when the tables the load would
// leave cannot all be open at once.
func (l *Loader) checkTableFiles(spo, ops *quadSorter) error {
	if l.db.opts.InMemory {
		return nil
	}
	limit, what := l.db.openLimit()
	if limit <= 0 {
		return nil
	}
	stored := 0 // a load that starts over drops the interrupted load's tables first
	if !l.startOver {
		for _, lv := range l.db.bdb.Levels() {
			stored += lv.NumTables
		}
	}
	return tableLimitErr(stored, l.read, l.tableBudget(), l.writeRuns(spo, ops), limit, what)
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

// tableLimitErr is the error for a load of read quads at budget into a
// database holding stored tables, with runs sorted runs to merge, under a
// limit of limit open files or maps set by what; nil if it fits.
func tableLimitErr(stored int, read, budget int64, runs int, limit int64, what string) error {
	need := tableNeed(stored, read, budget, runs)
	if need <= limit {
		return nil
	}
	fix := fmt.Sprintf("raise %s to at least %d", what, need)
	for b := budget; bulkTableSize(b) < maxBulkTable; {
		b += 256 << 20
		if tableNeed(stored, read, b, runs) <= limit {
			fix += fmt.Sprintf(", or give --max-memory %d MiB or more (larger tables)", b>>20)
			break
		}
	}
	size := bulkTableSize(budget)
	return fmt.Errorf("%w: %d quads would leave about %d tables of %d MiB (%d stored), and Badger keeps each open "+
		"and mapped; with the sorted runs that needs about %d, over the %s of %d: %s; nothing was written",
		errTooManyFiles, read, newTables(read, size), size>>20, stored, need, what, limit, fix)
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
// or maps, how many tables it holds and what to raise.
func openErr(dir string, err error) error {
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) && !errors.Is(err, syscall.ENOMEM) {
		return err
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	return fmt.Errorf("%w (the database has %d tables and Badger keeps each open and mapped: "+
		"raise ulimit -n and, on Linux, vm.max_map_count above that): %w", errTooManyFiles, len(tables), err)
}
