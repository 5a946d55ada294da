// Package report turns the results and traces of `grove eval` runs into
// the tables and figures of the Tree-of-Traversals paper.
//
// Build reads the results files of one or more run directories (package
// eval; shards and several runs combine, one result per method and
// question) and computes:
//
//   - the accuracy table, methods x metrics, like the paper's Table 1:
//     the mean of every score (EM-in, EM, F1, Hits@1 when the dataset has
//     gold ids, Rouge-L, the LLM judge when it was run, named, with the
//     number of answers it failed on), with the share of
//     questions without an answer and of answers that came from the
//     "->CoT" fallback;
//   - the cost table: tokens, model calls, cache hits, KG calls,
//     expansions and wall time per question, and the total time;
//   - EM-in by question type;
//   - the answer-value profile (Figure 5): every answer a method proposed
//     and evaluated, from the traces, binned by its value, with the mean
//     EM-in of each bin's answers against the gold answers; non-answers
//     ("unknown", "cannot determine", see reasoner.IsNonAnswer) are not
//     answers and are left out;
//   - the effect of backtracking (Figure 6): the questions on which the
//     search proposed an answer inside the first subtree it explored and
//     later expanded a node outside it; for them, the EM-in of the best
//     answer of that first subtree (no backtracking) against the final
//     answer's (with backtracking).
//
// Write renders the report as Markdown and JSON and draws the two figures
// as SVG and PNG (package plot).
package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

// Report is everything Build computes.
type Report struct {
	Dirs []string `json:"dirs"`
	// Models are the distinct models that produced the results (from the
	// runs' manifests; "unknown" when a run has none) and Grove the
	// distinct Grove versions.
	Models []llm.Info `json:"models"`
	Grove  []string   `json:"grove_versions,omitempty"`
	// Judges are the distinct LLM judges that scored the answers (the
	// manifests' judge; "unknown" when results have judge scores or
	// errors but no manifest names a judge). Judged counts the results
	// a judge was asked about and JudgeErrors those it failed on, which
	// have no judge score.
	Judges      []llm.Info `json:"judges,omitempty"`
	Judged      int        `json:"judged,omitempty"`
	JudgeErrors int        `json:"judge_errors,omitempty"`
	// Dataset is what the runs evaluated, from their manifests (which
	// eval.Comparable has checked agree); nil when no run has a manifest.
	Dataset *Dataset `json:"dataset,omitempty"`
	// Questions is the number of distinct questions with results, and
	// Planned the number the runs set out to evaluate (from their
	// manifests; 0 when unknown): fewer results means an unfinished run.
	Questions int `json:"questions"`
	Planned   int `json:"planned,omitempty"`
	// Incomplete says what is missing, "" for a complete run: the questions
	// without results, and methods scored on different questions.
	Incomplete string `json:"incomplete,omitempty"`
	// GoldIDsOnly counts the questions whose gold answers are bare ids (the
	// KG has no label for them), which a text answer cannot match.
	GoldIDsOnly int `json:"gold_ids_only"`
	// MissingTopics counts the questions with a topic entity missing from
	// the KG.
	MissingTopics int         `json:"missing_topics"`
	Methods       []MethodRow `json:"methods"`
	// Scores are the score columns present, in report order.
	Scores    []string       `json:"scores"`
	Types     []TypeRow      `json:"types,omitempty"`
	Value     []ValueProfile `json:"value_profile"`
	Backtrack []Backtrack    `json:"backtracking"`
	// Warnings lists traces that could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// Dataset names the question set and the knowledge graph of the runs.
type Dataset struct {
	// File is the dataset file and Format its format, FormatDetected when
	// it was detected from the file ("" for questions given in code, or
	// an auto-detected format an older run did not record).
	File           string `json:"file"`
	Format         string `json:"format,omitempty"`
	FormatDetected bool   `json:"format_detected,omitempty"`
	// Limit > 0: the first Limit questions after the seeded shuffle;
	// 0: every question in file order.
	Limit int   `json:"limit,omitempty"`
	Seed  int64 `json:"seed"`
	// Graphs are the graphs the questions used (empty: all of the store's)
	// and KGs the stores the runs read (backend and location), distinct.
	Graphs        []string `json:"graphs"`
	KGs           []string `json:"kgs,omitempty"`
	TopicEntities bool     `json:"topic_entities,omitempty"`
	// TopicIDs is the topic-entity ids the questions were asked with
	// (eval.TopicIDsFreebase or eval.TopicIDsWikidata) when the dataset
	// gives both and the runs recorded the choice.
	TopicIDs string `json:"topic_ids,omitempty"`
	// Skipped counts the questions dropped for having no gold answer.
	Skipped int `json:"skipped,omitempty"`
}

// runDataset describes the runs' question set from their manifests.
func runDataset(ms []eval.Manifest) *Dataset {
	if len(ms) == 0 {
		return nil
	}
	m := ms[0]
	d := &Dataset{File: m.Dataset, Format: m.Format, FormatDetected: m.FormatDetected, Limit: m.Limit, Seed: m.Seed,
		Graphs: m.Graphs, TopicEntities: m.TopicEntities, Skipped: m.Skipped}
	if d.Graphs == nil {
		d.Graphs = []string{}
	}
	for _, m := range ms {
		if m.KG != "" {
			d.KGs = appendNew(d.KGs, m.KG)
		}
		if d.Format == "" && m.Format != "" {
			// The first run records none: an older manifest of an
			// auto-detected format (eval.Comparable compared the others').
			d.Format, d.FormatDetected = m.Format, m.FormatDetected
		}
		d.TopicIDs = cmp.Or(d.TopicIDs, m.TopicIDs)
	}
	return d
}

// MethodRow is one method's line of the accuracy and cost tables; means
// are per question.
type MethodRow struct {
	Method string `json:"method"`
	// N counts the method's results and Scored those without an error,
	// over which the scores are averaged.
	N      int                `json:"n"`
	Scored int                `json:"scored"`
	Scores map[string]float64 `json:"scores"`
	// Hits1N is the number of results Hits@1 is averaged over (those of
	// questions with gold ids); Hits@1 is left out for a method none of
	// whose answers names an entity (a text-only baseline).
	Hits1N int `json:"hits1_n,omitempty"`
	// NoAnswer counts results without an answer, Fallback those answered
	// by the fallback method, Errors those that failed. Judged counts the
	// results the LLM judge was asked about, JudgeErrors those it failed
	// on (left out of the judge score's mean).
	NoAnswer         int     `json:"no_answer"`
	Fallback         int     `json:"fallback"`
	Errors           int     `json:"errors"`
	Judged           int     `json:"judged,omitempty"`
	JudgeErrors      int     `json:"judge_errors,omitempty"`
	Tokens           float64 `json:"tokens"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	ModelCalls       float64 `json:"model_calls"`
	Samples          float64 `json:"samples"`
	CacheHits        float64 `json:"cache_hits"`
	// CachedTokens is what the samples from the cache cost when they were
	// produced (Tokens are spent by the run); CacheUnknownUsage is the
	// total (not a mean) of the samples from the cache whose usage is
	// unknown, which CachedTokens leaves out.
	CachedTokens      float64       `json:"cached_tokens"`
	CacheUnknownUsage int           `json:"cache_unknown_usage,omitempty"`
	KGCalls           float64       `json:"kg_calls"`
	Expansions        float64       `json:"expansions"`
	WallTime          time.Duration `json:"wall_time_ns"`
	TotalTime         time.Duration `json:"total_time_ns"`
}

// TypeRow is the mean EM-in of each method on one question type.
type TypeRow struct {
	Type string             `json:"type"`
	N    int                `json:"n"`
	EMIn map[string]float64 `json:"em_in"`
}

// Bins of the answer-value profile: [0, 0.2), ..., [0.8, 1].
const valueBins = 5

// BinLabel names value bin i ("0.8-1.0").
func BinLabel(i int) string {
	return fmt.Sprintf("%.1f-%.1f", float64(i)/valueBins, float64(i+1)/valueBins)
}

func binOf(v float64) int { return min(valueBins-1, max(0, int(math.Floor(v*valueBins)))) }

// ValueProfile is one method's answer values against correctness.
type ValueProfile struct {
	Method string `json:"method"`
	// Count and EMIn per value bin (EMIn is NaN-free: 0 when empty).
	Count [valueBins]int     `json:"count"`
	EMIn  [valueBins]float64 `json:"em_in"`
	// Answers is the number of evaluated answers.
	Answers int `json:"answers"`
}

// Backtrack is one method's counterfactual without backtracking.
type Backtrack struct {
	Method string `json:"method"`
	// Cases is the number of questions where the search backtracked out
	// of a first subtree that had proposed an answer; Questions the
	// number of questions with a readable trace.
	Cases     int `json:"cases"`
	Questions int `json:"questions"`
	// Without is the mean EM-in of the first subtree's best answer, With
	// that of the final answer, over the cases.
	Without float64 `json:"em_in_without"`
	With    float64 `json:"em_in_with"`
}

// Build reads the results of dirs (see eval.Load) and their traces. It
// refuses runs of different datasets, graphs or samples (eval.Comparable)
// and results whose question ids collide with different questions.
func Build(dirs ...string) (*Report, error) {
	if err := eval.Comparable(dirs...); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	rs, err := eval.Load(dirs...)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("report: no results in %s", strings.Join(dirs, ", "))
	}
	rep := &Report{Dirs: dirs}
	rep.Models, rep.Grove = runModels(dirs)
	rep.Dataset = runDataset(manifests(dirs))
	order := methodOrder(dirs, rs)
	rep.Questions = countQuestions(rs)
	idsOnly := map[string]bool{}
	for _, r := range rs {
		if r.GoldIDsOnly {
			idsOnly[r.ID] = true
		}
	}
	rep.GoldIDsOnly = len(idsOnly)
	missing := map[string]bool{}
	for _, r := range rs {
		if len(r.MissingTopics) > 0 {
			missing[r.ID] = true
		}
	}
	rep.MissingTopics = len(missing)
	rep.Methods = methodRows(order, rs)
	rep.Planned = planned(manifests(dirs))
	rep.Incomplete = incomplete(rep.Questions, rep.Planned, rep.Methods)
	for _, m := range rep.Methods {
		rep.Judged += m.Judged
		rep.JudgeErrors += m.JudgeErrors
	}
	rep.Judges = runJudges(dirs, rep.Judged > 0)
	rep.Scores = presentScores(rs, len(rep.Judges) > 0)
	rep.Types = typeRows(order, rs)
	rep.Value, rep.Backtrack, rep.Warnings = traceStats(order, rs)
	return rep, nil
}

// planned is the number of questions the runs set out to evaluate: each
// shard's count once (the largest recorded for it).
func planned(ms []eval.Manifest) int {
	per := map[string]int{}
	for _, m := range ms {
		per[m.Shard] = max(per[m.Shard], m.Questions)
	}
	n := 0
	for _, q := range per {
		n += q
	}
	return n
}

// incomplete describes what an unfinished run lacks ("" when nothing):
// questions without results, and methods with different result counts
// (their scores are means over different questions).
func incomplete(questions, planned int, methods []MethodRow) string {
	var parts []string
	if planned > questions {
		parts = append(parts, fmt.Sprintf("%d of %d questions have results", questions, planned))
	}
	uneven := false
	var counts []string
	for _, m := range methods {
		counts = append(counts, fmt.Sprintf("%s %d", m.Method, m.N))
		uneven = uneven || m.N != methods[0].N
	}
	if uneven {
		parts = append(parts, "the methods have results for different questions ("+strings.Join(counts, ", ")+
			"), so their scores are means over different questions")
	}
	return strings.Join(parts, "; ")
}

// manifests reads every run*.json of dirs, in order.
func manifests(dirs []string) []eval.Manifest {
	var out []eval.Manifest
	for _, d := range dirs {
		paths, _ := filepath.Glob(filepath.Join(d, "run*.json"))
		slices.Sort(paths)
		for _, p := range paths {
			if m, err := eval.ReadManifest(p); err == nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// runModels lists the distinct models and Grove versions of the runs.
func runModels(dirs []string) ([]llm.Info, []string) {
	var models []llm.Info
	var versions []string
	for _, m := range manifests(dirs) {
		info := m.Model
		if info.Name == "" {
			info = llm.Info{Name: "unknown (the run's manifest does not name its model)", Provider: "unknown"}
		}
		if !slices.ContainsFunc(models, info.Same) {
			models = append(models, info)
		}
		if m.Grove != "" {
			versions = appendNew(versions, m.Grove)
		}
	}
	if len(models) == 0 {
		models = []llm.Info{{Name: "unknown (no run manifest)", Provider: "unknown"}}
	}
	return models, versions
}

// runJudges lists the distinct judges of the runs; judged says that some
// result was judged, so that a judge no manifest names is still reported.
func runJudges(dirs []string, judged bool) []llm.Info {
	var judges []llm.Info
	for _, m := range manifests(dirs) {
		if m.Judge != nil && !slices.ContainsFunc(judges, m.Judge.Same) {
			judges = append(judges, *m.Judge)
		}
	}
	if len(judges) == 0 && judged {
		judges = []llm.Info{{Name: "unknown (no run manifest names the judge)", Provider: "unknown"}}
	}
	return judges
}

// methodOrder lists the methods in the order of the runs' manifests, then
// any others by name.
func methodOrder(dirs []string, rs []eval.Loaded) []string {
	var order []string
	for _, m := range manifests(dirs) {
		order = appendNew(order, m.Methods...)
	}
	var rest []string
	for _, r := range rs {
		if !slices.Contains(order, r.Method) {
			rest = appendNew(rest, r.Method)
		}
	}
	slices.Sort(rest)
	present := map[string]bool{}
	for _, r := range rs {
		present[r.Method] = true
	}
	order = slices.DeleteFunc(order, func(m string) bool { return !present[m] })
	return append(order, rest...)
}

func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(dst, x) {
			dst = append(dst, x)
		}
	}
	return dst
}

func countQuestions(rs []eval.Loaded) int {
	ids := map[string]bool{}
	for _, r := range rs {
		ids[r.ID] = true
	}
	return len(ids)
}

// presentScores lists the score names some result has, in report order;
// the judge's when judged is set, even if every judge call failed.
func presentScores(rs []eval.Loaded, judged bool) []string {
	have := map[string]bool{eval.ScoreJudge: judged}
	for _, r := range rs {
		for k := range r.Scores {
			have[k] = true
		}
	}
	var out []string
	for _, s := range eval.ScoreNames() {
		if have[s] {
			out = append(out, s)
		}
	}
	return out
}

func methodRows(order []string, rs []eval.Loaded) []MethodRow {
	rows := make([]MethodRow, len(order))
	for i, m := range order {
		rows[i] = methodRow(m, rs)
	}
	return rows
}

func methodRow(m string, rs []eval.Loaded) MethodRow {
	row := MethodRow{Method: m, Scores: map[string]float64{}}
	counts := map[string]int{}
	names := false // some answer of the method names an entity
	for _, r := range rs {
		if r.Method != m {
			continue
		}
		names = names || len(r.AnswerEntities) > 0
		row.N++
		if r.Error == "" {
			// A failed run is no wrong answer: it is counted in Errors,
			// not averaged as 0.
			row.Scored++
			for k, v := range r.Scores {
				row.Scores[k] += v
				counts[k]++
			}
		}
		row.NoAnswer += b2i(!r.Found)
		row.Fallback += b2i(r.Fallback)
		row.Errors += b2i(r.Error != "")
		_, scored := r.Scores[eval.ScoreJudge]
		row.Judged += b2i(scored || r.JudgeError != "")
		row.JudgeErrors += b2i(r.JudgeError != "")
		row.Tokens += float64(r.Tokens)
		row.PromptTokens += float64(r.PromptTokens)
		row.CompletionTokens += float64(r.CompletionTokens)
		row.ModelCalls += float64(r.ModelCalls)
		row.Samples += float64(r.Samples)
		row.CacheHits += float64(r.CacheHits)
		row.CachedTokens += float64(r.CachedTokens)
		row.CacheUnknownUsage += r.UnknownCacheUsage()
		row.KGCalls += float64(r.KGCalls)
		row.Expansions += float64(r.Expansions)
		row.TotalTime += r.WallTime
	}
	for k := range row.Scores {
		row.Scores[k] /= float64(counts[k])
	}
	if names {
		row.Hits1N = counts[eval.ScoreHits1]
	} else {
		delete(row.Scores, eval.ScoreHits1)
	}
	if row.N > 0 {
		n := float64(row.N)
		row.Tokens /= n
		row.PromptTokens /= n
		row.CompletionTokens /= n
		row.ModelCalls /= n
		row.Samples /= n
		row.CacheHits /= n
		row.CachedTokens /= n
		row.KGCalls /= n
		row.Expansions /= n
		row.WallTime = row.TotalTime / time.Duration(row.N)
	}
	return row
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// typeRows computes EM-in per question type (only when the dataset has
// types).
func typeRows(order []string, rs []eval.Loaded) []TypeRow {
	byType := map[string][]eval.Loaded{}
	for _, r := range rs {
		if r.Type != "" {
			byType[r.Type] = append(byType[r.Type], r)
		}
	}
	var rows []TypeRow
	for _, ty := range slices.Sorted(maps.Keys(byType)) {
		row := TypeRow{Type: ty, EMIn: map[string]float64{}}
		row.N = countQuestions(byType[ty])
		for _, m := range order {
			sum, n := 0.0, 0
			for _, r := range byType[ty] {
				if r.Method == m {
					sum += r.Scores[eval.ScoreEMIn]
					n++
				}
			}
			if n > 0 {
				row.EMIn[m] = sum / float64(n)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// traceStats reads every trace once and computes the value profiles and
// the backtracking counterfactuals.
func traceStats(order []string, rs []eval.Loaded) ([]ValueProfile, []Backtrack, []string) {
	prof := map[string]*ValueProfile{}
	back := map[string]*Backtrack{}
	var warnings []string
	for _, r := range rs {
		path := r.TracePath()
		if path == "" {
			continue
		}
		tr, err := eval.ReadTrace(path)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		addValues(prof, r.Method, tr, r.Gold)
		addBacktrack(back, r, tr)
	}
	var vs []ValueProfile
	var bs []Backtrack
	for _, m := range order {
		if p := prof[m]; p != nil && p.Answers > 0 {
			for i := range p.EMIn {
				if p.Count[i] > 0 {
					p.EMIn[i] /= float64(p.Count[i])
				}
			}
			vs = append(vs, *p)
		}
		if b := back[m]; b != nil {
			if b.Cases > 0 {
				b.Without /= float64(b.Cases)
				b.With /= float64(b.Cases)
			}
			bs = append(bs, *b)
		}
	}
	return vs, bs, warnings
}

// addValues adds a trace's evaluated answers to the method's profile.
func addValues(prof map[string]*ValueProfile, method string, tr *trace.Trace, gold []string) {
	for _, n := range tr.Nodes {
		if !n.Answer || !n.Evaluated || reasoner.IsNonAnswer(n.Text) {
			continue
		}
		p := prof[method]
		if p == nil {
			p = &ValueProfile{Method: method}
			prof[method] = p
		}
		b := binOf(n.Value)
		p.Count[b]++
		p.EMIn[b] += metric.EMIn(n.Text, gold)
		p.Answers++
	}
}

// addBacktrack adds a trace's counterfactual when it backtracked.
func addBacktrack(back map[string]*Backtrack, r eval.Loaded, tr *trace.Trace) {
	b := back[r.Method]
	if b == nil {
		b = &Backtrack{Method: r.Method}
		back[r.Method] = b
	}
	b.Questions++
	best, ok := FirstSubtreeAnswer(tr)
	if !ok {
		return
	}
	b.Cases++
	b.Without += metric.EMIn(best.Text, r.Gold)
	b.With += r.Scores[eval.ScoreEMIn]
}

// FirstSubtreeAnswer returns, when the search of t backtracked, the
// answer it would have given without backtracking: the highest-valued
// evaluated answer (the earliest among equals) in the subtree of the
// root's first expanded child. The search backtracked when that subtree
// proposed an answer and a node outside it (other than the root) was
// expanded after that answer was proposed. ok is false otherwise.
func FirstSubtreeAnswer(t *trace.Trace) (trace.Node, bool) {
	order := t.ExpansionOrder()
	if len(order) < 2 {
		return trace.Node{}, false
	}
	root := order[0]
	first := 0
	for _, id := range order[1:] {
		if n, _ := t.Node(id); slices.Contains(n.Parents, root) {
			first = id
			break
		}
	}
	if first == 0 {
		return trace.Node{}, false
	}
	in := subtree(t, first)
	var best trace.Node
	proposed := math.MaxInt
	for _, n := range t.Nodes {
		if !in[n.ID] || !n.Answer || !n.Evaluated {
			continue
		}
		if best.ID == 0 || n.Value > best.Value {
			best = n
		}
		if len(n.Parents) > 0 {
			p, _ := t.Node(n.Parents[0])
			proposed = min(proposed, p.Order)
		}
	}
	if best.ID == 0 {
		return trace.Node{}, false
	}
	for _, n := range t.Nodes {
		if n.Order > proposed && !in[n.ID] && n.ID != root {
			return best, true
		}
	}
	return trace.Node{}, false
}

// subtree returns the ids of id and its descendants (through any parent).
func subtree(t *trace.Trace, id int) map[int]bool {
	in := map[int]bool{id: true}
	for _, n := range t.Nodes { // parents always precede children
		for _, p := range n.Parents {
			if in[p] {
				in[n.ID] = true
			}
		}
	}
	return in
}
