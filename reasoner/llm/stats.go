package llm

// Accounting and observation of model calls.
//
// Observe wraps a Model and reports every call (request, response, error,
// latency) to Recorders: the ones given to Observe and the ones carried by
// the call's context (WithRecorder), so a reasoner's tracer can watch the
// calls of one query without owning the Model. Context recorders are called
// once per call even when several observing wrappers are stacked: the
// outermost one dispatches them.
//
// Tally is a Recorder that accumulates per-step counters (by Task.Name);
// Stats is a Model wrapper that feeds a Tally, so Open's model always counts.

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Call is one observed model call.
type Call struct {
	Request  Request
	Response Response
	Err      error
	Start    time.Time
	// Latency is the wall time of the call as seen by the observer.
	Latency time.Duration
}

// Recorder observes model calls. Implementations must be safe for
// concurrent use and should return quickly.
type Recorder interface {
	Record(ctx context.Context, c Call)
}

// RecorderFunc adapts a function to Recorder.
type RecorderFunc func(ctx context.Context, c Call)

// Record calls f.
func (f RecorderFunc) Record(ctx context.Context, c Call) { f(ctx, c) }

type recordersKey struct{}

// dispatchedKey marks a context whose recorders an outer wrapper reports to.
type dispatchedKey struct{}

// WithRecorder returns a context carrying r in addition to the recorders ctx
// already carries. Observing wrappers (Observe, Stats) report each call made
// with that context to r.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	prev, _ := ctx.Value(recordersKey{}).([]Recorder)
	recs := append(slices.Clip(prev), r)
	return context.WithValue(ctx, recordersKey{}, recs)
}

// contextRecorders returns the recorders this wrapper must report to and the
// context to pass to the inner model.
func contextRecorders(ctx context.Context) ([]Recorder, context.Context) {
	recs, _ := ctx.Value(recordersKey{}).([]Recorder)
	if len(recs) == 0 || ctx.Value(dispatchedKey{}) != nil {
		return nil, ctx
	}
	return recs, context.WithValue(ctx, dispatchedKey{}, true)
}

// Observed is a Model that reports its calls to recorders.
type Observed struct {
	inner Model
	recs  []Recorder
}

// Observe wraps inner so that every call is reported to recs and to the
// recorders carried by the call's context.
func Observe(inner Model, recs ...Recorder) *Observed {
	return &Observed{inner: inner, recs: recs}
}

// Generate calls the inner model and reports the call.
func (o *Observed) Generate(ctx context.Context, req Request) (Response, error) {
	ctxRecs, innerCtx := contextRecorders(ctx)
	start := time.Now()
	resp, err := o.inner.Generate(innerCtx, req)
	call := Call{Request: req, Response: resp, Err: err, Start: start, Latency: time.Since(start)}
	for _, r := range o.recs {
		r.Record(ctx, call)
	}
	for _, r := range ctxRecs {
		r.Record(ctx, call)
	}
	return resp, err
}

// Unwrap returns the wrapped model.
func (o *Observed) Unwrap() Model { return o.inner }

// UnnamedStep is the Tally key for calls whose Task.Name is empty.
const UnnamedStep = "(unnamed)"

// StepStats are the counters of one reasoner step (one Task.Name).
type StepStats struct {
	Calls     int64 `json:"calls"`
	Errors    int64 `json:"errors"`
	Samples   int64 `json:"samples"`
	CacheHits int64 `json:"cache_hits"`
	// Usage counts the tokens spent; CachedUsage those the samples served
	// from the cache cost when they were produced, and CacheUnknownUsage
	// the served samples whose usage is unknown (see Response).
	Usage             Usage `json:"usage"`
	CachedUsage       Usage `json:"cached_usage"`
	CacheUnknownUsage int64 `json:"cache_unknown_usage,omitempty"`
	// Latency is the summed wall time of the calls; MaxLatency the longest.
	Latency    time.Duration `json:"latency"`
	MaxLatency time.Duration `json:"max_latency"`
}

// MeanLatency is Latency / Calls.
func (s StepStats) MeanLatency() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.Latency / time.Duration(s.Calls)
}

func (s *StepStats) add(c Call) {
	s.Calls++
	if c.Err != nil {
		s.Errors++
	}
	s.Samples += int64(max(1, c.Request.N))
	s.CacheHits += int64(c.Response.CacheHits)
	s.Usage = s.Usage.Add(c.Response.Usage)
	s.CachedUsage = s.CachedUsage.Add(c.Response.CachedUsage)
	s.CacheUnknownUsage += int64(c.Response.CacheUnknownUsage)
	s.Latency += c.Latency
	s.MaxLatency = max(s.MaxLatency, c.Latency)
}

func (s *StepStats) merge(o StepStats) {
	s.Calls += o.Calls
	s.Errors += o.Errors
	s.Samples += o.Samples
	s.CacheHits += o.CacheHits
	s.Usage = s.Usage.Add(o.Usage)
	s.CachedUsage = s.CachedUsage.Add(o.CachedUsage)
	s.CacheUnknownUsage += o.CacheUnknownUsage
	s.Latency += o.Latency
	s.MaxLatency = max(s.MaxLatency, o.MaxLatency)
}

// Snapshot is a copy of a Tally's counters.
type Snapshot struct {
	Steps map[string]StepStats `json:"steps"`
	Total StepStats            `json:"total"`
}

// Names returns the step names in sorted order.
func (s Snapshot) Names() []string {
	names := make([]string, 0, len(s.Steps))
	for n := range s.Steps {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Tally is a Recorder that counts calls, samples, tokens, latency and cache
// hits per Task.Name. The zero value is ready; it is safe for concurrent
// use. Attach one to a context with WithRecorder for per-query counts.
type Tally struct {
	mu    sync.Mutex
	steps map[string]*StepStats
}

// Record adds c to the counters of its step.
func (t *Tally) Record(_ context.Context, c Call) {
	name := c.Request.Task.Name
	if name == "" {
		name = UnnamedStep
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.steps == nil {
		t.steps = map[string]*StepStats{}
	}
	s := t.steps[name]
	if s == nil {
		s = &StepStats{}
		t.steps[name] = s
	}
	s.add(c)
}

// Snapshot copies the counters.
func (t *Tally) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	snap := Snapshot{Steps: make(map[string]StepStats, len(t.steps))}
	for n, s := range t.steps {
		snap.Steps[n] = *s
		snap.Total.merge(*s)
	}
	return snap
}

// Reset clears the counters.
func (t *Tally) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = nil
}

// Stats is a Model wrapper that counts every call in its Tally (Snapshot,
// Reset) and reports calls to further recorders, including those carried by
// the context.
type Stats struct {
	*Tally
	obs *Observed
}

// NewStats wraps inner; recs are reported every call after the tally.
func NewStats(inner Model, recs ...Recorder) *Stats {
	t := &Tally{}
	return &Stats{Tally: t, obs: Observe(inner, append([]Recorder{t}, recs...)...)}
}

// Generate calls the inner model and counts the call.
func (s *Stats) Generate(ctx context.Context, req Request) (Response, error) {
	return s.obs.Generate(ctx, req)
}

// Unwrap returns the wrapped model.
func (s *Stats) Unwrap() Model { return s.obs.inner }
