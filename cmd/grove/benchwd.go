package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/storebench"
	"github.com/grove-kg/grove/ingest/input"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/ingest/wikidata"
)

// wdBenchResult is one phase of grove bench wikidata.
type wdBenchResult struct {
	Phase       string        `json:"phase"`
	Entities    int64         `json:"entities"`
	Quads       int64         `json:"quads,omitempty"`
	Bytes       int64         `json:"json_bytes,omitempty"`
	Duration    time.Duration `json:"duration_ns"`
	CPU         time.Duration `json:"cpu_ns"`
	EntitiesSec float64       `json:"entities_per_sec"`
	EntitiesCPU float64       `json:"entities_per_cpu_sec"`
	QuadsSec    float64       `json:"quads_per_sec,omitempty"`
	PeakRSS     int64         `json:"peak_rss_bytes,omitempty"`
	DiskBytes   int64         `json:"disk_bytes,omitempty"`
	Ratio       float64       `json:"ratio_to_baseline"`
	RatioCPU    float64       `json:"cpu_ratio_to_baseline"`
}

// cpuUsed returns the user+system CPU time of this process (self) or of
// its waited-for children.
func cpuUsed(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchWikidata measures a Wikidata JSON dump three ways in one command:
// plain goccy/go-json decoding of every line on one goroutine (the
// baseline), the reader alone into a counting sink, and the whole
// grove ingest in a fresh process (peak RSS of that process).
func (a *app) benchWikidata() *cobra.Command {
	var work string
	cmd := &cobra.Command{
		Use:   "wikidata FILE",
		Short: "Wikidata JSON reader and whole-process ingest against plain goccy/go-json decoding of the same lines",
		Long: `Reads FILE (a Wikidata JSON dump, compressed or not; grove gen --format wikidata-json makes
one) three times: plain goccy/go-json decoding of every entity line on one goroutine (the
baseline), the Wikidata reader alone (all workers) into a counting sink, and a whole
grove ingest into a new database in a fresh process. Prints entities/s, quads/s, peak RSS
and each rate's ratio to the baseline measured in the same command.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			base, err := wdPhase(cmd.Context(), file, "baseline: goccy decode, 1 goroutine", func(ctx context.Context, r io.Reader) (int64, int64, int64, error) {
				n, b, err := wikidata.DecodePlain(ctx, r)
				return n, 0, b, err
			})
			if err != nil {
				return err
			}
			reader, err := wdPhase(cmd.Context(), file, "wikidata reader, quads counted", func(ctx context.Context, r io.Reader) (int64, int64, int64, error) {
				st, err := wikidata.New(wikidata.Options{}).ReadStats(ctx, file, r,
					source.WriterFunc(func(quad.Quad) error { return nil }))
				return st.Entities, st.Quads, 0, err
			})
			if err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if work == "" {
				if work, err = os.MkdirTemp("", "grove-bench-wd-*"); err != nil {
					return err
				}
				defer os.RemoveAll(work)
			}
			childCPU := cpuUsed(syscall.RUSAGE_CHILDREN)
			ing, err := runIngestOne(cmd, self, storebench.SystemGrove, file, filepath.Join(work, "grove"), 0, "")
			if err != nil {
				return err
			}
			whole := wdBenchResult{Phase: "grove ingest, whole process", Entities: reader.Entities, Quads: ing.Quads,
				Duration: ing.Duration, CPU: cpuUsed(syscall.RUSAGE_CHILDREN) - childCPU, QuadsSec: ing.QuadsPerSec,
				PeakRSS: ing.PeakRSS, DiskBytes: ing.DiskBytes}
			if s := ing.Duration.Seconds(); s > 0 {
				whole.EntitiesSec = float64(reader.Entities) / s
			}
			if s := whole.CPU.Seconds(); s > 0 {
				whole.EntitiesCPU = float64(reader.Entities) / s
			}
			rs := []wdBenchResult{base, reader, whole}
			for i := range rs {
				if base.EntitiesSec > 0 {
					rs[i].Ratio = rs[i].EntitiesSec / base.EntitiesSec
				}
				if base.EntitiesCPU > 0 {
					rs[i].RatioCPU = rs[i].EntitiesCPU / base.EntitiesCPU
				}
			}
			return a.emit(rs, func(w io.Writer) error { return printWDBench(w, file, rs) })
		},
	}
	cmd.Flags().StringVar(&work, "work", "", "directory for the database (default: a temporary one, removed after)")
	return cmd
}

// wdPhase times one in-process pass over file.
func wdPhase(ctx context.Context, file, phase string, run func(context.Context, io.Reader) (entities, quads, bytes int64, err error)) (wdBenchResult, error) {
	f, err := input.Open(file)
	if err != nil {
		return wdBenchResult{}, err
	}
	defer f.Close()
	start, cpu := time.Now(), cpuUsed(syscall.RUSAGE_SELF)
	n, q, b, err := run(ctx, f)
	if err != nil {
		return wdBenchResult{}, fmt.Errorf("%s: %w", phase, err)
	}
	d, c := time.Since(start), cpuUsed(syscall.RUSAGE_SELF)-cpu
	return wdBenchResult{Phase: phase, Entities: n, Quads: q, Bytes: b, Duration: d, CPU: c,
		EntitiesSec: float64(n) / d.Seconds(), EntitiesCPU: float64(n) / c.Seconds(), QuadsSec: float64(q) / d.Seconds()}, nil
}

func printWDBench(w io.Writer, file string, rs []wdBenchResult) error {
	fmt.Fprintf(w, "%s: %d entities, %d MB of JSON\n", file, rs[0].Entities, rs[0].Bytes>>20)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tTIME\tCPU\tENTITIES/S\tQUADS/S\tRATIO\tENTITIES/CPU-S\tCPU RATIO\tPEAK RSS MiB")
	for _, r := range rs {
		rss := ""
		if r.PeakRSS > 0 {
			rss = fmt.Sprint(r.PeakRSS >> 20)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%.2fx\t%.0f\t%.2fx\t%s\n", r.Phase, r.Duration.Round(time.Millisecond),
			r.CPU.Round(time.Millisecond), r.EntitiesSec, r.QuadsSec, r.Ratio, r.EntitiesCPU, r.RatioCPU, rss)
	}
	fmt.Fprintln(tw, "(RATIO: entities/s against the baseline; CPU RATIO: entities per CPU-second, steadier on a shared machine)")
	return tw.Flush()
}
