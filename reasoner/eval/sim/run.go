package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/store"
)

// Config is a simulation study: every method answers every question with
// an oracle of each skill P, once per seed.
type Config struct {
	KG       store.KG
	Registry *reasoner.Registry
	Golds    []Gold
	// Methods default to chain and tot.
	Methods []string
	// Ps default to 0.5, 0.6, 0.7, 0.8, 0.9, 1.
	Ps []float64
	// Seeds is the number of repetitions (oracle seeds 1..Seeds), default 3.
	Seeds int
	// Noise and Recall configure the oracle (see OracleConfig).
	Noise  float64
	Recall float64
	// Params are the methods' parameters by name.
	Params map[string]reasoner.Params
	// Graphs are the KGs the queries use (empty: all).
	Graphs []string
	// Concurrency is the number of questions answered at once (default 4).
	Concurrency int
}

func (c *Config) defaults() error {
	if c.KG == nil || c.Registry == nil {
		return errors.New("sim: KG and Registry are required")
	}
	if len(c.Golds) == 0 {
		return errors.New("sim: no questions with gold paths")
	}
	if len(c.Methods) == 0 {
		c.Methods = []string{"chain", "tot"}
	}
	if len(c.Ps) == 0 {
		c.Ps = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}
	}
	if c.Seeds <= 0 {
		c.Seeds = 3
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	for _, p := range c.Ps {
		if err := (OracleConfig{P: p, Noise: c.Noise, Recall: c.Recall}).Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Cell is one method at one P, averaged over questions and seeds.
type Cell struct {
	// EMIn is the mean EM-in; Found the share of runs with an answer.
	EMIn       float64 `json:"em_in"`
	Found      float64 `json:"found"`
	Expansions float64 `json:"expansions"`
	ModelCalls float64 `json:"model_calls"`
	// Runs is questions x seeds.
	Runs int `json:"runs"`
}

// Table is the result of Run: Cells[m][i] is method m at Ps[i].
type Table struct {
	Methods   []string  `json:"methods"`
	Ps        []float64 `json:"ps"`
	Cells     [][]Cell  `json:"cells"`
	Questions int       `json:"questions"`
	Seeds     int       `json:"seeds"`
	Noise     float64   `json:"noise"`
	Elapsed   time.Duration
}

// Run runs the study.
func Run(ctx context.Context, cfg Config) (*Table, error) {
	start := time.Now()
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	t := &Table{Methods: cfg.Methods, Ps: cfg.Ps, Questions: len(cfg.Golds), Seeds: cfg.Seeds, Noise: cfg.Noise}
	for _, m := range cfg.Methods {
		row := make([]Cell, len(cfg.Ps))
		for i, p := range cfg.Ps {
			c, err := runCell(ctx, &cfg, m, p)
			if err != nil {
				return nil, err
			}
			row[i] = c
		}
		t.Cells = append(t.Cells, row)
	}
	t.Elapsed = time.Since(start)
	return t, nil
}

// runCell runs one method at one P over every seed and question.
func runCell(ctx context.Context, cfg *Config, method string, p float64) (Cell, error) {
	var c Cell
	for seed := 1; seed <= cfg.Seeds; seed++ {
		o, err := NewOracle(cfg.Golds, OracleConfig{P: p, Noise: cfg.Noise, Recall: cfg.Recall, Seed: uint64(seed)})
		if err != nil {
			return c, err
		}
		r, err := cfg.Registry.New(method, reasoner.Deps{KG: cfg.KG, Model: o}, cfg.Params[method])
		if err != nil {
			return c, err
		}
		outs, err := answerAll(ctx, cfg, r)
		if err != nil {
			return c, fmt.Errorf("sim %s p=%g seed %d: %w", method, p, seed, err)
		}
		for _, o := range outs {
			c.EMIn += o.emIn
			c.Found += b2f(o.found)
			c.Expansions += float64(o.expansions)
			c.ModelCalls += float64(o.modelCalls)
			c.Runs++
		}
	}
	if c.Runs > 0 {
		n := float64(c.Runs)
		c.EMIn, c.Found, c.Expansions, c.ModelCalls = c.EMIn/n, c.Found/n, c.Expansions/n, c.ModelCalls/n
	}
	return c, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

type outcome struct {
	emIn       float64
	found      bool
	expansions int
	modelCalls int
}

// answerAll answers every gold question with r on a worker pool.
func answerAll(ctx context.Context, cfg *Config, r reasoner.Reasoner) ([]outcome, error) {
	outs := make([]outcome, len(cfg.Golds))
	errs := make([]error, len(cfg.Golds))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(cfg.Concurrency, len(cfg.Golds)) {
		wg.Go(func() {
			for i := range next {
				outs[i], errs[i] = answerOne(ctx, cfg, r, &cfg.Golds[i])
			}
		})
	}
	for i := range cfg.Golds {
		next <- i
	}
	close(next)
	wg.Wait()
	return outs, errors.Join(errs...)
}

func answerOne(ctx context.Context, cfg *Config, r reasoner.Reasoner, g *Gold) (outcome, error) {
	tr, err := r.Answer(ctx, reasoner.Query{Question: g.Question, Graphs: cfg.Graphs})
	if err != nil {
		return outcome{}, fmt.Errorf("question %s: %w", g.ID, err)
	}
	return outcome{emIn: metric.EMIn(tr.Answer.Text, g.Answers), found: tr.Answer.Found,
		expansions: tr.Totals.Expansions, modelCalls: tr.Totals.ModelCalls}, nil
}

// Write prints the table: EM-in (%) per method and P, then the share of
// runs with an answer and the mean expansions.
func (t *Table) Write(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "EM-in (%%) of %d questions x %d seeds, score noise %.2f; found = runs with an answer, "+
		"exp = mean expansions\n", t.Questions, t.Seeds, t.Noise); err != nil {
		return fmt.Errorf("write sim table: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"p"}
	for _, m := range t.Methods {
		head = append(head, m, m+" found", m+" exp")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i, p := range t.Ps {
		cells := []string{fmt.Sprintf("%.2f", p)}
		for m := range t.Methods {
			c := t.Cells[m][i]
			cells = append(cells, fmt.Sprintf("%.1f", 100*c.EMIn), fmt.Sprintf("%.0f%%", 100*c.Found),
				fmt.Sprintf("%.1f", c.Expansions))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write sim table: %w", err)
	}
	return nil
}

// EMIn returns the EM-in of method at p, and whether the table has it.
func (t *Table) EMIn(method string, p float64) (float64, bool) {
	m := slices.Index(t.Methods, method)
	i := slices.Index(t.Ps, p)
	if m < 0 || i < 0 {
		return 0, false
	}
	return t.Cells[m][i].EMIn, true
}
