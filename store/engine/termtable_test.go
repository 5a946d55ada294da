package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTermTable: ids are dense and stable, every term comes back intact
// through growth and large terms, and sortedOrder is the byte order.
func TestTermTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terms func(r *rand.Rand, i int) []byte
		n     int
	}{
		{"short", func(r *rand.Rand, i int) []byte { return fmt.Appendf(nil, "I%d", r.IntN(5000)) }, 20000},
		{"shared prefixes", func(r *rand.Rand, i int) []byte {
			return fmt.Appendf(nil, "Ihttp://www.wikidata.org/entity/Q%d", r.IntN(50000))
		}, 80000},
		{"zero bytes and empty", func(r *rand.Rand, i int) []byte {
			return bytes.Repeat([]byte{0}, r.IntN(12))
		}, 200},
		{"prefixes of each other", func(r *rand.Rand, i int) []byte {
			t := make([]byte, r.IntN(40))
			for j := range t {
				t[j] = byte(r.IntN(2))
			}
			return t
		}, 30000},
		{"long shared prefix, some ending inside it", func(r *rand.Rand, i int) []byte {
			const prefix = "Thttp://www.w3.org/2001/XMLSchema#anyURI\x00https://en.wikipedia.org/wiki/"
			t := []byte(prefix[:len(prefix)-r.IntN(3)*r.IntN(30)])
			for range r.IntN(4) {
				t = append(t, byte('a'+r.IntN(2)))
			}
			return t
		}, 5000},
		{"wikidata-shaped", func(r *rand.Rand, i int) []byte { return wikidataTerm(r) }, 50000},
		// Over splitSortMin distinct terms: the top level is sorted on two
		// goroutines.
		{"wikidata-shaped, two goroutines", func(r *rand.Rand, i int) []byte { return wikidataTerm(r) }, 3 * splitSortMin},
		{"one shared prefix, two goroutines", func(r *rand.Rand, i int) []byte {
			return fmt.Appendf(nil, "Ihttp://www.wikidata.org/entity/Q%d", r.IntN(1<<20))
		}, 2 * splitSortMin},
		{"larger than a chunk", func(r *rand.Rand, i int) []byte {
			return bytes.Repeat([]byte{byte('a' + i%3)}, termChunk/2+r.IntN(termChunk))
		}, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var tt termTable
			want := map[string]uint32{}
			for i := range tc.n {
				term := tc.terms(r, i)
				id := tt.intern(term)
				if old, ok := want[string(term)]; ok && old != id {
					t.Fatalf("term %q: id %d, first got %d", term, id, old)
				} else if !ok && id != uint32(len(want)) {
					t.Fatalf("new term %q: id %d, want the next id %d", term, id, len(want))
				}
				want[string(term)] = id
			}
			if tt.len() != len(want) {
				t.Fatalf("len %d, want %d", tt.len(), len(want))
			}
			for term, id := range want {
				if !bytes.Equal(tt.term(id), []byte(term)) {
					t.Fatalf("term(%d) = %q, want %q", id, tt.term(id), term)
				}
			}
			order := tt.sortedOrder()
			if !slices.IsSortedFunc(order, func(a, b uint32) int { return bytes.Compare(tt.term(a), tt.term(b)) }) ||
				len(order) != len(want) {
				t.Fatal("sortedOrder is not the byte order of the terms")
			}
		})
	}
}

// TestSpillCodecs: front-coded lists, dictionary files and local quads
// round-trip, and a truncated file is an error rather than a short list.
func TestSpillCodecs(t *testing.T) {
	terms := [][]byte{[]byte(""), []byte("Ia"), []byte("Iab"), []byte("Iab"), []byte("Ib\x00"), []byte("Ibcd"),
		bytes.Repeat([]byte("x"), 300)}
	ids := []uint64{5, 6, 1 << 40, 3, 3, 0, 99}
	quads := []lquad{{1, 2, 3, 0}, {1, 4, 5, 0}, {0, 1 << 31, 7, 9}, {1<<32 - 1, 0, 0, 0}}
	for _, tc := range []struct {
		cut      int
		compress bool
	}{{0, false}, {1, false}, {3, false}, {0, true}, {1, true}, {3, true}} {
		cut := tc.cut
		t.Run(fmt.Sprintf("cut %d compress %v", cut, tc.compress), func(t *testing.T) {
			sd := &spillDir{path: t.TempDir(), compress: tc.compress}
			dict, err := writeSpill(sd, "dict", func(w io.Writer) error {
				f := dictFile{w: w.(*spillWriter)}
				for i, term := range terms {
					if err := f.write(term, ids[i]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			qf, err := writeSpill(sd, "quads", func(w io.Writer) error {
				var sub deltaWriter
				var rec []byte
				for _, q := range quads {
					rec = appendLocalQuad(rec, &sub, q)
				}
				_, err := w.Write(rec)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			truncate(t, dict, cut)
			truncate(t, qf, cut)
			var got []uint64
			err = eachDictEntry(t.Context(), dict, func(term []byte, id uint64) error {
				if i := len(got); !bytes.Equal(term, terms[i]) {
					t.Errorf("entry %d: term %q, want %q", i, term, terms[i])
				}
				got = append(got, id)
				return nil
			})
			if cut == 0 && (err != nil || !slices.Equal(got, ids)) {
				t.Fatalf("dictionary file: ids %v, err %v; want %v", got, err, ids)
			} else if cut > 0 && err == nil {
				t.Fatalf("truncated dictionary file read without error (%d entries)", len(got))
			}
			checkQuads(t, qf, quads, cut > 0)
		})
	}
}

func truncate(t *testing.T, path string, cut int) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()-int64(cut)); err != nil {
		t.Fatal(err)
	}
}

func checkQuads(t *testing.T, path string, want []lquad, truncated bool) {
	t.Helper()
	r, err := openSpill(filepath.Clean(path), 64)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var sub deltaReader
	var got []lquad
	for {
		q, err := readLocalQuad(r.r, &sub)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			if !truncated {
				t.Fatal(err)
			}
			return
		}
		got = append(got, q)
	}
	if truncated {
		t.Fatalf("truncated quads file read without error: %v", got)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("quads %v, want %v", got, want)
	}
}

// wikidataTerm is an encoded term shaped like those of a Wikidata load:
// statement ids, entity ids, texts in a few languages, sitelink URLs and
// time literals, which share long prefixes.
func wikidataTerm(r *rand.Rand) []byte {
	q := r.IntN(5_000_000)
	switch r.IntN(6) {
	case 0:
		return fmt.Appendf(nil, "IQ%d$%08X-%04X-%04X-%012X", q, r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.Uint64()>>16)
	case 1:
		return fmt.Appendf(nil, "IQ%d", q)
	case 2:
		return fmt.Appendf(nil, "L%s\x00word%d text %d", []string{"en", "de", "fr"}[r.IntN(3)], q, r.IntN(1000))
	case 3:
		return fmt.Appendf(nil, "Thttp://www.w3.org/2001/XMLSchema#anyURI\x00https://en.wikipedia.org/wiki/Article_%d", q)
	case 4:
		return fmt.Appendf(nil, "Thttp://grove-kg.org/ns/time\x00+%04d-%02d-%02dT00:00:00Z 11", r.IntN(2100), r.IntN(12)+1, r.IntN(28)+1)
	}
	return fmt.Appendf(nil, "S%d", r.IntN(1<<30))
}

// BenchmarkSortedOrder sorts a batch vocabulary of Wikidata-shaped terms.
func BenchmarkSortedOrder(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var tt termTable
	for tt.len() < 1<<20 {
		tt.intern(wikidataTerm(r))
	}
	for b.Loop() {
		tt.sortedOrder()
	}
}
