package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/cayley/graph"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// Deps are the collaborators of a Server besides its KG.
type Deps struct {
	// Model is the server-owned language model; nil disables /v1/ask.
	Model llm.Model
	// Evaluator scores states (nil = Model).
	Evaluator llm.Model
	// Reasoners builds reasoning methods by name; nil disables /v1/ask.
	Reasoners *reasoner.Registry
	// QuadStore, when set, is served by Cayley's HTTP API under /cayley/.
	// Without one the server is read-only and every /cayley/ route
	// answers with NoCayley.
	QuadStore graph.QuadStore
	// NoCayley says, for clients, why there is no QuadStore (the CLI gives
	// "the *sparqlkg.KG backend has no Cayley quad store: send SPARQL to
	// the endpoint itself"); nil: the KG's type and store.ErrNoQuadStore.
	NoCayley error
	// KG, when set, is served instead of opening the embedded database in
	// Config.DB (a SPARQL or SQL backend); Run does not close it.
	KG store.KG
	// Logger receives access and error logs (nil discards them).
	Logger *slog.Logger
	// Redact lists strings (model endpoint, API key, ...) that must never
	// appear in a response; they are replaced in every error and trace.
	Redact []string
	// Listening, when set, is called by Run with the address once the
	// server accepts connections (the CLI says so on standard error).
	Listening func(addr string)
}

// DefaultMethod is used when an ask request names none (if registered).
const DefaultMethod = "tot"

// asker runs reasoning methods for /v1/ask: it bounds concurrent runs,
// gives each run its own model-call budget, and reports every model call
// to the server's metrics.
type asker struct {
	s         *Server
	reg       *reasoner.Registry
	model     llm.Model
	evaluator llm.Model
	slots     chan struct{}
	inflight  atomic.Int64
	redact    *redactor
}

func newAsker(s *Server) (*asker, error) {
	a := &asker{s: s, reg: s.deps.Reasoners, slots: make(chan struct{}, s.cfg.MaxConcurrentRuns),
		redact: newRedactor(append(slices.Clone(s.deps.Redact), s.sensitivePaths()...))}
	// The reply cap sits inside Observe, which reports each call to the
	// metrics and to the run's trace: a reply over it reaches neither.
	if s.deps.Model != nil {
		a.model = llm.Observe(llm.Bounded(s.deps.Model, s.cfg.Ask.MaxTokens), s.metrics)
		a.evaluator = a.model
	}
	if s.deps.Evaluator != nil {
		a.evaluator = llm.Observe(llm.Bounded(s.deps.Evaluator, s.cfg.Ask.MaxTokens), s.metrics)
	}
	return a, nil
}

// sensitivePaths are the server's own secrets and file paths.
func (s *Server) sensitivePaths() []string {
	out := []string{s.cfg.Token, s.cfg.TokenFile, s.cfg.DB}
	if abs, err := filepath.Abs(s.cfg.DB); err == nil && s.cfg.DB != "" {
		out = append(out, abs)
	}
	return out
}

func (a *asker) enabled() bool { return a.reg != nil && a.model != nil && len(a.reg.Names()) > 0 }

func (a *asker) methodNames() []string {
	if !a.enabled() {
		return nil
	}
	return a.reg.Names()
}

func (a *asker) inFlight() int { return int(a.inflight.Load()) }

// methodsBody is the answer of GET /v1/methods.
type methodsBody struct {
	Methods           []reasoner.Method  `json:"methods"`
	Default           string             `json:"default,omitempty"`
	ParamCaps         map[string]float64 `json:"param_caps"`
	MaxConcurrentRuns int                `json:"max_concurrent_runs"`
	MaxQuestionBytes  int                `json:"max_question_bytes"`
	MaxModelCalls     int                `json:"max_model_calls"`
	TimeoutSeconds    float64            `json:"timeout_seconds"`
}

func (s *Server) handleMethods(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Query()) > 0 {
		s.writeError(w, r, badRequest("this endpoint takes no query parameters"))
		return
	}
	b := methodsBody{Methods: []reasoner.Method{}, ParamCaps: s.cfg.Ask.ParamCaps,
		MaxConcurrentRuns: s.cfg.MaxConcurrentRuns, MaxQuestionBytes: s.cfg.Ask.MaxQuestionBytes,
		MaxModelCalls: s.cfg.Ask.MaxModelCalls, TimeoutSeconds: s.cfg.AskTimeout.Seconds()}
	if s.ask.enabled() {
		b.Methods = s.ask.reg.Methods()
		b.Default = s.ask.defaultMethod()
	}
	writeJSON(w, http.StatusOK, b)
}

func (a *asker) defaultMethod() string {
	names := a.reg.Names()
	if slices.Contains(names, DefaultMethod) {
		return DefaultMethod
	}
	return names[0]
}

// run is one admitted reasoning run.
type run struct {
	a      *asker
	req    askRequest
	rs     reasoner.Reasoner
	start  time.Time
	budget atomic.Int64
}

// admit validates an ask request, takes a run slot (or answers 429) and
// builds the method with obs as its live observer. The caller must call
// release.
func (a *asker) admit(w http.ResponseWriter, r *http.Request, obs trace.Observer) (*run, error) {
	if !a.enabled() {
		return nil, &apiError{http.StatusServiceUnavailable, "reasoning is not configured on this server (no model or no methods)"}
	}
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	default:
		return nil, &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf(
			"Content-Encoding %q is not supported: send the JSON body uncompressed (no Content-Encoding, or identity)", clip(enc))}
	}
	req, err := decodeAsk(r.Body, a.s.cfg.Ask, a.s.cfg.MaxIDs)
	if err != nil {
		return nil, err
	}
	if err := a.check(r.Context(), &req); err != nil {
		return nil, err
	}
	if err := a.acquire(w, req.Method); err != nil {
		return nil, err
	}
	rn := &run{a: a, req: req, start: time.Now()}
	deps := reasoner.Deps{KG: a.s.kg, Model: rn.wrap(a.model), Evaluator: rn.wrap(a.evaluator),
		Logger: a.s.log.With("request_id", requestID(r.Context())), Observer: obs}
	if rn.rs, err = a.reg.Build(req.Method, deps, a.params(req)); err != nil {
		<-a.slots
		return nil, badRequest("%s", oneLine(a.redact.text(err.Error())))
	}
	a.s.runs.Add(1)
	a.inflight.Add(1)
	a.s.metrics.runsInFlight.Inc()
	return rn, nil
}

// params gives each method of a run its parameters: the client's to the
// primary method, and to every method the server's max tokens as its
// max_tokens, which clients cannot set (so a MaxTokens raised above the
// methods' default takes effect).
func (a *asker) params(req askRequest) func(method string) reasoner.Params {
	primary, _, _ := reasoner.ParseSpec(req.Method)
	return func(method string) reasoner.Params {
		p := reasoner.Params{}
		if method == primary {
			maps.Copy(p, req.Params)
		}
		p[reasoner.ParamMaxTokens] = a.s.cfg.Ask.MaxTokens
		return p
	}
}

// acquire takes a run slot without waiting; when none is free it sets
// Retry-After and returns a 429.
func (a *asker) acquire(w http.ResponseWriter, method string) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	default:
	}
	a.s.metrics.runs.WithLabelValues(method, "rejected").Inc()
	secs := max(1, int(math.Ceil(a.s.cfg.RetryAfter.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return &apiError{http.StatusTooManyRequests, fmt.Sprintf(
		"too many reasoning runs in flight (at most %d); retry in %d s", a.s.cfg.MaxConcurrentRuns, secs)}
}

// check fills the default method and rejects unknown methods, graphs and
// topic entities before a slot is taken.
func (a *asker) check(ctx context.Context, req *askRequest) error {
	if req.Method == "" {
		req.Method = a.defaultMethod()
	}
	if err := a.reg.Check(req.Method); err != nil {
		return badRequest("unknown method %q (available: %v, or primary->fallback)", clip(req.Method), a.reg.Names())
	}
	for _, g := range req.Graphs {
		if err := a.s.checkGraph(ctx, g); err != nil {
			return err
		}
	}
	for _, id := range req.TopicEntities {
		if _, err := a.s.kg.Entity(ctx, id); err != nil {
			return fmt.Errorf("topic entity: %w", err)
		}
	}
	return nil
}

// answer runs the method and records the outcome.
func (rn *run) answer(ctx context.Context) (*trace.Trace, error) {
	tr, err := rn.rs.Answer(ctx, rn.req.query())
	oc := outcome(err)
	rn.a.s.metrics.runs.WithLabelValues(rn.req.Method, oc).Inc()
	attrs := []any{"request_id", requestID(ctx), "method", rn.req.Method, "outcome", oc,
		"duration", time.Since(rn.start), "model_calls", rn.budget.Load()}
	if tr != nil {
		attrs = append(attrs, "tokens", tr.Totals.Tokens, "found", tr.Answer.Found)
	}
	rn.a.s.log.Info("reasoning run", attrs...)
	return rn.a.redact.trace(tr), err
}

func (rn *run) release() {
	<-rn.a.slots
	rn.a.inflight.Add(-1)
	rn.a.s.metrics.runsInFlight.Dec()
	rn.a.s.runs.Done()
}

// wrap bounds a model for this run: a shared call budget, N and MaxTokens
// capped by the server's limits.
func (rn *run) wrap(m llm.Model) llm.Model {
	return budgetModel{inner: m, lim: rn.a.s.cfg.Ask, used: &rn.budget}
}

// budgetModel enforces AskLimits on every model call of a run.
type budgetModel struct {
	inner llm.Model
	lim   AskLimits
	used  *atomic.Int64
}

// errBudget is returned once a run has used its model calls.
var errBudget = errors.New("model call budget of this run exhausted")

func (m budgetModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if n := m.used.Add(1); n > int64(m.lim.MaxModelCalls) {
		return llm.Response{}, fmt.Errorf("%w (at most %d calls)", errBudget, m.lim.MaxModelCalls)
	}
	if req.N > m.lim.MaxSamples {
		return llm.Response{}, fmt.Errorf("model call asks for %d samples; this server allows at most %d", req.N, m.lim.MaxSamples)
	}
	if req.MaxTokens <= 0 || req.MaxTokens > m.lim.MaxTokens {
		req.MaxTokens = m.lim.MaxTokens
	}
	resp, err := m.inner.Generate(ctx, req)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// The model's own per-call timeout, not the run's deadline.
		err = &modelTimeoutError{model: llm.Describe(m.inner).Name, err: err}
	}
	return resp, err
}

// modelTimeoutError is a model call that timed out while the run still
// had time: a failure of the model (502), not the run's time limit (504).
type modelTimeoutError struct {
	model string
	err   error
}

func (e *modelTimeoutError) Error() string {
	return fmt.Sprintf("the model %q did not answer within its per-call timeout: %v", e.model, e.err)
}

func (e *modelTimeoutError) Unwrap() error { return e.err }

// Unwrap returns the bounded model (llm.Describe looks through it).
func (m budgetModel) Unwrap() llm.Model { return m.inner }

// askBody is the answer of POST /v1/ask and the "result" stream event.
type askBody struct {
	Answer trace.Answer `json:"answer"`
	// Model names the model that answered (its endpoint redacted), so
	// that no answer is taken for an LLM's when it is not.
	Model llm.Info     `json:"model"`
	Trace *trace.Trace `json:"trace,omitempty"`
	Error string       `json:"error,omitempty"`
}

func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	rn, err := s.ask.admit(w, r, nil)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer rn.release()
	tr, err := rn.answer(r.Context())
	status, body := s.ask.result(r, tr, err)
	if status == 499 {
		// The client is gone; the status is for the metrics and the log.
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

// result maps a finished run to a status and body: 200 when the method
// finished (even without an answer), 504 when the run reached its own
// deadline (AskTimeout), 502 on failure, a model call that timed out
// included.
func (a *asker) result(r *http.Request, tr *trace.Trace, err error) (int, askBody) {
	b := askBody{Trace: tr, Model: a.redact.model(llm.Describe(a.model))}
	if tr != nil {
		b.Answer = tr.Answer
	}
	if err == nil {
		return http.StatusOK, b
	}
	var mt *modelTimeoutError
	switch status, msg, internal := classify(err); {
	case status == 499:
		return status, b
	case status == http.StatusGatewayTimeout && errors.Is(r.Context().Err(), context.DeadlineExceeded) && !errors.As(err, &mt):
		// Only the run's own deadline is this server's time limit.
		b.Error = "the run exceeded this server's time limit of " + a.s.cfg.AskTimeout.String()
		return status, b
	case internal || status == http.StatusGatewayTimeout:
		// A model that timed out (named, with its per-call timeout in
		// its error) or another call's own timeout is a failed run.
		a.s.log.Warn("reasoning run failed", "request_id", requestID(r.Context()), "err", err)
		b.Error = "reasoning failed: " + oneLine(a.redact.text(err.Error()))
		return http.StatusBadGateway, b
	default:
		b.Error = msg
		return status, b
	}
}
