// Package loadgen is a small closed-loop HTTP load generator for Grove's
// server: N concurrent clients each send requests back to back (the next
// as soon as the previous answered) over keep-alive connections, cycling
// through a list of targets, until a request count or a duration is
// reached. It reports throughput, latency percentiles and errors.
//
// It refuses to send load anywhere but this machine: the base URL must be
// a loopback address (or a name resolving only to loopback addresses).
//
// Latencies are measured per request from just before the request is sent
// until its body has been read completely; each client records its own
// samples and they are merged at the end, so measuring adds no contention.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Target is one request to send.
type Target struct {
	// Method defaults to GET.
	Method string
	// Path is appended to Config.BaseURL ("/v1/relations?id=m1").
	Path string
	// Body is sent with every request to this target.
	Body []byte
	// Header is added to the request (after Config.Header).
	Header http.Header
}

// Config bounds a run. At least one of Requests and Duration must be set;
// the run stops at whichever comes first.
type Config struct {
	// BaseURL is the server, e.g. "http://127.0.0.1:7777"; loopback only.
	BaseURL string
	// Targets are cycled through; client i starts at target i.
	Targets []Target
	// Clients is the number of concurrent clients (default 8, at most
	// MaxClients).
	Clients int
	// Requests bounds the total number of requests (0 = no bound).
	Requests int64
	// Duration bounds the run time (0 = no bound).
	Duration time.Duration
	// Timeout bounds one request (default 10s).
	Timeout time.Duration
	// Header is added to every request (e.g. Authorization).
	Header http.Header
	// Client overrides the HTTP client (default: keep-alive transport
	// sized for Clients connections).
	Client *http.Client
}

// Result summarises a run.
type Result struct {
	// Requests counts completed requests (answered or failed).
	Requests int64 `json:"requests"`
	// Errors counts transport failures plus non-2xx answers.
	Errors int64 `json:"errors"`
	// Status counts answers by status code.
	Status map[int]int64 `json:"status"`
	// TransportErrors counts requests that got no answer.
	TransportErrors int64 `json:"transport_errors"`
	// FirstError describes the first error seen ("" when none).
	FirstError string        `json:"first_error,omitempty"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// RPS is Requests / Elapsed.
	RPS  float64       `json:"rps"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// String is a one-line summary.
func (r Result) String() string {
	return fmt.Sprintf("%d requests in %v: %.0f req/s, p50 %v, p90 %v, p99 %v, max %v, %d errors",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.RPS, r.P50, r.P90, r.P99, r.Max, r.Errors)
}

// withDefaults validates cfg and fills defaults.
// MaxClients bounds Config.Clients: more would start that many
// goroutines and connections before the run's clock could stop them.
const MaxClients = 10_000

func (cfg Config) withDefaults() (Config, error) {
	switch {
	case len(cfg.Targets) == 0:
		return cfg, errors.New("loadgen: no targets")
	case cfg.Requests <= 0 && cfg.Duration <= 0:
		return cfg, errors.New("loadgen: set Requests or Duration (a run must be bounded)")
	case cfg.Clients < 0 || cfg.Requests < 0 || cfg.Duration < 0 || cfg.Timeout < 0:
		return cfg, errors.New("loadgen: negative bound")
	case cfg.Clients > MaxClients:
		return cfg, fmt.Errorf("loadgen: %d clients, over the %d one process can drive (each a goroutine and a connection)", cfg.Clients, MaxClients)
	}
	if cfg.Clients == 0 {
		cfg.Clients = 8
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Transport: &http.Transport{
			MaxIdleConns: cfg.Clients, MaxIdleConnsPerHost: cfg.Clients, IdleConnTimeout: time.Minute,
			DisableCompression: true, ForceAttemptHTTP2: false}}
	}
	return cfg, nil
}

// CheckLoopback returns an error unless rawURL's host is a loopback
// address or resolves only to loopback addresses.
func CheckLoopback(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("loadgen: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("loadgen: base URL %q: scheme must be http or https", rawURL)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("loadgen: base URL %q has no host", rawURL)
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("loadgen: %s is not a loopback address: load is only sent to this machine", host)
		}
		return nil
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("loadgen: resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("loadgen: %s resolves to %s, not loopback: load is only sent to this machine", host, a.IP)
		}
	}
	return nil
}

// Run sends the load and reports. It returns early with ctx's error when
// ctx is cancelled (the partial result is still returned).
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if err := CheckLoopback(ctx, cfg.BaseURL); err != nil {
		return Result{}, err
	}
	reqs, err := buildRequests(cfg)
	if err != nil {
		return Result{}, err
	}
	runCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	g := &gen{cfg: cfg, reqs: reqs, ctx: runCtx}
	start := time.Now()
	g.run()
	res := g.result(time.Since(start))
	return res, ctx.Err()
}

// prepared is a Target turned into a reusable request template.
type prepared struct {
	method string
	url    string
	body   []byte
	header http.Header
}

func buildRequests(cfg Config) ([]prepared, error) {
	base := strings.TrimSuffix(cfg.BaseURL, "/")
	out := make([]prepared, len(cfg.Targets))
	for i, t := range cfg.Targets {
		m := t.Method
		if m == "" {
			m = http.MethodGet
		}
		h := cfg.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
		for k, v := range t.Header {
			h[k] = v
		}
		u := base + t.Path
		if _, err := url.Parse(u); err != nil {
			return nil, fmt.Errorf("loadgen: target %d: %w", i, err)
		}
		out[i] = prepared{method: m, url: u, body: t.Body, header: h}
	}
	return out, nil
}

// gen is one run's shared state.
type gen struct {
	cfg    Config
	reqs   []prepared
	ctx    context.Context
	issued atomic.Int64

	mu        sync.Mutex
	latencies []time.Duration
	status    map[int]int64
	transport int64
	firstErr  string
}

func (g *gen) run() {
	var wg sync.WaitGroup
	for i := range g.cfg.Clients {
		wg.Go(func() { g.client(i) })
	}
	wg.Wait()
}

// client sends requests until a bound is reached, then merges its samples.
func (g *gen) client(i int) {
	var lat []time.Duration
	status := map[int]int64{}
	var transport int64
	var firstErr string
	for k := i; ; k++ {
		if g.ctx.Err() != nil || (g.cfg.Requests > 0 && g.issued.Add(1) > g.cfg.Requests) {
			break
		}
		d, code, err := g.send(g.reqs[k%len(g.reqs)])
		if err != nil && g.ctx.Err() != nil {
			break // cut off by the end of the run, not a failure
		}
		lat = append(lat, d)
		if err != nil {
			transport++
		} else {
			status[code]++
		}
		if firstErr == "" {
			firstErr = describe(err, code)
		}
	}
	g.merge(lat, status, transport, firstErr)
}

func describe(err error, code int) string {
	switch {
	case err != nil:
		return err.Error()
	case code < 200 || code > 299:
		return fmt.Sprintf("HTTP %d", code)
	}
	return ""
}

// send issues one request and reads the whole answer.
func (g *gen) send(p prepared) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.Timeout)
	defer cancel()
	var body io.Reader
	if p.body != nil {
		body = bytes.NewReader(p.body)
	}
	req, err := http.NewRequestWithContext(ctx, p.method, p.url, body)
	if err != nil {
		return 0, 0, err
	}
	req.Header = p.header
	start := time.Now()
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		return time.Since(start), 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), resp.StatusCode, err
}

func (g *gen) merge(lat []time.Duration, status map[int]int64, transport int64, firstErr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.latencies = append(g.latencies, lat...)
	if g.status == nil {
		g.status = map[int]int64{}
	}
	for c, n := range status {
		g.status[c] += n
	}
	g.transport += transport
	if g.firstErr == "" {
		g.firstErr = firstErr
	}
}

func (g *gen) result(elapsed time.Duration) Result {
	r := Result{Requests: int64(len(g.latencies)), Status: g.status, TransportErrors: g.transport,
		FirstError: g.firstErr, Elapsed: elapsed}
	if r.Status == nil {
		r.Status = map[int]int64{}
	}
	r.Errors = g.transport
	for c, n := range r.Status {
		if c < 200 || c > 299 {
			r.Errors += n
		}
	}
	if elapsed > 0 {
		r.RPS = float64(r.Requests) / elapsed.Seconds()
	}
	lat := g.latencies
	if len(lat) == 0 {
		return r
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	r.Mean = sum / time.Duration(len(lat))
	r.P50, r.P90, r.P99 = Percentile(lat, 50), Percentile(lat, 90), Percentile(lat, 99)
	r.Max = lat[len(lat)-1]
	return r
}

// Percentile returns the nearest-rank p-th percentile of sorted samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(float64(len(sorted))*p/100)) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}
