package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
)

// Config describes one evaluation run.
type Config struct {
	// Dataset is the dataset file, read with Format (FormatAuto detects
	// it). Ignored when Questions is set.
	Dataset string
	Format  dataset.Format
	// Questions, when non-nil, are used instead of reading Dataset.
	Questions []dataset.Question

	// Methods are method specs: registered names ("tot", "cot") or
	// fallback pairs ("tot->cot", see reasoner.ParseSpec).
	Methods []string
	// Params are each method's parameters, by registered name.
	Params map[string]reasoner.Params
	// Graphs are the KGs every query uses (empty: all graphs).
	Graphs []string
	// KG describes the knowledge-graph store the run reads (backend and
	// location, without credentials), for the manifest and reports.
	KG string
	// TopicEntities passes the dataset's topic entity ids to the methods.
	TopicEntities bool

	// Out is the output directory (created if needed).
	Out string
	// Limit > 0 evaluates the first Limit questions after shuffling with
	// Seed, as the Tree-of-Traversals paper does; 0 evaluates every
	// question in file order.
	Limit int
	// Seed of the shuffle; 0 means dataset.DefaultSeed (233).
	Seed int64
	// Concurrency is the number of questions answered at once (default 1).
	Concurrency int
	// Shard runs one shard of the questions (zero value: all).
	Shard Shard
	// Resume continues a run in Out, skipping finished questions. Without
	// it, existing results in Out are an error.
	Resume bool
	// RetryErrors re-runs, on resume, the questions that ended in an error.
	RetryErrors bool
	// Timeout bounds each (question, method) run; 0 means none.
	Timeout time.Duration
	// NoTraces skips writing trace files.
	NoTraces bool

	// Registry builds the methods; Deps are passed to every method.
	Registry *reasoner.Registry
	Deps     reasoner.Deps
	// Judge, when set, adds the LLM-judge score to every result.
	Judge *metric.Judge
	// Progress, when set, is called once before the first question (with
	// the resumed count) and after every finished question. Calls are
	// serialised.
	Progress func(Progress)

	// formatDetected is set by Run when it detected Format from Dataset.
	formatDetected bool
	// topicIDs is the topic-entity ids Run chose (checkTopics).
	topicIDs string
}

// seed returns the effective shuffle seed.
func (c *Config) seed() int64 {
	if c.Seed == 0 {
		return dataset.DefaultSeed
	}
	return c.Seed
}

// validate reports missing or inconsistent settings.
func (c *Config) validate() error {
	var errs []error
	if strings.TrimSpace(c.Out) == "" {
		errs = append(errs, errors.New("no output directory (Out)"))
	}
	if c.Questions == nil && strings.TrimSpace(c.Dataset) == "" {
		errs = append(errs, errors.New("no dataset (Dataset or Questions)"))
	}
	if len(c.Methods) == 0 {
		errs = append(errs, errors.New("no methods"))
	}
	if c.Registry == nil {
		errs = append(errs, errors.New("no method registry"))
	}
	if c.Limit < 0 {
		errs = append(errs, fmt.Errorf("limit must not be negative, got %d", c.Limit))
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency must not be negative, got %d", c.Concurrency))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout must not be negative, got %s", c.Timeout))
	}
	if err := c.Shard.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("eval config: %w", err)
	}
	return nil
}

// Shard selects the questions at positions p with p mod Count ==
// Index-1: shard i of n, 1-based ("--shard 2/4" is the second of four).
// The zero value selects every question.
type Shard struct {
	Index int
	Count int
}

// ParseShard parses "i/n" with 1 <= i <= n; "" is the zero Shard.
func ParseShard(s string) (Shard, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 1/4", s)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

func (s Shard) validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: want 1 <= i <= n", s.Index, s.Count)
	}
	return nil
}

// Active reports whether the shard is a proper subset (n > 1).
func (s Shard) Active() bool { return s.Count > 1 }

// Has reports whether the question at position pos belongs to the shard.
func (s Shard) Has(pos int) bool { return !s.Active() || pos%s.Count == s.Index-1 }

// String is "i/n", or "" for the zero Shard.
func (s Shard) String() string {
	if s == (Shard{}) {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// suffix names the shard's files: "" or ".shard-2-of-4".
func (s Shard) suffix() string {
	if !s.Active() {
		return ""
	}
	return fmt.Sprintf(".shard-%d-of-%d", s.Index, s.Count)
}
