package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/engine"
)

// TestStatsJSONEmptyLists: grove --json stats lists no graphs as [], as
// /v1/graphs does (an empty database printed "graphs": null).
func TestStatsJSONEmptyLists(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	db, err := engine.Open(empty, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, db string
		graphs   int
	}{
		{"empty database", empty, 0},
		{"one graph", tinyDB(t), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, "--db", c.db, "--json", "stats")
			if err != nil {
				t.Fatal(err)
			}
			var st map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var graphs []json.RawMessage
			if g := strings.TrimSpace(string(st["graphs"])); !strings.HasPrefix(g, "[") ||
				json.Unmarshal(st["graphs"], &graphs) != nil || len(graphs) != c.graphs {
				t.Errorf(`"graphs": %s, want a list of %d`, g, c.graphs)
			}
		})
	}
}
