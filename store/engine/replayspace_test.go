package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReplaySpace: a database with a memtable log to replay is not
// opened on a nearly full disk (the replay would fault); without a log,
// or with room, it is.
func TestCheckReplaySpace(t *testing.T) {
	withLog := t.TempDir()
	if err := os.WriteFile(filepath.Join(withLog, "00001.mem"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		dir     string
		free    uint64
		refused bool
	}{
		{"log, disk full", withLog, 1 << 20, true},
		{"log, room", withLog, 4 * minWriteSpace, false},
		{"no log, disk full", t.TempDir(), 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkReplaySpace(c.dir, func(string) (uint64, bool) { return c.free, true })
			if (err != nil) != c.refused || (err != nil && !strings.Contains(err.Error(), "free some space and retry")) {
				t.Fatalf("err %v, refused: %v", err, c.refused)
			}
		})
	}
}
