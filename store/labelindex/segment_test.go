package labelindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestViewMatchesModel applies random segments of adds and deletes to a
// main index and checks Has, exact Search and Compact against a map.
func TestViewMatchesModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		label := func() string { return fmt.Sprint("name ", rng.IntN(15)) }
		model := map[string]map[uint64]bool{}
		set := func(k string, id uint64, live bool) {
			if model[k] == nil {
				model[k] = map[uint64]bool{}
			}
			model[k][id] = live
		}
		mainB := NewBuilder()
		for range 40 {
			k, id := label(), uint64(1+rng.IntN(20))
			mainB.Add(k, id)
			set(k, id, true)
		}
		var buf bytes.Buffer
		if err := mainB.Build(&buf); err != nil {
			t.Fatal(err)
		}
		main, err := Open(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		v := NewView(main)
		for range 6 {
			add, del := NewBuilder(), NewBuilder()
			for range 8 {
				k, id := label(), uint64(1+rng.IntN(20))
				if rng.IntN(2) == 0 {
					add.Add(k, id)
				} else {
					del.Add(k, id)
				}
			}
			var sb bytes.Buffer
			if err := WriteSegment(&sb, add, del); err != nil {
				t.Fatal(err)
			}
			seg, err := OpenSegment(sb.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range del.entries {
				set(string(del.key(e)), e.id, false)
			}
			for _, e := range add.entries {
				set(string(add.key(e)), e.id, true)
			}
			v = v.With(seg)
		}
		for k, m := range model {
			var want []uint64
			for id, live := range m {
				if v.Has(k, id) != live {
					t.Fatalf("seed %d: Has(%q, %d) = %v, want %v", seed, k, id, !live, live)
				}
				if live {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			var got []uint64
			for _, h := range v.Search(k, 100, SearchOptions{NoPrefix: true, NoFuzzy: true}) {
				got = append(got, h.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: Search(%q) = %v, want %v", seed, k, got, want)
			}
		}
		var cb bytes.Buffer
		if err := v.Compact(&cb, nil); err != nil {
			t.Fatal(err)
		}
		c, err := Open(cb.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
		for k, m := range model {
			for id, live := range m {
				if contains(c, k, id) != live {
					t.Fatalf("seed %d: compacted has (%q, %d) = %v, want %v", seed, k, id, !live, live)
				}
			}
		}
	}
}

func TestOpenSegmentRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("GRVLBSEG"), append([]byte("GRVLBSEG\xff\xff\xff\xff\xff\xff\xff\xff"), make([]byte, 70)...)} {
		if _, err := OpenSegment(b); err == nil {
			t.Errorf("OpenSegment(%q) accepted garbage", b)
		}
	}
}

// FuzzOpenSegment: no input makes OpenSegment or a search of its view panic.
func FuzzOpenSegment(f *testing.F) {
	add, del := NewBuilder(), NewBuilder()
	add.Add("Blade Runner", 1)
	del.Add("Alien", 2)
	var b bytes.Buffer
	if err := WriteSegment(&b, add, del); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		seg, err := OpenSegment(data)
		if err != nil {
			return
		}
		v := NewView(nil, seg)
		v.Search("blade", 5, SearchOptions{})
		v.Has("alien", 2)
	})
}
