package sparqlkg

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
)

// client sends SPARQL queries: a bounded number in flight, a timeout per
// request, retries on 429/502/503/504 honouring Retry-After (their waits
// bounded by the timeout, see do), and a cache
// of response bodies (memory, optionally disk) keyed by the query text so
// that a re-run sends no request twice.
type client struct {
	endpoint string
	host     string // for errors and logs: never the credentials
	auth     string
	http     *http.Client
	sem      chan struct{}
	timeout  time.Duration
	retries  int
	maxBody  int64 // bytes a response may have
	log      *slog.Logger
	cacheDir string

	mu       sync.Mutex
	mem      map[string][]byte
	inflight map[string]*call
	requests int64 // requests sent (not cache hits)
}

type call struct {
	done chan struct{}
	body []byte
	err  error
}

// Error is a failure of the endpoint, with what it said.
type Error struct {
	Host   string
	Status int    // HTTP status, 0 when the endpoint could not be reached
	Body   string // the start of the response
	Query  string // the start of the query
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sparql endpoint %s: ", e.Host)
	switch {
	case e.Status == 0:
		fmt.Fprintf(&b, "unreachable: %v", e.Err)
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		fmt.Fprintf(&b, "HTTP %d: the endpoint rejected the credentials (check --sparql-auth-file / GROVE_SPARQL_AUTH)", e.Status)
	case e.Status == http.StatusBadRequest:
		fmt.Fprintf(&b, "the endpoint rejected the query (HTTP 400): %s; query: %s", e.Body, e.Query)
	case e.Err != nil:
		fmt.Fprintf(&b, "%v", e.Err)
	case e.Body == "":
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	default:
		fmt.Fprintf(&b, "HTTP %d: %s", e.Status, e.Body)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// results is a SPARQL 1.1 JSON results document.
type results struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results struct {
		Bindings []map[string]term `json:"bindings"`
	} `json:"results"`
	Boolean *bool `json:"boolean"`
}

// term is one RDF term of a binding.
type term struct {
	Type     string `json:"type"` // uri, literal, typed-literal, bnode
	Value    string `json:"value"`
	Lang     string `json:"xml:lang"`
	Datatype string `json:"datatype"`
}

// query runs a SELECT or ASK query.
func (c *client) query(ctx context.Context, q string) (*results, error) {
	body, err := c.cached(ctx, q, func(ctx context.Context) ([]byte, error) { return c.send(ctx, q) })
	if err != nil {
		return nil, err
	}
	r, err := parseResults(c.host, q, body)
	if err != nil {
		c.forget(q)
	}
	return r, err
}

// parseResults decodes a SPARQL JSON results document.
func parseResults(host, q string, body []byte) (*results, error) {
	var r results
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, &Error{Host: host, Status: 200, Query: snippet(q),
			Err: fmt.Errorf("not a SPARQL JSON result: %w: %s", err, snippet(string(body)))}
	}
	if r.Boolean == nil && r.Head.Vars == nil {
		return nil, &Error{Host: host, Status: 200, Query: snippet(q),
			Err: fmt.Errorf("not a SPARQL JSON result (no head.vars): %s", snippet(string(body)))}
	}
	return &r, nil
}

// cached returns the response body for request q from memory, disk or
// fetch; concurrent identical requests share one fetch.
func (c *client) cached(ctx context.Context, q string, fetch func(context.Context) ([]byte, error)) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := cacheKey(q)
	c.mu.Lock()
	for {
		if b, ok := c.mem[key]; ok {
			c.mu.Unlock()
			return b, nil
		}
		cl, ok := c.inflight[key]
		if !ok {
			break
		}
		c.mu.Unlock()
		select {
		case <-cl.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// The fetch ran under its first caller's context: when that
		// caller gave up, the others (their contexts alive) fetch anew
		// rather than fail with a cancellation that is not theirs.
		if cl.err == nil || !isContextErr(cl.err) || ctx.Err() != nil {
			return cl.body, cl.err
		}
		c.mu.Lock()
	}
	cl := &call{done: make(chan struct{})}
	c.inflight[key] = cl
	c.mu.Unlock()

	cl.body, cl.err = c.load(ctx, key, fetch)
	c.mu.Lock()
	delete(c.inflight, key)
	if cl.err == nil {
		c.mem[key] = cl.body
	}
	c.mu.Unlock()
	close(cl.done)
	return cl.body, cl.err
}

// isContextErr reports a cancellation or deadline error.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// forget drops a response that turned out to be unusable.
func (c *client) forget(q string) {
	key := cacheKey(q)
	c.mu.Lock()
	delete(c.mem, key)
	c.mu.Unlock()
	if c.cacheDir != "" {
		_ = os.Remove(c.cachePath(key))
	}
}

func cacheKey(q string) string {
	sum := sha256.Sum256([]byte(q))
	return hex.EncodeToString(sum[:])
}

func (c *client) cachePath(key string) string {
	return filepath.Join(c.cacheDir, key[:2], key+".json")
}

// cacheHoldsAnswers reports whether the disk cache holds some non-empty
// answer (a cache file); false without a cache directory.
func (c *client) cacheHoldsAnswers() bool {
	if c.cacheDir == "" {
		return false
	}
	found := false
	_ = filepath.WalkDir(c.cacheDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil //nolint:nilerr // an unreadable entry holds no answer
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// load reads the disk cache or fetches (and fills the cache).
func (c *client) load(ctx context.Context, key string, fetch func(context.Context) ([]byte, error)) ([]byte, error) {
	if c.cacheDir != "" {
		if b, err := os.ReadFile(c.cachePath(key)); err == nil {
			return b, nil
		}
	}
	b, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	if c.cacheDir != "" {
		if err := writeAtomic(c.cachePath(key), b); err != nil {
			c.log.Warn("sparql cache write failed", "err", err)
		}
	}
	return b, nil
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// send posts query q, retrying throttling and gateway errors.
func (c *client) send(ctx context.Context, q string) ([]byte, error) {
	return c.do(ctx, q, func(ctx context.Context) (*http.Request, error) {
		form := url.Values{"query": {q}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/sparql-results+json")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		return req, nil
	}, "application/sparql-results+json", "application/json")
}

// do sends the request build makes, retrying throttling and gateway
// errors; the response must have one of the content types. The waits
// between retries (Retry-After, or a backoff from 0.5 s doubling) add up
// to at most the request timeout and end before the context's deadline:
// a wait beyond either fails at once (retryWait), and each wait is logged
// as a warning.
func (c *client) do(ctx context.Context, q string, build func(context.Context) (*http.Request, error), types ...string) ([]byte, error) {
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	backoff, waited := 500*time.Millisecond, time.Duration(0)
	for attempt := 0; ; attempt++ {
		b, wait, err := c.once(ctx, q, build, types)
		if err == nil || wait < 0 || attempt >= c.retries {
			return b, err
		}
		asked := wait > 0 // Retry-After
		if !asked {
			wait, backoff = backoff, backoff*2
		}
		if err := c.retryWait(ctx, err, wait, waited, asked); err != nil {
			return nil, err
		}
		c.log.Warn("sparql endpoint failed: waiting before a retry", "host", c.host, "wait", wait,
			"retry", attempt+1, "of", c.retries, "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("sparql endpoint %s: waiting %v to retry: %w", c.host, wait, ctx.Err())
		}
		waited += wait
	}
}

// retryWait refuses a wait before a retry after err that would take the
// retries of one request beyond their budget, the request timeout (having
// waited already), or beyond the context's deadline: the error wraps err
// and names the wait (asked: the endpoint's Retry-After, else the
// backoff), the bound and what sets it.
func (c *client) retryWait(ctx context.Context, err error, wait, waited time.Duration, asked bool) error {
	left := c.timeout - waited
	dl, ok := ctx.Deadline()
	byDeadline := ok && time.Until(dl) < left
	if byDeadline {
		left = time.Until(dl)
	}
	if wait <= left {
		return nil
	}
	bound := fmt.Sprintf("the %v its retries may still wait (the request timeout, --sparql-timeout %v, bounds the total wait of one request's retries)", left, c.timeout)
	if byDeadline {
		bound = fmt.Sprintf("the %v left before the call's deadline", max(left, 0).Round(time.Millisecond))
	}
	why := fmt.Sprintf("the next retry would wait %v (backoff)", wait)
	if asked {
		why = fmt.Sprintf("the endpoint asked to retry after %v (Retry-After)", wait)
	}
	return fmt.Errorf("%w; %s, more than %s: not retried", err, why, bound)
}

// once sends one request. wait >= 0 means the failure may be retried
// (after wait, or a backoff when 0); wait < 0 means it is final.
func (c *client) once(ctx context.Context, q string, build func(context.Context) (*http.Request, error), types []string) (body []byte, wait time.Duration, err error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := build(rctx)
	if err != nil {
		return nil, -1, err
	}
	req.Header.Set("User-Agent", "grove-sparqlkg")
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	resp, err := c.http.Do(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && strings.HasPrefix(c.auth, "Basic ") {
		resp, err = c.digest(rctx, build, resp)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, -1, &Error{Host: c.host, Status: 0, Query: snippet(q), Err: fmt.Errorf("no answer within %v: %w", c.timeout, scrub(err, c.endpoint))}
		}
		return nil, 0, &Error{Host: c.host, Err: scrub(err, c.endpoint)}
	}
	defer resp.Body.Close()
	// The body is read under the request's deadline and up to maxBody
	// bytes: an endpoint that stalls mid-answer is not waited for again
	// (no retry), and one that streams without end cannot exhaust memory.
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, fmt.Errorf("sparql endpoint %s: %w", c.host, ctx.Err())
		}
		if rctx.Err() != nil {
			return nil, -1, &Error{Host: c.host, Status: resp.StatusCode, Query: snippet(q),
				Err: fmt.Errorf("the answer did not arrive within %v: %w", c.timeout, rctx.Err())}
		}
		return nil, 0, &Error{Host: c.host, Status: resp.StatusCode, Err: fmt.Errorf("reading the response: %w", scrub(err, c.endpoint))}
	}
	if int64(len(b)) > c.maxBody {
		return nil, -1, &Error{Host: c.host, Status: resp.StatusCode, Query: snippet(q),
			Err: fmt.Errorf("the answer is larger than %d bytes (Config.MaxResponseBytes): ask for less", c.maxBody)}
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil, retryAfter(resp.Header.Get("Retry-After")), &Error{Host: c.host, Status: resp.StatusCode, Body: snippet(string(b)), Query: snippet(q)}
	default:
		return nil, -1, &Error{Host: c.host, Status: resp.StatusCode, Body: snippet(string(b)), Query: snippet(q)}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !slices.Contains(types, ct) {
		return nil, -1, &Error{Host: c.host, Status: resp.StatusCode, Query: snippet(q),
			Err: fmt.Errorf("not a SPARQL endpoint: content type %q, body %s", ct, snippet(string(b)))}
	}
	return b, 0, nil
}

// digest answers the HTTP Digest challenge of an endpoint that refused
// Basic credentials (Virtuoso's /sparql-auth), with the same user and
// password. Without a challenge in the refusal it asks for one with an
// unauthenticated request. It returns the final response.
func (c *client) digest(ctx context.Context, build func(context.Context) (*http.Request, error), refused *http.Response) (*http.Response, error) {
	challenge := refused.Header.Get("WWW-Authenticate")
	if !strings.HasPrefix(challenge, "Digest ") {
		req, err := build(ctx)
		if err != nil {
			return refused, nil
		}
		req.Header.Del("Authorization")
		resp, err := c.http.Do(req)
		if err != nil {
			return refused, nil
		}
		challenge = resp.Header.Get("WWW-Authenticate")
		resp.Body.Close()
	}
	req, err := build(ctx)
	if err != nil {
		return refused, nil
	}
	h, ok := digestAuth(challenge, c.auth, req)
	if !ok {
		return refused, nil
	}
	refused.Body.Close()
	req.Header.Set("User-Agent", "grove-sparqlkg")
	req.Header.Set("Authorization", h)
	return c.http.Do(req)
}

// maxRetryAfter caps a parsed Retry-After, keeping absurd values from
// overflowing a time.Duration; any wait that long is refused anyway
// (retryWait).
const maxRetryAfter = 365 * 24 * time.Hour

// retryAfter parses Retry-After (seconds or an HTTP date); 0 means "use
// the backoff". The wait is not capped here: retryWait refuses one beyond
// the retry budget rather than retry sooner than the endpoint asked.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		d = time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = min(time.Until(t), maxRetryAfter)
	}
	return max(d, 0)
}

// scrub removes credentials from a transport error: net/http quotes the
// request URL (*url.Error), whose user info and query string (API keys,
// tokens) must not reach logs or the user. The *url.Error keeps its cause
// so that errors.Is still sees timeouts and cancellations.
func scrub(err error, endpoint string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		clean := *ue
		clean.URL = redactURL(ue.URL)
		if ue == err {
			return &clean
		}
		// A wrapped *url.Error: rebuild the message around the clean one.
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), ue.Error(), clean.Error()))
	}
	if endpoint != "" && strings.Contains(err.Error(), endpoint) {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), endpoint, redactURL(endpoint)))
	}
	return err
}

func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// ReadAuth reads the Authorization header value from a file (trimmed) or
// returns env. A bare "user:password" becomes HTTP Basic.
func ReadAuth(file, env string) (string, error) {
	v := env
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("sparql auth file: %w", err)
		}
		v = string(bytes.TrimSpace(b))
	}
	if v == "" {
		return "", nil
	}
	if strings.Contains(v, " ") {
		return v, nil // "Basic ...", "Bearer ..."
	}
	if user, pass, ok := strings.Cut(v, ":"); ok {
		req, _ := http.NewRequest(http.MethodGet, "http://x", nil)
		req.SetBasicAuth(user, pass)
		return req.Header.Get("Authorization"), nil
	}
	return "Bearer " + v, nil
}
