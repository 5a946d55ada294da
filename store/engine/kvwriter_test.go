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
