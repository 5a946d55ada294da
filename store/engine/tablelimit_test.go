package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestTableLimitErr: the check refuses exactly the loads whose tables,
// runs and headroom exceed the limit, and suggests a budget only when one
// fits.
func TestTableLimitErr(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		stored  int
		read    int64
		budget  int64
		runs    int
		limit   int64
		want    []string // in the error; nil: no error
		notWant string
	}{
		{name: "small load fits", read: 1e6, budget: 512 * mib, limit: 1024},
		// 700M quads at 2 MiB tables: 5,341 tables + 40 in flight + 64 = 5,445.
		{name: "700M at 512 MiB, limit 5445", read: 700e6, budget: 512 * mib, limit: 5445},
		{name: "700M at 512 MiB, limit 5444", read: 700e6, budget: 512 * mib, limit: 5444,
			want: []string{"ulimit -n to at least 5445", "--max-memory 768 MiB", "about 5341 tables of 2 MiB", "nothing was written"}},
		// At 8 MiB tables 1,428 files, at 16 MiB 758: the first budget that fits is 1280 MiB.
		{name: "suggests the smallest budget that fits", read: 700e6, budget: 512 * mib, limit: 1000,
			want: []string{"--max-memory 1280 MiB"}},
		{name: "stored tables and runs count", stored: 4000, read: 700e6, budget: 2048 * mib, runs: 600, limit: 4990,
			want: []string{"at least 5023", "(4000 stored)"}, notWant: "--max-memory"},
		{name: "no budget fits", read: 700e6, budget: 512 * mib, limit: 300,
			want: []string{"vm.max_map_count to at least 5445"}, notWant: "--max-memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			what := "ulimit -n"
			if tc.limit == 300 {
				what = "vm.max_map_count"
			}
			err := tableLimitErr(tc.stored, tc.read, tc.budget, tc.runs, tc.limit, what)
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
	// flight and the headroom: one file short.
	need := tableNeed(stored, int64(len(qs)), minMaxMemory, 0)
	if need != int64(stored)+1+inFlightTables(2<<20)+fileHeadroom {
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
			db.guardEvery, db.fileLimit = 64<<10, 10000
			db.freeDisk = func(string) (uint64, bool) {
				if checks.Add(1) <= 1+tc.pass {
					return 1 << 40, true // the check before the write phase, and tc.pass
				}
				return tc.free, true
			}
			db.openFiles = func() int64 { return tc.files }
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
// is refused, with nothing written, instead of letting Badger fault.
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
		})
	}
}
