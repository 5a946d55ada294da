package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEdgesOrderFollowsTheLoad pins what README says of kg edges' order:
// one database answers in the same order every time, and the same file
// loaded in bulk and with --incremental gives different orders (terms are
// numbered differently), so --limit 1 keeps different edges.
func TestEdgesOrderFollowsTheLoad(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "ord.nt")
	if err := os.WriteFile(nt, []byte("<s> <p> <zzz> .\n<s> <p> <aaa> .\n<s> <p> <mmm> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := map[string]string{}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"bulk", []string{"ingest", "--quiet"}},
		{"incremental", []string{"ingest", "--quiet", "--incremental"}},
	} {
		db := filepath.Join(dir, c.name)
		if _, err := run(t, append(append([]string{"--db", db}, c.args...), nt)...); err != nil {
			t.Fatal(err)
		}
		var outs [2]string
		for i := range outs {
			out, err := run(t, "--db", db, "kg", "edges", "p", "s", "--limit", "1")
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = out
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: one database answered %q, then %q", c.name, outs[0], outs[1])
		}
		first[c.name] = outs[0]
	}
	if first["bulk"] == first["incremental"] {
		t.Errorf("bulk and incremental loads keep the same first edge %q: README says the order differs", first["bulk"])
	}
}
