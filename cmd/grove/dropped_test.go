package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestCountsDropped: the line of a file read with a dialect counts
// the statements the dialect left out (Freebase key namespaces,
// permissions, names in other languages), so that "quads read" against
// the file's lines is not a silent loss; a file without any has no count.
func TestIngestCountsDropped(t *testing.T) {
	const ns = "http://rdf.freebase.com/ns/"
	dir := t.TempDir()
	fb := filepath.Join(dir, "fb.nt")
	lines := []string{
		`<` + ns + `m.0a1> <` + ns + `type.object.name> "Alpha"@en .`,
		`<` + ns + `m.0a1> <` + ns + `type.object.name> "Alpha"@de .`,
		`<` + ns + `m.0a1> <` + ns + `type.object.permission> <` + ns + `m.0p> .`,
		`<` + ns + `m.0a1> <` + ns + `type.object.key> "/wikipedia/en/Alpha" .`,
		`<` + ns + `m.0a1> <` + ns + `film.film.directed_by> <` + ns + `m.0b2> .`,
	}
	if err := os.WriteFile(fb, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "--db", filepath.Join(dir, "db"), "ingest", "--graph", "fb", fb)
	if err != nil {
		t.Fatal(err)
	}
	if want := fb + ": freebase, 2 quads (3 statements left out by the freebase format: see grove help ingest)"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	plain := filepath.Join(dir, "plain.nt")
	if err := os.WriteFile(plain, []byte("<a> <b> <c> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "--db", filepath.Join(dir, "db"), "ingest", "--graph", "p", plain); err != nil || strings.Contains(out, "left out") {
		t.Errorf("a file without a dialect: %v\n%s", err, out)
	}
}
