package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/ingest"
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

// TestPrintApplied: the summary of an incremental run or a delete says
// that the quads not applied were there already (not there) or repeated
// an earlier line: a file's repeated lines are not in the database.
func TestPrintApplied(t *testing.T) {
	for _, c := range []struct {
		name      string
		keep, del bool
		want      string
	}{
		{"add", false, false, `graph "g": 7 quads added (3 of the 10 read were there already or repeated an earlier line)`},
		{"delete", false, true, `graph "g": 7 quads deleted (3 of the 10 read were not there or repeated an earlier line)`},
		{"add, own labels", true, false, `the files' graphs: 7 quads added (3 of the 10 read were there already or repeated an earlier line)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			applied := int64(7)
			var b strings.Builder
			printApplied(&b, ingest.Result{Files: []ingest.FileResult{{Quads: 4}, {Quads: 6}}, Applied: &applied}, "g", c.keep, c.del)
			if got := strings.TrimSpace(b.String()); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
