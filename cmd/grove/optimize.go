package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
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
		Short: "Merge the node-block segments of graphs loaded one by one (a node is one read again) and flatten the store",
		Long: `A bulk load of a new graph into a database that holds others writes its node blocks into a
segment of its own (grove ingest --own-segment, the default): the load neither reads nor
rewrites the stored blocks, and every later read of a node makes one lookup per segment.
optimize merges every segment into one, rewriting the node blocks of the later graphs once,
then flattens Badger's LSM tree into one level (which also drops old versions). It needs the
database alone: while it runs, every other process (grove serve, kg, stats, ingest) is refused,
so stop grove serve first. If it is interrupted, reads stay correct, and writes are refused
(grove serve answers them with 503) until optimize is run again, which completes it.`,
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
			// Most of what a merge allocates is Badger's, briefly (tables
			// being built and compacted, the memtable its transactions fill).
			limitGoMemory(budget)
			if err := requireDatabase(a.v.GetString("db")); err != nil {
				return err // a writable open would create an empty database there
			}
			before := storebench.DiskUsage(a.v.GetString("db")) // closed: no memtable files yet
			db, err := a.openDBFor(false, budget)
			if err != nil {
				return err
			}
			defer func() { db.Close() }() // db is reopened below; Close is idempotent
			ph := newOptimizePhases(a, quiet)
			ph.begin("merge")
			st, err := db.MergeSegments(cmd.Context(), ph.merge)
			ph.end(err)
			if err != nil {
				return err
			}
			// Badger's Flatten works on the LSM levels: the merge's last
			// writes, still in the memtable, reach them when it closes.
			if err := db.Close(); err != nil {
				return err
			}
			if db, err = a.openDBFor(false, budget); err != nil {
				return err
			}
			ph.begin("flatten")
			flat := time.Now()
			err = db.Flatten(cmd.Context())
			ph.end(err)
			if err != nil {
				return err
			}
			flatTook, segs := time.Since(flat), db.Segments()
			// Measured closed, as before: an open database holds memtable
			// files that closing flushes.
			if err := db.Close(); err != nil {
				return err
			}
			out := struct {
				engine.MergeStats
				Segments    int           `json:"segments"`
				Flatten     time.Duration `json:"flatten_ns"`
				BytesBefore int64         `json:"disk_bytes_before"`
				BytesAfter  int64         `json:"disk_bytes_after"`
			}{st, segs, flatTook, before, storebench.DiskUsage(db.Dir())}
			return a.emit(out, func(w io.Writer) error {
				if st.Segments <= 1 && !st.Resumed {
					fmt.Fprintln(w, "one node-block segment: nothing to merge")
				} else {
					fmt.Fprintf(w, "merged %d node-block segments into %d in %s: %d blocks moved (%d merged with a stored block), %.1f MiB written\n",
						st.Segments, out.Segments, st.Duration.Round(time.Millisecond), st.Blocks, st.Merged, float64(st.Bytes)/(1<<20))
				}
				fmt.Fprintf(w, "flattened the LSM tree in %s; database %.1f MiB on disk before, %.1f MiB after\n",
					out.Flatten.Round(time.Millisecond), float64(before)/(1<<20), float64(out.BytesAfter)/(1<<20))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress bar")
	cmd.Flags().StringVar(&maxMemory, "max-memory", "auto", "soft memory limit of the Go heap (e.g. 1GiB; auto = a sixth of the RAM or cgroup limit, at least 512MiB): lower costs more GC CPU")
	return cmd
}

// optimizePhases shows the phases of grove optimize (merge, flatten): a
// progress bar on a terminal, one log line per finished phase otherwise,
// nothing with --quiet or --json.
type optimizePhases struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	log   *slog.Logger
	phase string
	start time.Time
	done  int64
}

func newOptimizePhases(a *app, quiet bool) *optimizePhases {
	ph := &optimizePhases{w: a.stderr}
	switch {
	case quiet || a.jsonOut():
	case isTerminal(a.stderr):
		ph.bar = newBar(a.stderr)
	default:
		ph.log = slog.New(slog.NewTextHandler(a.stderr, nil))
	}
	return ph
}

func (ph *optimizePhases) begin(phase string) {
	ph.phase, ph.start, ph.done = phase, time.Now(), 0
	if ph.bar != nil {
		ph.bar.Reset()
		ph.bar.ChangeMax64(-1)
		ph.bar.Describe(phase)
	}
}

// merge is MergeSegments' progress callback.
func (ph *optimizePhases) merge(p engine.MergeProgress) {
	ph.done = p.Done
	if ph.bar != nil {
		if want := max(p.Total, p.Done); p.Total > 0 && ph.bar.GetMax64() != want {
			ph.bar.ChangeMax64(want)
		}
		_ = ph.bar.Set64(p.Done)
	}
}

func (ph *optimizePhases) end(err error) {
	if ph.bar != nil {
		_ = ph.bar.Finish()
		fmt.Fprintln(ph.w)
	}
	if ph.log != nil && err == nil {
		ph.log.Info("optimize phase done", "phase", ph.phase, "bytes", ph.done,
			"took", time.Since(ph.start).Round(time.Millisecond))
	}
}
