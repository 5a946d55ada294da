package main

import (
	"strings"
	"testing"
)

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
