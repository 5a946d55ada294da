package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// segQuads makes n quads of graph g over a shared set of entities: small
// groups, a hub with a large incoming list, labels and literals.
func segQuads(rng *rand.Rand, g string, n int) []quad.Quad {
	preds := []string{"http://ex.org/r0", "http://ex.org/r1", "http://ex.org/r2"}
	var qs []quad.Quad
	for len(qs) < n {
		s := quad.IRI(fmt.Sprint("http://ex.org/e", rng.IntN(120)))
		var o quad.Value = quad.IRI(fmt.Sprint("http://ex.org/e", rng.IntN(120)))
		p := preds[rng.IntN(len(preds))]
		switch rng.IntN(10) {
		case 0:
			o = quad.IRI("http://ex.org/hub")
		case 1:
			p, o = store.RDFSLabel, quad.LangString{Value: quad.String(fmt.Sprint(g, " name ", rng.IntN(50))), Lang: "en"}
		case 2:
			o = quad.String(fmt.Sprint("value ", rng.IntN(40)))
		}
		qs = append(qs, quad.Quad{Subject: s, Predicate: quad.IRI(p), Object: o, Label: quad.IRI(g)})
	}
	for i := range chunkSize + 20 {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprint("http://ex.org/fan/", g, i)),
			Predicate: quad.IRI("http://ex.org/r0"), Object: quad.IRI("http://ex.org/hub"), Label: quad.IRI(g)})
	}
	return qs
}

// segTwin applies the same writes to a database whose bulk loads of new
// graphs take node-block segments of their own and to one where every
// graph stays in segment 0, and checks that every read agrees.
type segTwin struct {
	t          *testing.T
	seg, flat  *DB
	segDir     string
	flatDir    string
	entities   []quad.Value
	graphNames []string
}

func newSegTwin(t *testing.T) *segTwin {
	tw := &segTwin{t: t, segDir: t.TempDir(), flatDir: t.TempDir()}
	tw.open()
	t.Cleanup(func() { tw.seg.Close(); tw.flat.Close() })
	for i := range 120 {
		tw.entities = append(tw.entities, quad.IRI(fmt.Sprint("http://ex.org/e", i)))
	}
	tw.entities = append(tw.entities, quad.IRI("http://ex.org/hub"), quad.IRI("http://ex.org/fan/b3"))
	return tw
}

func (tw *segTwin) open() {
	var err error
	if tw.seg, err = Open(tw.segDir, Options{}); err != nil {
		tw.t.Fatal(err)
	}
	if tw.flat, err = Open(tw.flatDir, Options{}); err != nil {
		tw.t.Fatal(err)
	}
	tw.seg.opts.SegmentMinQuads, tw.flat.opts.SegmentMinQuads = 1, -1
}

func (tw *segTwin) reopen() {
	tw.seg.Close()
	tw.flat.Close()
	tw.open()
}

func (tw *segTwin) load(opts LoadOptions, qs []quad.Quad) {
	tw.t.Helper()
	loadOpts(tw.t, tw.seg, opts, qs)
	loadOpts(tw.t, tw.flat, opts, qs)
}

func (tw *segTwin) apply(graph string, add, del []quad.Quad) {
	tw.t.Helper()
	for _, db := range []*DB{tw.seg, tw.flat} {
		if err := db.Apply(context.Background(), graph, add, del); err != nil {
			tw.t.Fatal(err)
		}
	}
}

// segmentsOf returns each graph's segment in db.
func segmentsOf(db *DB) map[string]uint8 {
	out := map[string]uint8{}
	for _, g := range db.GraphMetas() {
		out[g.Name] = g.Segment
	}
	return out
}

// storedFormat reads the format version stored in db.
func storedFormat(t *testing.T, db *DB) uint64 {
	t.Helper()
	var v uint64
	err := db.bdb.View(func(txn *badger.Txn) error {
		b, err := getValue(txn, metaVersion)
		if err == nil {
			v = binary.BigEndian.Uint64(b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// compare checks that both databases answer every read the same way.
func (tw *segTwin) compare(step string) {
	t := tw.t
	t.Helper()
	if a, b := quadStrings(t, storeQuads(t, tw.seg)), quadStrings(t, storeQuads(t, tw.flat)); !slices.Equal(a, b) {
		t.Fatalf("%s: all quads differ: %d with segments, %d without", step, len(a), len(b))
	}
	if a, b := quadSet(t, tw.seg), quadSet(t, tw.flat); len(a) != len(b) {
		t.Fatalf("%s: index sets differ: %d with segments, %d without", step, len(a), len(b))
	} else {
		for k := range a {
			if !b[k] {
				t.Fatalf("%s: %s only with segments", step, k)
			}
		}
	}
	if a, b := tw.seg.Counts(), tw.flat.Counts(); a != b {
		t.Fatalf("%s: counts %+v with segments, %+v without", step, a, b)
	}
	for _, v := range tw.entities {
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			a, na := nodeQuads(t, tw.seg, d, v)
			b, nb := nodeQuads(t, tw.flat, d, v)
			if !slices.Equal(a, b) || na != nb {
				t.Fatalf("%s: quads of %v as %v differ:\nsegments %d %v\nflat     %d %v", step, v, d, na, a, nb, b)
			}
		}
		tw.compareKG(step, quad.ToString(v))
	}
	for _, g := range tw.graphNames {
		a, _ := nodeQuads(t, tw.seg, quad.Label, quad.IRI(g))
		b, _ := nodeQuads(t, tw.flat, quad.Label, quad.IRI(g))
		if !slices.Equal(a, b) {
			t.Fatalf("%s: quads of graph %s differ: %d with segments, %d without", step, g, len(a), len(b))
		}
	}
}

// compareKG compares the KG interface's answers about one entity.
func (tw *segTwin) compareKG(step, id string) {
	t := tw.t
	t.Helper()
	ctx := context.Background()
	calls := map[string]func(db *DB) (any, error){
		"relations": func(db *DB) (any, error) { return db.Relations(ctx, []string{id}, store.Both) },
		"features":  func(db *DB) (any, error) { return db.Features(ctx, id) },
		"entity":    func(db *DB) (any, error) { return db.Entity(ctx, id) },
		"neighbors": func(db *DB) (any, error) { return db.Neighbors(ctx, id, "", store.Both, 0) },
		"edges": func(db *DB) (any, error) {
			return db.Edges(ctx, []string{id}, "http://ex.org/r0", store.In, 0)
		},
		"degree": func(db *DB) (any, error) { return db.Degree(ctx, id, "http://ex.org/r1", store.Out) },
	}
	for name, call := range calls {
		a, errA := call(tw.seg)
		b, errB := call(tw.flat)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || string(ja) != string(jb) {
			t.Fatalf("%s: %s(%s) differs:\nsegments %s %v\nflat     %s %v", step, name, id, ja, errA, jb, errB)
		}
	}
}

// TestSegmentedLoads loads graphs into segments of their own, edits and
// reloads them, and checks every read against a database that holds the
// same graphs in one segment.
func TestSegmentedLoads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tw := newSegTwin(t)
	tw.graphNames = []string{"a", "b", "c", "d", "e"}
	tw.load(LoadOptions{Graph: "a"}, segQuads(rng, "a", 600))
	tw.compare("a")
	tw.load(LoadOptions{Graph: "b"}, segQuads(rng, "b", 600))
	tw.load(LoadOptions{Graph: "c"}, segQuads(rng, "c", 400))
	if got, want := segmentsOf(tw.seg), map[string]uint8{"a": 0, "b": 1, "c": 2}; !maps.Equal(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	if got := segmentsOf(tw.flat); !maps.Equal(got, map[string]uint8{"a": 0, "b": 0, "c": 0}) {
		t.Fatalf("flat database's segments %v", got)
	}
	if a, b := storedFormat(t, tw.seg), storedFormat(t, tw.flat); a != formatSegments || b != formatVersion {
		t.Fatalf("format versions %d (segments) and %d (flat), want %d and %d", a, b, formatSegments, formatVersion)
	}
	tw.compare("a, b, c")

	// Deltas: into a segmented graph, deleting from one, and a new graph
	// (segment 0).
	add := segQuads(rng, "b", 40)[:40]
	del := []quad.Quad{}
	for _, q := range storeQuads(t, tw.seg) {
		if q.Label == quad.IRI("c") && rng.IntN(5) == 0 {
			del = append(del, q)
		}
	}
	tw.apply("b", add, nil)
	tw.apply("c", nil, del)
	tw.apply("d", segQuads(rng, "d", 30)[:30], nil)
	tw.compare("deltas")

	// Reloading a segmented graph merges into its segment; a load with
	// its own labels routes each quad to its graph's segment, and its new
	// graph joins the segment of the load's graph.
	tw.load(LoadOptions{Graph: "b"}, segQuads(rng, "b", 300))
	var mixed []quad.Quad
	for _, g := range []string{"a", "c", "d", "e"} {
		mixed = append(mixed, segQuads(rng, g, 100)[:100]...)
	}
	tw.load(LoadOptions{Graph: "b", KeepLabels: true}, mixed)
	if got, want := segmentsOf(tw.seg), map[string]uint8{"a": 0, "b": 1, "c": 2, "d": 0, "e": 1}; !maps.Equal(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	tw.compare("reloads")

	tw.reopen()
	if got := tw.seg.segments(); got != 3 {
		t.Fatalf("%d segments after reopen, want 3", got)
	}
	tw.compare("reopen")
	var gone []quad.Quad
	for _, q := range storeQuads(t, tw.seg) {
		if q.Label == quad.IRI("b") && rng.IntN(2) == 0 {
			gone = append(gone, q)
		}
	}
	tw.apply("b", nil, gone)
	tw.compare("deletes after reopen")
}

// TestSegmentChoice covers the rules for a load's segment.
func TestSegmentChoice(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	loadQuads(t, db, "a", segQuads(rng, "a", 50))
	// Smaller than the threshold: joins the newest segment (0).
	db.opts.SegmentMinQuads = 1 << 40
	loadQuads(t, db, "small", segQuads(rng, "small", 50))
	db.opts.SegmentMinQuads = 1
	for i := 1; i < maxBlockSegments+2; i++ {
		loadQuads(t, db, fmt.Sprint("g", i), segQuads(rng, fmt.Sprint("g", i), 20))
	}
	got := segmentsOf(db)
	want := map[string]uint8{"a": 0, "small": 0}
	for i := 1; i < maxBlockSegments+2; i++ {
		want[fmt.Sprint("g", i)] = uint8(min(i, maxBlockSegments-1))
	}
	if !maps.Equal(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	if db.segments() != maxBlockSegments {
		t.Fatalf("%d segments in use, want %d", db.segments(), maxBlockSegments)
	}
}

func TestBlockKeys(t *testing.T) {
	for _, tc := range []struct {
		space byte
		seg   uint8
		id    uint64
	}{{spaceSPO, 0, 1}, {spaceOPS, 0, 1 << 40}, {spaceSPO, 1, 7}, {spaceOPS, maxBlockSegments - 1, 99}} {
		k := appendBlockKey(nil, tc.space, tc.seg, tc.id)
		space, seg, id, ok := splitBlockKey(k)
		if !ok || space != tc.space || seg != tc.seg || id != tc.id {
			t.Errorf("%c/%d/%d: key %x splits into %c/%d/%d/%v", tc.space, tc.seg, tc.id, k, space, seg, id, ok)
		}
		if p := blockPrefix(tc.space, tc.seg); string(k[:len(p)]) != string(p) {
			t.Errorf("%c/%d: prefix %x of key %x", tc.space, tc.seg, p, k)
		}
	}
	for _, k := range [][]byte{nil, {spaceSummary, spaceSPO}, appendBlockKey(nil, spaceSPO, 0, 1)[:9],
		{spaceSummary, 's', 0, 0, 0, 0, 0, 0, 0, 0, 1}, {spaceSummary, 's', maxBlockSegments, 0, 0, 0, 0, 0, 0, 0, 1},
		{spaceSummary, 'x', 1, 0, 0, 0, 0, 0, 0, 0, 1}} {
		if _, _, _, ok := splitBlockKey(k); ok {
			t.Errorf("key %x accepted", k)
		}
	}
}

// TestBulkAfterDeletesDropsStaleChunks: ApplyDeltas leaves a large list's
// chunks partly empty; a bulk load that then rewrites the list in fewer
// chunks must delete the stored chunks past its last one (they used to
// stay, so their members were read twice).
func TestBulkAfterDeletesDropsStaleChunks(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hub := quad.IRI("http://ex.org/hub")
	var fans []quad.Quad
	for i := range chunkSize + 200 {
		fans = append(fans, quad.Quad{Subject: quad.IRI(fmt.Sprint("http://ex.org/fan/", i)),
			Predicate: quad.IRI("http://ex.org/r0"), Object: hub, Label: quad.IRI("g")})
	}
	loadQuads(t, db, "g", fans)
	var del []quad.Quad
	for i, q := range fans {
		if i%4 == 0 {
			del = append(del, q)
		}
	}
	if err := db.Apply(context.Background(), "g", nil, del); err != nil {
		t.Fatal(err)
	}
	// One quad the list already holds: the union is the stored list.
	loadQuads(t, db, "g", fans[1:2])
	quadSet(t, db) // fails when a list holds more members than its count
	got, n := nodeQuads(t, db, quad.Object, hub)
	if want := len(fans) - len(del); len(got) != want || n != int64(want) {
		t.Fatalf("hub has %d quads (size %d), want %d", len(got), n, want)
	}
}

// TestMergedReader reads a node's blocks in several segments as one block:
// entries in (p, g) order, members read or skipped per entry.
func TestMergedReader(t *testing.T) {
	inl := func(p, g uint64, ids ...uint64) sumEntry {
		return sumEntry{p: p, g: g, count: int64(len(ids)), ids: ids}
	}
	big := func(p, g uint64) sumEntry { return sumEntry{p: p, g: g, count: 5000} }
	for _, tc := range []struct {
		name  string
		parts [][]sumEntry
	}{
		{"two interleaved", [][]sumEntry{{inl(1, 1, 4, 9), inl(3, 1, 2), big(5, 1)}, {inl(1, 2, 7), inl(2, 2, 1, 2, 3), inl(5, 2, 8)}}},
		{"one empty", [][]sumEntry{{}, {inl(4, 3, 1)}}},
		{"three, same predicate", [][]sumEntry{{inl(7, 1, 1)}, {inl(7, 2, 2)}, {inl(7, 3, 3), big(8, 3)}}},
		{"disjoint ranges", [][]sumEntry{{inl(9, 2, 5)}, {inl(1, 1, 6), inl(2, 1, 6)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vs [][]byte
			var want []sumEntry
			for _, es := range tc.parts {
				vs = append(vs, encodeSummary(es))
				want = append(want, es...)
			}
			slices.SortFunc(want, cmpEntry)
			r, err := newMergedReader(vs)
			if err != nil {
				t.Fatal(err)
			}
			if r.left != uint64(len(want)) {
				t.Fatalf("left %d, want %d", r.left, len(want))
			}
			got, err := r.all(nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("merged %v, want %v", got, want)
			}
			// Members of every other entry only: the rest are skipped.
			r, _ = newMergedReader(vs)
			for i := 0; ; i++ {
				e, ok, err := r.next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					if i != len(want) {
						t.Fatalf("%d entries, want %d", i, len(want))
					}
					break
				}
				if e.p != want[i].p || e.g != want[i].g || e.count != want[i].count {
					t.Fatalf("entry %d: %v, want %v", i, e, want[i])
				}
				if i%2 == 1 && e.inline() {
					ids, err := r.members(nil)
					if err != nil || !slices.Equal(ids, want[i].ids) {
						t.Fatalf("entry %d members %v (%v), want %v", i, ids, err, want[i].ids)
					}
				}
			}
		})
	}
	if _, err := newMergedReader([][]byte{encodeSummary([]sumEntry{inl(1, 1, 2)}), {0x80}}); err == nil {
		t.Fatal("corrupt part accepted")
	}
}

// TestInterruptedSegmentLoad: a load into a segment of its own fails
// mid-write; deltas to its graph before the re-run go to that segment
// (the marker names it), and the re-run completes the graph there, so no
// group ends up in two segments.
func TestInterruptedSegmentLoad(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	db.opts.SegmentMinQuads = 1
	rng := rand.New(rand.NewPCG(3, 4))
	qa, qb := segQuads(rng, "a", 500), segQuads(rng, "b", 500)
	loadQuads(t, db, "a", qa)

	l, err := db.NewLoader(LoadOptions{Graph: "b"})
	if err != nil {
		t.Fatal(err)
	}
	l.wrapSink = func(w kvWriter) kvWriter { return &failingSink{kvWriter: w, n: 3000} }
	for _, q := range qb {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); !errors.Is(err, errSinkFull) {
		t.Fatalf("commit: %v, want the sink's error", err)
	}
	l.Close()
	db.Close()
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	db.opts.SegmentMinQuads = 1
	in := db.Interrupted()
	if in == nil || in.Segment != 1 || !slices.Equal(in.SegmentGraphs, []string{"b"}) {
		t.Fatalf("interrupted load %+v, want segment 1 for graph b", in)
	}
	extra := segQuads(rng, "b", 30)[:30]
	if err := db.Apply(context.Background(), "b", extra, nil); err != nil {
		t.Fatal(err)
	}
	if got := segmentsOf(db)["b"]; got != 1 {
		t.Fatalf("graph b in segment %d after deltas, want 1", got)
	}
	loadQuads(t, db, "b", qb)
	if db.Interrupted() != nil {
		t.Fatal("marker left after the re-run")
	}
	quadSet(t, db)
	want := map[string]bool{}
	for _, qs := range [][]quad.Quad{qa, qb, extra} {
		for _, s := range labelledStrings(t, qs) {
			want[s] = true
		}
	}
	got := labelledStrings(t, storeQuads(t, db))
	if len(got) != len(want) {
		t.Fatalf("%d quads stored, want %d", len(got), len(want))
	}
	for _, s := range got {
		if !want[s] {
			t.Fatalf("unexpected quad %s", s)
		}
	}
}

// labelledStrings renders quads with their graph (quad.Quad.String leaves
// the label out), in canonical form.
func labelledStrings(t *testing.T, qs []quad.Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		q = canonQuad(t, q)
		out[i] = fmt.Sprint(quad.ToString(q.Subject), " ", quad.ToString(q.Predicate), " ", quad.ToString(q.Object), " ", quad.ToString(q.Label))
	}
	slices.Sort(out)
	return out
}
