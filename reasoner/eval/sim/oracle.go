package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
)

// OracleModelName is Response.Model of every oracle reply.
const OracleModelName = "sim-oracle"

// OracleConfig sets the oracle's skill.
type OracleConfig struct {
	// P is the probability of each decision being the right one.
	P float64
	// Noise is the standard deviation of the Gaussian noise added to
	// every score.
	Noise float64
	// Recall is the probability of knowing the answer without the KG
	// (answer tasks without context: the cot and zeroshot baselines).
	Recall float64
	// Seed makes the oracle's choices reproducible.
	Seed uint64
}

// Validate reports out-of-range settings.
func (c OracleConfig) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"p", c.P}, {"recall", c.Recall}} {
		if f.v < 0 || f.v > 1 || math.IsNaN(f.v) {
			errs = append(errs, fmt.Errorf("sim oracle: %s must be in [0, 1], got %g", f.name, f.v))
		}
	}
	if c.Noise < 0 || math.IsNaN(c.Noise) || math.IsInf(c.Noise, 0) {
		errs = append(errs, fmt.Errorf("sim oracle: noise must be a non-negative number, got %g", c.Noise))
	}
	return errors.Join(errs...)
}

// Oracle is a noisy simulated model that knows each question's gold path.
// It reads only Request.Task, is deterministic given its seed and the
// request (each sample's randomness is drawn from a hash of the seed, the
// task and the sample index, so concurrency does not change replies), and
// is safe for concurrent use.
type Oracle struct {
	cfg   OracleConfig
	golds map[string]*Gold
}

var _ llm.Model = (*Oracle)(nil)

// NewOracle returns an oracle for the given questions.
func NewOracle(golds []Gold, cfg OracleConfig) (*Oracle, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := &Oracle{cfg: cfg, golds: make(map[string]*Gold, len(golds))}
	for i := range golds {
		g := &golds[i]
		if len(g.Hops) == 0 {
			return nil, fmt.Errorf("sim oracle: question %s has no gold path", g.ID)
		}
		o.golds[questionKey(g.Question)] = g
	}
	return o, nil
}

// Describe names the oracle as a simulation (not an LLM) with its
// settings.
func (o *Oracle) Describe() llm.Info {
	return llm.Info{Name: OracleModelName, Provider: "simulated", NotLLM: true, Params: map[string]any{
		"p": o.cfg.P, "noise": o.cfg.Noise, "recall": o.cfg.Recall, "seed": o.cfg.Seed}}
}

func questionKey(q string) string { return strings.ToLower(strings.Join(strings.Fields(q), " ")) }

// Generate answers req.Task as an agent that knows the gold path would,
// erring with probability 1-P.
func (o *Oracle) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("sim oracle: %w", err)
	}
	g, ok := o.golds[questionKey(req.Task.Question)]
	if !ok {
		return llm.Response{}, fmt.Errorf("sim oracle, task %q: question %q is not in the gold set", req.Task.Name, req.Task.Question)
	}
	texts := make([]string, max(1, req.N))
	for i := range texts {
		t, err := o.reply(g, req.Task, o.rng(req.Task, i))
		if err != nil {
			return llm.Response{}, fmt.Errorf("sim oracle, task %q: %w", req.Task.Name, err)
		}
		texts[i] = t
	}
	usage := llm.Usage{PromptTokens: words(req.Prompt)}
	for _, m := range req.Messages {
		usage.PromptTokens += words(m.Content)
	}
	for _, t := range texts {
		usage.CompletionTokens += words(t)
	}
	return llm.Response{Texts: texts, Usage: usage, Latency: time.Since(start), Model: OracleModelName}, nil
}

// words approximates a token count: the oracle reads no prompt, but the
// cost tables of simulated runs should reflect the prompts' sizes.
func words(s string) int { return len(strings.Fields(s)) }

// rng derives the random stream of one sample from the seed and the task.
func (o *Oracle) rng(t llm.Task, sample int) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], o.cfg.Seed)
	h.Write(b[:])
	for _, s := range []string{string(t.Kind), t.Name, t.Question, t.Context, t.Candidate, strconv.Itoa(t.Pick)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, op := range t.Options {
		h.Write([]byte(op.ID + "\x01" + op.Text + "\x00"))
	}
	binary.LittleEndian.PutUint64(b[:], uint64(sample))
	h.Write(b[:])
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// right draws whether a decision is right.
func (o *Oracle) right(r *rand.Rand) bool { return r.Float64() < o.cfg.P }

func (o *Oracle) reply(g *Gold, t llm.Task, r *rand.Rand) (string, error) {
	switch t.Kind {
	case llm.KindExtract:
		return o.extract(g), nil
	case llm.KindSelect:
		return o.choose(g, t, r), nil
	case llm.KindAction:
		return o.action(g, t, r)
	case llm.KindScore:
		return o.score(g, t, r), nil
	case llm.KindVote:
		return o.vote(g, t, r)
	case llm.KindYesNo:
		return o.yesNo(g, t, r), nil
	case llm.KindAnswer:
		return o.answer(g, t, r), nil
	case llm.KindFree, "":
		return "I need to follow " + relationChain(g) + ".", nil
	}
	return "", fmt.Errorf("unknown task kind %q", t.Kind)
}

func relationChain(g *Gold) string {
	rels := make([]string, len(g.Hops))
	for i, h := range g.Hops {
		rels[i] = h.Relation
	}
	return strings.Join(rels, ", then ")
}

// extract names the topic entities.
func (o *Oracle) extract(g *Gold) string {
	var out []string
	for _, e := range g.Hops[0].From {
		if e.Label != "" {
			out = append(out, e.Label)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "\n")
}

// choose answers a selection: the options that continue the gold path
// (entities of a hop's From side, or a hop's relation), or with
// probability 1-P one wrong option.
func (o *Oracle) choose(g *Gold, t llm.Task, r *rand.Rand) string {
	correct := correctOptions(g, t)
	var wrong []llm.Option
	for _, op := range t.Options {
		if !slices.Contains(correct, op.ID) {
			wrong = append(wrong, op)
		}
	}
	switch {
	case len(t.Options) == 0:
		return "none"
	case len(correct) == 0:
		return t.Options[r.IntN(len(t.Options))].ID
	case !o.right(r) && len(wrong) > 0:
		return wrong[r.IntN(len(wrong))].ID
	}
	if t.Pick > 0 && len(correct) > t.Pick {
		correct = correct[:t.Pick]
	}
	return strings.Join(correct, ", ")
}

// correctOptions returns the ids of the options that continue the gold
// path: for the hop named by an "[hop N]" tag in Task.Context (the
// oracle's own EXPAND_KG goals), else for the deepest hop that matches,
// the options naming its From entities, or else its relation.
func correctOptions(g *Gold, t llm.Task) []string {
	hops := candidateHops(g, t.Context)
	for _, i := range hops {
		if ids := matchEntities(t.Options, g.Hops[i].From); len(ids) > 0 {
			return ids
		}
	}
	for _, i := range hops {
		if ids := matchRelation(t.Options, g.Hops[i].Relation); len(ids) > 0 {
			return ids
		}
	}
	return nil
}

// candidateHops is the tagged hop, or every hop from the deepest.
func candidateHops(g *Gold, context string) []int {
	if n, ok := hopTag(context); ok && n >= 1 && n <= len(g.Hops) {
		return []int{n - 1}
	}
	out := make([]int, len(g.Hops))
	for i := range out {
		out[i] = len(g.Hops) - 1 - i
	}
	return out
}

// hopTag reads "[hop N]" from a goal text.
func hopTag(s string) (int, bool) {
	i := strings.Index(s, "[hop ")
	if i < 0 {
		return 0, false
	}
	rest := s[i+5:]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:j])
	return n, err == nil
}

func matchEntities(opts []llm.Option, ents []Ent) []string {
	var ids []string
	for _, op := range opts {
		for _, e := range ents {
			if (e.ID != "" && op.ID == e.ID) || (e.Label != "" && norm(optionLabel(op.Text)) == norm(e.Label)) {
				ids = append(ids, op.ID)
				break
			}
		}
	}
	return ids
}

func matchRelation(opts []llm.Option, rel string) []string {
	for _, op := range opts {
		if norm(optionLabel(op.Text)) == norm(rel) || norm(op.ID) == norm(rel) {
			return []string{op.ID}
		}
	}
	return nil
}

// optionLabel strips a " - description" and a " [graph]" tag.
func optionLabel(s string) string {
	if i := strings.Index(s, " ["); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, " - "); i >= 0 {
		s = s[:i]
	}
	return s
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
