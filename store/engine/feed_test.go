package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// oddValue is a quad.Value the dictionary cannot encode.
type oddValue struct{}

func (oddValue) String() string { return "odd" }
func (oddValue) Native() any    { return nil }

// TestFeedErrors: a value the dictionary cannot encode is refused by
// WriteQuad itself, and a failure of the feed goroutine (here: the spill
// directory vanishes, so a batch cannot be spilled) is returned by a later
// WriteQuad or by Commit, leaving the database without the graph.
func TestFeedErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		odd     bool // write one unencodable quad after the good ones
		rmSpill bool // remove the spill directory before writing
		want    string
	}{
		{"unencodable object", true, false, "unsupported value type"},
		{"spill directory gone", false, true, "temporary file"},
		{"no error", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, l := newTestLoader(t, LoadOptions{Graph: "g", MaxMemory: minMaxMemory})
			var err error
			if tc.rmSpill {
				if err := os.RemoveAll(l.sd.path); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range synthQuads(3, 50000) {
				if err = l.WriteQuad(q); err != nil {
					break
				}
			}
			if err == nil && tc.odd {
				err = l.WriteQuad(quad.Quad{Subject: quad.IRI("s"), Predicate: quad.IRI("p"), Object: oddValue{}})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("WriteQuad of an unencodable value: %v, want %q", err, tc.want)
				}
				err = nil // the load goes on without that quad
			}
			if err == nil {
				_, err = l.Commit(context.Background())
			}
			switch {
			case tc.rmSpill && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			case !tc.rmSpill && err != nil:
				t.Fatalf("load failed: %v", err)
			}
			db.mu.RLock()
			_, stored := db.graphs["g"]
			db.mu.RUnlock()
			if stored == tc.rmSpill {
				t.Errorf("graph stored = %v after error %v", stored, err)
			}
		})
	}
}
