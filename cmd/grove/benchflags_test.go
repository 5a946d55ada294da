package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/cmd/grove/internal/storebench"
)

// TestMain makes this test binary act as grove when it is started as
// bench ingest and bench wikidata start their children (os.Executable()
// bench ingest-one ...): otherwise a child would run every test again.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "bench" && os.Args[2] == "ingest-one" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchRefusesBadNumbers: every numeric flag of grove bench is checked
// up front and an error names it (--duration 0s panicked in
// time.NewTicker; --n 0 and negatives ran with a default quietly).
func TestBenchRefusesBadNumbers(t *testing.T) {
	db := tinyDB(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "http", "--ids", "f1", "--duration", "0s"}, "--duration 0s: want a positive duration"},
		{[]string{"bench", "http", "--ids", "f1", "--duration", "-1s"}, "--duration -1s: want a positive duration"},
		{[]string{"bench", "http", "--ids", "f1", "--clients", "0"}, "--clients 0: want at least 1"},
		{[]string{"bench", "http", "--ids", "f1", "--clients", "2000000000"}, "--clients 2000000000: want at most 10000"},
		{[]string{"bench", "http", "--synthetic", "-3"}, "--synthetic -3: want at least 0"},
		{[]string{"bench", "kg", "--ids", "f1", "--n", "0"}, "--n 0: want at least 1"},
		{[]string{"bench", "kg", "--ids", "f1", "--n", "-5"}, "--n -5: want at least 1"},
		{[]string{"bench", "kg", "--synthetic", "-1"}, "--synthetic -1: want at least 0"},
		{[]string{"bench", "ingest", "x.nt", "--cayley-limit", "-1"}, "--cayley-limit -1: want at least 0"},
		{[]string{"bench", "ingest-one", "x.nt", "--limit", "-1"}, "--limit -1: want at least 0"},
		{[]string{"bench", "ingest-one", "x.nt", "--mem-limit", "-1"}, "--mem-limit -1: want at least 0"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, err := run(t, append([]string{"--db", db}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestBenchHTTPShortRun: a positive --duration under ten nanoseconds runs
// (its RSS sampling interval was duration/10, zero, and time.NewTicker
// panicked).
func TestBenchHTTPShortRun(t *testing.T) {
	db := tinyDB(t)
	for _, d := range []string{"1ns", "9ns", "20ms"} {
		t.Run(d, func(t *testing.T) {
			if _, err := run(t, "--db", db, "bench", "http", "--ids", "f1", "--clients", "1", "--duration", d); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBenchSaysWhatFailed: bench ingest refuses unknown --systems up front
// listing the known ones, and bench kg says the ids were not found (it
// said "the sampled entities have no labels").
func TestBenchSaysWhatFailed(t *testing.T) {
	db := tinyDB(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "ingest", "x.nt", "--systems", "foo"},
			`--systems: unknown system "foo": want one of grove, cayley-kv-badger, cayley-memstore, grove-writer`},
		{[]string{"bench", "ingest", "x.nt", "--systems", "grove,bar"}, `unknown system "bar"`},
		{[]string{"bench", "ingest", "x.nt", "--systems", ""}, "--systems: give at least one of grove"},
		{[]string{"bench", "kg", "--ids", "/en/nonexistent", "--n", "1"},
			`the database has none of the entities to query ("/en/nonexistent"; ids are exact): not found`},
		{[]string{"bench", "kg", "--ids", "a,b,c,d,e,f,g", "--n", "1"}, `"e", and 2 more;`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, err := run(t, append([]string{"--db", db}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := run(t, "--db", db, "bench", "kg", "--ids", "f1,nosuch", "--n", "2"); err != nil {
		t.Errorf("bench kg with one id found: %v", err)
	}
}

// TestAllFailed: a bench ingest in which every system failed is an error
// naming each (it exited 0 with the reasons in the ERROR column only).
func TestAllFailed(t *testing.T) {
	for _, c := range []struct {
		name    string
		results []storebench.IngestResult
		want    string // "" for no error
	}{
		{"all failed", []storebench.IngestResult{{System: "grove", Error: "grove: no such file"},
			{System: "cayley-memstore", Error: "cayley-memstore: no such file"}},
			"every system failed: grove: no such file; cayley-memstore: no such file"},
		{"one ran", []storebench.IngestResult{{System: "grove", Error: "grove: boom"}, {System: "cayley-memstore", Quads: 3}}, ""},
		{"all ran", []storebench.IngestResult{{System: "grove", Quads: 3}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := allFailed(c.results)
			if (c.want == "") != (err == nil) || err != nil && err.Error() != c.want {
				t.Errorf("allFailed = %v, want %q", err, c.want)
			}
		})
	}
}

// TestBenchIngestExitStatus: bench ingest is an error naming each system
// and why when every system failed (it exited 0 with the reasons in the
// ERROR column only). Its child processes are this test binary (TestMain).
func TestBenchIngestExitStatus(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexist.nt")
	out, err := run(t, "bench", "ingest", missing, "--systems", "grove", "--work", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "every system failed: grove: exit status 1: grove: ingest "+missing) ||
		!strings.Contains(err.Error(), "no such file") || !strings.Contains(out, "ERROR") {
		t.Fatalf("err %v, out %q", err, out)
	}
}

// TestGenQuads: grove gen --quads writes exactly that many lines and
// refuses a non-positive count before creating the file (--quads 0, 5
// and -5 wrote the 300 property labels and exited 0).
func TestGenQuads(t *testing.T) {
	for _, c := range []struct {
		args  []string
		lines int
		err   string
	}{
		{[]string{"--quads", "0"}, 0, "--quads 0: want at least 1"},
		{[]string{"--quads", "-5"}, 0, "--quads -5: want at least 1"},
		{[]string{"--format", "wikidata-json", "--entities", "0"}, 0, "--entities 0: want at least 1"},
		{[]string{"--quads", "5"}, 5, ""},
		{[]string{"--quads", "1000"}, 1000, ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "g.nt")
			_, err := run(t, append([]string{"gen", "--out", out}, c.args...)...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("refused, but %s was created (%v)", out, err)
				}
				return
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), "\n"); n != c.lines {
				t.Errorf("%d lines, want %d", n, c.lines)
			}
		})
	}
}
