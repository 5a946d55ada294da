package engine

import (
	"cmp"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Badger's StreamWriter cannot fail cleanly once it has started building
// tables: a table whose file cannot be created (no file descriptor left)
// makes the next key of its stream panic in a goroutine of Badger's own, and
// a table is written through a memory map of a sparse file, so on a full
// disk the copy into it faults (SIGBUS). Neither can be recovered: the
// process dies (the database stays as it was, through the load's marker,
// but the user gets a crash). The checks before the write phase
// (checkDiskSpace, checkTableFiles) are estimates, and other processes use
// the disk too, so the stream sink also watches both while it writes: every
// guardEvery bytes handed to Badger it reads the free space and the open
// files (the memory maps when vm.max_map_count is the lower limit), and
// fails the write phase with errDiskFull or errTooManyFiles while enough is
// left for the tables Badger is still building. Badger keeps writing tables
// while the writer waits on it, so the free space is also read on a timer
// (guardTick) between those checks. The load is then cancelled
// like any failed write phase, and its re-run completes it (commit.go,
// Interrupted). A disk filled by another process faster than the margin in
// one tick (over 2 GB/s; an instant fallocate) can still fault a table
// write; nothing short of changing Badger avoids that. Badger's own memtable flushes and compactions (incremental
// writes, the compactions after a load) write tables the same way; the
// transactions that fill memtables (ApplyDeltas, the segment merge) and
// Flatten refuse to start on a nearly full disk (checkWriteSpace), but a
// compaction already running is not guarded.

// guardEvery is the bytes of records between two checks: eight stream
// buffers, at most 16 tables of 2 MiB.
const guardEvery = 32 << 20

// guardTick is the time between two reads of the free space by the
// watcher (writeGuard.watch): one statfs, nothing to notice in a load.
const guardTick = 50 * time.Millisecond

// writeGuard checks the free disk space and open files of a write phase.
// Its check is safe for concurrent use.
type writeGuard struct {
	dir        string
	every      int64        // bytes between checks
	since      atomic.Int64 // bytes written since the last check
	mu         sync.Mutex   // one check at a time
	diskMargin uint64       // bytes the tables in flight may still take
	fileLimit  int64        // 0: unknown
	fileMargin int64
	mostFiles  int64 // the most files the load may need, for the advice
	limitName  string
	free       func() (uint64, bool)
	files      func() int64          // open files, 0 when unknown
	failed     atomic.Pointer[error] // what the watcher found
}

// inFlightTables is the number of tables Badger may be building or
// writing while the guard does not look: its StreamWriter lets 16 be
// written at once, each stream in use (8 at most in a load) has one
// builder, and one check interval fills more.
func inFlightTables(tableSize int64) int64 { return 16 + 8 + guardEvery/tableSize }

// diskMargin is the bytes the guard keeps free for a load of read quads:
// the tables in flight (no more than the whole load, counted at
// bytesPerQuadWritten), one interval's records and 64 MiB for Badger's logs
// and the label index. A 20M-quad load at 512 MiB keeps 176 MiB; the
// bundled film graph (471,705 quads) 114 MiB whatever the budget.
func diskMargin(tableSize, read int64) uint64 {
	tables := min(inFlightTables(tableSize)*tableSize, read*bytesPerQuadWritten)
	return uint64(tables + guardEvery + 64<<20)
}

// newWriteGuard sizes the margins for a load of read quads in tables of
// tableSize; pending is the files merges still to start will open (the P
// sorter's runs), and mostFiles the most files the load may need, which
// its error suggests.
func (db *DB) newWriteGuard(tableSize, read int64, pending int, mostFiles int64) *writeGuard {
	g := &writeGuard{
		mostFiles:  mostFiles,
		dir:        db.dir,
		every:      cmp.Or(db.guardEvery, guardEvery),
		diskMargin: diskMargin(tableSize, read),
		fileMargin: inFlightTables(tableSize) + int64(pending),
		free:       db.freeSpace,
	}
	g.fileLimit, g.limitName = db.openLimit()
	g.files = func() int64 { return db.openCount(g.limitName) }
	return g
}

// wrote counts n bytes handed to Badger and checks once every guardEvery.
func (g *writeGuard) wrote(n int) error {
	if err := g.err(); err != nil || g == nil || g.since.Add(int64(n)) < g.every {
		return err
	}
	if !g.mu.TryLock() {
		return nil // another writer is checking
	}
	defer g.mu.Unlock()
	g.since.Store(0)
	return g.check()
}

// err returns what the watcher found (nil: nothing, or no guard). It is
// one atomic load, cheap enough for every record.
func (g *writeGuard) err() error {
	if g == nil {
		return nil
	}
	if e := g.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// watch reads the free space every tick until stop is called, and keeps
// the first shortage for err. Open files are counted only by wrote: the
// load opens them itself, as it writes.
func (g *writeGuard) watch(tick time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			g.mu.Lock()
			err := g.checkDisk()
			g.mu.Unlock()
			if err != nil {
				g.failed.Store(&err)
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// check fails when the free space or the file limit left is under its margin.
func (g *writeGuard) check() error {
	if err := g.checkDisk(); err != nil {
		return err
	}
	if g.fileLimit <= 0 {
		return nil
	}
	if open := g.files(); open > 0 && open+g.fileMargin > g.fileLimit {
		raise := g.limitName
		if g.mostFiles > g.fileLimit {
			raise += fmt.Sprintf(" (to at least %d, what the load may need if its tables take %d bytes per quad)",
				g.mostFiles, tableBytesPerQuadMost)
		}
		return fmt.Errorf("%w: %d files or maps open, within %d of the %s of %d (the tables being built and the "+
			"runs still to merge); the load stopped before Badger ran out of them: raise %s or --max-memory and "+
			"re-run the same ingest", errTooManyFiles, open, g.fileMargin, g.limitName, g.fileLimit, raise)
	}
	return nil
}

// checkDisk fails when the free space left is under the margin.
func (g *writeGuard) checkDisk() error {
	if free, ok := g.free(); ok && free < g.diskMargin {
		return fmt.Errorf("%w: %d MiB left on the disk of %s, under the %d MiB the tables being built may still "+
			"take; the load stopped before Badger ran out of space: free space there and re-run the same ingest",
			errDiskFull, free>>20, g.dir, g.diskMargin>>20)
	}
	return nil
}

// freeSpace is the free space on the database's disk (ok false when
// unknown); tests replace it through db.freeDisk.
func (db *DB) freeSpace() (uint64, bool) {
	if db.freeDisk != nil {
		return db.freeDisk(db.dir)
	}
	return freeDisk(db.dir)
}

// minWriteSpace is the free space below which transactional writes
// (ApplyDeltas, the segment merge) are refused. Badger appends each write
// to its memtable's log, a memory-mapped sparse file of twice the memtable
// size, and flushes a full memtable to a table through a memory map too: on
// a full disk either faults and kills the process (SIGBUS; measured with
// an incremental ingest onto a disk with 3 MiB free), where a refused
// write leaves it serving.
const minWriteSpace = 3*memTableSize + 64<<20

// checkWriteSpace refuses a write when the disk is nearly full.
func (db *DB) checkWriteSpace() error {
	if db.opts.InMemory {
		return nil
	}
	if free, ok := db.freeSpace(); ok && free < minWriteSpace {
		return fmt.Errorf("%w: %d MiB left on the disk of %s, under the %d MiB Badger needs to log and flush writes "+
			"(it would crash the process); nothing was written: free space there and retry",
			errDiskFull, free>>20, db.dir, minWriteSpace>>20)
	}
	return nil
}
