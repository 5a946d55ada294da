package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/labelindex"
)

func labelQuad(s, text, g string) quad.Quad {
	return quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(store.RDFSLabel), Object: quad.String(text), Label: quad.IRI(g)}
}

func applyOne(t testing.TB, db *DB, action graph.Procedure, qs ...quad.Quad) {
	t.Helper()
	ds := make([]graph.Delta, len(qs))
	for i, q := range qs {
		ds[i] = graph.Delta{Quad: q, Action: action}
	}
	if err := db.ApplyDeltas(ds, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
}

// searchIDs returns the ids of the exact matches of text in graph.
func searchIDs(t testing.TB, db *DB, g, text string) []string {
	t.Helper()
	cands, err := db.Search(context.Background(), g, text, 50)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cands {
		if c.Match == "exact" {
			out = append(out, c.ID)
		}
	}
	slices.Sort(out)
	return out
}

// TestApplyDeltasLabelsAllOrNothing: when the label index cannot be
// written, ApplyDeltas fails and stores nothing (the label index used to
// be rewritten after the commit, so the quads were stored and the call
// still failed).
func TestApplyDeltasLabelsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	applyOne(t, db, graph.Add, labelQuad("a", "Alpha", "g"))
	// Make labels/ unusable: a regular file where the directory must be.
	if err := os.RemoveAll(filepath.Join(dir, "labels")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "labels"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := db.Counts()
	err = db.ApplyDeltas([]graph.Delta{{Quad: labelQuad("b", "Beta", "g"), Action: graph.Add}}, graph.IgnoreOpts{})
	if err == nil {
		t.Fatal("ApplyDeltas succeeded without a writable label index")
	}
	if after := db.Counts(); after != before {
		t.Errorf("a failed batch changed the counts: %+v -> %+v", before, after)
	}
	if _, err := db.Entity(context.Background(), "b"); err == nil {
		t.Error("a failed batch stored its quad")
	}
}

// TestLabelDeletesHonoured: a label deleted in one graph no longer finds
// the entity there, while the same label in another graph still does.
func TestLabelDeletesHonoured(t *testing.T) {
	for _, mem := range []bool{true, false} {
		t.Run(fmt.Sprint("inmemory=", mem), func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{InMemory: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			loadQuads(t, db, "a", []quad.Quad{labelQuad("e", "Gamma", "a"), labelQuad("f", "Delta", "a")})
			applyOne(t, db, graph.Add, labelQuad("e", "Gamma", "b"))
			applyOne(t, db, graph.Delete, labelQuad("e", "Gamma", "a"))
			if got := searchIDs(t, db, "a", "gamma"); len(got) != 0 {
				t.Errorf("search a/gamma = %v after the label was deleted there", got)
			}
			if got := searchIDs(t, db, "b", "gamma"); !slices.Equal(got, []string{"e"}) {
				t.Errorf("search b/gamma = %v, want [e]", got)
			}
			// A re-added label is found again, and the counts follow.
			applyOne(t, db, graph.Add, labelQuad("e", "Gamma", "a"))
			if got := searchIDs(t, db, "a", "gamma"); !slices.Equal(got, []string{"e"}) {
				t.Errorf("search a/gamma = %v after re-adding, want [e]", got)
			}
			gs, err := db.Graphs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gs {
				want := map[string]int64{"a": 2, "b": 1}[g.Name]
				if g.Labels != want {
					t.Errorf("graph %s has %d labels, want %d", g.Name, g.Labels, want)
				}
			}
		})
	}
}

// TestLabelFilesRecovery: a segment named in the meta but missing is
// rebuilt from the store on open; files no meta names are removed; Graphs
// reads the persisted counts without loading any index.
func TestLabelFilesRecovery(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadQuads(t, db, "g", []quad.Quad{labelQuad("a", "Alpha", "g")})
	applyOne(t, db, graph.Add, labelQuad("b", "Beta", "g"))
	gm, err := db.graphByName("g")
	if err != nil {
		t.Fatal(err)
	}
	if len(gm.LabelSegs) != 1 {
		t.Fatalf("label segments = %v, want one", gm.LabelSegs)
	}
	seg := filepath.Join(dir, "labels", gm.LabelSegs[0])
	db.Close()
	// A crash lost the segment; another batch died before its commit.
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "labels", labelHash("g")+".1.9.seg")
	if err := os.WriteFile(orphan, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan segment still there: %v", err)
	}
	db.mu.Lock()
	clear(db.search) // the repair installed the rebuilt index; drop it
	db.mu.Unlock()
	gs, err := db.Graphs(context.Background())
	if err != nil || len(gs) != 1 || gs[0].Labels != 2 {
		t.Fatalf("graphs = %+v, %v; want g with 2 labels", gs, err)
	}
	db.mu.RLock()
	loaded := len(db.search)
	db.mu.RUnlock()
	if loaded != 0 {
		t.Errorf("Graphs loaded %d label indexes", loaded)
	}
	checkAlphaBeta(t, db)
	entries, _ := os.ReadDir(filepath.Join(dir, "labels"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || !strings.HasSuffix(names[0], ".idx") {
		t.Errorf("label files after repair = %v, want one main index", names)
	}
}

// TestLabelSegmentsCompact: many small batches end in a bounded number of
// files with the same answers.
func TestLabelSegmentsCompact(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 3 * maxSegments {
		applyOne(t, db, graph.Add, labelQuad(fmt.Sprint("e", i), fmt.Sprint("Entity ", i), "g"))
		if i%3 == 2 {
			applyOne(t, db, graph.Delete, labelQuad(fmt.Sprint("e", i-1), fmt.Sprint("Entity ", i-1), "g"))
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "labels"))
	if len(entries) > maxSegments+1 {
		t.Errorf("%d label files, want at most %d", len(entries), maxSegments+1)
	}
	for i := range 3 * maxSegments {
		want := []string{fmt.Sprint("e", i)}
		if i%3 == 1 {
			want = nil
		}
		if got := searchIDs(t, db, "g", fmt.Sprint("entity ", i)); !slices.Equal(got, want) {
			t.Errorf("search entity %d = %v, want %v", i, got, want)
		}
	}
}

// TestConcurrentSearchDuringDeltas: searches running while batches add and
// delete labels never fail and never return a label an entity lacks; at
// the end every label is found (run with -race).
func TestConcurrentSearchDuringDeltas(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQuads(t, db, "g", []quad.Quad{labelQuad("seed", "Seed", "g")})
	ctx := context.Background()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if w == 0 {
					db.mu.Lock()
					clear(db.search) // force lazy reloads racing the writer
					db.mu.Unlock()
				}
				cands, err := db.Search(ctx, "g", fmt.Sprint("item ", i%20), 10)
				if err != nil {
					errs <- err
					return
				}
				for _, c := range cands {
					if c.Match == "exact" && c.Matched != fmt.Sprint("Item ", i%20) {
						errs <- fmt.Errorf("exact hit %+v for item %d", c, i%20)
						return
					}
				}
			}
		}()
	}
	for i := range 60 {
		applyOne(t, db, graph.Add, labelQuad(fmt.Sprint("i", i), fmt.Sprint("Item ", i%20), "g"))
		if i%4 == 3 {
			applyOne(t, db, graph.Delete, labelQuad(fmt.Sprint("i", i-1), fmt.Sprint("Item ", (i-1)%20), "g"))
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range 60 {
		got := searchIDs(t, db, "g", fmt.Sprint("item ", i%20))
		if has := slices.Contains(got, fmt.Sprint("i", i)); has != (i%4 != 2) {
			t.Errorf("item %d: found %v in %v", i, has, got)
		}
	}
}

// TestMappedIndexOutlivesReplacement: the main index is memory-mapped on
// load, and a reader holding the index keeps the mapping valid while a
// bulk load replaces the file; the last release unmaps it.
func TestMappedIndexOutlivesReplacement(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadQuads(t, db, "g", []quad.Quad{labelQuad("a", "Alpha", "g")})
	db.Close()
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	si, err := db.acquire("g")
	if err != nil {
		t.Fatal(err)
	}
	if len(si.maps) != 1 {
		t.Fatalf("main index mappings = %d, want 1", len(si.maps))
	}
	m := si.maps[0]
	loadQuads(t, db, "g", []quad.Quad{labelQuad("b", "Beta", "g")}) // replaces and removes the file
	if hits := si.view.Search("alpha", 5, labelindex.SearchOptions{}); len(hits) != 1 {
		t.Errorf("old view after replacement: %v", hits)
	}
	if n := m.refs.Load(); n != 1 {
		t.Errorf("mapping refs = %d while a reader holds it, want 1", n)
	}
	si.release()
	if n := m.refs.Load(); n != 0 {
		t.Errorf("mapping refs = %d after the last release, want 0", n)
	}
	if got := searchIDs(t, db, "g", "beta"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("search beta = %v", got)
	}
}

// TestRejectedBatchLeavesNoLabels: a batch that fails (here on a missing
// quad after a label add) leaves neither a label file nor a findable label.
func TestRejectedBatchLeavesNoLabels(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	applyOne(t, db, graph.Add, labelQuad("a", "Alpha", "g"))
	before, _ := os.ReadDir(filepath.Join(dir, "labels"))
	err = db.ApplyDeltas([]graph.Delta{
		{Quad: labelQuad("b", "Beta", "g"), Action: graph.Add},
		{Quad: labelQuad("zz", "Missing", "g"), Action: graph.Delete},
	}, graph.IgnoreOpts{})
	if err == nil {
		t.Fatal("batch with a missing delete succeeded")
	}
	after, _ := os.ReadDir(filepath.Join(dir, "labels"))
	if len(after) != len(before) {
		t.Errorf("label files %d -> %d after a rejected batch", len(before), len(after))
	}
	if got := searchIDs(t, db, "g", "beta"); len(got) != 0 {
		t.Errorf("search beta = %v after a rejected batch", got)
	}
	if gs, _ := db.Graphs(context.Background()); len(gs) != 1 || gs[0].Labels != 1 {
		t.Errorf("graphs = %+v, want g with 1 label", gs)
	}
}

// TestRebuiltIndexIsMapped: an index rebuilt from the store because its
// files are missing (read-only open) or corrupt (writable open) is served
// from a mapped scratch file, not the heap, and no scratch file is left.
func TestRebuiltIndexIsMapped(t *testing.T) {
	tests := []struct {
		name     string
		readOnly bool
		damage   func(t *testing.T, main string)
	}{
		{"read-only, main file missing", true, func(t *testing.T, main string) {
			if err := os.Remove(main); err != nil {
				t.Fatal(err)
			}
		}},
		{"writable, main file corrupt", false, func(t *testing.T, main string) {
			if err := os.WriteFile(main, []byte("not an index"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			t.Setenv("TMPDIR", tmp)
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			loadQuads(t, db, "g", []quad.Quad{labelQuad("a", "Alpha", "g"), labelQuad("b", "Beta", "g")})
			gm, err := db.graphByName("g")
			if err != nil {
				t.Fatal(err)
			}
			main := db.mainFile("g", gm.LabelGen)
			db.Close()
			tc.damage(t, main)
			db, err = Open(dir, Options{ReadOnly: tc.readOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			checkAlphaBeta(t, db)
			si, err := db.acquire("g")
			if err != nil {
				t.Fatal(err)
			}
			if len(si.maps) != 1 {
				t.Errorf("rebuilt index has %d mappings, want 1 (served from the heap?)", len(si.maps))
			}
			si.release()
			for _, d := range []string{tmp, filepath.Join(dir, "labels")} {
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), "rebuild-") {
						t.Errorf("scratch file left: %s", filepath.Join(d, e.Name()))
					}
				}
			}
		})
	}
}

// TestSegmentsOnlyOpenWithoutRebuild: a graph whose labels were only ever
// written by ApplyDeltas has segments and no main file; that is its
// consistent state, so an open (read-only or writable) neither warns nor
// rebuilds nor writes a file. Segments that are missing, or that no longer
// add up to the graph's label count (pairs lost), are still rebuilt.
func TestSegmentsOnlyOpenWithoutRebuild(t *testing.T) {
	tests := []struct {
		name     string
		readOnly bool
		damage   func(t *testing.T, segs []string) // nil: intact
		rebuilt  bool
	}{
		{"intact, read-only", true, nil, false},
		{"intact, writable", false, nil, false},
		{"segment missing, read-only", true, func(t *testing.T, segs []string) {
			if err := os.Remove(segs[0]); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"segment lost its pairs, writable", false, func(t *testing.T, segs []string) {
			f, err := os.Create(segs[1])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := labelindex.WriteSegment(f, labelindex.NewBuilder(), labelindex.NewBuilder()); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			applyOne(t, db, graph.Add, labelQuad("a", "Alpha", "g"))
			applyOne(t, db, graph.Add, labelQuad("b", "Beta", "g"))
			gm, err := db.graphByName("g")
			if err != nil {
				t.Fatal(err)
			}
			if gm.LabelGen != 0 || len(gm.LabelSegs) != 2 || gm.Labels != 2 {
				t.Fatalf("label state gen %d, segments %v, %d labels; want gen 0, 2 segments, 2 labels", gm.LabelGen, gm.LabelSegs, gm.Labels)
			}
			var segs []string
			for _, s := range gm.LabelSegs {
				segs = append(segs, filepath.Join(dir, "labels", s))
			}
			db.Close()
			if tc.damage != nil {
				tc.damage(t, segs)
			}
			before := labelDirNames(t, dir)
			var logs strings.Builder
			db, err = Open(dir, Options{ReadOnly: tc.readOnly, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			checkAlphaBeta(t, db)
			if rebuilt := strings.Contains(logs.String(), "label index files missing"); rebuilt != tc.rebuilt {
				t.Errorf("rebuilt = %v, want %v; log:\n%s", rebuilt, tc.rebuilt, logs.String())
			}
			if after := labelDirNames(t, dir); !tc.rebuilt && !slices.Equal(after, before) {
				t.Errorf("label files %v became %v", before, after)
			}
		})
	}
}

// labelDirNames lists the files under dir/labels.
func labelDirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "labels"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkAlphaBeta checks that graph g's label index finds "alpha" (a) and
// "beta" (b), the labels the label-file tests write.
func checkAlphaBeta(t *testing.T, db *DB) {
	t.Helper()
	for text, id := range map[string]string{"alpha": "a", "beta": "b"} {
		if got := searchIDs(t, db, "g", text); !slices.Equal(got, []string{id}) {
			t.Errorf("search %s = %v, want [%s]", text, got, id)
		}
	}
}
