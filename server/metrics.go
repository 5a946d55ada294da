package server

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// metrics are the Prometheus collectors of one Server, registered on the
// Server's own registry (never the global default one), so two servers in
// one process never share counters.
type metrics struct {
	reg            *prometheus.Registry
	requestLatency *prometheus.HistogramVec
	kgLatency      *prometheus.HistogramVec
	modelCalls     *prometheus.CounterVec
	modelTokens    *prometheus.CounterVec
	modelCacheHits prometheus.Counter
	modelCached    *prometheus.CounterVec
	modelLatency   prometheus.Histogram
	runsInFlight   prometheus.Gauge
	runs           *prometheus.CounterVec
}

// latencyBuckets span 100µs to 10s.
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requestLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "grove_http_request_duration_seconds", Help: "HTTP request latency by route, method (other for an unknown method) and status code.",
			Buckets: latencyBuckets}, []string{"route", "method", "code"}),
		kgLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "grove_kg_call_duration_seconds", Help: "Knowledge-graph call latency by operation and outcome.",
			Buckets: latencyBuckets}, []string{"op", "outcome"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grove_model_calls_total", Help: "Model calls by reasoner step and outcome."}, []string{"task", "outcome"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grove_model_tokens_total", Help: "Model tokens by kind (prompt, completion)."}, []string{"kind"}),
		modelCacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "grove_model_cache_hits_total", Help: "Model samples served from the response cache."}),
		modelCached: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grove_model_cached_tokens_total",
			Help: "Tokens the samples served from the response cache cost when they were produced, by kind (prompt, completion); not spent again."},
			[]string{"kind"}),
		modelLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "grove_model_call_duration_seconds", Help: "Model call latency.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
		runsInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "grove_reasoning_runs_in_flight", Help: "Reasoning runs currently executing."}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grove_reasoning_runs_total", Help: "Reasoning runs by method and outcome."}, []string{"method", "outcome"}),
	}
	m.reg.MustRegister(m.requestLatency, m.kgLatency, m.modelCalls, m.modelTokens, m.modelCacheHits, m.modelCached,
		m.modelLatency, m.runsInFlight, m.runs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Record implements llm.Recorder: every model call of every run is counted.
func (m *metrics) Record(_ context.Context, c llm.Call) {
	task := c.Request.Task.Name
	if task == "" {
		task = llm.UnnamedStep
	}
	m.modelCalls.WithLabelValues(task, outcome(c.Err)).Inc()
	m.modelTokens.WithLabelValues("prompt").Add(float64(c.Response.Usage.PromptTokens))
	m.modelTokens.WithLabelValues("completion").Add(float64(c.Response.Usage.CompletionTokens))
	m.modelCacheHits.Add(float64(c.Response.CacheHits))
	m.modelCached.WithLabelValues("prompt").Add(float64(c.Response.CachedUsage.PromptTokens))
	m.modelCached.WithLabelValues("completion").Add(float64(c.Response.CachedUsage.CompletionTokens))
	m.modelLatency.Observe(c.Latency.Seconds())
}

// outcome names an error class for metric labels.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, store.ErrNotFound):
		return "not_found"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}

// kg operations, in the order of the kgOps table.
const (
	opGraphs = iota
	opSearch
	opEntity
	opRelations
	opEdges
	opNeighbors
	opDegree
	opFeatures
	opSameAs
	numOps
)

var kgOps = [numOps]string{"graphs", "search", "entity", "relations", "edges", "neighbors", "degree", "features", "sameas"}

// meteredKG decorates a store.KG with per-operation latency histograms.
// The observers are resolved once so a call costs one clock read and one
// histogram update.
type meteredKG struct {
	kg  store.KG
	obs [numOps]map[string]prometheus.Observer
}

func newMeteredKG(kg store.KG, hv *prometheus.HistogramVec) *meteredKG {
	m := &meteredKG{kg: kg}
	for i, op := range kgOps {
		m.obs[i] = map[string]prometheus.Observer{}
		for _, oc := range []string{"ok", "not_found", "cancelled", "timeout", "error"} {
			m.obs[i][oc] = hv.WithLabelValues(op, oc)
		}
	}
	return m
}

func (m *meteredKG) done(op int, start time.Time, err error) {
	m.obs[op][outcome(err)].Observe(time.Since(start).Seconds())
}

func (m *meteredKG) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	start := time.Now()
	out, err := m.kg.Graphs(ctx)
	m.done(opGraphs, start, err)
	return out, err
}

func (m *meteredKG) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	start := time.Now()
	out, err := m.kg.Search(ctx, graph, text, limit)
	m.done(opSearch, start, err)
	return out, err
}

func (m *meteredKG) Entity(ctx context.Context, id string) (store.Entity, error) {
	start := time.Now()
	out, err := m.kg.Entity(ctx, id)
	m.done(opEntity, start, err)
	return out, err
}

func (m *meteredKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	start := time.Now()
	out, err := m.kg.Relations(ctx, ids, dir)
	m.done(opRelations, start, err)
	return out, err
}

func (m *meteredKG) Edges(ctx context.Context, ids []string, relation string, dir store.Direction, limit int) ([]store.Edge, error) {
	start := time.Now()
	out, err := m.kg.Edges(ctx, ids, relation, dir, limit)
	m.done(opEdges, start, err)
	return out, err
}

func (m *meteredKG) Neighbors(ctx context.Context, id, relation string, dir store.Direction, limit int) ([]store.Entity, error) {
	start := time.Now()
	out, err := m.kg.Neighbors(ctx, id, relation, dir, limit)
	m.done(opNeighbors, start, err)
	return out, err
}

func (m *meteredKG) Degree(ctx context.Context, id, relation string, dir store.Direction) (int64, error) {
	start := time.Now()
	out, err := m.kg.Degree(ctx, id, relation, dir)
	m.done(opDegree, start, err)
	return out, err
}

func (m *meteredKG) Features(ctx context.Context, id string) ([]store.Feature, error) {
	start := time.Now()
	out, err := m.kg.Features(ctx, id)
	m.done(opFeatures, start, err)
	return out, err
}

func (m *meteredKG) SameAs(ctx context.Context, id, graph string) ([]store.Link, error) {
	start := time.Now()
	out, err := m.kg.SameAs(ctx, id, graph)
	m.done(opSameAs, start, err)
	return out, err
}
