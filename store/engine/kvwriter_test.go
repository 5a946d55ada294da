package engine

import (
	"bytes"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// TestPutKV: the hand-written record is byte for byte what Badger's own
// KVToBuffer writes, for empty and long values, large versions and ids.
func TestPutKV(t *testing.T) {
	for _, tc := range []struct {
		name     string
		key, val []byte
		version  uint64
		stream   uint32
	}{
		{"small", []byte("tIabc"), []byte{0, 0, 0, 0, 0, 0, 0, 7}, 1, streamTerm},
		{"empty value", []byte("S\x00\x01"), nil, 3, streamSPO},
		{"long key and value", []byte(strings.Repeat("k", 300)), bytes.Repeat([]byte{9}, 70000), 1 << 40, 1 << 20},
		{"version and stream zero", []byte("m"), []byte("v"), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mine, theirs := z.NewBuffer(1<<10, "test"), z.NewBuffer(1<<10, "test")
			defer mine.Release()
			defer theirs.Release()
			putKV(mine, tc.key, tc.val, tc.version, tc.stream)
			badger.KVToBuffer(&pb.KV{Key: tc.key, Value: tc.val, Version: tc.version, StreamId: tc.stream}, theirs)
			if !bytes.Equal(mine.Bytes(), theirs.Bytes()) {
				t.Fatalf("putKV wrote\n%x\nKVToBuffer wrote\n%x", mine.Bytes(), theirs.Bytes())
			}
		})
	}
}

func TestCompactionDue(t *testing.T) {
	cases := []struct {
		name   string
		levels []badger.LevelInfo
		due    bool
	}{
		{"nothing scored", []badger.LevelInfo{{Level: 0}, {Level: 5}, {Level: 6}}, false},
		{"L5 over its target", []badger.LevelInfo{{Level: 5, Score: 4, Adjusted: 4}, {Level: 6}}, true},
		{"L5 over but its adjusted score below 1", []badger.LevelInfo{{Level: 5, Score: 1.2, Adjusted: 0.6}}, false},
		{"L0 over: compactor 0 runs it whatever its adjusted score", []badger.LevelInfo{{Level: 0, Score: 1.4, Adjusted: 0.2}}, true},
		{"scores below 1", []badger.LevelInfo{{Level: 0, Score: 0.4}, {Level: 5, Score: 0.9, Adjusted: 3}}, false},
	}
	for _, tc := range cases {
		if got := compactionDue(tc.levels); got != tc.due {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.due)
		}
	}
}
