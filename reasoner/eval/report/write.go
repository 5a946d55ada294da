package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/internal/plot"
	"github.com/grove-kg/grove/store/literal"
)

// Output file names, inside the report directory.
const (
	MarkdownFile  = "report.md"
	JSONFile      = "report.json"
	ValueFigure   = "fig5-value" // + ".svg" / ".png"
	BacktrackFile = "fig6-backtracking"
)

// scoreTitle is the table header of a score.
func scoreTitle(name string) string {
	switch name {
	case eval.ScoreEMIn:
		return "EM-in"
	case eval.ScoreEM:
		return "EM"
	case eval.ScoreF1:
		return "F1"
	case eval.ScoreHits1:
		return "Hits@1"
	case eval.ScoreRougeL:
		return "Rouge-L"
	case eval.ScoreJudge:
		return "Judge"
	}
	return name
}

// Files are the paths Write created.
type Files struct {
	Markdown string   `json:"markdown"`
	JSON     string   `json:"json"`
	Figures  []string `json:"figures"`
}

// Write writes report.md, report.json and the figures (when they have
// data) into dir, creating it.
func (r *Report) Write(dir string) (Files, error) {
	var f Files
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, fmt.Errorf("report: %w", err)
	}
	for _, fig := range r.figures() {
		for _, ext := range []string{".svg", ".png"} {
			p := filepath.Join(dir, fig.name+ext)
			if err := writeFile(p, func(w io.Writer) error {
				if ext == ".svg" {
					return fig.chart.WriteSVG(w)
				}
				return fig.chart.WritePNG(w)
			}); err != nil {
				return f, err
			}
			f.Figures = append(f.Figures, p)
		}
	}
	f.Markdown = filepath.Join(dir, MarkdownFile)
	if err := writeFile(f.Markdown, r.WriteMarkdown); err != nil {
		return f, err
	}
	f.JSON = filepath.Join(dir, JSONFile)
	err := writeFile(f.JSON, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
	return f, err
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	bw := bufio.NewWriter(f)
	if err := fn(bw); err != nil {
		f.Close()
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown: the tables, then the
// figures (referenced by file name) with their data.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	questions := fmt.Sprint(r.Questions)
	if r.Planned > r.Questions {
		questions = fmt.Sprintf("%d of %d", r.Questions, r.Planned)
	}
	fmt.Fprintf(bw, "# Evaluation report\n\nResults: %s (%s questions, %d methods)\n\n",
		strings.Join(r.Dirs, ", "), questions, len(r.Methods))
	if r.Incomplete != "" {
		fmt.Fprintf(bw, "**Incomplete: %s; resume the run (grove eval --resume) to finish it.**\n\n", r.Incomplete)
	}
	r.writeDataset(bw)
	for _, m := range r.Models {
		fmt.Fprintf(bw, "Model: %s\n", m)
		if len(m.Params) > 0 {
			fmt.Fprintf(bw, "\nModel settings: %s\n", settings(m.Params))
		}
		if m.NotLLM {
			bw.WriteString("\n**These results were not produced by a language model.**\n")
		}
	}
	for _, j := range r.Judges {
		fmt.Fprintf(bw, "\nJudge: %s\n", j)
		if j.NotLLM {
			bw.WriteString("\n**The Judge scores were not produced by a language model.**\n")
		}
	}
	if len(r.Grove) > 0 {
		fmt.Fprintf(bw, "\nGrove: %s\n", strings.Join(r.Grove, ", "))
	}
	bw.WriteString("\n")
	if r.GoldIDsOnly > 0 {
		fmt.Fprintf(bw, "**Warning: %s.**\n\n", eval.IDsOnlyWarning(r.GoldIDsOnly, r.Questions))
	}
	if r.MissingTopics > 0 {
		fmt.Fprintf(bw, "**Warning: %s.**\n\n", eval.MissingTopicsWarning(r.MissingTopics, r.Questions))
	}
	r.writeAccuracy(bw)
	r.writeCost(bw)
	r.writeTypes(bw)
	r.writeValue(bw)
	r.writeBacktrack(bw)
	if len(r.Warnings) > 0 {
		bw.WriteString("## Warnings\n\n")
		for _, s := range r.Warnings {
			fmt.Fprintf(bw, "- %s\n", s)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// writeDataset names the dataset, its sample and the KG.
func (r *Report) writeDataset(w *bufio.Writer) {
	d := r.Dataset
	if d == nil {
		w.WriteString("Dataset: unknown (no run manifest)\n\nKG: unknown (no run manifest)\n\n")
		return
	}
	file := d.File
	if file == "" {
		file = "questions given in code (no dataset file)"
	}
	format := d.Format
	switch {
	case format == "":
		format = "auto-detected"
	case d.FormatDetected:
		format += ", auto-detected"
	}
	sample := "all questions, in file order"
	if d.Limit > 0 {
		sample = fmt.Sprintf("the first %d after the shuffle with seed %d", d.Limit, d.Seed)
	}
	fmt.Fprintf(w, "Dataset: %s (format %s; %s", file, format, sample)
	if d.Skipped > 0 {
		fmt.Fprintf(w, "; %d questions without a gold answer skipped", d.Skipped)
	}
	w.WriteString(")\n\n")
	graphs := strings.Join(d.Graphs, ", ")
	if graphs == "" {
		graphs = "all graphs of the store"
	}
	kgs := strings.Join(d.KGs, " + ")
	if kgs == "" {
		kgs = "store not recorded"
	}
	fmt.Fprintf(w, "KG: %s (%s)", graphs, kgs)
	if d.TopicEntities {
		w.WriteString(", with the dataset's topic entities")
		if d.TopicIDs != "" {
			fmt.Fprintf(w, " (%s ids)", d.TopicIDs)
		}
	}
	w.WriteString("\n\n")
}

// judgeFailures says how often the judge failed.
func (r *Report) judgeFailures() string {
	s := fmt.Sprintf("The judge failed on %d of %d answers", r.JudgeErrors, r.Judged)
	if r.JudgeErrors > 0 {
		s += " (left out of the Judge column; see judge_error in the results)"
	}
	return s + "."
}

// judgeNames names the judges in table headings.
func (r *Report) judgeNames() string {
	names := make([]string, len(r.Judges))
	for i, j := range r.Judges {
		names[i] = j.Name
		if j.NotLLM {
			names[i] += " (not an LLM)"
		}
	}
	return strings.Join(names, " + ")
}

// settings prints a model's settings as "k=v, ..." sorted by key.
func settings(p map[string]any) string {
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, p[k])
	}
	return strings.Join(parts, ", ")
}

// modelNames names the models in table headings.
func (r *Report) modelNames() string {
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
	}
	return strings.Join(names, " + ")
}

// figureModels names the models in figure titles, marking those that are
// not language models: "model: lexical-baseline (not an LLM)".
func (r *Report) figureModels() string {
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
		if m.NotLLM && !strings.Contains(strings.ToLower(m.Name), "not an llm") {
			names[i] += " (not an LLM)"
		}
	}
	return "model: " + strings.Join(names, " + ")
}

// pct prints a fraction as a percentage with one decimal, as the paper's
// tables do.
func pct(v float64) string { return fmt.Sprintf("%.1f", 100*v) }

// share prints n of total as "n (x%)".
func share(n, total int) string {
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(total))
}

func row(w *bufio.Writer, cells ...string) {
	w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func rule(w *bufio.Writer, n int) {
	w.WriteString("|" + strings.Repeat("---|", n) + "\n")
}

func (r *Report) writeAccuracy(w *bufio.Writer) {
	fmt.Fprintf(w, "## Accuracy (scores in %%), model: %s\n\n", r.modelNames())
	head := []string{"Method", "N"}
	for _, s := range r.Scores {
		head = append(head, scoreTitle(s))
	}
	head = append(head, "No answer", "->CoT", "Errors")
	judged := len(r.Judges) > 0
	if judged {
		head = append(head, "Judge errors")
	}
	row(w, head...)
	rule(w, len(head))
	for _, m := range r.Methods {
		cells := []string{m.Method, fmt.Sprint(m.N)}
		for _, s := range r.Scores {
			v, ok := m.Scores[s]
			if !ok {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, pct(v))
		}
		cells = append(cells, share(m.NoAnswer, m.N), share(m.Fallback, m.N), fmt.Sprint(m.Errors))
		if judged {
			cells = append(cells, fmt.Sprintf("%d of %d", m.JudgeErrors, m.Judged))
		}
		row(w, cells...)
	}
	if judged {
		fmt.Fprintf(w, "\nJudge: the share of answers judged correct by %s. %s\n", r.judgeNames(), r.judgeFailures())
	}
	if note := r.hits1Note(); note != "" {
		w.WriteString("\n" + note + "\n")
	}
	if errs := r.errors(); errs > 0 {
		fmt.Fprintf(w, "\n**%d runs ended in an error**: they are counted in Errors and left out of the scores, "+
			"which are averaged over the other results (N minus Errors); see error in the results, and "+
			"`grove eval --resume --retry-errors` to run them again.\n", errs)
	}
	w.WriteString("\n")
}

// hits1Note says what the Hits@1 column is averaged over when that is not
// every scored result, and why a method has none ("" when nothing to say).
func (r *Report) hits1Note() string {
	if !slices.Contains(r.Scores, eval.ScoreHits1) {
		return ""
	}
	var over, none []string
	for _, m := range r.Methods {
		if _, ok := m.Scores[eval.ScoreHits1]; !ok {
			none = append(none, m.Method)
		} else if m.Hits1N != m.Scored {
			over = append(over, fmt.Sprintf("%s %d of %d", m.Method, m.Hits1N, m.Scored))
		}
	}
	var parts []string
	if len(over) > 0 {
		parts = append(parts, "Hits@1 is averaged over the results of questions with gold entity ids ("+
			strings.Join(over, ", ")+")")
	}
	if len(none) > 0 {
		parts = append(parts, "Hits@1 is not applicable to "+strings.Join(none, ", ")+
			" (no answer names an entity)")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// errors counts the failed runs of every method.
func (r *Report) errors() int {
	n := 0
	for _, m := range r.Methods {
		n += m.Errors
	}
	return n
}

func (r *Report) writeCost(w *bufio.Writer) {
	fmt.Fprintf(w, "## Cost per question, model: %s\n\n", r.modelNames())
	// A call may ask for several samples and the cache answers per sample,
	// so cache hits stand beside samples, not calls.
	// Tokens are spent by the run; the samples from the cache cost theirs
	// when they were produced, which stand apart.
	head := []string{"Method", "Tokens", "Prompt", "Completion", "Model calls", "Samples", "Samples from cache",
		"Tokens of cached samples", "KG calls", "Expansions", "Wall time", "Total time"}
	row(w, head...)
	rule(w, len(head))
	unknown := 0
	for _, m := range r.Methods {
		cached := fmt.Sprintf("%.0f", m.CachedTokens)
		if m.CacheUnknownUsage > 0 {
			cached += fmt.Sprintf(" + %d unknown", m.CacheUnknownUsage)
			unknown += m.CacheUnknownUsage
		}
		row(w, m.Method, fmt.Sprintf("%.0f", m.Tokens), fmt.Sprintf("%.0f", m.PromptTokens),
			fmt.Sprintf("%.0f", m.CompletionTokens), fmt.Sprintf("%.1f", m.ModelCalls), fmt.Sprintf("%.1f", m.Samples), fmt.Sprintf("%.1f", m.CacheHits),
			cached, fmt.Sprintf("%.1f", m.KGCalls), fmt.Sprintf("%.1f", m.Expansions), round(m.WallTime), round(m.TotalTime))
	}
	w.WriteString("\n")
	if unknown > 0 {
		fmt.Fprintf(w, "Tokens are those spent by the run; tokens of cached samples are what the samples from the "+
			"response cache cost when they were produced. %d %s from the cache (in all) have unknown usage: their "+
			"cache entries were written by an older Grove, which did not record it.\n\n", unknown, literal.Plural(unknown, "sample"))
	}
}

// round shortens a duration for tables.
func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func (r *Report) writeTypes(w *bufio.Writer) {
	if len(r.Types) == 0 {
		return
	}
	fmt.Fprintf(w, "## EM-in by question type (%%), model: %s\n\n", r.modelNames())
	head := []string{"Type", "N"}
	for _, m := range r.Methods {
		head = append(head, m.Method)
	}
	row(w, head...)
	rule(w, len(head))
	for _, t := range r.Types {
		cells := []string{t.Type, fmt.Sprint(t.N)}
		for _, m := range r.Methods {
			if v, ok := t.EMIn[m.Method]; ok {
				cells = append(cells, pct(v))
			} else {
				cells = append(cells, "-")
			}
		}
		row(w, cells...)
	}
	w.WriteString("\n")
}

func (r *Report) writeValue(w *bufio.Writer) {
	fmt.Fprintf(w, "## Answer value vs correctness (Figure 5), model: %s\n\n", r.modelNames())
	if len(r.Value) == 0 {
		w.WriteString("No method evaluated its answers (no traces with scored answer nodes).\n\n")
		return
	}
	fmt.Fprintf(w, "Every answer the search proposed and evaluated, binned by its value: EM-in (%%) of the "+
		"answers in each bin, and their number.\n\n![answer value vs EM-in](%s.svg)\n\n", ValueFigure)
	head := []string{"Value"}
	for _, p := range r.Value {
		head = append(head, p.Method+" EM-in", p.Method+" n")
	}
	row(w, head...)
	rule(w, len(head))
	for b := range valueBins {
		cells := []string{BinLabel(b)}
		for _, p := range r.Value {
			cells = append(cells, binCell(p, b), fmt.Sprint(p.Count[b]))
		}
		row(w, cells...)
	}
	w.WriteString("\n")
}

func binCell(p ValueProfile, b int) string {
	if p.Count[b] == 0 {
		return "-"
	}
	return pct(p.EMIn[b])
}

func (r *Report) writeBacktrack(w *bufio.Writer) {
	fmt.Fprintf(w, "## Effect of backtracking (Figure 6), model: %s\n\n", r.modelNames())
	if !r.anyBacktrack() {
		w.WriteString("No search backtracked out of a first subtree that had proposed an answer.\n\n")
		return
	}
	fmt.Fprintf(w, "Questions where the search proposed an answer in the first subtree it explored and then "+
		"backtracked: EM-in (%%) of that subtree's best answer (without backtracking) and of the final answer.\n\n"+
		"![backtracking](%s.svg)\n\n", BacktrackFile)
	row(w, "Method", "Cases", "Questions", "Without backtracking", "With backtracking")
	rule(w, 5)
	for _, b := range r.Backtrack {
		if b.Cases == 0 {
			continue
		}
		row(w, b.Method, fmt.Sprint(b.Cases), fmt.Sprint(b.Questions), pct(b.Without), pct(b.With))
	}
	w.WriteString("\n")
}

func (r *Report) anyBacktrack() bool {
	for _, b := range r.Backtrack {
		if b.Cases > 0 {
			return true
		}
	}
	return false
}

type figure struct {
	name  string
	chart *plot.BarChart
}

// figures returns the charts that have data.
func (r *Report) figures() []figure {
	var out []figure
	if len(r.Value) > 0 {
		out = append(out, figure{ValueFigure, r.ValueChart()})
	}
	if r.anyBacktrack() {
		out = append(out, figure{BacktrackFile, r.BacktrackChart()})
	}
	return out
}

// ValueChart is Figure 5: EM-in by answer-value bin, one series per
// method, with the answer counts as notes.
func (r *Report) ValueChart() *plot.BarChart {
	c := &plot.BarChart{Title: "Answer value vs correctness (all evaluated answers)\n" + r.figureModels(), XLabel: "answer value",
		YLabel: "EM-in (%)", YMax: 1, Percent: true}
	for b := range valueBins {
		c.Categories = append(c.Categories, BinLabel(b))
	}
	for _, p := range r.Value {
		s := plot.Series{Name: p.Method}
		for b := range valueBins {
			v := p.EMIn[b]
			if p.Count[b] == 0 {
				v = math.NaN()
			}
			s.Values = append(s.Values, v)
			s.Notes = append(s.Notes, fmt.Sprintf("n=%d", p.Count[b]))
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// BacktrackChart is Figure 6: EM-in without and with backtracking for
// each method that backtracked.
func (r *Report) BacktrackChart() *plot.BarChart {
	c := &plot.BarChart{Title: "Effect of backtracking (questions that backtracked)\n" + r.figureModels(), XLabel: "method",
		YLabel: "EM-in (%)", YMax: 1, Percent: true}
	without := plot.Series{Name: "without backtracking"}
	with := plot.Series{Name: "with backtracking"}
	for _, b := range r.Backtrack {
		if b.Cases == 0 {
			continue
		}
		c.Categories = append(c.Categories, fmt.Sprintf("%s (n=%d)", b.Method, b.Cases))
		without.Values = append(without.Values, b.Without)
		with.Values = append(with.Values, b.With)
	}
	c.Series = []plot.Series{without, with}
	return c
}
