package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// labelHeavy returns n label and alias quads spread over graphs, with
// repeated texts, repeated subjects and non-ASCII labels.
func labelHeavy(seed uint64, n int, graphs ...string) []quad.Quad {
	r := rand.New(rand.NewPCG(seed, 3))
	words := []string{"Blade Runner", "Alien", "Café Society", "Straße", "東京物語", "Zardoz"}
	qs := make([]quad.Quad, n)
	for i := range qs {
		p := store.RDFSLabel
		if r.IntN(4) == 0 {
			p = store.SKOSAltLabel
		}
		text := fmt.Sprintf("%s %d", words[r.IntN(len(words))], r.IntN(n/2+1))
		qs[i] = quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%d", r.IntN(n/3+1))), Predicate: quad.IRI(p),
			Object: quad.LangString{Value: quad.String(text), Lang: "en"}, Label: quad.IRI(graphs[r.IntN(len(graphs))])}
	}
	return qs
}

// loadCountingRuns bulk-loads qs into the database in dir and returns the
// number of sorted label runs in the load's spill directory when the label
// phase starts.
func loadCountingRuns(t *testing.T, db *DB, dir string, qs []quad.Quad, keep bool, mem int64) int {
	t.Helper()
	runs := 0
	progress := func(p LoadProgress) {
		if p.Phase == "labels" && p.Done == 0 {
			found, _ := filepath.Glob(filepath.Join(dir, spillPrefix+"*", "labelindex-run-*.tmp"))
			runs = len(found)
		}
	}
	loadOpts(t, db, LoadOptions{Graph: "a", KeepLabels: keep, MaxMemory: mem, Progress: progress}, qs)
	return runs
}

// TestBulkLabelsSpilled: a label phase whose builders spill many sorted
// runs (a tiny budget) writes label index files byte for byte equal to
// those of a load that keeps every label in memory, for a first load and
// for a second load into graphs that already have an index, with one
// graph and with several graphs sharing the budget. No temporary file is
// left beside the database or the label files.
func TestBulkLabelsSpilled(t *testing.T) {
	tests := []struct {
		name   string
		keep   bool
		graphs []string
	}{
		{"one graph", false, []string{"a"}},
		{"three graphs", true, []string{"x", "y", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loads := [][]quad.Quad{labelHeavy(1, 40000, tt.graphs...), labelHeavy(2, 30000, tt.graphs...)}
			var files []map[string][]byte
			for _, mem := range []int64{DefaultMaxMemory, minMaxMemory} {
				dir := t.TempDir()
				db, err := Open(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for i, qs := range loads {
					runs := loadCountingRuns(t, db, dir, qs, tt.keep, mem)
					if mem == minMaxMemory && runs < 2 {
						t.Errorf("load %d: %d label runs; the tiny budget should force several", i, runs)
					}
				}
				files = append(files, labelFiles(t, db, tt.graphs))
				for _, n := range append(spillDirs(t, dir), tmpLabelFiles(t, dir)...) {
					t.Errorf("temporary file left: %s", n)
				}
				db.Close()
			}
			for g, want := range files[0] {
				if got := files[1][g]; string(got) != string(want) {
					t.Errorf("graph %s: label index with a tiny budget (%d bytes) differs from in memory (%d bytes)", g, len(got), len(want))
				}
			}
		})
	}
}

// labelFiles returns the main label index file of each graph, which must
// hold labels.
func labelFiles(t *testing.T, db *DB, graphs []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, g := range graphs {
		gm, err := db.graphByName(g)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(db.mainFile(g, gm.LabelGen))
		if err != nil || gm.Labels == 0 {
			t.Fatalf("graph %s: label file: %v, %d labels", g, err, gm.Labels)
		}
		out[g] = data
	}
	return out
}

// tmpLabelFiles lists the temporary files in the label directory.
func tmpLabelFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "labels"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}
