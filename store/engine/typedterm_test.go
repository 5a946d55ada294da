package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

func xsdLit(text, typ string) quad.TypedString {
	return quad.TypedString{Value: quad.String(text), Type: quad.IRI("http://www.w3.org/2001/XMLSchema#" + typ)}
}

// TestTypedLiteralLookup checks that every stored typed literal reads back
// as a value whose lookup finds that very term, that no two stored terms
// read alike, and that Cayley's native values find the RDF forms ingested
// data carries — through the bulk loader and through ApplyDeltas.
func TestTypedLiteralLookup(t *testing.T) {
	stored := []quad.Value{
		xsdLit("7", "integer"), xsdLit("01", "integer"), xsdLit("+5", "integer"), xsdLit("7", "int"),
		xsdLit("2.5", "double"), xsdLit("2.5", "float"), xsdLit("1E3", "double"), xsdLit("0.1", "double"),
		xsdLit("true", "boolean"), xsdLit("TRUE", "boolean"), xsdLit("1", "boolean"),
		xsdLit("2020-01-01T10:00:00+02:00", "dateTime"), xsdLit("2020-01-01T08:00:00Z", "dateTime"),
		xsdLit("2020-01-01", "date"),
		quad.Int(9), quad.Float(-3.25), quad.Bool(false), // natives written by Cayley clients
	}
	natives := []struct {
		native quad.Value
		term   quad.Value // the stored term its lookup must find
	}{
		{quad.Int(7), xsdLit("7", "integer")},
		{quad.Float(2.5), xsdLit("2.5", "double")},
		{quad.Float(0.1), xsdLit("0.1", "double")},
		{quad.Bool(true), xsdLit("true", "boolean")},
		{quad.Time(time.Date(2020, 1, 1, 8, 0, 0, 0, time.UTC)), xsdLit("2020-01-01T08:00:00Z", "dateTime")},
		{quad.Int(9), quad.Int(9)},
		{quad.Float(-3.25), quad.Float(-3.25)},
		{quad.Bool(false), quad.Bool(false)},
	}
	// Read back as written: the lexical form of these must survive.
	keepLexical := []quad.Value{
		xsdLit("01", "integer"), xsdLit("+5", "integer"), xsdLit("7", "int"), xsdLit("2.5", "float"),
		xsdLit("1E3", "double"), xsdLit("TRUE", "boolean"), xsdLit("1", "boolean"),
		xsdLit("2020-01-01T10:00:00+02:00", "dateTime"), xsdLit("2020-01-01", "date"),
	}
	var qs []quad.Quad
	for i, v := range stored {
		qs = append(qs, quad.Make(quad.IRI("s"), quad.IRI("p"+string(rune('a'+i))), v, nil))
	}
	for _, path := range []string{"bulk", "deltas"} {
		t.Run(path, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if path == "bulk" {
				loadQuads(t, db, "g", qs)
			} else {
				in := make([]graph.Delta, len(qs))
				for i, q := range qs {
					q.Label = quad.IRI("g")
					in[i] = graph.Delta{Quad: q, Action: graph.Add}
				}
				if err := db.ApplyDeltas(in, graph.IgnoreOpts{}); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[quad.Value]graph.Ref{}
			it := db.NodesAllIterator().Iterate()
			defer it.Close()
			for it.Next(context.Background()) {
				ref := it.Result()
				v, err := db.NameOf(ref)
				if err != nil {
					t.Fatal(err)
				}
				back, err := db.ValueOf(v)
				if err != nil || back == nil || back.Key() != ref.Key() {
					t.Errorf("%#v reads back as a value whose lookup gives %v, %v", v, back, err)
				}
				if prev, ok := seen[v]; ok {
					t.Errorf("two stored terms read as %#v (%v and %v)", v, prev.Key(), ref.Key())
				}
				seen[v] = ref
			}
			for _, c := range natives {
				got, err1 := db.ValueOf(c.native)
				want, err2 := db.ValueOf(c.term)
				if err1 != nil || err2 != nil || got == nil || want == nil || got.Key() != want.Key() {
					t.Errorf("lookup of %#v: %v (%v), want the term %#v: %v (%v)", c.native, got, err1, c.term, want, err2)
				}
			}
			for _, v := range keepLexical {
				ref, err := db.ValueOf(v)
				if err != nil || ref == nil {
					t.Fatalf("%#v not found: %v", v, err)
				}
				if got, err := db.NameOf(ref); err != nil || got != v {
					t.Errorf("%#v reads back as %#v, %v", v, got, err)
				}
			}
			// A native written later reuses the ingested term.
			add := quad.Make(quad.IRI("s2"), quad.IRI("pz"), quad.Int(7), quad.IRI("g"))
			if err := db.ApplyDeltas([]graph.Delta{{Quad: add, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
				t.Fatal(err)
			}
			ref, _ := db.ValueOf(xsdLit("7", "integer"))
			if v, err := db.NameOf(ref); err != nil || v != quad.Int(7) {
				t.Errorf("\"7\"^^xsd:integer reads as %#v, %v; want quad.Int(7)", v, err)
			}
			n := 0
			for it := db.QuadIterator(quad.Object, ref).Iterate(); it.Next(context.Background()); {
				n++
			}
			if n != 2 {
				t.Errorf("%d quads have \"7\"^^xsd:integer as object, want 2 (the ingested one and quad.Int(7))", n)
			}
		})
	}
}

// TestNativeAndRDFFormsAreOneTerm: a native value and its RDF form are one
// term whichever comes first, also when an earlier version stored the
// native in Cayley's form ("7"^^<xsd:integer>, "True"^^<xsd:boolean>): the
// RDF form loaded later, by a transaction or a bulk load, finds it.
func TestNativeAndRDFFormsAreOneTerm(t *testing.T) {
	short := func(v quad.Value) quad.Value { return v.(quad.TypedStringer).TypedString() } // "7"^^<xsd:integer>
	for _, c := range []struct {
		name         string
		first, later quad.Value
		native       quad.Value
		bulk         bool // the later value comes by a bulk load
		legacy       bool // the first is then rewritten as earlier versions stored it
	}{
		{"native then RDF", quad.Int(7), xsdLit("7", "integer"), quad.Int(7), false, false},
		{"RDF then native", xsdLit("2.5", "double"), quad.Float(2.5), quad.Float(2.5), false, false},
		{"native then Cayley's short form", quad.Int(7), short(quad.Int(7)), quad.Int(7), false, false},
		{"Cayley's short form then RDF by bulk load", short(quad.Float(2.5)), xsdLit("2.5", "double"), quad.Float(2.5), true, false},
		{"earlier version's native, then RDF", quad.Int(7), xsdLit("7", "integer"), quad.Int(7), false, true},
		{"earlier version's native, then the short form", quad.Int(7), short(quad.Int(7)), quad.Int(7), false, true},
		{"earlier version's boolean, then RDF by bulk load", quad.Bool(true), xsdLit("true", "boolean"), quad.Bool(true), true, true},
		{"earlier version's float, then native", quad.Float(2.5), quad.Float(2.5), quad.Float(2.5), false, true},
		{"earlier version's float, then RDF by bulk load", quad.Float(2.5), xsdLit("2.5", "double"), quad.Float(2.5), true, true},
		{"zero and minus zero", xsdLit("0", "double"), quad.Float(math.Copysign(0, -1)), quad.Float(0), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			add := func(s string, v quad.Value) {
				t.Helper()
				q := quad.Make(quad.IRI(s), quad.IRI("p"), v, quad.IRI("g"))
				if err := db.ApplyDeltas([]graph.Delta{{Quad: q, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
					t.Fatal(err)
				}
			}
			add("a", c.first)
			if c.legacy {
				storeAsEarlierVersions(t, db, c.native)
			}
			ref, err := db.ValueOf(c.native)
			if err != nil || ref == nil {
				t.Fatalf("lookup of %#v after writing %#v: %v, %v", c.native, c.first, ref, err)
			}
			if c.bulk {
				loadQuads(t, db, "g", []quad.Quad{quad.Make(quad.IRI("b"), quad.IRI("p"), c.later, nil)})
			} else {
				add("b", c.later)
			}
			later, err := db.ValueOf(c.later)
			if err != nil || later == nil || later.Key() != ref.Key() {
				t.Fatalf("%#v is term %v, %#v term %v (%v): want one term", c.later, later, c.native, ref, err)
			}
			if v, err := db.NameOf(ref); err != nil || v != c.native {
				t.Errorf("the term reads as %#v, %v; want %#v", v, err, c.native)
			}
			n := 0
			for it := db.QuadIterator(quad.Object, ref).Iterate(); it.Next(context.Background()); {
				n++
			}
			if n != 2 {
				t.Errorf("%d quads have the term as object, want 2", n)
			}
		})
	}
}

func TestNodeIDOfNatives(t *testing.T) {
	for _, c := range []struct {
		v    quad.Value
		want string
	}{
		{quad.Float(9.5), `"9.5"^^<http://www.w3.org/2001/XMLSchema#double>`},
		{quad.Int(4), `"4"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{quad.Bool(true), `"true"^^<http://www.w3.org/2001/XMLSchema#boolean>`},
		{xsdLit("07", "integer"), `"07"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{quad.IRI("Q1"), "Q1"},
	} {
		if got := nodeID(c.v); got != c.want {
			t.Errorf("nodeID(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// storeAsEarlierVersions rewrites the stored term of native value v in the
// form versions before this one wrote (Cayley's "7"^^<xsd:integer>): its t
// key and its id block entry.
func storeAsEarlierVersions(t *testing.T, db *DB, v quad.Value) {
	t.Helper()
	canon, err := encodeTerm(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	legacy := legacyEncoding(v)
	err = db.bdb.Update(func(txn *badger.Txn) error {
		id, ok, err := termIDEncoded(txn, canon)
		if err != nil || !ok {
			return fmt.Errorf("%#v not stored: %v", v, err)
		}
		if err := txn.Delete(termKey(canon)); err != nil {
			return err
		}
		if err := txn.Set(termKey(legacy), binary.BigEndian.AppendUint64(nil, id)); err != nil {
			return err
		}
		return setTermBytes(txn, id, legacy)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.terms.Clear()
}
