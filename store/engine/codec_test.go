package engine

import (
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
)

func TestPostingRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 7, chunkSize, chunkSize + 1, 3*chunkSize + 5} {
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = uint64(i*i + 3*i + 1)
		}
		var got []uint64
		chunks := splitChunks(ids)
		for i, c := range chunks {
			var err error
			if got, err = decodeChunk(got, c, i == 0); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, ids) && !(len(got) == 0 && n == 0) {
			t.Fatalf("n=%d: round trip lost ids", n)
		}
		if total, err := chunkTotal(chunks[0]); err != nil || total != int64(n) {
			t.Fatalf("n=%d: total %d, %v", n, total, err)
		}
		if lim, _ := decodeChunkLimit(nil, chunks[0], true, 3); n >= 3 && len(lim) != 3 {
			t.Fatalf("n=%d: limit 3 gave %d ids", n, len(lim))
		}
	}
}

func TestTermRoundTrip(t *testing.T) {
	for _, v := range []quad.Value{
		quad.IRI("Q64"), quad.IRI("http://example.org/a b"), quad.BNode("film/b1"), quad.String(""),
		quad.String("zero\x00byte"), quad.LangString{Value: "Berlin", Lang: "de"},
		quad.TypedString{Value: "1982", Type: "http://www.w3.org/2001/XMLSchema#gYear"},
		quad.TypedString{Value: "12 Q11573", Type: "grove:quantity"},
	} {
		enc, err := encodeTerm(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeTerm(enc)
		if err != nil || got != v {
			t.Errorf("%#v -> %#v, %v", v, got, err)
		}
	}
	if _, err := decodeTerm([]byte("Xjunk")); err == nil {
		t.Error("unknown kind byte accepted")
	}
}

func TestSummaryMerge(t *testing.T) {
	big := func(p, g uint64, n int64) sumEntry { return sumEntry{p: p, g: g, count: n} }
	small := func(p, g uint64, ids ...uint64) sumEntry {
		return sumEntry{p: p, g: g, count: int64(len(ids)), ids: ids}
	}
	old := []sumEntry{small(1, 9, 4, 5, 6), small(2, 9, 7), big(5, 9, 70)}
	got := mergeSummary(old, []sumEntry{{p: 2, g: 9}, small(3, 9, 1, 2, 3, 4), big(5, 9, 80)})
	want := []sumEntry{small(1, 9, 4, 5, 6), small(3, 9, 1, 2, 3, 4), big(5, 9, 80)}
	eq := func(a, b []sumEntry) bool {
		return slices.EqualFunc(a, b, func(x, y sumEntry) bool {
			return x.p == y.p && x.g == y.g && x.count == y.count && slices.Equal(x.ids, y.ids)
		})
	}
	if !eq(got, want) {
		t.Fatalf("merge = %v, want %v", got, want)
	}
	dec, err := decodeSummary(encodeSummary(want), nil)
	if err != nil || !eq(dec, want) {
		t.Fatalf("round trip = %v, %v", dec, err)
	}
	// An inline flag on a large group, or a missing one on a small group,
	// is corruption.
	bad := [][]byte{{1, 1, 1, byte(20<<1 | 1)}, {1, 1, 1, 2 << 1}}
	for _, b := range bad {
		if _, err := decodeSummary(b, nil); err == nil {
			t.Errorf("decodeSummary(%v) accepted", b)
		}
	}
}

func TestIDBlock(t *testing.T) {
	var s idSlots
	s[0], s[3], s[15] = []byte("Ia"), []byte(""), []byte("Bxyz")
	got, err := decodeIDBlock(s.encode())
	if err != nil || got.count() != 3 || string(got[0]) != "Ia" || got[3] == nil || len(got[3]) != 0 || string(got[15]) != "Bxyz" || got[1] != nil {
		t.Fatalf("round trip = %q, %v", got, err)
	}
	for _, bad := range [][]byte{{5, 'a'}, slices.Repeat([]byte{1}, idBlockSize+1)} {
		if _, err := decodeIDBlock(bad); err == nil {
			t.Errorf("decodeIDBlock(%v) accepted", bad)
		}
	}
}

// FuzzDecoders feeds arbitrary bytes to every decoder of stored values:
// they must return an error or a value, never panic or loop.
func FuzzDecoders(f *testing.F) {
	f.Add(encodeChunk(nil, []uint64{1, 5, 9}, true, 3))
	f.Add(encodeSummary([]sumEntry{{p: 1, g: 2, count: 1, ids: []uint64{3}}, {p: 2, g: 2, count: 30}}))
	f.Add([]byte("LenBerlin"))
	f.Add([]byte{3, 'I', 'a', 0, 1})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeChunk(nil, b, true)
		_, _ = decodeChunk(nil, b, false)
		_, _ = chunkTotal(b)
		_, _ = decodeSummary(b, nil)
		// The same bytes as two segments' blocks of one node: the merged
		// reader errs or yields every entry of both.
		half := len(b) / 2
		if r, err := newMergedReader([][]byte{b[:half], b[half:]}); err == nil {
			es, err := r.all(nil)
			a1, err1 := decodeSummary(b[:half], nil)
			a2, err2 := decodeSummary(b[half:], nil)
			if err == nil && (err1 != nil || err2 != nil || len(es) != len(a1)+len(a2)) {
				t.Fatalf("merged reader: %d entries (%v); parts %d (%v), %d (%v)", len(es), err, len(a1), err1, len(a2), err2)
			}
		}
		if s, err := decodeIDBlock(b); err == nil {
			s2, err := decodeIDBlock(s.encode())
			if err != nil {
				t.Fatalf("id block round trip: %v", err)
			}
			for i := range s {
				if (s[i] == nil) != (s2[i] == nil) || string(s[i]) != string(s2[i]) {
					t.Fatalf("id block slot %d: %q -> %q", i, s[i], s2[i])
				}
			}
		}
		if v, err := decodeTerm(b); err == nil {
			enc, err := encodeTerm(nil, v)
			if err != nil {
				t.Fatalf("decoded %#v does not encode: %v", v, err)
			}
			if v2, err := decodeTerm(enc); err != nil || v2 != v {
				t.Fatalf("re-decode %#v -> %#v, %v", v, v2, err)
			}
		}
	})
}
