package baseline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// Method names.
const (
	MethodZeroShot = "zeroshot"
	MethodCoT      = "cot"
)

// Task names of the model calls.
const (
	TaskZeroShot = "zeroshot/answer"
	TaskReason   = "cot/reason"
	TaskAnswer   = "cot/answer"
)

// Parameter names.
const (
	ParamTemperature     = "temperature"
	ParamMaxTokens       = reasoner.ParamMaxTokens
	ParamAnswerMaxTokens = "answer_max_tokens"
)

// Config holds the settings of both baselines.
type Config struct {
	// Temperature of every call (the paper uses 0 for single samples).
	Temperature float64
	// MaxTokens bounds the reasoning (cot) or the answer (zeroshot); 0
	// leaves the model's default (unbounded by Grove).
	MaxTokens int
	// AnswerMaxTokens bounds the cot answer call.
	AnswerMaxTokens int
}

// DefaultConfig returns temperature 0, reasoner.DefaultMaxTokens for the
// reasoning and 64 tokens for the cot answer.
func DefaultConfig() Config {
	return Config{MaxTokens: reasoner.DefaultMaxTokens, AnswerMaxTokens: 64}
}

// ConfigFromParams reads a Config over DefaultConfig, rejecting unknown
// keys and out-of-range values.
func ConfigFromParams(p reasoner.Params) (Config, error) {
	c := DefaultConfig()
	r := p.Reader()
	c.Temperature = r.Float(ParamTemperature, c.Temperature)
	c.MaxTokens = r.Int(ParamMaxTokens, c.MaxTokens)
	c.AnswerMaxTokens = r.Int(ParamAnswerMaxTokens, c.AnswerMaxTokens)
	if err := r.Done(); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate reports negative settings.
func (c Config) Validate() error {
	var errs []error
	if c.Temperature < 0 {
		errs = append(errs, fmt.Errorf("parameter %q must not be negative, got %g", ParamTemperature, c.Temperature))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("parameter %q must not be negative, got %d", ParamMaxTokens, c.MaxTokens))
	}
	if c.AnswerMaxTokens < 0 {
		errs = append(errs, fmt.Errorf("parameter %q must not be negative, got %d", ParamAnswerMaxTokens, c.AnswerMaxTokens))
	}
	return errors.Join(errs...)
}

// Params returns the settings as trace parameters.
func (c Config) Params() map[string]any {
	return map[string]any{ParamTemperature: c.Temperature, ParamMaxTokens: c.MaxTokens,
		ParamAnswerMaxTokens: c.AnswerMaxTokens}
}

// Reasoner is one of the two baselines. It is safe for concurrent use.
type Reasoner struct {
	method string
	model  llm.Model
	// kg, optional, checks an answer that looks like an id (see
	// reasoner.NameModelAnswer); the model never sees it.
	kg  store.KG
	log *slog.Logger
	obs trace.Observer
	cfg Config
}

var _ reasoner.Reasoner = (*Reasoner)(nil)

// NewZeroShot returns the zero-shot baseline. Only deps.Model is needed;
// deps.KG, when set, only checks an answer that looks like an id.
func NewZeroShot(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	return newReasoner(MethodZeroShot, deps, cfg)
}

// NewCoT returns the two-stage Chain-of-Thought baseline. Only deps.Model
// is needed; deps.KG, when set, only checks an answer that looks like an
// id.
func NewCoT(deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	return newReasoner(MethodCoT, deps, cfg)
}

func newReasoner(method string, deps reasoner.Deps, cfg Config) (*Reasoner, error) {
	if deps.Model == nil {
		return nil, fmt.Errorf("%s: no model (Model is nil)", method)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	log := deps.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Reasoner{method: method, model: deps.Model, kg: deps.KG, log: log, obs: deps.Observer, cfg: cfg}, nil
}

// Register adds "zeroshot" and "cot" to reg.
func Register(reg *reasoner.Registry) {
	reg.Register(MethodZeroShot, "Zero-shot baseline: the model answers from its own knowledge in one call, no KG",
		func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
			cfg, err := ConfigFromParams(p)
			if err != nil {
				return nil, err
			}
			return NewZeroShot(d, cfg)
		})
	reg.Register(MethodCoT, "Chain-of-Thought baseline: step-by-step reasoning, then \"so the answer is\"; no KG",
		func(d reasoner.Deps, p reasoner.Params) (reasoner.Reasoner, error) {
			cfg, err := ConfigFromParams(p)
			if err != nil {
				return nil, err
			}
			return NewCoT(d, cfg)
		})
}

// Answer answers q from the model alone. On a model error the partial
// trace is returned with the error.
func (b *Reasoner) Answer(ctx context.Context, q reasoner.Query) (*trace.Trace, error) {
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.method, err)
	}
	rec := trace.NewRecorder(reasoner.TraceMeta(b.method, b.cfg.Params(), reasoner.Deps{Model: b.model}, q), b.obs)
	r := &run{b: b, rec: rec, model: rec.WrapModel(b.model), question: q.Question, graphs: q.Graphs}
	if b.kg != nil {
		r.kg = rec.WrapKG(b.kg)
	}
	var err error
	if b.method == MethodCoT {
		err = r.cot(ctx)
	} else {
		err = r.zeroShot(ctx)
	}
	if err != nil {
		return rec.Finish(err), fmt.Errorf("%s: %w", b.method, err)
	}
	return rec.Finish(nil), nil
}

// run is the state of one Answer call.
type run struct {
	b        *Reasoner
	rec      *trace.Recorder
	model    llm.Model
	kg       store.KG // nil without a KG at hand
	graphs   []string // the query's graphs (empty: every graph)
	question string
}

const systemPrompt = "You are a knowledgeable assistant who answers questions accurately and concisely."

func messages(user string) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: systemPrompt}, {Role: llm.RoleUser, Content: user}}
}

// root adds the question node, already expanded (order 1).
func (r *run) root() int {
	return r.rec.AddNode(trace.Node{State: "question", Text: r.question, Order: 1})
}

func (r *run) zeroShot(ctx context.Context) error {
	root := r.root()
	prompt := "Answer the question from what you know. Give only the answer, not a sentence; separate several " +
		"answers with commas.\n\nQuestion: " + flat(r.question) + "\n\nReply with one line: Answer: <answer>"
	reply, err := r.generate(trace.WithNode(ctx, root), prompt, task(llm.KindAnswer, TaskZeroShot, r.question, ""),
		r.b.cfg.MaxTokens)
	if err != nil {
		return err
	}
	r.answer(ctx, root, 1, reply)
	return nil
}

func (r *run) cot(ctx context.Context) error {
	root := r.root()
	reasonPrompt := "Question: " + flat(r.question) + "\n\nLet's think step by step. Write down what you know that " +
		"leads to the answer, one step per line. Do not state the final answer yet.\nReasoning:"
	reasoning, err := r.generate(trace.WithNode(ctx, root), reasonPrompt,
		task(llm.KindFree, TaskReason, r.question, ""), r.b.cfg.MaxTokens)
	if err != nil {
		return err
	}
	reasoning = strings.TrimSpace(reasoning)
	think := r.rec.AddNode(trace.Node{Parents: []int{root}, Depth: 1, State: "reasoning", Action: "THINK",
		Text: reasoning, Order: 2})
	answerPrompt := "Question: " + flat(r.question) + "\n\nReasoning:\n" + reasoning + "\n\nSo the answer is? " +
		"Give only the answer, not a sentence; separate several answers with commas.\n" +
		"Reply with one line: Answer: <answer>"
	reply, err := r.generate(trace.WithNode(ctx, think), answerPrompt,
		task(llm.KindAnswer, TaskAnswer, r.question, reasoning), r.b.cfg.AnswerMaxTokens)
	if err != nil {
		return err
	}
	r.answer(ctx, think, 2, reply)
	return nil
}

func task(kind llm.Kind, name, question, context string) llm.Task {
	return llm.Task{Kind: kind, Name: name, Question: question, Context: context}
}

// generate makes one single-sample call and returns its text.
func (r *run) generate(ctx context.Context, prompt string, task llm.Task, maxTokens int) (string, error) {
	resp, err := r.model.Generate(ctx, llm.Request{Messages: messages(prompt), N: 1,
		Temperature: r.b.cfg.Temperature, MaxTokens: maxTokens, Task: task})
	if err != nil {
		return "", fmt.Errorf("%s: %w", task.Name, err)
	}
	if len(resp.Texts) == 0 {
		return "", fmt.Errorf("%s: the model returned no text", task.Name)
	}
	return resp.Texts[0], nil
}

// answer parses the answer reply, adds the answer node under parent and
// records the trace answer, settled by reasoner.NameModelAnswer: an answer
// that looks like an id is flagged on its node, since the model saw no KG.
func (r *run) answer(ctx context.Context, parent, depth int, reply string) {
	text, err := llm.ParseAnswer(reply)
	if err != nil {
		text = firstLine(reply)
		if text == "" {
			r.rec.Warn(parent, "no answer: %v", err)
			r.rec.SetAnswer(trace.Answer{Reason: "no answer: the model's reply was empty"})
			return
		}
		r.rec.Warn(parent, "reply has no \"Answer:\" line; using its first line %q", text)
	}
	id := r.rec.AddNode(trace.Node{Parents: []int{parent}, Depth: depth, State: "done", Action: "ANSWER",
		Text: text, Terminal: true, Answer: true})
	a := trace.Answer{Found: true, Text: text, Node: id, Reason: r.b.method + " answered"}
	if reasoner.IsNonAnswer(text) {
		a.Found = false
		a.Reason = fmt.Sprintf("no answer: %q is a non-answer", text)
	}
	a, warn := reasoner.NameModelAnswer(trace.WithNode(ctx, id), r.kg, r.graphs, a)
	if warn != "" {
		r.rec.Warn(id, "%s", warn)
		r.b.log.Warn(r.b.method+": "+warn, "node", id)
	}
	r.rec.SetAnswer(a)
}

// firstLine returns the first non-empty line of s without a trailing
// period or surrounding emphasis.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.Trim(strings.TrimSpace(l), "*_` ")
		l = strings.TrimSuffix(l, ".")
		if l != "" {
			return flat(l)
		}
	}
	return ""
}

// flat collapses whitespace runs to one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
