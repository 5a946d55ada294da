package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/grove-kg/grove/ingest"
	"github.com/grove-kg/grove/ingest/input"
	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/wikidata"
	"github.com/grove-kg/grove/store/sqlkg"
)

func (a *app) ingestCmd() *cobra.Command {
	var (
		graph, format     string
		langs             []string
		skip, keep, quiet bool
		incremental, del  bool
		batch             int
		wd                wikidataFlags
		graphFiles        []string
		memLimit          int64
		maxMemory         string
	)
	cmd := &cobra.Command{
		Use:   "ingest FILE...",
		Short: "Load dump files (N-Triples/N-Quads, Turtle, RDF/XML, Freebase, Wikidata JSON or truthy, GRBench, MusicBrainz) into a graph",
		Long: `Load dump files into a named graph. Compression (gzip, zstd, bzip2, xz) and format are
detected from the content unless --format is given. By default the whole run is validated
before anything is written: a bad line stops with file:line and the reason and leaves the
database unchanged; --skip-invalid counts and logs bad records and goes on. Re-ingesting
the same file is idempotent. --incremental (and --delete) apply small updates through
transactions instead of the bulk loader. On --kg-backend sql every load, and every
--delete, is one transaction.

` + droppedHelp(),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(graphFiles) == 0 {
				return errors.New("requires at least one FILE (or --graph-file NAME=FILE)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			files, graphOf, err := withGraphFiles(files, graphFiles)
			if err != nil {
				return err
			}
			if len(graphOf) > 0 && (incremental || del) {
				return errors.New("--graph-file needs the bulk loader: it cannot be combined with --incremental or --delete")
			}
			f, err := input.ParseFormat(format)
			if err != nil {
				return fmt.Errorf("--format: %w", err) // the error lists the formats
			}
			budget, err := parseMaxMemory(maxMemory)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("mem-limit") {
				if err := checkBudget(fmt.Sprintf("--mem-limit %d", memLimit), memLimit); err != nil {
					return err
				}
				budget = memLimit
			}
			wdOpts, err := wd.options()
			if err != nil {
				return err
			}
			limitGoMemory(budget)
			opts := ingest.Options{Graph: graph, Format: f, SkipInvalid: skip, Languages: langs,
				KeepLabels: keep, GraphOf: graphOf, Logger: a.log, MaxMemory: budget, Wikidata: wdOpts}
			if w, err := a.openWriter(cmd.Context()); err != nil {
				return err
			} else if w != nil {
				defer w.Close()
				if len(graphOf) > 0 {
					return errors.New("--graph-file is supported by --kg-backend badger only")
				}
				done := a.showProgress(quiet, &opts)
				return a.ingestRemote(cmd, w, files, opts, del, done)
			}
			db, err := a.openDBFor(false, budget)
			if err != nil {
				return err
			}
			defer db.Close()
			done := a.showProgress(quiet, &opts)
			var res ingest.Result
			if incremental || del {
				if err := atLeast("--batch", batch, 1); err != nil {
					return err
				}
				res, err = ingest.Incremental(cmd.Context(), db, files, opts, del, batch)
			} else {
				res, err = ingest.Run(cmd.Context(), db, files, opts)
			}
			done(err == nil)
			if err != nil {
				return err
			}
			segs := db.Segments()
			return a.emit(res, func(w io.Writer) error {
				if err := printIngest(w, res, graph); err != nil {
					return err
				}
				if res.Applied != nil {
					printApplied(w, res, graph, keep, del)
				}
				if segs > 1 {
					fmt.Fprintf(w, "node blocks in %d segments: a read of a node makes %d lookups; grove optimize merges them into one\n", segs, segs)
				}
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&graph, "graph", "default", "name of the graph (KG) to load into")
	fl.StringArrayVar(&graphFiles, "graph-file", nil, "NAME=FILE: also load FILE into graph NAME in the same bulk run (repeatable; several graphs in one run cost one fresh load instead of one load per graph)")
	fl.StringVar(&format, "format", "auto", "input format: "+strings.Join(input.FormatNames(), ", "))
	fl.StringSliceVar(&langs, "lang", []string{"en"}, "languages of labels, descriptions and aliases to keep")
	fl.BoolVar(&skip, "skip-invalid", false, "skip bad records (counted and logged) instead of stopping")
	fl.BoolVar(&keep, "keep-labels", false, "keep N-Quads graph labels (each label becomes a graph)")
	fl.BoolVar(&quiet, "quiet", false, "no progress bar")
	fl.BoolVar(&incremental, "incremental", false, "apply through transactions (small updates) instead of the bulk loader")
	fl.BoolVar(&del, "delete", false, "delete the quads of the files from the graph (transactional)")
	fl.IntVar(&batch, "batch", 10000, "quads per transaction with --incremental/--delete")
	wd.register(fl)
	fl.StringVar(&maxMemory, "max-memory", "auto", "memory budget of the bulk load (e.g. 512MiB, 8GiB; auto = a sixth of the RAM or cgroup limit, at least 512MiB): batches and sort runs beyond it are spilled to temporary files beside the database")
	fl.Bool("compress-temp", false, "compress the bulk load's temporary files (s2): about 0.6x the scratch disk for about 10% more CPU")
	fl.String("table-compression", "", "compression of the database's tables, kept by the database for later writes and compactions: snappy (the default) or zstd (about 0.75x the disk for about 10% more CPU in bulk loads); empty keeps the database's")
	fl.Bool("own-segment", true, "a bulk load of at least 2^20 quads of new graphs into a database holding data puts their node "+
		"blocks in a segment of their own (a second graph loads as fast as a first; reads of nodes in both graphs make one "+
		"more lookup); false merges them into the stored blocks")
	fl.Int64Var(&memLimit, "mem-limit", 0, "deprecated: --max-memory in bytes")
	_ = fl.MarkDeprecated("mem-limit", "use --max-memory")
	return cmd
}

// showProgress sets opts.Progress to draw a bar on a terminal, or to log
// a line per phase otherwise (nothing with quiet or --json); the returned
// function ends the display once the ingest has ended (ok: without
// error).
func (a *app) showProgress(quiet bool, opts *ingest.Options) (done func(ok bool)) {
	switch {
	case quiet || a.jsonOut():
		return func(bool) {}
	case isTerminal(a.stderr):
		bar := newBar(a.stderr)
		opts.Progress = func(p ingest.Progress) { updateBar(bar, p) }
		return func(bool) {
			_ = bar.Finish()
			fmt.Fprintln(a.stderr)
		}
	default:
		pl := &phaseLogger{log: slog.New(slog.NewTextHandler(a.stderr, nil))}
		opts.Progress = pl.update
		return func(ok bool) {
			if ok && pl.phase != "" {
				pl.done()
			}
		}
	}
}

func newBar(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("ingest"),
	)
}

// updateBar shows compressed bytes (with ETA) and quads/s while reading,
// then each commit phase with its own count, rate and ETA.
func updateBar(bar *progressbar.ProgressBar, p ingest.Progress) {
	if p.Phase != "" && p.PhaseTotal < 0 && p.PhaseDone == 0 {
		// A phase whose length is unknown and that reports no count as
		// it runs (a remote backend's insert): a spinner.
		if bar.GetMax64() != -1 {
			bar.ChangeMax64(-1)
		}
		bar.Describe(fmt.Sprintf("%s: in the database", p.Phase))
		_ = bar.Set64(0)
		return
	}
	if p.Phase != "" {
		if p.PhaseTotal > 0 && bar.GetMax64() != p.PhaseTotal {
			bar.ChangeMax64(p.PhaseTotal)
		}
		rate := float64(p.PhaseDone) / max(p.PhaseElapsed.Seconds(), 1e-9)
		desc := fmt.Sprintf("%s: %d, %.0f/s", p.Phase, p.PhaseDone, rate)
		if p.PhaseTotal > 0 && rate > 0 {
			desc += fmt.Sprintf(", ETA %s", (time.Duration(float64(p.PhaseTotal-p.PhaseDone)/rate) * time.Second).Round(time.Second))
		}
		bar.Describe(desc)
		_ = bar.Set64(p.PhaseDone)
		return
	}
	if p.Total > 0 && bar.GetMax64() != p.Total {
		bar.ChangeMax64(p.Total)
	}
	rate := float64(p.Quads) / max(p.Elapsed.Seconds(), 1e-9)
	desc := fmt.Sprintf("%d quads, %.0f quads/s", p.Quads, rate)
	if p.Skipped > 0 {
		desc += fmt.Sprintf(", %d skipped", p.Skipped)
	}
	if p.Committing {
		desc += ", writing"
	}
	bar.Describe(desc)
	_ = bar.Set64(min(p.Done, max(p.Total, p.Done)))
}

// phaseLogger writes one log line per finished phase (read, dictionary,
// map, write, labels, compact) when stderr is not a terminal.
type phaseLogger struct {
	log   *slog.Logger
	phase string
	start time.Duration
	last  ingest.Progress
}

func (pl *phaseLogger) update(p ingest.Progress) {
	phase := p.Phase
	if phase == "" {
		phase = "read"
	}
	if pl.phase != "" && phase != pl.phase {
		pl.last.Elapsed = p.Elapsed // the previous phase ended when this one began
		pl.last.Quads = p.Quads
		pl.done()
		pl.start = p.Elapsed
	}
	pl.phase, pl.last = phase, p
}

func (pl *phaseLogger) done() {
	took := pl.last.Elapsed - pl.start
	args := []any{"phase", pl.phase, "quads", pl.last.Quads, "took", took.Round(time.Millisecond)}
	if took > 10*time.Millisecond {
		args = append(args, "quads_per_s", int64(float64(pl.last.Quads)/took.Seconds()))
	}
	pl.log.Info("ingest phase done", args...)
}

// parseSize reads a byte size: a number with an optional unit (B, KB, MB,
// GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024; K, M, G, T
// as powers of 1024).
// maxSize bounds the sizes parseSize accepts, far below int64's overflow.
const maxSize = 1 << 60

func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad size %q (want e.g. 512MiB, 2GiB)", s)
	}
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "kb": 1e3, "m": 1 << 20, "mib": 1 << 20,
		"mb": 1e6, "g": 1 << 30, "gib": 1 << 30, "gb": 1e9, "t": 1 << 40, "tib": 1 << 40, "tb": 1e12}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("bad size unit in %q (want B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)", s)
	}
	if f*m >= maxSize {
		return 0, fmt.Errorf("size %q is too large (at most %d bytes)", s, int64(maxSize))
	}
	return int64(f * m), nil
}

// withGraphFiles appends the files of --graph-file NAME=FILE flags to
// files and maps each to its graph.
func withGraphFiles(files, flags []string) ([]string, map[string]string, error) {
	if len(flags) == 0 {
		return files, nil, nil
	}
	graphOf := map[string]string{}
	for _, fl := range flags {
		name, file, ok := strings.Cut(fl, "=")
		if !ok || strings.TrimSpace(name) == "" || file == "" {
			return nil, nil, fmt.Errorf("--graph-file %q: want NAME=FILE", fl)
		}
		if slices.Contains(files, file) {
			return nil, nil, fmt.Errorf("--graph-file %q: %s is loaded twice", fl, file)
		}
		files = append(files, file)
		graphOf[file] = strings.TrimSpace(name)
	}
	return files, graphOf, nil
}

// droppedHelp says what the dialect formats leave out by design, wrapped
// for the help text.
func droppedHelp() string {
	text := `The freebase and wikidata-truthy formats leave out statements that carry no facts, and ` +
		`the line of each file counts them ("24000 statements left out"). freebase: triples with a ` +
		`key namespace IRI (key:wikipedia.en), the predicates ` + strings.Join(rdf.FreebaseDropped(), ", ") +
		` (a name ending in "." is a prefix; ` + rdf.FreebaseMediator + ` stays), rdf:type triples (stored as ` +
		rdf.FreebaseType + `, repeats dropped), and names, aliases and descriptions not in --lang. ` +
		`wikidata-truthy: labels, aliases and descriptions not in --lang, a label repeated, normalized-value ` +
		`(wdtn:), wikibase: and schema.org bookkeeping predicates, and statements whose subject is not a ` +
		`Wikidata entity (Q, P or L id).`
	var b strings.Builder
	width := 0
	for _, w := range strings.Fields(text) {
		if width > 0 && width+1+len(w) > 90 {
			b.WriteByte('\n')
			width = 0
		} else if width > 0 {
			b.WriteByte(' ')
			width++
		}
		b.WriteString(w)
		width += len(w)
	}
	return b.String()
}

// allLeftOut says, for a file that loaded nothing, that its format left
// out every statement it read (none: "").
func allLeftOut(f ingest.FileResult) string {
	if f.Dropped == 0 {
		return ""
	}
	return fmt.Sprintf(": the %s format left out all %d statements read", f.Format, f.Dropped)
}

// quoteAll quotes each name and joins them with ", ".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func printIngest(w io.Writer, res ingest.Result, graph string) error {
	var graphs []string
	for _, f := range res.Files {
		fmt.Fprintf(w, "%s: %s, %d quads", f.Name, f.Format, f.Quads)
		if f.Dropped > 0 && f.Quads > 0 {
			fmt.Fprintf(w, " (%d statements left out by the %s format: see grove help ingest)", f.Dropped, f.Format)
		}
		g := cmp.Or(f.Graph, graph)
		if g != graph {
			fmt.Fprintf(w, " into graph %q", g)
		}
		if !slices.Contains(graphs, g) {
			graphs = append(graphs, g)
		}
		if f.Quads == 0 {
			// A format given by --format that reads nothing of the file
			// (wikidata-truthy over Freebase quads) loads nothing quietly.
			fmt.Fprintf(w, " (warning: nothing loaded from it%s; is it %s?)", allLeftOut(f), f.Format)
		}
		fmt.Fprintln(w)
	}
	what := fmt.Sprintf("graph %q", graph)
	if len(graphs) == 1 {
		what = fmt.Sprintf("graph %q", graphs[0])
	} else if len(graphs) > 1 {
		what = "graphs " + quoteAll(graphs)
	}
	ld := res.Load
	if ld.Duration > 0 {
		rate := float64(ld.Read) / ld.Duration.Seconds()
		fmt.Fprintf(w, "%s: %d quads read, %d new, %d new terms, %d labels and aliases read in %s (%.0f quads/s, %s writer)\n",
			what, ld.Read, ld.Added, ld.Terms, ld.Labels, ld.Duration.Round(time.Millisecond), rate, ld.Writer)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(w, "%d invalid records skipped, e.g.:\n", res.Skipped)
		for _, s := range res.Samples {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	return nil
}

// printApplied says how many quads an incremental run added or deleted,
// and how many of those read changed nothing.
func printApplied(w io.Writer, res ingest.Result, graph string, keep, del bool) {
	var read int64
	for _, f := range res.Files {
		read += f.Quads
	}
	where, verb, rest := fmt.Sprintf("graph %q", graph), "added", "were there already or repeated an earlier line"
	if keep {
		where = "the files' graphs"
	}
	if del {
		verb, rest = "deleted", "were not there or repeated an earlier line"
	}
	fmt.Fprintf(w, "%s: %d quads %s (%d of the %d read %s)\n", where, *res.Applied, verb, max(0, read-*res.Applied), read, rest)
}

// isTerminal reports whether w is a character device (a progress bar on a
// log file or pipe would only add noise).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// remoteScratch creates the temporary directory of a remote ingest's
// spool in os.TempDir, named after this process, after removing those of
// grove processes that no longer run (killed ones; a normal end removes
// its own).
func remoteScratch() (string, error) {
	const prefix = "grove-ingest-"
	if ents, err := os.ReadDir(os.TempDir()); err == nil {
		for _, e := range ents {
			pid, ok := scratchOwner(e.Name(), prefix)
			if ok && e.IsDir() && !processRuns(pid) {
				_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
			}
		}
	}
	return os.MkdirTemp("", fmt.Sprintf("%s%d-", prefix, os.Getpid()))
}

// scratchOwner is the process id in a name prefix + "PID-...".
func scratchOwner(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// processRuns reports whether process pid exists (signal 0 reaches it or
// is refused for permissions).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// remoteChunk is the most quads a remote write takes from the spool at a
// time.
const remoteChunk = 50_000

// ingestRemote parses files with the same readers as the embedded ingest
// into a spool (in memory up to a quarter of --max-memory, the rest in a
// temporary directory) and writes them to (or, with del, deletes them
// from) a non-embedded backend in one transaction; done ends the progress
// display.
func (a *app) ingestRemote(cmd *cobra.Command, w kgWriter, files []string, opts ingest.Options, del bool, done func(bool)) error {
	ctx := cmd.Context()
	began := time.Now()
	if c, ok := w.(interface{ Storable(quad.Quad) error }); ok && !del {
		opts.Check = c.Storable // a value the database cannot store is refused at its line
	}
	sp, res, err := ingest.SpoolFiles(ctx, files, opts, remoteScratch)
	if err != nil {
		done(false)
		return err
	}
	defer sp.Close()
	start := time.Now()
	verb := "new quads written"
	if del {
		verb = "quads deleted"
	}
	so := sqlkg.StreamOptions{Graph: opts.Graph, KeepLabels: opts.KeepLabels, Delete: del}
	n, err := writeSpool(ctx, w, sp, so, remotePhases{report: opts.Progress, began: began, quads: sp.Len()})
	done(err == nil)
	if err != nil {
		if del {
			return fmt.Errorf("ingest --delete: %w", err)
		}
		return err
	}
	out := struct {
		ingest.Result
		Added    int64         `json:"added"`
		Deleted  int64         `json:"deleted,omitempty"`
		Duration time.Duration `json:"duration_ns"`
	}{Result: res, Duration: time.Since(start)}
	if del {
		out.Deleted = n
	} else {
		out.Added = n
	}
	return a.emit(out, func(wr io.Writer) error {
		for _, f := range res.Files {
			fmt.Fprintf(wr, "%s: %s, %d quads\n", f.Name, f.Format, f.Quads)
		}
		fmt.Fprintf(wr, "graph %s: %d %s in %s", opts.Graph, n, verb, out.Duration.Round(time.Millisecond))
		if del {
			fmt.Fprintf(wr, " (%d of the %d read were not there or repeated an earlier line)", max(0, sp.Len()-n), sp.Len())
		}
		fmt.Fprintln(wr)
		return nil
	})
}

// remotePhases reports a remote write's phases: "copy" into the
// database's staging tables, then the set-based "insert" (or "delete")
// inside the database, whose length nothing measures as it runs.
type remotePhases struct {
	report func(ingest.Progress) // nil: no progress shown
	began  time.Time             // when the command began
	quads  int64                 // parsed
}

// show reports phase with done of total (< 0: unknown) since it began.
func (r remotePhases) show(phase string, done, total int64, since time.Time) {
	if r.report != nil {
		r.report(ingest.Progress{Phase: phase, Quads: r.quads, Elapsed: time.Since(r.began),
			PhaseDone: done, PhaseTotal: total, PhaseElapsed: time.Since(since)})
	}
}

// writeSpool writes (deletes) the quads of sp to w in one transaction,
// showing its phases.
func writeSpool(ctx context.Context, w kgWriter, sp *ingest.Spool, so sqlkg.StreamOptions, r remotePhases) (int64, error) {
	apply := "insert"
	if so.Delete {
		apply = "delete"
	}
	var applied time.Time
	n, err := w.WriteFrom(ctx, so, func(fn func([]quad.Quad) error) error {
		copyStart, copied := time.Now(), int64(0)
		err := sp.Each(ctx, remoteChunk, func(qs []quad.Quad) error {
			r.show("copy", copied, sp.Len(), copyStart)
			copied += int64(len(qs))
			return fn(qs)
		})
		if err == nil {
			applied = time.Now()
			r.show(apply, 0, -1, applied)
		}
		return err
	})
	if err == nil && !applied.IsZero() {
		r.show(apply, n, -1, applied)
	}
	return n, err
}

// wikidataFlags are ingest's options of the Wikidata JSON reader.
type wikidataFlags struct {
	allRanks, lexemes, noSitelinks bool
	ids                            []string
	filter                         string
}

// register adds the flags to fl.
func (w *wikidataFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&w.allRanks, "wikidata-all-ranks", false, "Wikidata JSON: keep every non-deprecated statement, not only the best rank")
	fl.BoolVar(&w.lexemes, "wikidata-lexemes", false, "Wikidata JSON: keep lexemes")
	fl.BoolVar(&w.noSitelinks, "wikidata-skip-sitelinks", false, "Wikidata JSON: drop sitelinks")
	fl.StringSliceVar(&w.ids, "wikidata-ids", nil, "Wikidata JSON: keep only these items and lexemes (Q and L ids; properties are always kept); with --wikidata-filter, entities either selects")
	fl.StringVar(&w.filter, "wikidata-filter", "", `Wikidata JSON: keep only items and lexemes whose statements match, e.g. "P31:Q5&~P570" `+
		`(clauses joined by &, each P (has the property) or P:v1,v2 (has one of the values), ~ negates; properties are always kept)`)
}

// options checks the flags and returns the reader's options (the
// languages and the rest of source.Options come from ingest.Options).
func (w *wikidataFlags) options() (wikidata.Options, error) {
	o := wikidata.Options{AllRanks: w.allRanks, KeepLexemes: w.lexemes, SkipSitelinks: w.noSitelinks}
	if len(w.ids) > 0 {
		ids, err := wikidata.ParseIDs(strings.Join(w.ids, ","))
		if err != nil {
			return o, fmt.Errorf("--wikidata-ids: %w", err)
		}
		o.IDs = ids
	}
	f, err := wikidata.ParseClaimFilter(w.filter)
	if err != nil {
		return o, fmt.Errorf("--wikidata-filter: %w", err)
	}
	o.ClaimFilter = f
	return o, nil
}
