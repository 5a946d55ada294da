package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// Progress reports how far a run is.
type Progress struct {
	// Total is the number of (question, method) runs of this run,
	// resumed ones included; Done how many are finished (resumed included).
	Total   int
	Done    int
	Resumed int
	Errors  int
	// EMIn is the mean EM-in over the finished runs without an error.
	EMIn float64
	// Methods has the finished count and mean EM-in of each method.
	Methods map[string]MethodProgress
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// Last is the result just finished (nil in the first report).
	Last *Result
}

// MethodProgress is one method's part of a Progress: Done counts its
// finished runs without an error, over which EMIn is averaged.
type MethodProgress struct {
	Done int
	EMIn float64
}

// Summary is what Run did.
type Summary struct {
	Dir         string
	ResultsFile string
	// Model names the model that answered (as in the manifest).
	Model llm.Info
	// Dataset is the dataset file ("" for questions given in code), Graphs
	// the graphs the questions used (empty: all) and KG the store read.
	Dataset string
	Graphs  []string
	KG      string
	// Questions is the number of questions evaluated (in this shard);
	// Skipped those dropped for having no gold answer.
	Questions int
	Skipped   int
	// GoldIDsOnly counts the questions (in this shard) whose gold answers
	// are bare ids because the KG has no label for them.
	GoldIDsOnly int
	// MissingTopics counts the questions (in this shard) with a topic
	// entity the run's graphs do not have (with Config.TopicEntities only).
	MissingTopics int
	// TopicIDs is the topic-entity ids the questions were asked with
	// (TopicIDsFreebase or TopicIDsWikidata) when the dataset gives both;
	// "" otherwise.
	TopicIDs string
	// Jobs is Questions x methods; Resumed of them were already done, Ran
	// were run now, Errors ended in an error.
	Jobs    int
	Resumed int
	Ran     int
	Errors  int
	// Judge names the LLM judge when one scored the answers (as in the
	// manifest); Judged counts the finished results it was asked about and
	// JudgeErrors those it failed on (Result.JudgeError; they have no
	// judge score).
	Judge       *llm.Info
	Judged      int
	JudgeErrors int
	// Results holds one result per finished job, in completion order
	// (resumed ones first).
	Results []Result
	Elapsed time.Duration
	// Cache says how many of the results' samples the response cache
	// served, what they cost when produced and where they came from.
	Cache CacheUse
	// Warnings are things the reader of the numbers must know (an
	// unchecked resume, ...).
	Warnings []string
}

// method is one built method spec.
type method struct {
	name string
	r    reasoner.Reasoner
}

// job is one (question, method) run.
type job struct {
	q      dataset.Question
	index  int
	method method
}

func (j job) key() string { return j.method.name + "\x00" + j.q.ID }

// Run evaluates every method of cfg on the dataset's questions and
// appends one Result per (question, method) to the results file in
// cfg.Out, writing each run's trace beside it. Questions run concurrently
// (cfg.Concurrency); each record is synced as soon as it is written, so a
// run interrupted by a crash or by cancelling ctx loses only the questions
// in flight, and Run with cfg.Resume continues where it stopped. On
// cancellation Run returns the summary so far with the context's error.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	qs, skipped, err := loadQuestions(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	methods, err := buildMethods(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Deps.KG != nil && len(cfg.Graphs) > 0 {
		// An unknown graph would fail every question; say so once, before
		// a results directory is written.
		if _, err := reasoner.ResolveGraphs(ctx, cfg.Deps.KG, reasoner.Query{Graphs: cfg.Graphs}); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
	}
	if err := checkTopics(ctx, &cfg, qs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	rl, prev, warnings, err := openRun(&cfg, qs, skipped, methods, start)
	if err != nil {
		return nil, err
	}
	r := newRunner(&cfg, rl, start)
	r.sum.Warnings = append(r.sum.Warnings, warnings...)
	for _, w := range warnings {
		r.slog.Warn("eval: " + w)
	}
	jobs := r.plan(qs, methods, prev)
	r.sum.Questions, r.sum.Skipped, r.sum.TopicIDs = r.shardSize(qs), skipped, cfg.topicIDs
	for _, q := range qs {
		if !r.cfg.Shard.Has(q.index) {
			continue
		}
		if q.q.Meta[dataset.MetaIDsOnly] == "true" {
			r.sum.GoldIDsOnly++
		}
		if q.q.Meta[metaMissingTopics] != "" {
			r.sum.MissingTopics++
		}
	}
	if n := r.sum.GoldIDsOnly; n > 0 {
		r.sum.Warnings = append(r.sum.Warnings, IDsOnlyWarning(n, r.sum.Questions))
	}
	if n := r.sum.MissingTopics; n > 0 {
		r.sum.Warnings = append(r.sum.Warnings, MissingTopicsWarning(n, r.sum.Questions))
	}
	r.report(nil)
	runErr := r.runAll(ctx, jobs)
	r.sum.Cache = NewCacheUse(r.sum.Results, r.sum.Model)
	if err := updateManifest(filepath.Join(cfg.Out, manifestName(cfg.Shard)), r.sum.Cache); err != nil && runErr == nil {
		runErr = err
	}
	if err := rl.close(); err != nil && runErr == nil {
		runErr = err
	}
	for _, w := range []string{servedWarning(r.sum.Results), r.sum.Cache.Warning(r.sum.Model)} {
		if w != "" {
			r.sum.Warnings = append(r.sum.Warnings, w)
			r.slog.Warn("eval: " + w)
		}
	}
	r.sum.Elapsed = time.Since(start)
	return &r.sum, runErr
}

// openRun reconciles and writes the manifest and opens the results file.
// It also returns warnings for the summary.
func openRun(cfg *Config, qs []indexed, skipped int, methods []method, start time.Time) (*resultLog, []Result, []string, error) {
	var shardQs []dataset.Question
	for _, q := range qs {
		if cfg.Shard.Has(q.index) {
			shardQs = append(shardQs, q.q)
		}
	}
	m := Manifest{Dataset: absPath(cfg.Dataset), Format: string(cfg.Format), FormatDetected: cfg.formatDetected,
		Limit: cfg.Limit, Seed: cfg.seed(),
		Shard: cfg.Shard.String(), Questions: len(shardQs), QuestionsHash: hashIDs(shardQs),
		ContentHash: hashContent(shardQs), Skipped: skipped,
		Graphs: cfg.Graphs, KG: cfg.KG, TopicEntities: cfg.TopicEntities, TopicIDs: cfg.topicIDs, Params: usedParams(cfg, methods), Started: start,
		Updated: start, Model: llm.Describe(cfg.Deps.Model), Grove: reasoner.Version()}
	if cfg.Judge != nil {
		j := llm.Describe(cfg.Judge.Model)
		m.Judge = &j
	}
	for _, me := range methods {
		m.Methods = append(m.Methods, me.name)
	}
	mpath := filepath.Join(cfg.Out, manifestName(cfg.Shard))
	rpath := filepath.Join(cfg.Out, resultsName(cfg.Shard))
	// The results file is locked first: reading it, cutting a torn line
	// and rewriting the manifest are for one run at a time.
	rl, prev, torn, err := openLog(rpath, cfg.Resume)
	if err != nil {
		return nil, nil, nil, err
	}
	m.Cache = NewCacheUse(prev, m.Model).orNil()
	var warnings []string
	if cfg.Resume {
		if m, warnings, err = reconcile(mpath, m, shardQs, prev); err != nil {
			rl.close()
			return nil, nil, nil, err
		}
	}
	if err := rl.cut(torn); err != nil {
		rl.close()
		return nil, nil, nil, err
	}
	if err := writeManifest(mpath, m); err != nil {
		rl.close()
		return nil, nil, nil, err
	}
	return rl, prev, warnings, nil
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// usedParams returns the parameters of the methods the specs name.
func usedParams(cfg *Config, methods []method) map[string]reasoner.Params {
	out := map[string]reasoner.Params{}
	for _, me := range methods {
		p, f, _ := reasoner.ParseSpec(me.name)
		for _, n := range []string{p, f} {
			if ps, ok := cfg.Params[n]; ok && n != "" {
				out[n] = ps
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// indexed is a question with its position in the evaluated list.
type indexed struct {
	q     dataset.Question
	index int
}

// loadQuestions reads, samples, label-resolves and filters the questions.
// It returns them with their positions, and the number dropped for
// loadDataset reads cfg.Dataset; with FormatAuto it first detects the
// format and records it in cfg (Format, formatDetected), so that the
// manifest and the report name it.
func loadDataset(cfg *Config) ([]dataset.Question, error) {
	if cfg.Format == dataset.FormatAuto {
		f, err := dataset.Detect(cfg.Dataset)
		if err != nil {
			return nil, err
		}
		cfg.Format, cfg.formatDetected = f, true
	}
	return dataset.Load(cfg.Dataset, cfg.Format)
}

// having no gold answer.
func loadQuestions(ctx context.Context, cfg *Config) ([]indexed, int, error) {
	qs := cfg.Questions
	if qs == nil {
		var err error
		if qs, err = loadDataset(cfg); err != nil {
			return nil, 0, err
		}
	}
	// The records of each id, in the dataset's order, to name duplicates
	// by (the positions below are after sampling).
	records := map[string][]string{}
	for i, q := range qs {
		records[q.ID] = append(records[q.ID], strconv.Itoa(i+1))
	}
	if cfg.Limit > 0 {
		qs = dataset.Sample(qs, cfg.Limit, cfg.seed())
	} else {
		qs = slices.Clone(qs)
	}
	for i := range qs {
		qs[i].Meta = maps.Clone(qs[i].Meta)
	}
	if err := dataset.Resolve(ctx, qs, kgLabeler{cfg.Deps.KG}); err != nil {
		return nil, 0, err
	}
	var out []indexed
	seen := map[string]int{}
	skipped := 0
	for i, q := range qs {
		if !hasGold(q) {
			skipped++
			continue
		}
		if _, dup := seen[q.ID]; dup {
			where := "the questions given"
			if cfg.Dataset != "" {
				where = cfg.Dataset
			}
			return nil, 0, fmt.Errorf("dataset %s: question id %q is used by more than one question (records %s): "+
				"results are kept by id, so ids must be unique", where, q.ID, strings.Join(records[q.ID], ", "))
		}
		seen[q.ID] = i
		out = append(out, indexed{q: q, index: len(out)})
	}
	return out, skipped, nil
}

func hasGold(q dataset.Question) bool {
	return slices.ContainsFunc(q.Answers, func(a string) bool { return strings.TrimSpace(a) != "" })
}

// kgLabeler gives entity labels from the KG; without a KG it knows none,
// and Resolve then uses the ids as answers.
type kgLabeler struct{ kg store.KG }

func (l kgLabeler) Label(ctx context.Context, id string) (string, bool) {
	if l.kg == nil {
		return "", false
	}
	e, err := l.kg.Entity(ctx, id)
	if err != nil || e.Label == "" {
		return "", false
	}
	return e.Label, true
}

// buildMethods builds every method spec once; the reasoners are shared by
// all questions (they are safe for concurrent use).
func buildMethods(cfg *Config) ([]method, error) {
	var out []method
	for _, spec := range cfg.Methods {
		p, f, err := reasoner.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		name := reasoner.SpecName(p, f)
		if slices.ContainsFunc(out, func(m method) bool { return m.name == name }) {
			return nil, fmt.Errorf("method %s is listed twice", name)
		}
		r, err := cfg.Registry.Build(name, cfg.Deps, func(n string) reasoner.Params { return cfg.Params[n] })
		if err != nil {
			return nil, err
		}
		out = append(out, method{name: name, r: r})
	}
	return out, nil
}

// runner is the state of one Run.
type runner struct {
	cfg   *Config
	log   *resultLog
	slog  *slog.Logger
	start time.Time
	shard string

	// Guarded by log.mu.
	sum   Summary
	total int
	sumEM float64
	// scored counts the finished results without an error.
	scored int
	byM    map[string]*methodAcc
}

type methodAcc struct {
	done int
	sum  float64
}

func newRunner(cfg *Config, rl *resultLog, start time.Time) *runner {
	lg := cfg.Deps.Logger
	if lg == nil {
		lg = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &runner{cfg: cfg, log: rl, slog: lg, start: start, shard: cfg.Shard.String(),
		sum: Summary{Dir: cfg.Out, ResultsFile: rl.path, Model: llm.Describe(cfg.Deps.Model), Dataset: absPath(cfg.Dataset),
			Graphs: cfg.Graphs, KG: cfg.KG}, byM: map[string]*methodAcc{}}
	if cfg.Judge != nil {
		j := llm.Describe(cfg.Judge.Model)
		r.sum.Judge = &j
	}
	return r
}

func (r *runner) shardSize(qs []indexed) int {
	n := 0
	for _, q := range qs {
		if r.cfg.Shard.Has(q.index) {
			n++
		}
	}
	return n
}

// plan lists the jobs of this shard not finished by a previous run, and
// counts the finished ones.
func (r *runner) plan(qs []indexed, methods []method, prev []Result) []job {
	done := map[string]Result{}
	for _, p := range prev {
		if old, seen := done[p.Key()]; seen && old.Error == "" && p.Error != "" {
			continue
		}
		done[p.Key()] = p
	}
	var jobs []job
	for _, q := range qs {
		if !r.cfg.Shard.Has(q.index) {
			continue
		}
		for _, m := range methods {
			j := job{q: q.q, index: q.index, method: m}
			r.total++
			if p, ok := done[j.key()]; ok && (p.Error == "" || !r.cfg.RetryErrors) {
				r.count(p)
				r.sum.Resumed++
				continue
			}
			jobs = append(jobs, j)
		}
	}
	r.sum.Jobs = r.total
	return jobs
}

// count adds a finished result to the summary. The caller holds log.mu
// (or runs before the workers start).
func (r *runner) count(res Result) {
	r.sum.Results = append(r.sum.Results, res)
	if res.Error != "" {
		r.sum.Errors++
	}
	if _, scored := res.Scores[ScoreJudge]; scored || res.JudgeError != "" {
		r.sum.Judged++
	}
	if res.JudgeError != "" {
		r.sum.JudgeErrors++
	}
	acc := r.byM[res.Method]
	if acc == nil {
		acc = &methodAcc{}
		r.byM[res.Method] = acc
	}
	if res.Error != "" {
		return // no answer to score: not averaged as 0
	}
	em := res.Scores[ScoreEMIn]
	r.sumEM += em
	r.scored++
	acc.done++
	acc.sum += em
}

// report calls the progress callback. The caller holds log.mu (or runs
// before the workers start).
func (r *runner) report(last *Result) {
	if r.cfg.Progress == nil {
		return
	}
	done := len(r.sum.Results)
	p := Progress{Total: r.total, Done: done, Resumed: r.sum.Resumed, Errors: r.sum.Errors,
		Elapsed: time.Since(r.start), Last: last, Methods: map[string]MethodProgress{}}
	if r.scored > 0 {
		p.EMIn = r.sumEM / float64(r.scored)
	}
	for name, acc := range r.byM {
		mp := MethodProgress{Done: acc.done}
		if acc.done > 0 {
			mp.EMIn = acc.sum / float64(acc.done)
		}
		p.Methods[name] = mp
	}
	r.cfg.Progress(p)
}

// runAll runs the jobs on cfg.Concurrency workers. It stops at the first
// fatal error (a results or trace write failing) or when ctx is done.
func (r *runner) runAll(ctx context.Context, jobs []job) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ch := make(chan job)
	var wg sync.WaitGroup
	for range min(max(1, r.cfg.Concurrency), len(jobs)) {
		wg.Go(func() {
			for j := range ch {
				if err := r.do(ctx, j); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// do runs one job and records its result; it returns an error only when
// the run must stop (cancellation, a failed write).
func (r *runner) do(ctx context.Context, j job) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	res, err := r.answer(ctx, j)
	if err != nil {
		return err
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if err := r.log.append(res); err != nil {
		return err
	}
	r.sum.Ran++
	r.count(res)
	r.slog.Debug("eval: finished", "method", res.Method, "id", res.ID, "em_in", res.Scores[ScoreEMIn],
		"wall", res.WallTime, "error", res.Error)
	r.report(&res)
	return nil
}

// answer runs the method on the question, scores the answer and writes
// the trace. A cancelled ctx returns its error (nothing is recorded).
func (r *runner) answer(ctx context.Context, j job) (Result, error) {
	start := time.Now()
	tr, err := r.call(ctx, j)
	wall := time.Since(start)
	if ctx.Err() != nil {
		return Result{}, context.Cause(ctx)
	}
	res := newResult(j, tr, err, wall, r.shard)
	r.judge(ctx, &res, j.q)
	if ctx.Err() != nil {
		return Result{}, context.Cause(ctx)
	}
	if tr != nil && !r.cfg.NoTraces {
		rel := traceRel(j.method.name, j.q.ID)
		if err := WriteTrace(filepath.Join(r.cfg.Out, rel), tr); err != nil {
			return Result{}, err
		}
		res.Trace = rel
	}
	return res, nil
}

// call runs the method with the per-question timeout, turning a panic
// into an error so one bad question cannot end a long run.
func (r *runner) call(ctx context.Context, j job) (tr *trace.Trace, err error) {
	if r.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancel()
	}
	defer func() {
		if p := recover(); p != nil {
			tr, err = nil, fmt.Errorf("method %s panicked on question %s: %v", j.method.name, j.q.ID, p)
		}
	}()
	tr, err = j.method.r.Answer(ctx, query(r.cfg, j.q))
	if errors.Is(err, context.DeadlineExceeded) && r.cfg.Timeout > 0 {
		err = fmt.Errorf("timed out after %s: %w", r.cfg.Timeout, err)
	}
	return tr, err
}

// query builds the reasoner query of a question.
func query(cfg *Config, q dataset.Question) reasoner.Query {
	rq := reasoner.Query{Question: q.Question, Graphs: cfg.Graphs}
	if cfg.TopicEntities {
		rq.TopicEntities = slices.Sorted(maps.Keys(q.TopicEntities))
	}
	return rq
}

// newResult fills a Result from a trace (nil when the method failed
// before starting one).
func newResult(j job, tr *trace.Trace, err error, wall time.Duration, shard string) Result {
	q := j.q
	res := Result{ID: q.ID, Method: j.method.name, Index: j.index, Question: q.Question, Type: q.Type,
		Gold: q.Answers, GoldIDs: q.AnswerIDs, GoldIDsOnly: q.Meta[dataset.MetaIDsOnly] == "true",
		MissingTopics: strings.Fields(q.Meta[metaMissingTopics]), WallTime: wall, Shard: shard, Finished: time.Now().UTC()}
	if tr != nil {
		a := tr.Answer
		res.Answer, res.Found, res.Value, res.Confident = a.Text, a.Found, a.Value, a.Confident
		res.AnswerEntities = a.Entities
		res.Model, res.ServedModels = tr.Model.Name, tr.ServedModels
		res.Fallback = reasoner.UsedFallback(tr)
		t := tr.Totals
		res.PromptTokens, res.CompletionTokens, res.Tokens = t.PromptTokens, t.CompletionTokens, t.Tokens
		res.ModelCalls, res.Samples, res.CacheHits, res.KGCalls = t.ModelCalls, t.Samples, t.CacheHits, t.KGCalls
		res.CachedPromptTokens, res.CachedCompletionTokens = t.CachedPromptTokens, t.CachedCompletionTokens
		res.CachedTokens, res.CacheUnknownUsage, res.CacheSources = t.CachedTokens, t.CacheUnknownUsage, tr.CacheSources
		res.Nodes, res.Expansions = t.Nodes, t.Expansions
	}
	if err != nil {
		res.Error = err.Error()
	}
	res.Scores = Score(res.Answer, res.AnswerEntities, q)
	if !res.Found {
		zero(res.Scores)
	}
	return res
}

// zero sets every score to 0: a result without an answer (the method gave
// up, or failed) is wrong whatever its text says, though as a substring
// "unknown" contains a gold "no" and a give-up text may echo a gold.
func zero(scores map[string]float64) {
	for k := range scores {
		scores[k] = 0
	}
}

// judge adds the LLM-judge score when a judge is configured.
func (r *runner) judge(ctx context.Context, res *Result, q dataset.Question) {
	if r.cfg.Judge == nil {
		return
	}
	v, err := r.cfg.Judge.Judge(ctx, q.Question, res.Answer, q.Answers)
	res.JudgeTokens = v.Usage.PromptTokens + v.Usage.CompletionTokens
	res.JudgeCachedTokens = v.CachedUsage.PromptTokens + v.CachedUsage.CompletionTokens
	res.JudgeCacheUnknownUsage = v.CacheUnknownUsage
	if err != nil {
		res.JudgeError = err.Error()
		r.slog.Warn("eval: the judge failed", "method", res.Method, "id", res.ID, "error", err)
		return
	}
	res.Scores[ScoreJudge] = v.Score()
}

// IDsOnlyWarning says that n of the questions have gold answers given
// only as ids.
func IDsOnlyWarning(n, of int) string {
	return fmt.Sprintf("%d of %d questions have gold answers given only as ids (the KG has no label for them), "+
		"which a text answer cannot match", n, of)
}

// metaMissingTopics is the question Meta key where checkTopics lists,
// space separated, the topic entities missing from the KG.
const metaMissingTopics = "grove_missing_topics"

// checkTopics records, with Config.TopicEntities, the topic entities of
// the questions that the run's graphs (Config.Graphs; all when empty) do
// not have: the methods start from them, so a missing one is a question
// the run cannot answer as intended, which the results and the summary
// must show. A question with both Freebase and Wikidata topic entities
// (WebQuestions, CWQ) is asked with those of the run's graphs, as
// chooseTopicIDs decides over the whole sample, not the shard, so that
// every shard of a run chooses alike; the choice is kept in
// cfg.topicIDs (for the manifest) and the ids not chosen are neither
// passed nor counted as missing.
func checkTopics(ctx context.Context, cfg *Config, qs []indexed) error {
	if !cfg.TopicEntities || cfg.Deps.KG == nil {
		return nil
	}
	todo := topicLookupsOf(qs)
	absent, err := lookupTopics(ctx, cfg.Deps.KG, cfg.Graphs, todo)
	if err != nil {
		return err
	}
	wikidata := chooseTopicIDs(todo, absent)
	if slices.ContainsFunc(qs, func(q indexed) bool { return len(q.q.WikidataTopicEntities) > 0 }) {
		cfg.topicIDs = TopicIDsFreebase
		if wikidata {
			cfg.topicIDs = TopicIDsWikidata
		}
	}
	missing := map[int][]string{}
	for k, l := range todo {
		q := &qs[l.q].q
		if l.wikidata != (wikidata && len(q.WikidataTopicEntities) > 0) {
			continue
		}
		if absent[k] {
			missing[l.q] = append(missing[l.q], l.id)
		}
	}
	for i := range qs {
		if wikidata && len(qs[i].q.WikidataTopicEntities) > 0 {
			qs[i].q.TopicEntities = qs[i].q.WikidataTopicEntities
		}
	}
	for i, ids := range missing {
		qs[i].q.Meta = setMeta(qs[i].q.Meta, metaMissingTopics, strings.Join(ids, " "))
	}
	return nil
}

// The topic-entity ids a run of a dataset with both Freebase and Wikidata
// topic entities asks its questions with (Manifest.TopicIDs).
const (
	TopicIDsFreebase = "freebase"
	TopicIDsWikidata = "wikidata"
)

// topicLookup is one topic entity of a question to look up: qs[q]'s id,
// from its Wikidata topic entities or from its own.
type topicLookup struct {
	q        int
	id       string
	wikidata bool
}

// topicLookupsOf lists the topic entities of all the questions, those of
// other shards included: the choice of ids is the run's, not the shard's.
func topicLookupsOf(qs []indexed) []topicLookup {
	var todo []topicLookup
	for i := range qs {
		for _, id := range slices.Sorted(maps.Keys(qs[i].q.TopicEntities)) {
			todo = append(todo, topicLookup{i, id, false})
		}
		for _, id := range slices.Sorted(maps.Keys(qs[i].q.WikidataTopicEntities)) {
			todo = append(todo, topicLookup{i, id, true})
		}
	}
	return todo
}

// lookupTopics says which of the topic entities are in none of graphs
// (empty: not in the store at all), several lookups at a time: on a
// remote backend each is a request, and a large dataset has thousands.
func lookupTopics(ctx context.Context, kg store.KG, graphs []string, todo []topicLookup) ([]bool, error) {
	absent := make([]bool, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(topicLookups)
	for k, l := range todo {
		g.Go(func() error {
			e, err := kg.Entity(gctx, l.id)
			absent[k] = errors.Is(err, store.ErrNotFound) ||
				(err == nil && len(graphs) > 0 && !slices.ContainsFunc(e.Graphs, func(g string) bool { return slices.Contains(graphs, g) }))
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("look up the topic entities: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("look up the topic entities: %w", err)
	}
	return absent, nil
}

// chooseTopicIDs says whether the run asks its questions with their
// Wikidata topic entities: when the run's graphs have more of them than
// of the questions' own (Freebase) ones, they are Wikidata graphs. One
// choice for the whole run, so that a Freebase question whose MID the
// graphs lack is reported missing rather than asked with a Wikidata id.
func chooseTopicIDs(todo []topicLookup, absent []bool) bool {
	own, wikidata := 0, 0
	for k, l := range todo {
		switch {
		case absent[k]:
		case l.wikidata:
			wikidata++
		default:
			own++
		}
	}
	return wikidata > own
}

// topicLookups is how many topic-entity lookups checkTopics runs at once.
const topicLookups = 8

func setMeta(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// servedWarning says, per configured model, which model names the model
// server reported in its place and in how many results; "" when none.
func servedWarning(results []Result) string {
	var asked []string              // configured names, first seen first
	served := map[string][]string{} // configured -> reported names, likewise
	count := map[[2]string]int{}
	for _, r := range results {
		for _, m := range r.ServedModels {
			k := [2]string{r.Model, m}
			if count[k] == 0 {
				if len(served[r.Model]) == 0 {
					asked = append(asked, r.Model)
				}
				served[r.Model] = append(served[r.Model], m)
			}
			count[k]++
		}
	}
	parts := make([]string, len(asked))
	for i, a := range asked {
		as := make([]string, len(served[a]))
		for j, m := range served[a] {
			n := count[[2]string{a, m}]
			as[j] = fmt.Sprintf("%q in %d %s", m, n, literal.Plural(n, "result"))
		}
		parts[i] = fmt.Sprintf("answered as %s, not as the configured %q", strings.Join(as, ", "), a)
	}
	if len(parts) == 0 {
		return ""
	}
	return "the model server " + strings.Join(parts, "; ")
}

// MissingTopicsWarning says that n of the questions have a topic entity
// missing from the KG (the run's graphs).
func MissingTopicsWarning(n, of int) string {
	return fmt.Sprintf("%d of %d questions have topic entities missing from the KG (see missing_topics in the results)", n, of)
}
