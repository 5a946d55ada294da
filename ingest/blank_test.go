package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/input"
)

// Documents whose anonymous blank nodes ([...], node elements without
// rdf:nodeID) are named by the reader.
const (
	anonTurtle = `<http://ex.org/a> <http://ex.org/p> [ <http://ex.org/q> "v" ] .
[] <http://ex.org/q> "w" .
`
	anonRDFXML = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex.org/">
  <rdf:Description rdf:about="http://ex.org/a"><ex:p><rdf:Description ex:q="v"/></ex:p></rdf:Description>
  <rdf:Description ex:q="w"/>
</rdf:RDF>
`
)

// anonNodes returns the blank nodes of qs, sorted, without duplicates.
func anonNodes(qs []quad.Quad) []string {
	var out []string
	for _, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Object} {
			if b, ok := v.(quad.BNode); ok {
				out = append(out, string(b))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestAnonymousBlankNodesPerFile: the anonymous blank nodes of a Turtle
// or RDF/XML file are scoped by the file itself, not by how its path was
// spelled: every spelling of one file gives the same nodes, and two files
// with the same relative name (each read from its own directory) never
// share them.
func TestAnonymousBlankNodesPerFile(t *testing.T) {
	ctx := context.Background()
	type read struct{ dir, path string } // dir: working directory ("" keeps it)
	for _, format := range []struct{ ext, text string }{{"ttl", anonTurtle}, {"rdf", anonRDFXML}} {
		root := t.TempDir()
		name := "data." + format.ext
		for _, d := range []string{"d1", "d2", filepath.Join("d1", "sub")} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []string{"d1", "d2"} {
			if err := os.WriteFile(filepath.Join(root, d, name), []byte(format.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d1, d2 := filepath.Join(root, "d1"), filepath.Join(root, "d2")
		tests := []struct {
			name  string
			reads []read
			same  bool // the reads give the same nodes; else pairwise disjoint ones
		}{
			{"spellings of one file", []read{{d1, name}, {d1, "./" + name}, {"", filepath.Join(d1, name)},
				{filepath.Join(d1, "sub"), filepath.Join("..", name)}, {"", filepath.Join(d1, "sub", "..", name)}}, true},
			{"one relative name in two directories", []read{{d1, name}, {d2, name}}, false},
		}
		for _, tc := range tests {
			t.Run(format.ext+"/"+tc.name, func(t *testing.T) {
				var got [][]string
				for _, rd := range tc.reads {
					if rd.dir != "" {
						t.Chdir(rd.dir)
					}
					qs, _, err := Parse(ctx, []string{rd.path}, Options{Graph: "g"})
					if err != nil {
						t.Fatal(err)
					}
					nodes := anonNodes(qs)
					if len(nodes) != 2 {
						t.Fatalf("%s: blank nodes %v, want 2", rd.path, nodes)
					}
					for _, n := range nodes {
						if strings.Contains(n, root) || !strings.Contains(n, name+"@") {
							t.Fatalf("%s: blank node %q shows the directory or lacks the file name", rd.path, n)
						}
					}
					got = append(got, nodes)
				}
				for i := 1; i < len(got); i++ {
					if tc.same && !slices.Equal(got[i], got[0]) {
						t.Errorf("%s gives blank nodes %v, %s gives %v", tc.reads[0].path, got[0], tc.reads[i].path, got[i])
					}
					for j := range i {
						if !tc.same && slices.ContainsFunc(got[i], func(n string) bool { return slices.Contains(got[j], n) }) {
							t.Errorf("%s (in %s) and %s (in %s) share blank nodes: %v, %v",
								tc.reads[j].path, tc.reads[j].dir, tc.reads[i].path, tc.reads[i].dir, got[j], got[i])
						}
					}
				}
			})
		}
	}
}

// TestReingestAnotherSpelling: re-ingesting a Turtle file under another
// spelling of its path adds nothing, and deleting it under a third one
// removes everything; a bad line is still reported under the path as
// typed.
func TestReingestAnotherSpelling(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	abs := filepath.Join(dir, "x1.ttl")
	if err := os.WriteFile(abs, []byte(anonTurtle), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	db := openDB(t, t.TempDir())
	defer db.Close()
	for _, p := range []string{"x1.ttl", "./x1.ttl", abs} {
		if _, err := Run(ctx, db, []string{p}, Options{Graph: "g"}); err != nil {
			t.Fatal(err)
		}
		if n := db.Counts().Quads; n != 3 {
			t.Fatalf("after ingesting %s: %d quads, want 3", p, n)
		}
	}
	if _, err := Incremental(ctx, db, []string{"./x1.ttl"}, Options{Graph: "g"}, false, 0); err != nil {
		t.Fatal(err)
	}
	if n := db.Counts().Quads; n != 3 {
		t.Fatalf("after an incremental ingest of ./x1.ttl: %d quads, want 3", n)
	}
	if _, err := Incremental(ctx, db, []string{"../" + filepath.Base(dir) + "/x1.ttl"}, Options{Graph: "g"}, true, 0); err != nil {
		t.Fatal(err)
	}
	if n := db.Counts().Quads; n != 0 {
		t.Fatalf("after deleting under another spelling: %d quads, want 0", n)
	}
	if err := os.WriteFile(abs, []byte(anonTurtle+"<http://ex.org/b> <http://ex.org/p> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, db, []string{"./x1.ttl"}, Options{Graph: "g"}); err == nil || !strings.HasPrefix(err.Error(), "./x1.ttl:3:") {
		t.Fatalf("error %v, want it at ./x1.ttl:3", err)
	}
}

// TestStdinAnonymousBlankNodes: standard input has no path, so each run
// gives its anonymous blank nodes names of its own: two streams never
// share them (and re-ingesting a stream adds them again).
func TestStdinAnonymousBlankNodes(t *testing.T) {
	ctx := context.Background()
	stdin := os.Stdin
	t.Cleanup(func() { os.Stdin = stdin })
	var got [][]string
	for range 2 {
		f, err := os.Open(write(t, "in.ttl", anonTurtle))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		os.Stdin = f
		qs, _, err := Parse(ctx, []string{input.Stdin}, Options{Graph: "g"})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, anonNodes(qs))
	}
	if len(got[0]) != 2 || len(got[1]) != 2 {
		t.Fatalf("blank nodes %v, want 2 per run", got)
	}
	if slices.ContainsFunc(got[1], func(n string) bool { return slices.Contains(got[0], n) }) {
		t.Fatalf("two runs reading stdin share blank nodes: %v, %v", got[0], got[1])
	}
}
