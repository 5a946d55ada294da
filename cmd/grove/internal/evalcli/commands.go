package evalcli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/report"
	"github.com/grove-kg/grove/reasoner/eval/sim"
	"github.com/grove-kg/grove/store"
)

func reportCommand(app App) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Tables (methods x metrics, cost) and figures (answer value, backtracking) of eval runs",
		Long: "Read the results and traces of one or more `grove eval` output directories (shards and runs of one " +
			"question set combine; runs of different datasets, samples or graphs are refused) and " +
			"write report.md, report.json and the figures fig5-value and fig6-backtracking as SVG and PNG " +
			"into --out (default: the first DIR). The Markdown is printed (the JSON with --json).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			rep, err := report.Build(dirs...)
			if err != nil {
				return err
			}
			if out == "" {
				out = dirs[0]
			}
			files, err := rep.Write(out)
			if err != nil {
				return err
			}
			w := app.stdout(cmd)
			if app.json() {
				return writeJSON(w, rep)
			}
			if err := rep.WriteMarkdown(w); err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "wrote %s, %s and %d figure files\n", files.Markdown, files.JSON, len(files.Figures))
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the report files (default: the first DIR)")
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func mergeCommand(app App) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR DIR...",
		Short: "Merge the results of eval shards (or runs) into one directory",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			sum, err := eval.Merge(out, dirs...)
			if err != nil {
				return err
			}
			if app.json() {
				return writeJSON(app.stdout(cmd), sum)
			}
			_, err = fmt.Fprintf(app.stdout(cmd), "merged %d results (%d questions, methods %s) into %s; copied %d traces\n",
				sum.Results, sum.Questions, strings.Join(sum.Methods, ", "), sum.Out, sum.TracesCopied)
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (required)")
	return cmd
}

// simFlags are the flags of `grove eval sim`.
type simFlags struct {
	questions, format, ps string
	graphs, methods       []string
	params                []string
	seeds, concurrency    int
	noise, recall         float64
}

func simCommand(app App) *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Study the search without a model: Chain- vs Tree-of-Traversals with a noisy oracle of skill p",
		Long: "Answer the questions (with gold paths: a \"path\" field per JSON line, as in the bundled " +
			"film-questions.jsonl, or 2Wiki evidences) with a simulated model that knows each question's gold " +
			"path, takes the right entity, relation or action with probability p and scores states with " +
			"Gaussian noise, and print EM-in per method and p.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSim(cmd, app, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.questions, "questions", "", "question file with gold paths (required)")
	fl.StringVar(&f.format, "format", "auto", "dataset format")
	fl.StringSliceVar(&f.graphs, "kg", nil, "graphs the questions use (default: all)")
	fl.StringSliceVar(&f.methods, "method", []string{"chain", "tot"}, "methods to compare")
	fl.StringVar(&f.ps, "p", "0.5,0.6,0.7,0.8,0.9,1", "oracle skills, comma separated")
	fl.IntVar(&f.seeds, "seeds", 3, "repetitions with different oracle seeds")
	fl.Float64Var(&f.noise, "noise", 0.1, "standard deviation of the score noise")
	fl.Float64Var(&f.recall, "recall", 0, "probability of answering right without the KG (cot, zeroshot)")
	fl.IntVar(&f.concurrency, "concurrency", 4, "questions answered at once")
	fl.StringArrayVar(&f.params, "param", nil, "method parameter method.key=value (repeatable)")
	return cmd
}

// parsePs parses a comma-separated list of probabilities.
func parsePs(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || p < 0 || p > 1 {
			return nil, fmt.Errorf("--p %q: %q is not a probability in [0, 1]", s, part)
		}
		out = append(out, p)
	}
	return out, nil
}

func runSim(cmd *cobra.Command, app App, f *simFlags) error {
	if f.questions == "" {
		return fmt.Errorf("--questions is required")
	}
	ps, err := parsePs(f.ps)
	if err != nil {
		return err
	}
	params, err := ParseParams(f.params)
	if err != nil {
		return err
	}
	format, err := dataset.ParseFormat(f.format)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	return withKG(cmd.Context(), app, func(kg store.KG) error {
		golds, err := loadGolds(cmd.Context(), kg, f.questions, format)
		if err != nil {
			return err
		}
		t, err := sim.Run(cmd.Context(), sim.Config{KG: kg, Registry: app.Registry(), Golds: golds, Methods: f.methods,
			Ps: ps, Seeds: f.seeds, Noise: f.noise, Recall: f.recall, Params: params, Graphs: f.graphs,
			Concurrency: f.concurrency})
		if err != nil {
			return err
		}
		if app.json() {
			return writeJSON(app.stdout(cmd), t)
		}
		return t.Write(app.stdout(cmd))
	})
}
