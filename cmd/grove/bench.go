package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/storebench"
	"github.com/grove-kg/grove/ingest/synth"
)

func (a *app) genCmd() *cobra.Command {
	var quads, entities int64
	var seed uint64
	var out, format string
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate benchmark input: Wikidata-shaped N-Triples, or a Wikidata-JSON-dump-like file",
		Long: `Generate benchmark input. --format ntriples (default) writes a Wikidata-shaped graph
(power-law degrees, ~30% literals, labels) of exactly --quads lines, one triple each: the
first 300 label the relations, and about 1% repeat an earlier line (an entity with the same
edge twice), so a load stores about 99% of them; --format wikidata-json writes
--entities entities shaped like the real latest-all.json dump (claims, qualifiers, references,
many label languages, sitelinks; see ingest/synth): about 10.6 KB of JSON per entity, so the
default 1,000,000 entities are 10.6 GB uncompressed (2.7 GB with .gz). A .zst or .gz output is
compressed; the default output is synthetic.nt or synthetic.json.gz by format.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := errors.Join(atLeast("--quads", quads, 1), atLeast("--entities", entities, 1)); err != nil {
				return err
			}
			var gen func(io.Writer) (any, string, error)
			switch format {
			case "ntriples", "nt":
				gen = func(w io.Writer) (any, string, error) {
					s, err := synth.Write(w, synth.Config{Quads: quads, Seed: seed})
					return s, fmt.Sprintf("%d quads, %d entities, %d literals", s.Quads, s.Entities, s.Literals), err
				}
			case "wikidata-json", "wikidata", "json":
				gen = func(w io.Writer) (any, string, error) {
					s, err := synth.WriteWikidata(w, synth.WikidataConfig{Entities: entities, Seed: seed})
					return s, fmt.Sprintf("%d entities (%d properties), %d statements, %d MB uncompressed",
						s.Entities, s.Properties, s.Statements, s.Bytes>>20), err
				}
			default:
				return fmt.Errorf("--format %q: want ntriples or wikidata-json", format)
			}
			if out == "" {
				out = "synthetic.nt"
				if format != "ntriples" && format != "nt" {
					out = "synthetic.json.gz"
				}
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			defer f.Close()
			w, err := compressor(f, out)
			if err != nil {
				return err
			}
			st, summary, err := gen(w)
			if err != nil {
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			return a.emit(st, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "%s: %s\n", out, summary)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "ntriples", "ntriples or wikidata-json")
	cmd.Flags().Int64Var(&quads, "quads", 1_000_000, "lines to write, one triple each, ~1% repeated (ntriples)")
	cmd.Flags().Int64Var(&entities, "entities", 1_000_000, "number of entities (wikidata-json; ~10.6 KB of JSON each)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().StringVar(&out, "out", "", "output file (.zst or .gz compresses; default synthetic.nt, or synthetic.json.gz for wikidata-json)")
	return cmd
}

// compressor wraps f in the compression its name asks for; Close
// flushes it (and leaves f open).
func compressor(f *os.File, name string) (io.WriteCloser, error) {
	switch {
	case strings.HasSuffix(name, ".zst"):
		return zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	case strings.HasSuffix(name, ".gz"):
		return gzip.NewWriterLevel(f, gzip.BestSpeed)
	}
	return nopCloser{f}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func (a *app) benchCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{Use: "bench", Short: "Whole-process benchmarks against baselines run in the same command"})
	cmd.AddCommand(a.benchIngest(), a.benchIngestOne(), a.benchKG(), a.benchHTTP(), a.benchWikidata())
	return cmd
}

// benchIngest runs each system's bulk load of the same file in a fresh
// process (so peak RSS is per system) and prints ratios to Grove.
func (a *app) benchIngest() *cobra.Command {
	var systems []string
	var limit int64
	var work, onto string
	cmd := &cobra.Command{
		Use:   "ingest FILE",
		Short: "Bulk-load FILE with Grove and with Cayley's loaders side by side",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := errors.Join(atLeast("--cayley-limit", limit, 0), knownSystems(systems)); err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if work == "" {
				if work, err = os.MkdirTemp("", "grove-bench-*"); err != nil {
					return err
				}
				defer os.RemoveAll(work)
			}
			var results []storebench.IngestResult
			for _, sys := range systems {
				res, err := runIngestOne(cmd, self, sys, args[0], filepath.Join(work, sys), limit, "")
				if err != nil {
					res.Error = err.Error()
				}
				results = append(results, res)
			}
			if onto != "" {
				res, err := benchSecondGraph(cmd, self, onto, args[0], filepath.Join(work, "grove-second"))
				if err != nil {
					return err
				}
				results = append(results, res)
			}
			if err := a.emit(results, func(w io.Writer) error { return printIngestBench(w, results) }); err != nil {
				return err
			}
			return allFailed(results)
		},
	}
	cmd.Flags().StringVar(&onto, "onto", "", "also load FILE as a second graph into a database that holds this file's "+
		"graph (loaded first, untimed), and report that rate against the first load's (system grove); its disk "+
		"figure covers both graphs")
	cmd.Flags().StringSliceVar(&systems, "systems", []string{storebench.SystemGrove, storebench.SystemCayleyKV, storebench.SystemCayleyMem}, "systems to run: "+strings.Join(storebench.Systems(), ", "))
	cmd.Flags().Int64Var(&limit, "cayley-limit", 500_000, "quads the Cayley baselines load (they are slow; the rate is compared; 0 = all)")
	cmd.Flags().StringVar(&work, "work", "", "directory for the databases (default: a temporary one, removed after)")
	return cmd
}

// knownSystems refuses an empty --systems or a name IngestOne does not
// load with, listing the names it does.
func knownSystems(systems []string) error {
	known := storebench.Systems()
	if len(systems) == 0 {
		return fmt.Errorf("--systems: give at least one of %s", strings.Join(known, ", "))
	}
	for _, s := range systems {
		if !slices.Contains(known, s) {
			return fmt.Errorf("--systems: unknown system %q: want one of %s", s, strings.Join(known, ", "))
		}
	}
	return nil
}

// allFailed returns an error naming each system and why it failed when
// every one of results did (an all-failed run exited 0).
func allFailed(results []storebench.IngestResult) error {
	var why []string
	for _, r := range results {
		if r.Error == "" {
			return nil
		}
		why = append(why, r.Error)
	}
	return fmt.Errorf("every system failed: %s", strings.Join(why, "; "))
}

// benchSecondGraph loads onto (graph "onto", untimed) and then file (graph
// "bench") into one database, each in a process of its own, and returns
// the second load's result as system "grove-second".
func benchSecondGraph(cmd *cobra.Command, self, onto, file, dir string) (storebench.IngestResult, error) {
	if _, err := runIngestOne(cmd, self, storebench.SystemGrove, onto, dir, 0, "onto"); err != nil {
		return storebench.IngestResult{}, fmt.Errorf("load %s as the first graph: %w", onto, err)
	}
	res, err := runIngestOne(cmd, self, storebench.SystemGrove, file, dir, 0, "bench")
	res.System = storebench.SystemGroveSecond
	if err != nil {
		res.Error = err.Error()
	}
	return res, nil
}

func runIngestOne(cmd *cobra.Command, self, sys, file, dir string, limit int64, graph string) (storebench.IngestResult, error) {
	args := []string{"bench", "ingest-one", "--system", sys, "--dir", dir, file}
	if graph != "" {
		args = append(args, "--graph", graph)
	}
	if sys != storebench.SystemGrove {
		args = append(args, "--limit", fmt.Sprint(limit))
	}
	c := exec.CommandContext(cmd.Context(), self, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return storebench.IngestResult{System: sys}, fmt.Errorf("%s: %w: %s", sys, err, strings.TrimSpace(errb.String()))
	}
	var res storebench.IngestResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return res, fmt.Errorf("%s: bad result %q: %w", sys, out.String(), err)
	}
	return res, nil
}

func (a *app) benchIngestOne() *cobra.Command {
	var sys, dir, graph string
	var limit, memLimit int64
	cmd := &cobra.Command{
		Use:    "ingest-one FILE",
		Short:  "Bulk-load FILE with one system and print the result as JSON (used by bench ingest)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := errors.Join(atLeast("--limit", limit, 0), atLeast("--mem-limit", memLimit, 0)); err != nil {
				return err
			}
			limitGoMemory(memLimit)
			res, err := storebench.IngestOne(cmd.Context(), sys, args[0], dir, limit, graph)
			if err != nil {
				return err
			}
			return json.NewEncoder(a.stdout).Encode(res)
		},
	}
	cmd.Flags().StringVar(&sys, "system", storebench.SystemGrove, "system")
	cmd.Flags().StringVar(&dir, "dir", "", "database directory")
	cmd.Flags().StringVar(&graph, "graph", "", "graph the quads go into (grove; default \"bench\")")
	cmd.Flags().Int64Var(&limit, "limit", 0, "quads to load (0 = all)")
	cmd.Flags().Int64Var(&memLimit, "mem-limit", 2<<30, "soft Go memory limit, as grove ingest sets it (0 = none)")
	return cmd
}

func printIngestBench(w io.Writer, rs []storebench.IngestResult) error {
	var grove, second float64
	for _, r := range rs {
		switch r.System {
		case storebench.SystemGrove:
			grove = r.QuadsPerSec
		case storebench.SystemGroveSecond:
			second = r.QuadsPerSec
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SYSTEM\tQUADS\tTIME\tQUADS/S\tGROVE SPEEDUP\tPEAK RSS MiB\tDISK B/QUAD\tERROR")
	for _, r := range rs {
		ratio := ""
		if r.QuadsPerSec > 0 && grove > 0 {
			ratio = fmt.Sprintf("%.1fx", grove/r.QuadsPerSec)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%d\t%.1f\t%s\n", r.System, r.Quads, r.Duration.Round(time.Millisecond),
			r.QuadsPerSec, ratio, r.PeakRSS>>20, r.BytesPerQ, r.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if grove > 0 && second > 0 {
		fmt.Fprintf(w, "second graph: %.3fx the first load's rate (grove-second / grove)\n", second/grove)
	}
	return nil
}

func (a *app) benchKG() *cobra.Command {
	var cfg storebench.KGConfig
	var entities int
	cmd := &cobra.Command{
		Use:   "kg",
		Short: "Warm KG-interface latencies (p50/p99) next to the same queries through Cayley's Gizmo",
		Long: `Measures Relations, Edges and Search on the database. Entities come from --ids/--hubs, or for a
database loaded from 'grove gen' output, --synthetic N picks random Q1..QN and the hubs Q1..Q4.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := errors.Join(atLeast("--n", cfg.N, 1), atLeast("--synthetic", entities, 0)); err != nil {
				return err
			}
			if entities > 0 {
				cfg.IDs, cfg.Hubs = syntheticIDs(entities), []string{"Q1", "Q2", "Q3", "Q4"}
			}
			open, err := storebench.OpenTime(a.v.GetString("db"))
			if err != nil {
				return err
			}
			db, err := a.openDB(true)
			if err != nil {
				return err
			}
			defer db.Close()
			ls, err := storebench.KGLatencies(cmd.Context(), db, cfg)
			if err != nil {
				return err
			}
			out := struct {
				Open      time.Duration        `json:"open_ns"`
				Latencies []storebench.Latency `json:"latencies"`
			}{open, ls}
			return a.emit(out, func(w io.Writer) error {
				fmt.Fprintf(w, "open: %s\n", open.Round(time.Microsecond))
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "OP\tN\tP50\tP99\tGIZMO P50\tGIZMO P99\tSPEEDUP (p50)")
				for _, l := range ls {
					sp := ""
					if s := l.Speedup(); s > 0 {
						sp = fmt.Sprintf("%.0fx", s)
					}
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", l.Op, l.N, l.P50, l.P99, l.GizmoP50, l.GizmoP99, sp)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringSliceVar(&cfg.IDs, "ids", nil, "entity ids to query")
	cmd.Flags().StringSliceVar(&cfg.Hubs, "hubs", nil, "hub entity ids to query")
	cmd.Flags().IntVar(&entities, "synthetic", 0, "database holds 'grove gen' output with this many entities")
	cmd.Flags().IntVar(&cfg.N, "n", 2000, "timed calls per operation")
	return cmd
}

// syntheticIDs picks 500 spread-out entity ids of a 'grove gen' graph with
// n entities, past its hubs Q1..Q16.
func syntheticIDs(n int) []string {
	ids := make([]string, 0, 500)
	if n <= 17 {
		for i := 1; i <= n; i++ {
			ids = append(ids, fmt.Sprintf("Q%d", i))
		}
		return ids
	}
	for i := 0; i < 500; i++ {
		ids = append(ids, fmt.Sprintf("Q%d", 17+(i*104729)%(n-17)))
	}
	return ids
}
