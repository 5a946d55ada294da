package evalcli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/eval/sim"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// runFlags are the flags of `grove eval`.
type runFlags struct {
	dataset, format, shard, out string
	methods, graphs, params     []string
	limit, concurrency          int
	seed                        int64
	resume, retry, noTraces     bool
	topics, judge, quiet        bool
	timeout                     time.Duration
	simP, simNoise              float64
	simSeed                     uint64
}

func runCommand(app App) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate reasoning methods on a question dataset (results, traces, resumable)",
		Long: "Answer every question of a dataset with each method and append one result per question and method " +
			"to DIR/results.jsonl (with its trace under DIR/traces). Interrupted runs continue with --resume. " +
			"Methods are registered names or fallback pairs such as tot->cot (Chain-of-Thought when tot gives no " +
			"answer). Samples served from the response cache spend no tokens: results and the summary give the tokens " +
			"they cost when produced apart (cached_tokens; unknown for cache entries of older Groves) and where they " +
			"came from, and warn when another server produced them under the same model name. " +
			"See `grove eval report` for the tables and figures.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd, app, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dataset, "dataset", "", "dataset file (required)")
	fl.StringVar(&f.format, "format", "auto", "dataset format: auto or "+formatNames())
	fl.StringSliceVar(&f.methods, "method", []string{"tot"}, "methods, comma separated (name or primary->fallback)")
	fl.StringSliceVar(&f.graphs, "kg", nil, "graphs the questions use (default: all)")
	fl.StringVar(&f.out, "out", "", "output directory (required)")
	fl.IntVar(&f.limit, "limit", 0, "evaluate the first N questions after the paper's seeded shuffle (0: all, in file order)")
	fl.Int64Var(&f.seed, "seed", dataset.DefaultSeed, "shuffle seed for --limit")
	fl.IntVar(&f.concurrency, "concurrency", 4, "questions answered at once")
	fl.StringVar(&f.shard, "shard", "", "run shard i of n, e.g. 1/4")
	fl.BoolVar(&f.resume, "resume", false, "continue the run in --out, skipping finished questions")
	fl.BoolVar(&f.retry, "retry-errors", false, "with --resume, run again the questions that ended in an error")
	fl.DurationVar(&f.timeout, "question-timeout", 0, "time limit per question and method (0: none)")
	fl.BoolVar(&f.topics, "topic-entities", false, "give the methods the dataset's topic entities")
	fl.StringArrayVar(&f.params, "param", nil, "method parameter method.key=value (repeatable), e.g. tot.k=5")
	fl.BoolVar(&f.judge, "judge", false, "also score every answer with the model as an LLM judge")
	fl.BoolVar(&f.noTraces, "no-traces", false, "do not write trace files")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fl.Float64Var(&f.simP, "sim", 0, "answer with the simulated oracle of this skill P in (0, 1] instead of the model")
	fl.Float64Var(&f.simNoise, "sim-noise", 0.1, "score noise of the simulated oracle")
	fl.Uint64Var(&f.simSeed, "sim-seed", 1, "seed of the simulated oracle")
	return cmd
}

func formatNames() string {
	var names []string
	for _, f := range dataset.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// config checks the flags and builds the run configuration (without the
// model and KG).
func (f *runFlags) config() (eval.Config, error) {
	var cfg eval.Config
	if f.dataset == "" || f.out == "" {
		return cfg, fmt.Errorf("--dataset and --out are required")
	}
	format, err := dataset.ParseFormat(f.format)
	if err != nil {
		return cfg, fmt.Errorf("--format: %w", err)
	}
	shard, err := eval.ParseShard(f.shard)
	if err != nil {
		return cfg, fmt.Errorf("--shard: %w", err)
	}
	params, err := ParseParams(f.params)
	if err != nil {
		return cfg, err
	}
	if f.simP < 0 || f.simP > 1 {
		return cfg, fmt.Errorf("--sim must be in (0, 1], got %g", f.simP)
	}
	if f.judge && f.simP > 0 {
		return cfg, fmt.Errorf("--judge scores the answers with the model as an LLM judge, but --sim replaces the " +
			"model with the simulated oracle (not an LLM): drop one of them")
	}
	return eval.Config{Dataset: f.dataset, Format: format, Methods: f.methods, Params: params, Graphs: f.graphs,
		TopicEntities: f.topics, Out: f.out, Limit: f.limit, Seed: f.seed, Concurrency: f.concurrency, Shard: shard,
		Resume: f.resume, RetryErrors: f.retry, Timeout: f.timeout, NoTraces: f.noTraces}, nil
}

func runEval(cmd *cobra.Command, app App, f *runFlags) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if m := app.modelConfigured(); f.simP > 0 && m != "" {
		return fmt.Errorf("--sim answers with the simulated oracle (not an LLM) instead of the model, but a model "+
			"is configured (%s): drop --sim to evaluate the model, or drop the model settings to simulate", m)
	}
	ctx := cmd.Context()
	return withKG(ctx, app, func(kg store.KG) error {
		model, closer, err := f.model(ctx, app, kg, cfg)
		if err != nil {
			return err
		}
		if closer != nil {
			defer closer.Close()
		}
		cfg.Registry = app.Registry()
		if app.DescribeKG != nil {
			cfg.KG = app.DescribeKG()
		}
		cfg.Deps = reasoner.Deps{KG: kg, Model: model, Logger: app.logger()}
		if f.judge {
			if info := llm.Describe(model); info.NotLLM {
				return fmt.Errorf("--judge scores the answers with the model as an LLM judge, but the model is %s: "+
					"configure a language model (--llm URL --model NAME, GROVE_LLM_URL, llm.url)", info)
			}
			cfg.Judge = &metric.Judge{Model: model, Logger: app.logger()}
		}
		var finish func()
		if !f.quiet {
			cfg.Progress, finish = progressBar(app.stderr(cmd))
		}
		sum, err := eval.Run(ctx, cfg)
		if finish != nil {
			finish()
		}
		if sum != nil {
			if perr := printSummary(app.stdout(cmd), app.json(), sum); perr != nil && err == nil {
				err = perr
			}
			if err == nil && sum.Errors > 0 {
				err = fmt.Errorf("%d of %d runs ended in an error (see \"error\" in %s; --resume --retry-errors "+
					"runs them again)", sum.Errors, sum.Jobs, sum.ResultsFile)
			}
		}
		return err
	})
}

// model is the configured model, or the simulated oracle with --sim.
func (f *runFlags) model(ctx context.Context, app App, kg store.KG, cfg eval.Config) (llm.Model, io.Closer, error) {
	if f.simP == 0 {
		if app.OpenModel == nil {
			return nil, nil, fmt.Errorf("evalcli: App.OpenModel is nil")
		}
		m, c, err := app.OpenModel(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("open model: %w", err)
		}
		return m, c, nil
	}
	golds, err := loadGolds(ctx, kg, cfg.Dataset, cfg.Format)
	if err != nil {
		return nil, nil, err
	}
	o, err := sim.NewOracle(golds, sim.OracleConfig{P: f.simP, Noise: f.simNoise, Seed: f.simSeed})
	return o, nil, err
}

// loadGolds reads a dataset and its gold paths (a "path" field per line,
// or 2Wiki evidences).
func loadGolds(ctx context.Context, kg store.KG, path string, format dataset.Format) ([]sim.Gold, error) {
	qs, err := dataset.Load(path, format)
	if err != nil {
		return nil, err
	}
	paths := map[string][]string{}
	if f, err := dataset.Detect(path); err == nil && f == dataset.FormatJSONL {
		if paths, err = sim.ReadPaths(path); err != nil {
			return nil, err
		}
	}
	return sim.Golds(ctx, kg, qs, paths)
}

// progressBar returns a progress callback drawing a bar on w (count,
// rate, elapsed, ETA, running EM-in per method) and a function that ends
// it: filled when every run finished, left at what ran when the run was
// interrupted.
func progressBar(w io.Writer) (func(eval.Progress), func()) {
	b := &bar{w: w}
	return b.update, b.finish
}

// barThrottle is the least time between two redraws of the bar.
const barThrottle = 200 * time.Millisecond

// bar is the eval progress bar. It throttles the redraws itself (the
// library's throttle could leave the last state undrawn) and keeps the
// last progress, which finish draws.
type bar struct {
	w       io.Writer
	bar     *progressbar.ProgressBar
	resumed int
	last    eval.Progress
	drawn   time.Time
	pending bool
}

// update records p and redraws the bar unless it was drawn just now.
func (b *bar) update(p eval.Progress) {
	if b.bar == nil {
		b.resumed = p.Resumed
		b.bar = progressbar.NewOptions(p.Total-b.resumed, progressbar.OptionSetWriter(b.w),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("q"),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(24), progressbar.OptionShowDescriptionAtLineEnd())
	}
	b.last, b.pending = p, true
	if time.Since(b.drawn) >= barThrottle {
		b.draw()
	}
}

// draw shows the last progress.
func (b *bar) draw() {
	b.bar.Describe(describe(b.last))
	_ = b.bar.Set(b.last.Done - b.resumed)
	b.drawn, b.pending = time.Now(), false
}

// finish ends the bar with the last progress drawn (figures the throttle
// held back included): full when every run is done, otherwise (an
// interrupted run) at the runs done, never filled to 100%.
func (b *bar) finish() {
	if b.bar == nil {
		return
	}
	if b.pending {
		b.draw()
	}
	if b.last.Done >= b.last.Total {
		_ = b.bar.Finish()
	}
	fmt.Fprintln(b.w)
}

// describe is the bar's description: running EM-in by method, errors and
// resumed counts.
func describe(p eval.Progress) string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(p.Methods)) {
		parts = append(parts, fmt.Sprintf("%s %.1f", m, 100*p.Methods[m].EMIn))
	}
	s := "EM-in " + strings.Join(parts, " | ")
	if len(parts) == 0 {
		s = "EM-in -"
	}
	if p.Errors > 0 {
		s += fmt.Sprintf(" | %d errors", p.Errors)
	}
	if p.Resumed > 0 {
		s += fmt.Sprintf(" | %d resumed", p.Resumed)
	}
	return s
}

// summary is the JSON form of a run summary (without the results).
type summary struct {
	Dir           string   `json:"dir"`
	ResultsFile   string   `json:"results_file"`
	Model         llm.Info `json:"model"`
	Dataset       string   `json:"dataset"`
	Graphs        []string `json:"graphs"`
	KG            string   `json:"kg,omitempty"`
	Questions     int      `json:"questions"`
	Skipped       int      `json:"skipped"`
	GoldIDsOnly   int      `json:"gold_ids_only"`
	MissingTopics int      `json:"missing_topics"`
	// TopicIDs is the topic-entity ids the questions were asked with
	// (freebase or wikidata) when the dataset gives both.
	TopicIDs string `json:"topic_ids,omitempty"`
	Jobs     int    `json:"jobs"`
	Resumed  int    `json:"resumed"`
	Ran      int    `json:"ran"`
	Errors   int    `json:"errors"`
	// NotRun counts the runs neither resumed nor run: the run was stopped
	// (Ctrl-C, SIGTERM, a failed write) before them.
	NotRun      int                `json:"not_run"`
	Judge       *llm.Info          `json:"judge,omitempty"`
	Judged      int                `json:"judged,omitempty"`
	JudgeErrors int                `json:"judge_errors,omitempty"`
	EMIn        map[string]float64 `json:"em_in"`
	// Cache is the response cache's part of the results (absent when it
	// served no sample).
	Cache    *eval.CacheUse `json:"cache,omitempty"`
	Elapsed  string         `json:"elapsed"`
	Warnings []string       `json:"warnings,omitempty"`
}

func printSummary(w io.Writer, asJSON bool, s *eval.Summary) error {
	out := summary{Dir: s.Dir, ResultsFile: s.ResultsFile, Model: s.Model, Dataset: s.Dataset, Graphs: s.Graphs, KG: s.KG, Questions: s.Questions, Skipped: s.Skipped, GoldIDsOnly: s.GoldIDsOnly, MissingTopics: s.MissingTopics, TopicIDs: s.TopicIDs, Jobs: s.Jobs,
		Resumed: s.Resumed, Ran: s.Ran, Errors: s.Errors, NotRun: s.Jobs - s.Resumed - s.Ran, Judge: s.Judge, Judged: s.Judged,
		JudgeErrors: s.JudgeErrors, EMIn: map[string]float64{}, Elapsed: s.Elapsed.Round(time.Millisecond).String(),
		Warnings: s.Warnings}
	if s.Cache.CacheHits > 0 {
		c := s.Cache
		out.Cache = &c
	}
	n := map[string]int{}
	errs := map[string]int{}
	for _, r := range s.Results {
		if r.Error != "" {
			errs[r.Method]++        // no answer to score: not averaged as 0
			out.EMIn[r.Method] += 0 // list the method even when every run failed
			continue
		}
		out.EMIn[r.Method] += r.Scores[eval.ScoreEMIn]
		n[r.Method]++
	}
	for m := range out.EMIn {
		if n[m] > 0 {
			out.EMIn[m] /= float64(n[m])
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s\n", out.Model)
	graphs := strings.Join(out.Graphs, ", ")
	if graphs == "" {
		graphs = "all graphs"
	}
	if out.KG != "" {
		graphs += " of " + out.KG
	}
	if out.TopicIDs != "" {
		graphs += ", topic entities as " + out.TopicIDs + " ids"
	}
	fmt.Fprintf(&b, "dataset: %s\nkg: %s\n", cmp.Or(out.Dataset, "questions given in code"), graphs)
	if out.Judge != nil {
		fmt.Fprintf(&b, "judge: %s\n", out.Judge)
	}
	fmt.Fprintf(&b, "%d questions (%d skipped without gold), %d runs: %d resumed, %d ran, %d errors",
		out.Questions, out.Skipped, out.Jobs, out.Resumed, out.Ran, out.Errors)
	if out.NotRun > 0 {
		fmt.Fprintf(&b, ", %d NOT RUN (the run was stopped; --resume runs them)", out.NotRun)
	}
	fmt.Fprintf(&b, ", in %s\n", out.Elapsed)
	if out.Judge != nil {
		fmt.Fprintf(&b, "judge failed on %d of %d answers (no judge score for them)\n", out.JudgeErrors, out.Judged)
	}
	for _, m := range slices.Sorted(maps.Keys(out.EMIn)) {
		fmt.Fprintf(&b, "  %-20s EM-in %5.1f%% (%d)", m, 100*out.EMIn[m], n[m])
		if errs[m] > 0 {
			fmt.Fprintf(&b, ", %d errors not averaged", errs[m])
		}
		b.WriteString("\n")
	}
	if out.Cache != nil {
		fmt.Fprintf(&b, "%s\n", out.Cache)
	}
	if out.Errors > 0 {
		fmt.Fprintf(&b, "%d runs ended in an error: they are left out of the EM-in averages (see \"error\" in the results)\n",
			out.Errors)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	fmt.Fprintf(&b, "results: %s\nreport:  grove eval report %s\n", out.ResultsFile, out.Dir)
	_, err := io.WriteString(w, b.String())
	return err
}
