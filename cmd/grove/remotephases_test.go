package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest"
	"github.com/grove-kg/grove/store/sqlkg"
)

// slowWriter is a remote backend whose set-based statements take a while
// once it has read its source.
type slowWriter struct {
	read  int64
	apply time.Duration
}

func (w *slowWriter) WriteFrom(_ context.Context, _ sqlkg.StreamOptions, src sqlkg.QuadSource) (int64, error) {
	w.read = 0
	if err := src(func(qs []quad.Quad) error { w.read += int64(len(qs)); return nil }); err != nil {
		return 0, err
	}
	time.Sleep(w.apply)
	return w.read, nil
}

func (*slowWriter) Close() error { return nil }

// TestRemotePhases checks what a remote write reports: the copy, then the
// database's own insert (or delete), which the log times as a phase of
// its own instead of folding it into the copy.
func TestRemotePhases(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "in.nt")
	var b strings.Builder
	for i := range 120_000 {
		b.WriteString("<http://ex.org/s> <http://ex.org/p> \"" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "\" .\n")
	}
	if err := os.WriteFile(nt, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sp, _, err := ingest.SpoolFiles(ctx, []string{nt}, ingest.Options{Graph: "g", MaxMemory: 1 << 30}, func() (string, error) { return dir, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, del := range []bool{false, true} {
		apply := map[bool]string{false: "insert", true: "delete"}[del]
		t.Run(apply, func(t *testing.T) {
			var phases []ingest.Progress
			var log bytes.Buffer
			pl := &phaseLogger{log: slog.New(slog.NewTextHandler(&log, nil))}
			report := func(p ingest.Progress) { phases = append(phases, p); pl.update(p) }
			w := &slowWriter{apply: 300 * time.Millisecond}
			n, err := writeSpool(ctx, w, sp, sqlkg.StreamOptions{Graph: "g", Delete: del}, remotePhases{report: report, began: time.Now(), quads: sp.Len()})
			pl.done()
			if err != nil || n != sp.Len() {
				t.Fatalf("writeSpool = %d, %v; want %d", n, err, sp.Len())
			}
			var names []string
			for _, p := range phases {
				if len(names) == 0 || names[len(names)-1] != p.Phase {
					names = append(names, p.Phase)
				}
			}
			if strings.Join(names, ",") != "copy,"+apply {
				t.Errorf("phases %v, want copy then %s", names, apply)
			}
			last := phases[len(phases)-1]
			if last.Phase != apply || last.PhaseDone != n || last.PhaseElapsed < w.apply {
				t.Errorf("last report %+v: want %s done with %d quads after at least %s", last, apply, n, w.apply)
			}
			if !strings.Contains(log.String(), "phase="+apply) || !strings.Contains(log.String(), "phase=copy") {
				t.Errorf("log lacks a line per phase:\n%s", log.String())
			}
		})
	}
}
