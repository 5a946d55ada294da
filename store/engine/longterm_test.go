package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// TestLongTerms stores literals longer than a Badger key can be (keyed by
// their hash, maxInlineTerm) through the bulk loader, a second bulk load
// that finds them stored, and ApplyDeltas, and reads them back.
func TestLongTerms(t *testing.T) {
	long := func(c string, n int) quad.Value { return quad.String(strings.Repeat(c, n)) }
	edge := quad.String(strings.Repeat("e", maxInlineTerm-1)) // encodes to exactly maxInlineTerm bytes
	values := []quad.Value{
		edge, long("a", maxInlineTerm), long("b", 70000), long("c", 5<<20),
		quad.IRI("http://ex.org/" + strings.Repeat("i", 80000)),
	}
	quads := func(subject string) []quad.Quad {
		var qs []quad.Quad
		for _, v := range values {
			qs = append(qs, quad.Make(quad.IRI(subject), quad.IRI("p"), v, nil))
		}
		return qs
	}
	check := func(t *testing.T, db *DB, wantQuads int) {
		t.Helper()
		for _, v := range values {
			ref, err := db.ValueOf(v)
			if err != nil || ref == nil {
				t.Fatalf("%d-byte term not found: %v", len(quad.StringOf(v)), err)
			}
			if got, err := db.NameOf(ref); err != nil || got != v {
				t.Fatalf("%d-byte term reads back as %d bytes, %v", len(quad.StringOf(v)), len(quad.StringOf(got)), err)
			}
			n := 0
			for it := db.QuadIterator(quad.Object, ref).Iterate(); it.Next(context.Background()); {
				n++
			}
			if n != wantQuads {
				t.Errorf("%d-byte term is the object of %d quads, want %d", len(quad.StringOf(v)), n, wantQuads)
			}
		}
	}
	t.Run("bulk", func(t *testing.T) {
		db, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		nodes := func() int64 {
			st, err := db.Stats(context.Background(), true)
			if err != nil {
				t.Fatal(err)
			}
			return st.Nodes.Value
		}
		loadQuads(t, db, "g", quads("s1"))
		check(t, db, 1)
		n := nodes()
		loadQuads(t, db, "g", quads("s2")) // finds every term stored
		check(t, db, 2)
		loadQuads(t, db, "h", quads("s1")) // another graph: the same terms again
		check(t, db, 3)
		if got := nodes(); got != n+2 { // s2 and h
			t.Errorf("%d nodes after loading the same terms again, want %d: a long term was stored twice", got, n+2)
		}
	})
	t.Run("deltas", func(t *testing.T) {
		db, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		apply := func(qs []quad.Quad, a graph.Procedure) {
			t.Helper()
			in := make([]graph.Delta, len(qs))
			for i, q := range qs {
				q.Label = quad.IRI("g")
				in[i] = graph.Delta{Quad: q, Action: a}
			}
			if _, err := store.ApplyInParts(in, func(part []graph.Delta) error {
				return db.ApplyDeltas(part, graph.IgnoreOpts{})
			}); err != nil {
				t.Fatal(err)
			}
		}
		loadQuads(t, db, "g", quads("s1"))
		apply(quads("s2"), graph.Add)
		check(t, db, 2)
		apply(quads("s1"), graph.Delete)
		apply(quads("s2"), graph.Delete)
		for _, v := range values {
			if ref, err := db.ValueOf(v); err != nil || ref != nil {
				t.Errorf("%d-byte term still stored after its quads were deleted (%v)", len(quad.StringOf(v)), err)
			}
		}
		apply(quads("s3"), graph.Add)
		check(t, db, 1)
	})
}

// legacySink writes the dictionary entry of one long term as an earlier
// version's bulk loader did, as a t key of the whole term (Badger's
// StreamWriter takes keys past the 65,000 bytes its transactions refuse),
// instead of the h key.
type legacySink struct {
	kvWriter
	term []byte // the long term's encoding
}

func (s *legacySink) Set(stream uint32, key, val []byte) error {
	if stream == streamHash && string(key) == string(hashKey(s.term)) {
		key = append([]byte{spaceTerm}, s.term...)
	}
	return s.kvWriter.Set(stream, key, val)
}

// TestLongTermsFromEarlierVersions: a database whose bulk load wrote a t
// key for a term of 65,000 to 65,526 bytes (as versions before the h
// keyspace did) keeps finding that term: lookups, a second bulk load and
// transactions reuse its id, and once its quads are deleted (the t key is
// longer than a transaction may delete) it is not found, and comes back
// under an h key.
func TestLongTermsFromEarlierVersions(t *testing.T) {
	long := quad.String("zzz" + strings.Repeat("x", 65100)) // after every other t key of the load
	enc, err := encodeTerm(nil, long)
	if err != nil || !legacyLongTerm(enc) {
		t.Fatalf("%d-byte term is not in the legacy range (%v)", len(enc), err)
	}
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(s string) quad.Quad { return quad.Make(quad.IRI(s), quad.IRI("p"), long, nil) }
	loadWrapped(t, db, "g", []quad.Quad{q("s1")}, func(w kvWriter) kvWriter { return &legacySink{kvWriter: w, term: enc} })
	if has, err := db.hasKeys([]byte{spaceHash}); err != nil || has {
		t.Fatalf("the test load wrote an h key (%v): it does not simulate an earlier version", err)
	}
	objects := func() (ref graph.Ref, n int) {
		t.Helper()
		ref, err := db.ValueOf(long)
		if err != nil || ref == nil {
			return nil, 0
		}
		if v, err := db.NameOf(ref); err != nil || v != long {
			t.Fatalf("the long term reads back as %d bytes, %v", len(quad.StringOf(v)), err)
		}
		for it := db.QuadIterator(quad.Object, ref).Iterate(); it.Next(context.Background()); {
			n++
		}
		return ref, n
	}
	first, n := objects()
	if first == nil || n != 1 {
		t.Fatalf("the earlier version's long term: ref %v, %d quads", first, n)
	}
	loadQuads(t, db, "g", []quad.Quad{q("s2")})
	apply := func(a graph.Procedure, subjects ...string) {
		t.Helper()
		var in []graph.Delta
		for _, s := range subjects {
			d := q(s)
			d.Label = quad.IRI("g")
			in = append(in, graph.Delta{Quad: d, Action: a})
		}
		if err := db.ApplyDeltas(in, graph.IgnoreOpts{}); err != nil {
			t.Fatal(err)
		}
	}
	apply(graph.Add, "s3")
	if ref, n := objects(); ref == nil || ref.Key() != first.Key() || n != 3 {
		t.Fatalf("after a bulk load and a transaction: ref %v (first %v), %d quads; want the same term in 3", ref, first, n)
	}
	apply(graph.Delete, "s1", "s2", "s3")
	if ref, n := objects(); ref != nil || n != 0 {
		t.Fatalf("deleted long term still found: ref %v, %d quads", ref, n)
	}
	apply(graph.Add, "s4")
	if ref, n := objects(); ref == nil || n != 1 {
		t.Fatalf("long term added again: ref %v, %d quads", ref, n)
	}
}
