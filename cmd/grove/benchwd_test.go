package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIGenWikidataAndIngest generates a small dump-like Wikidata JSON
// file and ingests it with format detection.
func TestCLIGenWikidataAndIngest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "wd.json.gz")
	out, err := run(t, "gen", "--format", "wikidata-json", "--entities", "300", "--out", file)
	if err != nil || !strings.Contains(out, "300 entities (30 properties)") {
		t.Fatalf("gen: %s, %v", out, err)
	}
	out, err = run(t, "--db", filepath.Join(dir, "db"), "ingest", "--graph", "wd", file)
	if err != nil || !strings.Contains(out, "wikidata-json") {
		t.Fatalf("ingest: %s, %v", out, err)
	}
	if _, err := run(t, "gen", "--format", "csv", "--out", filepath.Join(dir, "x")); err == nil {
		t.Error("gen --format csv succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("gen --format csv created its output: %v", err)
	}
}
