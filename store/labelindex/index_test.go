package labelindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

type pair struct {
	label string
	id    uint64
}

// build returns the blob of pairs.
func build(t testing.TB, pairs ...pair) []byte {
	t.Helper()
	b := NewBuilder()
	for _, p := range pairs {
		b.Add(p.label, p.id)
	}
	var buf bytes.Buffer
	if err := b.Build(&buf); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return buf.Bytes()
}

// open builds and opens an index of pairs and checks it with Verify.
func open(t testing.TB, pairs ...pair) *Index {
	t.Helper()
	ix, err := Open(build(t, pairs...))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := ix.Verify(); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return ix
}

// contents returns every key of ix with its ids.
func contents(t testing.TB, ix *Index) map[string][]uint64 {
	t.Helper()
	got := map[string][]uint64{}
	if err := ix.Iterate(func(k string, ids []uint64) error {
		got[k] = slices.Clone(ids)
		return nil
	}); err != nil {
		t.Fatalf("Iterate: %v", err)
	}
	return got
}

// reference is what an index of pairs must contain.
func reference(pairs []pair) map[string][]uint64 {
	want := map[string][]uint64{}
	for _, p := range pairs {
		if k := Normalize(p.label); k != "" {
			want[k] = append(want[k], p.id)
		}
	}
	for k, ids := range want {
		slices.Sort(ids)
		want[k] = slices.Compact(ids)
	}
	return want
}

func TestBuildLookup(t *testing.T) {
	pairs := []pair{
		{"Blade Runner", 7}, {"blade-runner", 3}, {"BLADE RUNNER", 7}, {"Blade Runner", 5},
		{"Harrison Ford", 1}, {"Zürich", 9}, {"", 4}, {"!!!", 4}, {"东京", 1 << 60},
	}
	ix := open(t, pairs...)
	tests := []struct {
		key  string
		want []uint64
	}{
		{"blade runner", []uint64{3, 5, 7}},
		{"harrison ford", []uint64{1}},
		{"zurich", []uint64{9}},
		{"东京", []uint64{1 << 60}},
		{"Blade Runner", nil}, // Lookup takes normalized keys
		{"blade", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := ix.Lookup(tt.key); !slices.Equal(got, tt.want) {
			t.Errorf("Lookup(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	if ix.Len() != 4 || ix.NumIDs() != 6 {
		t.Errorf("Len, NumIDs = %d, %d; want 4, 6", ix.Len(), ix.NumIDs())
	}
	if got, want := contents(t, ix), reference(pairs); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Iterate = %v, want %v", got, want)
	}
}

func TestBuilderCounts(t *testing.T) {
	b := NewBuilder()
	for _, l := range []string{"a", "", " - ", "b", "a"} {
		b.Add(l, 1)
	}
	if b.Len() != 3 || b.Skipped() != 2 {
		t.Errorf("Len, Skipped = %d, %d; want 3, 2", b.Len(), b.Skipped())
	}
}

func TestBuildDeterministic(t *testing.T) {
	pairs := []pair{{"b", 2}, {"a", 1}, {"c", 3}, {"a", 0}}
	reversed := slices.Clone(pairs)
	slices.Reverse(reversed)
	if !bytes.Equal(build(t, pairs...), build(t, reversed...)) {
		t.Error("blob depends on insertion order")
	}
}

func TestBuildTwice(t *testing.T) {
	b := NewBuilder()
	b.Add("x", 1)
	var first, second bytes.Buffer
	if err := b.Build(&first); err != nil {
		t.Fatal(err)
	}
	b.Add("w", 2)
	if err := b.Build(&second); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(second.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 2 || ix.Lookup("w") == nil || ix.Lookup("x") == nil {
		t.Errorf("second build lost keys: %v", contents(t, ix))
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := open(t)
	if ix.Len() != 0 {
		t.Errorf("Len = %d", ix.Len())
	}
	if got := ix.Search("anything", 10, SearchOptions{}); len(got) != 0 {
		t.Errorf("Search = %v", got)
	}
	if got := contents(t, ix); len(got) != 0 {
		t.Errorf("Iterate = %v", got)
	}
}

func TestLongLabels(t *testing.T) {
	long := strings.Repeat("word ", 200)
	ix := open(t, pair{long, 1}, pair{long + "tail", 2}, pair{"short", 3})
	if got := ix.Search(long, 10, SearchOptions{}); len(got) != 2 || got[0].Match != Exact {
		t.Errorf("Search(long) = %v, want both truncated labels as exact", got)
	}
}

func TestIterateStops(t *testing.T) {
	ix := open(t, pair{"a", 1}, pair{"b", 2}, pair{"c", 3})
	stop := errors.New("stop")
	var seen []string
	err := ix.Iterate(func(k string, _ []uint64) error {
		seen = append(seen, k)
		if k == "b" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(seen, []string{"a", "b"}) {
		t.Errorf("Iterate = %v after %v", err, seen)
	}
}

func TestMerge(t *testing.T) {
	oldPairs := []pair{{"Blade Runner", 1}, {"Alien", 2}, {"Brazil", 3}, {"Alien", 9}}
	newPairs := []pair{{"Alien", 4}, {"Aliens", 5}, {"blade runner", 1}, {"Zardoz", 6}, {"Alien", 2}}
	old := open(t, oldPairs...)
	add := NewBuilder()
	for _, p := range newPairs {
		add.Add(p.label, p.id)
	}
	var merged bytes.Buffer
	if err := Merge(&merged, old, add); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	// Merging must give exactly the blob of building everything at once.
	if want := build(t, append(oldPairs, newPairs...)...); !bytes.Equal(merged.Bytes(), want) {
		t.Errorf("merged blob differs from a full build")
	}
	ix, err := Open(merged.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Lookup("alien"); !slices.Equal(got, []uint64{2, 4, 9}) {
		t.Errorf("Lookup(alien) = %v", got)
	}
}

func TestMergeEdgeCases(t *testing.T) {
	pairs := []pair{{"one", 1}, {"two", 2}}
	tests := []struct {
		name string
		old  []pair
		add  []pair
	}{
		{"nil old", nil, pairs},
		{"empty add", pairs, nil},
		{"both empty", []pair{}, nil},
		{"nil add", pairs, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old *Index
			if tt.old != nil {
				old = open(t, tt.old...)
			}
			var add *Builder
			if tt.add != nil || tt.name == "empty add" {
				add = NewBuilder()
			}
			for _, p := range tt.add {
				add.Add(p.label, p.id)
			}
			var buf bytes.Buffer
			if err := Merge(&buf, old, add); err != nil {
				t.Fatal(err)
			}
			if want := build(t, append(slices.Clone(tt.old), tt.add...)...); !bytes.Equal(buf.Bytes(), want) {
				t.Error("merged blob differs from a full build")
			}
		})
	}
}

func TestMergeCorruptOld(t *testing.T) {
	blob := build(t, pair{"alpha", 1}, pair{"beta", 2})
	binary.LittleEndian.PutUint64(blob[24:], 3) // one id too many
	old, err := Open(reseal(blob))
	if err != nil {
		t.Fatal(err)
	}
	err = Merge(&bytes.Buffer{}, old, NewBuilder())
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Merge = %v, want ErrCorrupt", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestBuildWriteError(t *testing.T) {
	b := NewBuilder()
	b.Add("x", 1)
	if err := b.Build(failWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Build = %v", err)
	}
}

// reseal recomputes the checksum of a blob whose header or body a test
// changed, so that the damage reaches the checks after the checksum.
func reseal(blob []byte) []byte {
	blob = slices.Clone(blob)
	if len(blob) >= headerSize {
		binary.LittleEndian.PutUint32(blob[crcOffset:], checksum(blob, blob[headerSize:]))
	}
	return blob
}

func TestOpenRejects(t *testing.T) {
	good := build(t, pair{"alpha", 1}, pair{"beta", 2}, pair{"beta", 1 << 40})
	put64 := func(off int, v uint64) []byte {
		b := slices.Clone(good)
		binary.LittleEndian.PutUint64(b[off:], v)
		return reseal(b)
	}
	flip := func(off int) []byte {
		b := slices.Clone(good)
		b[off] ^= 0x40
		return b
	}
	tests := []struct {
		name string
		blob []byte
		want string
	}{
		{"nil", nil, "shorter than"},
		{"short", good[:headerSize-1], "shorter than"},
		{"magic", reseal(flip(0)), "bad magic"},
		{"version", reseal(flip(8)), "version"},
		{"flags", reseal(flip(10)), "must be zero"},
		{"reserved", reseal(flip(60)), "must be zero"},
		{"truncated", good[:len(good)-1], "do not add up"},
		{"trailing", append(slices.Clone(good), 0), "do not add up"},
		{"checksum header", flip(20), "checksum"},
		{"checksum body", flip(len(good) - 1), "checksum"},
		{"fst length", put64(40, 3), "do not add up"},
		{"key length", reseal(append(slices.Clone(good[:12]), append([]byte{0xff, 0xff, 0, 0}, good[16:]...)...)), "max key length"},
		{"too many keys", put64(16, 1000), "cannot fit"},
		{"too few ids", put64(24, 1), "ids for"},
		{"trie edges", put64(32, 0), "trie edges"},
		{"fst key count", put64(16, 3), "FST holds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.blob)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, want ErrCorrupt mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := Open(good); err != nil {
		t.Errorf("Open(good) = %v", err)
	}
}

// TestVerifyRejects damages what Open does not check: the counts that
// bound a full walk, and the postings.
func TestVerifyRejects(t *testing.T) {
	good := build(t, pair{"alpha", 1}, pair{"alpine", 2}, pair{"beta", 3}, pair{"beta", 4})
	ix, err := Open(good)
	if err != nil {
		t.Fatal(err)
	}
	h := ix.h
	postStart := headerSize + int(h.fstLen)
	tests := []struct {
		name   string
		change func(b []byte)
		want   string
	}{
		{"trie edges", func(b []byte) { binary.LittleEndian.PutUint64(b[32:], h.trieEdges-1) }, "exceeds"},
		{"max key length", func(b []byte) { binary.LittleEndian.PutUint32(b[12:], h.maxKeyLen-1) }, "exceeds"},
		{"id count", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], h.numIDs+1) }, "walked"},
		{"postings count", func(b []byte) { b[postStart] = 0 }, "bad count"},
		{"postings varint", func(b []byte) { b[len(b)-1] |= 0x80 }, "varint"},
		{"postings delta", func(b []byte) { b[len(b)-1] = 0 }, "delta 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blob := slices.Clone(good)
			tt.change(blob)
			ix, err := Open(reseal(blob))
			if err != nil {
				t.Fatalf("Open = %v; this damage must pass Open", err)
			}
			err = ix.Verify()
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify = %v, want ErrCorrupt mentioning %q", err, tt.want)
			}
		})
	}
}

// TestDamagedFSTNeverPanics flips every bit pattern of a few kinds in every
// FST byte of a small index, reseals, and runs everything: errors are fine,
// panics and endless loops are not.
func TestDamagedFSTNeverPanics(t *testing.T) {
	var pairs []pair
	for i, w := range strings.Fields("alpha alpine alps beta betamax gamma gamut delta deltas epsilon zeta") {
		pairs = append(pairs, pair{w, uint64(i)}, pair{w + " " + w, uint64(i + 100)})
	}
	good := build(t, pairs...)
	h, _, _, err := decodeHeader(good)
	if err != nil {
		t.Fatal(err)
	}
	opened, verified := 0, 0
	for off := headerSize; off < headerSize+int(h.fstLen); off++ {
		for _, x := range []byte{0x01, 0xff} {
			blob := slices.Clone(good)
			blob[off] ^= x
			o, v := exercise(t, reseal(blob))
			opened, verified = opened+o, verified+v
		}
	}
	t.Logf("%d damaged FSTs: %d opened, %d passed Verify", 2*h.fstLen, opened, verified)
	if opened == 0 {
		t.Error("no damaged FST got past Open: the test exercises nothing")
	}
}

// exercise opens blob and, if that works, calls every read method. It
// returns 1s for whether Open and Verify succeeded.
func exercise(t *testing.T, blob []byte) (opened, verified int) {
	t.Helper()
	ix, err := Open(blob)
	if err != nil {
		return 0, 0
	}
	if ix.Verify() == nil {
		verified = 1
	}
	_ = ix.Iterate(func(string, []uint64) error { return nil })
	for _, q := range []string{"alpha", "a", "betamix", "deltas deltaz"} {
		ix.Lookup(q)
		for _, limit := range []int{0, 3} {
			ix.Search(q, limit, SearchOptions{MaxVisit: 64})
		}
	}
	var sink bytes.Buffer
	_ = Merge(&sink, ix, NewBuilder())
	return 1, verified
}

func ExampleIndex_Search() {
	b := NewBuilder()
	b.Add("Blade Runner", 1)
	b.Add("Blade Runner 2049", 2)
	b.Add("Bladerunner", 3)
	b.Add("Harrison Ford", 4)
	var blob bytes.Buffer
	if err := b.Build(&blob); err != nil {
		panic(err)
	}
	ix, err := Open(blob.Bytes())
	if err != nil {
		panic(err)
	}
	for _, h := range ix.Search("blade runner", 10, SearchOptions{}) {
		fmt.Println(h.ID, h.Key, h.Match, h.Distance)
	}
	// Output:
	// 1 blade runner exact 0
	// 2 blade runner 2049 prefix 5
	// 3 bladerunner fuzzy 1
}
