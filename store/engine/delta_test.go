package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
)

// quadSet reads every quad from the subjects' node blocks and checks that
// the objects' blocks and the P lists say the same.
func quadSet(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := db.bdb.View(func(txn *badger.Txn) error {
		name := func(id uint64) string {
			v, err := db.term(txn, id)
			if err != nil {
				t.Fatalf("term %d: %v", id, err)
			}
			return quad.StringOf(v)
		}
		sets := [3]map[string]bool{{}, {}, {}}
		for i, space := range []byte{spaceSPO, spaceOPS} {
			err := scanSummaries(txn, db.segments(), space, func(node uint64, es []sumEntry) error {
				for _, e := range es {
					ms, err := groupMembers(txn, space, groupInfo{a: node, b: e.p, g: e.g, count: e.count, ids: e.ids}, nil, 0)
					if err != nil {
						return err
					}
					if int64(len(ms)) != e.count || !slices.IsSorted(ms) {
						return fmt.Errorf("group %c %d %d %d: %d members, count %d", space, node, e.p, e.g, len(ms), e.count)
					}
					for _, m := range ms {
						s, o := node, m
						if space == spaceOPS {
							s, o = m, node
						}
						sets[i][fmt.Sprintf("%s %s %s %s", name(s), name(e.p), name(o), name(e.g))] = true
						if space == spaceSPO {
							sets[2][fmt.Sprintf("%d %d %d", e.p, e.g, s)] = true
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		preds := map[string]bool{}
		err := scanPredGroups(txn, func(p, g uint64) {
			ss, err := readList(txn, 1, predKey(nil, p, g), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ss {
				preds[fmt.Sprintf("%d %d %d", p, g, s)] = true
			}
		})
		if err != nil {
			return err
		}
		if !maps.Equal(sets[0], sets[1]) {
			t.Errorf("S and O indexes differ: %d vs %d quads", len(sets[0]), len(sets[1]))
		}
		if !maps.Equal(preds, sets[2]) {
			t.Errorf("P lists differ from the S index: %d vs %d entries", len(preds), len(sets[2]))
		}
		out = sets[0]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hubQuads(from, to int, g string) []quad.Quad {
	var qs []quad.Quad
	for i := from; i < to; i++ {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%06d", i)), Predicate: quad.IRI("type"),
			Object: quad.IRI("hub"), Label: quad.IRI(g)})
		if i%3 == 0 {
			qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("e%06d", i)), Predicate: quad.IRI("name"),
				Object: quad.String(fmt.Sprintf("entity %d", i)), Label: quad.IRI(g)})
		}
	}
	return qs
}

func deltas(qs []quad.Quad, a graph.Procedure) []graph.Delta {
	ds := make([]graph.Delta, len(qs))
	for i, q := range qs {
		ds[i] = graph.Delta{Quad: q, Action: a}
	}
	return ds
}

func setOf(qs []quad.Quad) map[string]bool {
	m := map[string]bool{}
	for _, q := range qs {
		m[fmt.Sprintf("%s %s %s %s", quad.StringOf(q.Subject), quad.StringOf(q.Predicate), quad.StringOf(q.Object), quad.StringOf(q.Label))] = true
	}
	return m
}

// TestLargeDeltaBatches: 10,000+ quads in one ApplyDeltas (Cayley's
// default batch) commit atomically, into and out of a hub whose list spans
// several chunks, and the indexes agree with each other and with the
// expected quads after every step.
func TestLargeDeltaBatches(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := hubQuads(0, 9000, "g")
	loadQuads(t, db, "g", base)
	add := hubQuads(9000, 20000, "g") // 11,000 type edges + names
	if err := db.ApplyDeltas(deltas(add, graph.Add), graph.IgnoreOpts{}); err != nil {
		t.Fatalf("one batch of %d adds: %v", len(add), err)
	}
	want := setOf(append(slices.Clone(base), add...))
	if got := quadSet(t, db); !maps.Equal(got, want) {
		t.Fatalf("after adds: %d quads, want %d", len(got), len(want))
	}
	if c := db.Counts(); c.Quads != int64(len(want)) {
		t.Errorf("counted quads = %d, want %d", c.Quads, len(want))
	}

	// A batch whose last delta fails changes nothing.
	before := dumpKeys(t, db)
	bad := deltas(hubQuads(20000, 25000, "g"), graph.Add)
	bad = append(bad, graph.Delta{Quad: base[0], Action: graph.Add})
	if err := db.ApplyDeltas(bad, graph.IgnoreOpts{}); !errors.Is(err, graph.ErrQuadExists) {
		t.Fatalf("duplicate in batch = %v", err)
	}
	assertSameKeys(t, before, dumpKeys(t, db))

	// Delete most of the hub's edges (and every name) in one batch: the
	// list shrinks across chunks down to an inline group; unused terms go.
	var del []quad.Quad
	var keep []quad.Quad
	for _, q := range append(slices.Clone(base), add...) {
		if quad.StringOf(q.Subject) < "<e019995>" {
			del = append(del, q)
		} else {
			keep = append(keep, q)
		}
	}
	if err := db.ApplyDeltas(deltas(del, graph.Delete), graph.IgnoreOpts{}); err != nil {
		t.Fatalf("one batch of %d deletes: %v", len(del), err)
	}
	if got := quadSet(t, db); !maps.Equal(got, setOf(keep)) {
		t.Fatalf("after deletes: %d quads, want %d: %v", len(got), len(keep), got)
	}
	c := db.Counts()
	if c.Quads != int64(len(keep)) {
		t.Errorf("counted quads after deletes = %d, want %d", c.Quads, len(keep))
	}
	if err := db.recount(); err != nil {
		t.Fatal(err)
	}
	if err := db.reloadMeta(); err != nil {
		t.Fatal(err)
	}
	if c2 := db.Counts(); c2 != c {
		t.Errorf("incremental counts %+v differ from a recount %+v", c, c2)
	}
}

// TestTooBigBatch: a batch over Badger's transaction limit fails whole
// with store.ErrTooBig, and the quad writer (incremental ingest, Cayley's
// writers through it) writes the same quads in parts.
func TestTooBigBatch(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	long := strings.Repeat("padding ", 250) // 2 KB literals: 10,000 of them exceed one transaction
	var ds []graph.Delta
	var qs []quad.Quad
	for i := range 10000 {
		q := quad.Make(quad.IRI(fmt.Sprintf("s%d", i)), quad.IRI("p"), quad.String(fmt.Sprintf("%d %s", i, long)), quad.IRI("g"))
		qs = append(qs, q)
		ds = append(ds, graph.Delta{Quad: q, Action: graph.Add})
	}
	err = db.ApplyDeltas(ds, graph.IgnoreOpts{IgnoreDup: true})
	if !errors.Is(err, store.ErrTooBig) {
		t.Fatalf("ApplyDeltas of %d large quads = %v, want ErrTooBig", len(ds), err)
	}
	if got := quadSet(t, db); len(got) != 0 {
		t.Fatalf("%d quads stored after a refused batch", len(got))
	}
	w, err := db.NewQuadWriter()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteQuads(qs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("quad writer: %v", err)
	}
	if got := quadSet(t, db); len(got) != len(qs) {
		t.Errorf("%d quads stored, want %d", len(got), len(qs))
	}
}

// TestApplyDeltasNamesInvalidQuad: a quad missing a term, deep in a large
// writer batch, is refused with an error naming its place in the batch and
// its terms (graph.DeltaError prints only "missing object" for such a
// quad, so the error of a 10,000-quad batch named no quad), and nothing of
// the batch is written.
func TestApplyDeltasNamesInvalidQuad(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	good := func(i int) quad.Quad { return quad.MakeIRI(fmt.Sprintf("s%d", i), "p", "o", "g") }
	cases := []struct {
		name   string
		bad    quad.Quad
		action graph.Procedure
		want   string
	}{
		{"missing object", quad.Quad{Subject: quad.IRI("s"), Predicate: quad.IRI("p"), Label: quad.IRI("g")}, graph.Add,
			"quad 7001 of 10000 in the batch (add <s> <p> (none) <g>): missing object"},
		{"missing subject", quad.Quad{Predicate: quad.IRI("p"), Object: quad.String("x")}, graph.Add,
			`quad 7001 of 10000 in the batch (add (none) <p> "x"): missing subject`},
		{"missing predicate on delete", quad.Quad{Subject: quad.BNode("b"), Object: quad.IRI("o")}, graph.Delete,
			"quad 7001 of 10000 in the batch (delete _:b (none) <o>): missing predicate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := make([]graph.Delta, 10000)
			for i := range in {
				in[i] = graph.Delta{Quad: good(i), Action: graph.Add}
			}
			in[7000] = graph.Delta{Quad: c.bad, Action: c.action}
			err := db.ApplyDeltas(in, graph.IgnoreOpts{})
			var de *graph.DeltaError
			if err == nil || err.Error() != c.want || !errors.As(err, &de) || de.Delta != in[7000] {
				t.Fatalf("error %v, want a DeltaError %q", err, c.want)
			}
			if st, err := db.Stats(context.Background(), true); err != nil || st.Quads.Value != 0 {
				t.Errorf("the refused batch wrote %d quads (%v)", st.Quads.Value, err)
			}
		})
	}
}

// TestREADMEMemstoreDifferences: README lists the engine's known
// differences from Cayley's memstore (it claimed there were none) and
// quotes the error of a quad missing a term as the engine gives it.
func TestREADMEMemstoreDifferences(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	d := graph.Delta{Quad: quad.Quad{Subject: quad.IRI("s"), Predicate: quad.IRI("p"), Label: quad.IRI("g")}, Action: graph.Add}
	msg := invalidDelta(d, 7000, 10000, validQuad(d.Quad)).Error()
	for _, c := range []struct {
		phrase string
		want   bool
	}{
		{"there is no known difference from Cayley's memstore", false},
		{"Known differences from Cayley's memstore", true},
		{"`g.Emit(g.V().Count())` gives 14", true},
		{"adds and deletes the same quad", true},
		{"`" + msg + "`", true},
	} {
		if got := strings.Contains(readme, c.phrase); got != c.want {
			t.Errorf("README says %q: %v, want %v", c.phrase, got, c.want)
		}
	}
}
