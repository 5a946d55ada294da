package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/storebench"
	"github.com/grove-kg/grove/store/engine"
)

func (a *app) optimizeCmd() *cobra.Command {
	var (
		quiet     bool
		maxMemory string
	)
	cmd := &cobra.Command{
		Use:   "optimize",
		Short: "Merge the node-block segments of graphs loaded one by one, so a node is one read again",
		Long: `A bulk load of a new graph into a database that holds others writes its node blocks into a
segment of its own (grove ingest --own-segment, the default): the load neither reads nor
rewrites the stored blocks, and every later read of a node makes one lookup per segment.
optimize merges every segment into one, rewriting the node blocks of the later graphs once,
and waits for Badger's compactions to settle. Reads stay correct while it runs and if it is
interrupted; writes wait while it runs, and after an interrupted run they are refused until
optimize is run again, which completes it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if b, err := a.backend(); err != nil {
				return err
			} else if b != backendBadger {
				return errors.New("optimize works on the local database (--kg-backend badger)")
			}
			budget, err := parseMaxMemory(maxMemory)
			if err != nil {
				return err
			}
			if budget > 0 {
				// Most of what a merge allocates is Badger's, briefly
				// (tables being built and compacted): a soft limit makes
				// the GC collect it sooner instead of letting the heap
				// double.
				debug.SetMemoryLimit(budget)
			}
			db, err := a.openDB(false)
			if err != nil {
				return err
			}
			defer db.Close()
			var bar *progressbar.ProgressBar
			var progress func(engine.MergeProgress)
			if !quiet && !a.jsonOut() && isTerminal(a.stderr) {
				bar = newBar(a.stderr)
				bar.Describe("merge segments")
				progress = func(p engine.MergeProgress) {
					if want := max(p.Total, p.Done); p.Total > 0 && bar.GetMax64() != want {
						bar.ChangeMax64(want)
					} else if p.Total < 0 && bar.GetMax64() != -1 {
						bar.ChangeMax64(-1)
					}
					bar.Describe(p.Phase)
					_ = bar.Set64(p.Done)
				}
			}
			var ml *mergeLogger
			if progress == nil && !quiet && !a.jsonOut() {
				ml = &mergeLogger{log: slog.New(slog.NewTextHandler(a.stderr, nil)), start: time.Now()}
				progress = ml.update
			}
			before := storebench.DirSize(db.Dir())
			st, err := db.MergeSegments(cmd.Context(), progress)
			if bar != nil {
				_ = bar.Finish()
				fmt.Fprintln(a.stderr)
			}
			if err != nil {
				return err
			}
			if ml != nil && ml.phase != "" {
				ml.done()
			}
			out := struct {
				engine.MergeStats
				Segments    int   `json:"segments"`
				BytesBefore int64 `json:"disk_bytes_before"`
				BytesAfter  int64 `json:"disk_bytes_after"`
			}{st, db.Segments(), before, storebench.DirSize(db.Dir())}
			return a.emit(out, func(w io.Writer) error {
				if st.Segments <= 1 && !st.Resumed {
					fmt.Fprintln(w, "one node-block segment: nothing to merge")
					return nil
				}
				fmt.Fprintf(w, "merged %d node-block segments into %d in %s: %d blocks moved (%d merged with a stored block), %.1f MiB written\n",
					st.Segments, out.Segments, st.Duration.Round(time.Millisecond), st.Blocks, st.Merged, float64(st.Bytes)/(1<<20))
				fmt.Fprintf(w, "database %.1f MiB before, %.1f MiB after\n", float64(before)/(1<<20), float64(out.BytesAfter)/(1<<20))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress bar")
	cmd.Flags().StringVar(&maxMemory, "max-memory", "auto", "soft memory limit of the Go heap (e.g. 1GiB; auto = a sixth of the RAM or cgroup limit, at least 512MiB): lower costs more GC CPU")
	return cmd
}

// mergeLogger writes one log line per finished optimize phase (move,
// compact) when stderr is not a terminal.
type mergeLogger struct {
	log   *slog.Logger
	phase string
	start time.Time
	last  engine.MergeProgress
}

func (ml *mergeLogger) update(p engine.MergeProgress) {
	if ml.phase != "" && p.Phase != ml.phase {
		ml.done()
		ml.start = time.Now()
	}
	ml.phase, ml.last = p.Phase, p
}

func (ml *mergeLogger) done() {
	ml.log.Info("optimize phase done", "phase", ml.phase, "bytes", ml.last.Done,
		"took", time.Since(ml.start).Round(time.Millisecond))
}
