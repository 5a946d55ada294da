package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// TestTableLimitErr: the check refuses exactly the loads whose tables,
// runs and headroom exceed the limit, and suggests a budget only when one
// fits.
func TestTableLimitErr(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		need    fileNeed
		budget  int64
		limit   int64
		what    string
		want    []string // in the error; nil: no error
		notWant string
	}{
		{name: "small load fits", need: fileNeed{read: 1e6, others: -1}, budget: 512 * mib, limit: 1024},
		// 700M quads at 2 MiB tables: 5,341 tables at 16 B/quad + 40 in flight + 64 = 5,445;
		// 13,352 at 40 B/quad: 13,456.
		{name: "700M at 512 MiB, limit 5445", need: fileNeed{read: 700e6, others: -1}, budget: 512 * mib, limit: 5445},
		{name: "700M at 512 MiB, limit 5444", need: fileNeed{read: 700e6, others: -1}, budget: 512 * mib, limit: 5444,
			want: []string{"5341 to 13352 tables of 2 MiB", "needs 5445 to 13456", "ulimit -n to at least 13456",
				"--max-memory 768 MiB", "nothing was written"}},
		// The files the process holds replace the fixed headroom: 5,341 + 40 + 100 + 32.
		{name: "open files counted, fits", need: fileNeed{read: 700e6, others: 100}, budget: 512 * mib, limit: 5513},
		{name: "open files counted, one short", need: fileNeed{read: 700e6, others: 100}, budget: 512 * mib, limit: 5512,
			want: []string{"the 100 the process holds open", "needs 5513 to"}},
		// At 40 B/quad: 3,338 tables of 8 MiB (768 MiB) + 28 + 64 = 3,430; 1,670 of 16 MiB
		// (1280 MiB) + 26 + 64 = 1,759; 835 of 32 MiB (2048 MiB) + 25 + 64 = 924.
		{name: "suggests the smallest budget that fits", need: fileNeed{read: 700e6, others: -1}, budget: 512 * mib, limit: 1000,
			want: []string{"--max-memory 2048 MiB"}},
		// 334 to 835 tables of 32 MiB; 4,000 + 334 + 600 + 25 + 64 = 5,023.
		{name: "stored tables and runs count", need: fileNeed{stored: 4000, read: 700e6, runs: 600, others: -1},
			budget: 2048 * mib, limit: 4990,
			want: []string{"needs 5023 to 5524", "at least 5524", "(4000 stored)"}, notWant: "--max-memory"},
		{name: "no budget fits", need: fileNeed{read: 700e6, others: -1}, budget: 512 * mib, limit: 300, what: mapLimitName,
			want: []string{"vm.max_map_count to at least 13456"}, notWant: "--max-memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			what := cmp.Or(tc.what, "ulimit -n")
			err := tableLimitErr(tc.need, tc.budget, tc.limit, what)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, errTooManyFiles) {
				t.Fatalf("error = %v, want a too-many-files error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.notWant != "" && strings.Contains(err.Error(), tc.notWant) {
				t.Errorf("error %q has %q", err, tc.notWant)
			}
		})
	}
}

// TestLoadRefusedOverFileLimit: a load whose tables would not fit under the
// limit on open files stops before writing, leaves the database and no
// temporary files behind, and goes through under a limit it fits.
func TestLoadRefusedOverFileLimit(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{LoadMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQuads(t, db, "a", synthQuads(5, 20000))
	before := dumpKeys(t, db)
	stored := len(db.bdb.Tables())

	qs := synthQuads(6, 20000)
	// One new table, no runs (the load fits in memory), the tables in
	// flight, the 10 files the process holds beside the stored tables and
	// the headroom: one file short.
	db.openFiles = func() int64 { return int64(stored) + 10 }
	need := fileNeed{stored: stored, read: int64(len(qs)), others: 10}.at(minMaxMemory, tableBytesPerQuad)
	if need != int64(stored)+1+inFlightTables(2<<20)+10+laterHeadroom {
		t.Fatalf("need = %d", need)
	}
	db.fileLimit = need - 1
	l := startLoad(t, db, LoadOptions{Graph: "b"}, qs)
	_, err = l.Commit(context.Background())
	l.Close()
	if !errors.Is(err, errTooManyFiles) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("commit = %v, want a refusal for the file limit", err)
	}
	assertSameKeys(t, before, dumpKeys(t, db))
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("temporary files left: %v", d)
	}

	db.fileLimit = need
	loadQuads(t, db, "b", qs)
	if got := quadSet(t, db); len(got) != len(setOf(synthQuads(5, 20000)))+len(setOf(qs)) {
		t.Errorf("%d quads after the second load", len(got))
	}
}

// TestOpenErrNamesTables: a database Badger cannot open for want of files
// says how many tables it has; other errors pass unchanged.
func TestOpenErrNamesTables(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d.sst", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := openErr(dir, fmt.Errorf("open table: %w", syscall.EMFILE))
	if !errors.Is(err, errTooManyFiles) || !errors.Is(err, syscall.EMFILE) || !strings.Contains(err.Error(), "has 3 tables") {
		t.Errorf("EMFILE: %v", err)
	}
	other := errors.New("manifest corrupt")
	if err := openErr(dir, other); err != other {
		t.Errorf("other error changed: %v", err)
	}
}

// TestWriteGuardStopsLoad: a write phase that runs short of disk space or
// files stops with the matching error instead of letting Badger crash, and
// leaves the database as it was; with room it checks and goes through.
func TestWriteGuardStopsLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		free  uint64 // free bytes the checks in the write phase see
		files int64  // open files they see, under a limit of 10,000
		want  error
		empty bool  // no graph before the load
		pass  int64 // checks in the write phase that see room before free
	}{
		{name: "room", free: 1 << 40, files: 100},
		{name: "disk full", free: 1 << 20, files: 100, want: errDiskFull},
		{name: "out of files", free: 1 << 40, files: 9990, want: errTooManyFiles},
		// Into an empty database, stopped once the dictionary's tables are
		// written (Badger adds them to the LSM tree at once): the re-run
		// starts over and writes what a clean load writes.
		{name: "disk full, empty database", empty: true, pass: 8, free: 1 << 20, files: 100, want: errDiskFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{LoadMemory: minMaxMemory})
			if err != nil {
				t.Fatal(err)
			}
			var first []quad.Quad
			if !tc.empty {
				first = synthQuads(7, 20000)
				loadQuads(t, db, "a", first)
			}
			// Reopened, as by the next grove ingest: Close flushes the
			// memtable, which an incremental StreamWriter needs empty.
			db.Close()
			if db, err = Open(dir, Options{LoadMemory: minMaxMemory}); err != nil {
				t.Fatal(err)
			}
			defer func() { db.Close() }()
			before := dumpKeys(t, db)

			var checks atomic.Int64
			// Checks by bytes written only: the watcher's reads would
			// shift tc.pass.
			db.guardEvery, db.fileLimit, db.guardTick = 64<<10, 10000, time.Hour
			db.freeDisk = func(string) (uint64, bool) {
				if checks.Add(1) <= 1+tc.pass {
					return 1 << 40, true // the check before the write phase, and tc.pass
				}
				return tc.free, true
			}
			var counts atomic.Int64
			db.openFiles = func() int64 {
				if counts.Add(1) == 1 {
					return 100 // the check before the write phase
				}
				return tc.files
			}
			second := synthQuads(8, 20000)
			l := startLoad(t, db, LoadOptions{Graph: "b"}, second)
			st, err := l.Commit(context.Background())
			l.Close()
			if st.Writer != "stream" && err == nil {
				t.Errorf("writer %s, want Badger's StreamWriter (the guard's sink)", st.Writer)
			}
			// The check before the write phase, then the guard's: several
			// with room, one when it stops the load.
			if n := checks.Load(); n < 2+tc.pass || tc.want == nil && n < 3 {
				t.Errorf("free space read %d times; the write phase should check it", n)
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("commit: %v", err)
				}
				if got := quadSet(t, db); len(got) != len(setOf(first))+len(setOf(second)) {
					t.Errorf("%d quads stored", len(got))
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "the load stopped before Badger ran out") {
				t.Fatalf("commit = %v, want %v from the write guard", err, tc.want)
			}
			if d := spillDirs(t, dir); len(d) != 0 {
				t.Errorf("temporary files left: %v", d)
			}
			db.Close()
			if db, err = Open(dir, Options{LoadMemory: minMaxMemory}); err != nil {
				t.Fatal(err)
			}
			after := dumpKeys(t, db)
			if in := db.Interrupted(); in == nil || in.Fresh != tc.empty {
				t.Fatalf("interrupted load = %+v, want one with Fresh %v", in, tc.empty)
			}
			if tc.empty {
				if len(after) == 0 || len(db.GraphMetas()) != 0 {
					t.Fatalf("%d keys and graphs %v after the stopped load; want its dictionary keys and no graph",
						len(after), db.GraphMetas())
				}
			} else {
				assertSameKeys(t, before, after)
			}
			// Re-running the load completes it.
			loadQuads(t, db, "b", second)
			if got := quadSet(t, db); len(got) != len(setOf(first))+len(setOf(second)) {
				t.Errorf("%d quads after the re-run", len(got))
			}
			if tc.empty {
				clean, err := Open(t.TempDir(), Options{LoadMemory: minMaxMemory})
				if err != nil {
					t.Fatal(err)
				}
				defer clean.Close()
				loadQuads(t, clean, "b", second)
				assertSameKeys(t, dumpKeys(t, clean), dumpKeys(t, db))
				// Started over: the stopped load's tables were dropped, not
				// kept below the re-run's (whose keys are the same).
				if got, want := len(db.bdb.Tables()), len(clean.bdb.Tables()); got != want {
					t.Errorf("%d tables after the re-run, %d after a clean load", got, want)
				}
			}
		})
	}
}

// TestTableFilesSize: a load that starts over counts the interrupted load's
// tables as free space, and only them (value logs are sparse files).
func TestTableFilesSize(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int64{"000001.sst": 3000, "000002.sst": 500, "000001.vlog": 1 << 20, "MANIFEST": 100} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := tableFilesSize(dir); got != 3500 {
		t.Errorf("tableFilesSize = %d, want 3500", got)
	}
}

// TestWriteSpaceRefusesWrites: on a nearly full disk a transactional write
// is refused, with nothing written, and so is a flatten, instead of
// letting Badger fault.
func TestWriteSpaceRefusesWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		free uint64
		ok   bool
	}{
		{name: "room", free: minWriteSpace, ok: true},
		{name: "nearly full", free: minWriteSpace - 1},
		{name: "full", free: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.freeDisk = func(string) (uint64, bool) { return tc.free, true }
			q := quad.Make(quad.IRI("a"), quad.IRI("p"), quad.String("v"), quad.IRI("g"))
			err = db.Apply(context.Background(), "g", []quad.Quad{q}, nil)
			if tc.ok != (err == nil) || !tc.ok && (!errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "nothing was written")) {
				t.Fatalf("apply with %d bytes free: %v", tc.free, err)
			}
			if want := map[bool]int64{true: 1, false: 0}[tc.ok]; db.Counts().Quads != want {
				t.Errorf("%d quads stored, want %d", db.Counts().Quads, want)
			}
			// Flatten (grove optimize) compacts through memory maps too.
			if err := db.Flatten(context.Background()); tc.ok != (err == nil) || !tc.ok && !errors.Is(err, errDiskFull) {
				t.Errorf("flatten with %d bytes free: %v", tc.free, err)
			}
		})
	}
}

// TestWriteGuardAdvice: the guard's file error names the limit to raise to
// when the load may need more than the limit, and no figure otherwise.
func TestWriteGuardAdvice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		open      int64
		mostFiles int64
		want      string // in the error; "": no error
		notWant   string
	}{
		{name: "room", open: 200, mostFiles: 577},
		{name: "at the margin", open: 245, mostFiles: 577},
		{name: "over, the load may need more", open: 246, mostFiles: 577,
			want: "raise vm.max_map_count (to at least 577, what the load may need if its tables take 40 bytes per quad) or --max-memory"},
		{name: "over, something else holds files", open: 246, mostFiles: 290,
			want: "raise vm.max_map_count or --max-memory", notWant: "to at least"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &writeGuard{dir: "/db", fileLimit: 300, fileMargin: 55, mostFiles: tc.mostFiles, limitName: mapLimitName,
				free:  func() (uint64, bool) { return 1 << 40, true },
				files: func() int64 { return tc.open }}
			err := g.check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			if !errors.Is(err, errTooManyFiles) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check = %v, want %q", err, tc.want)
			}
			if tc.notWant != "" && strings.Contains(err.Error(), tc.notWant) {
				t.Errorf("check = %v, has %q", err, tc.notWant)
			}
		})
	}
}

// TestOpenInUse: read-only opens share a database; an open beside a
// writer, or a writable open beside readers, fails with ErrInUse naming
// the processes holding it and how.
func TestOpenInUse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the holders are named from Linux's /proc/locks")
	}
	dir := t.TempDir()
	me := fmt.Sprintf("process %d", os.Getpid())
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadQuads(t, w, "a", synthQuads(5, 2000))
	for _, ro := range []bool{true, false} {
		_, err := Open(dir, Options{ReadOnly: ro})
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), me) || !strings.Contains(err.Error(), "writing it") {
			t.Errorf("open (read-only %v) beside a writer: %v", ro, err)
		}
	}
	w.Close()

	r1, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("second read-only open: %v", err)
	}
	defer r2.Close()
	if a, b := quadSet(t, r1), quadSet(t, r2); len(a) == 0 || len(a) != len(b) {
		t.Errorf("readers see %d and %d quads", len(a), len(b))
	}
	_, err = Open(dir, Options{})
	if !errors.Is(err, ErrInUse) || strings.Count(err.Error(), me+" ") != 2 || !strings.Contains(err.Error(), "reading it") ||
		strings.Contains(err.Error(), "writing it") {
		t.Errorf("writable open beside two readers: %v", err)
	}
	if err := inUseErr(nil); !strings.Contains(err.Error(), "another process") {
		t.Errorf("holders unknown: %v", err)
	}
}

// TestOpenReadOnlyNoDatabase: a read-only open of a missing or empty
// directory is ErrNoDatabase and creates nothing.
func TestOpenReadOnlyNoDatabase(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create bool
	}{{"missing", false}, {"empty", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			if tc.create {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrNoDatabase) {
				t.Fatalf("open = %v, want ErrNoDatabase", err)
			}
			entries, err := os.ReadDir(dir)
			if tc.create != (err == nil) || len(entries) != 0 {
				t.Errorf("directory after the open: %d entries, err %v", len(entries), err)
			}
		})
	}
}

// stallingSink calls stall once, before its first record.
type stallingSink struct {
	kvWriter
	once  sync.Once
	stall func()
}

func (s *stallingSink) Set(stream uint32, key, val []byte) error {
	s.once.Do(s.stall)
	return s.kvWriter.Set(stream, key, val)
}

// TestWriteGuardWatcher: the free space is also read on a timer, so a disk
// filled while no records reach the guard (the writer waiting on Badger)
// still stops the load with the guard's error, not a crash, and the
// temporary files go.
func TestWriteGuardWatcher(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{LoadMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var full atomic.Bool
	var reads atomic.Int64
	db.guardEvery, db.guardTick = 1<<40, time.Millisecond // no check by bytes written
	db.freeDisk = func(string) (uint64, bool) {
		reads.Add(1)
		if full.Load() {
			return 1 << 20, true
		}
		return 1 << 40, true
	}
	l := startLoad(t, db, LoadOptions{Graph: "b"}, synthQuads(8, 20000))
	l.wrapSink = func(w kvWriter) kvWriter {
		return &stallingSink{kvWriter: w, stall: func() {
			// Another process fills the disk while the first record waits.
			full.Store(true)
			n := reads.Load()
			for deadline := time.Now().Add(10 * time.Second); reads.Load() < n+1 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(5 * time.Millisecond) // the watcher stores what it read
		}}
	}
	_, err = l.Commit(context.Background())
	l.Close()
	if !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "the load stopped before Badger ran out") {
		t.Fatalf("commit = %v, want %v from the write guard's watcher", err, errDiskFull)
	}
	if d := spillDirs(t, dir); len(d) != 0 {
		t.Errorf("temporary files left: %v", d)
	}
}
