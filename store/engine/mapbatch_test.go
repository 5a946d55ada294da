package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMapBatch: a batch's quads file maps through its local -> global map
// into a sorter whatever its length against the read blocks, and a file
// with an id beyond the map or a truncated record is reported as corrupt
// (naming the file), not mapped.
func TestMapBatch(t *testing.T) {
	m := []uint64{100, 101, 102, 103, 104}
	for _, tc := range []struct {
		name    string
		n       int // quads
		corrupt func([]byte) []byte
	}{
		{"empty", 0, nil},
		{"one", 1, nil},
		{"a block", mapBlock, nil},
		{"a block and one", mapBlock + 1, nil},
		{"id beyond the map", 3*mapBlock + 7, func(b []byte) []byte {
			var sub deltaWriter
			return appendLocalQuad(b, &sub, lquad{s: 1, p: 2, o: 5, g: 0})
		}},
		{"truncated record", 10, func(b []byte) []byte { return append(b, 0x80) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				buf  []byte
				sub  deltaWriter
				want []qids
			)
			for i := range tc.n {
				q := lquad{s: uint32(i % 5), p: uint32(i * 7 % 5), o: uint32(i * 3 % 5), g: 0}
				buf = appendLocalQuad(buf, &sub, q)
				want = append(want, qids{s: m[q.s], p: m[q.p], o: m[q.o], g: m[q.g]})
			}
			if tc.corrupt != nil {
				buf = tc.corrupt(buf)
			}
			path := filepath.Join(t.TempDir(), "quads")
			if err := os.WriteFile(path, buf, 0o600); err != nil {
				t.Fatal(err)
			}
			s := newQuadSorter(&spillDir{path: t.TempDir()}, "t", orderSPO, 1<<20)
			var done int64
			err := (&Loader{}).mapBatch(context.Background(), path, m, s, true, &done)
			if tc.corrupt != nil {
				if err == nil || !strings.Contains(err.Error(), path+" is corrupt") {
					t.Fatalf("err = %v, want the file reported as corrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if done != int64(tc.n) || !slices.Equal(s.buf, want) {
				t.Fatalf("mapped %d quads %v, want %d %v", done, s.buf, tc.n, want)
			}
		})
	}
}
