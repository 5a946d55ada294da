package engine

import (
	"log/slog"
	"strings"
	"testing"
)

// TestBadgerLoggerLevels: Badger's warnings reach the log as warnings,
// except those about what Grove does on purpose, which go to debug.
func TestBadgerLoggerLevels(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want string
	}{
		{"Block cache might be too small. Metrics: hit: 2 miss: 51940", "DEBUG"},
		{"Cache life expectancy (in seconds): \n -- Histogram:", "DEBUG"},
		{"[Compactor: 1] Unable to fill tables", "DEBUG"},
		{"Value log GC failed: disk full", "WARN"},
		{"Truncate Needed", "WARN"},
	} {
		var out strings.Builder
		l := badgerLogger{slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		l.Warningf("%s", tc.msg)
		if !strings.Contains(out.String(), "level="+tc.want) {
			t.Errorf("%q logged as %q, want level %s", tc.msg, out.String(), tc.want)
		}
	}
}
