package rdf

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// readAll runs a reader over data and returns its quads.
func readWith(t testing.TB, rd source.Reader, name string, data []byte) ([]quad.Quad, error) {
	t.Helper()
	var qs []quad.Quad
	err := rd.Read(context.Background(), name, bytes.NewReader(data), source.WriterFunc(func(q quad.Quad) error {
		qs = append(qs, q)
		return nil
	}))
	return qs, err
}

// referenceNTriples converts a fixture with an external tool (serdi or
// rapper) and parses its N-Triples output with this package's N-Triples
// reader. The test fails, with the install command, when the tool is
// missing.
func referenceNTriples(t *testing.T, pkg string, args ...string) []quad.Quad {
	t.Helper()
	path, err := exec.LookPath(args[0])
	if err != nil {
		t.Fatalf("%s is needed to check the parser against a reference: apt-get install -y %s", args[0], pkg)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(path, args[1:]...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	qs, err := readWith(t, New(Options{Strict: true}), args[0]+".nt", out)
	if err != nil {
		t.Fatalf("parsing %s output: %v", args[0], err)
	}
	if len(qs) == 0 {
		t.Fatalf("%s produced no triples", args[0])
	}
	return qs
}

// canonical renders quads as sorted N-Quads lines with every blank node
// renamed after its structure (iterated neighbourhood hashing), so two
// parsers' outputs compare equal exactly when the graphs are isomorphic
// (for graphs without automorphic blank nodes, which fixtures avoid).
func canonical(qs []quad.Quad) []string {
	color := map[quad.BNode]string{}
	for _, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Object} {
			if b, ok := v.(quad.BNode); ok {
				color[b] = "b"
			}
		}
	}
	render := func(v, self quad.Value) string {
		if b, ok := v.(quad.BNode); ok {
			if v == self {
				return "*"
			}
			return "_:" + color[b]
		}
		return quad.StringOf(v)
	}
	for round := 0; round < 8; round++ {
		sigs := map[quad.BNode][]string{}
		for _, q := range qs {
			for _, v := range []quad.Value{q.Subject, q.Object} {
				if b, ok := v.(quad.BNode); ok {
					sigs[b] = append(sigs[b], render(q.Subject, v)+" "+render(q.Predicate, v)+" "+render(q.Object, v))
				}
			}
		}
		next := map[quad.BNode]string{}
		for b, s := range sigs {
			slices.Sort(s)
			h := sha256.Sum256([]byte(color[b] + "|" + strings.Join(s, "\n")))
			next[b] = hex.EncodeToString(h[:8])
		}
		color = next
	}
	lines := make([]string, len(qs))
	for i, q := range qs {
		lines[i] = render(q.Subject, nil) + " " + render(q.Predicate, nil) + " " + render(q.Object, nil) + " ."
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// sameGraph fails the test with a line diff when got and want differ.
func sameGraph(t *testing.T, got, want []quad.Quad) {
	t.Helper()
	g, w := canonical(got), canonical(want)
	if slices.Equal(g, w) {
		return
	}
	for _, l := range w {
		if _, found := slices.BinarySearch(g, l); !found {
			t.Errorf("missing: %s", l)
		}
	}
	for _, l := range g {
		if _, found := slices.BinarySearch(w, l); !found {
			t.Errorf("unexpected: %s", l)
		}
	}
}

func fixtureBytes(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCanonical checks that the graph comparison tells graphs apart and
// ignores blank node names and order.
func TestCanonical(t *testing.T) {
	mk := func(s1, s2, lit string) []quad.Quad {
		return []quad.Quad{
			quad.Make(quad.BNode(s1), quad.IRI("p"), quad.String(lit), nil),
			quad.Make(quad.BNode(s1), quad.IRI("q"), quad.BNode(s2), nil),
		}
	}
	b, c := mk("n1", "n2", "1"), mk("n1", "n2", "2")
	d := mk("m9", "m8", "1")
	d[0], d[1] = d[1], d[0]
	if !slices.Equal(canonical(b), canonical(d)) {
		t.Error("canonical depends on blank node names or order")
	}
	if slices.Equal(canonical(b), canonical(c)) {
		t.Error("canonical does not tell different graphs apart")
	}
}
