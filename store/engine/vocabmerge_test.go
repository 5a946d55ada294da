package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// vocabReaders writes each list (sorted, distinct terms) as a front-coded
// spill file and opens a reader on it.
func vocabReaders(t *testing.T, lists [][]string) []*vocabReader {
	t.Helper()
	sd := &spillDir{path: t.TempDir()}
	var out []*vocabReader
	for i, list := range lists {
		w, err := sd.create(fmt.Sprintf("vocab%d", i))
		if err != nil {
			t.Fatal(err)
		}
		var fc frontcode.Encoder
		var rec []byte
		for _, term := range list {
			rec = fc.Append(rec[:0], []byte(term))
			if _, err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := openSpill(w.path, 4<<10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		out = append(out, &vocabReader{r: r})
	}
	return out
}

type mergedTerm struct {
	term    string
	batches []int32
}

// TestRunVocabMerge: the two-goroutine merge yields every distinct term
// once, in order, with exactly the batches holding it, across chunk
// boundaries (by count and by bytes), and with empty and single lists.
func TestRunVocabMerge(t *testing.T) {
	long := strings.Repeat("x", mergeChunkBytes/3)
	many := func(n, step, off int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("t%07d", off+i*step))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		lists [][]string
	}{
		{"none", nil},
		{"empty lists", [][]string{{}, {}}},
		{"one list", [][]string{{"a", "b", "c"}}},
		{"overlapping", [][]string{{"a", "c", "e"}, {"b", "c", "d"}, {}, {"c", "e", "z"}}},
		{"chunked by count", [][]string{many(3*mergeChunkLen+7, 2, 0), many(2*mergeChunkLen, 3, 1)}},
		{"chunked by bytes", [][]string{{long + "1", long + "2", long + "3", long + "4"}, {long + "2", long + "5"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string][]int32{}
			for i, l := range tc.lists {
				for _, term := range l {
					want[term] = append(want[term], int32(i))
				}
			}
			var got []mergedTerm
			err := runVocabMerge(context.Background(), vocabReaders(t, tc.lists), func(c *mergedChunk) error {
				if c.len() == 0 || c.len() > mergeChunkLen {
					t.Errorf("chunk of %d terms", c.len())
				}
				for i := range c.len() {
					term, bs := c.term(i)
					got = append(got, mergedTerm{string(term), slices.Clone(bs)})
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d terms, want %d", len(got), len(want))
			}
			for i, m := range got {
				if i > 0 && got[i-1].term >= m.term {
					t.Fatalf("term %d %q after %q", i, m.term, got[i-1].term)
				}
				bs := slices.Clone(m.batches)
				slices.Sort(bs)
				if !slices.Equal(bs, want[m.term]) {
					t.Errorf("%q in batches %v, want %v", m.term, bs, want[m.term])
				}
			}
		})
	}
}

// TestRunVocabMergeStops: an error of either side, or a cancelled context,
// ends the merge with that error instead of hanging.
func TestRunVocabMergeStops(t *testing.T) {
	lists := [][]string{make([]string, 0, 10*mergeChunkLen)}
	for i := range 10 * mergeChunkLen {
		lists[0] = append(lists[0], fmt.Sprintf("t%07d", i))
	}
	boom := errors.New("boom")
	calls := 0
	err := runVocabMerge(context.Background(), vocabReaders(t, lists), func(*mergedChunk) error {
		if calls++; calls == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls != 2 {
		t.Errorf("assign error: err %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	err = runVocabMerge(ctx, vocabReaders(t, lists), func(*mergedChunk) error {
		calls++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls > mergeChunks+2 {
		t.Errorf("cancelled: err %v after %d calls", err, calls)
	}
	// A corrupt list: the reader's error comes back.
	path := filepath.Join(t.TempDir(), "vocab")
	if err := os.WriteFile(path, []byte{0xff, 0xff, 0xff}, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := openSpill(path, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rs := []*vocabReader{{r: r}}
	err = runVocabMerge(context.Background(), rs, func(*mergedChunk) error { return nil })
	if err == nil {
		t.Error("corrupt vocabulary: no error")
	}
}
