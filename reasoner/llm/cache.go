package llm

// The persistent response cache: a Model wrapper storing each sample in a
// Badger database.
//
// Every sample is cached under its own key: a SHA-256 over the canonical
// JSON of the model identity (model name, endpoint, extra body), the
// request's temperature, max tokens, stop sequences, prompt or messages,
// and the sample index i. Sample i of an identical request is therefore
// reproducible, and a request for N samples calls the model only for the
// indices not yet cached (asking it for that many samples). Task is not part
// of the key: real models read only the prompt.
//
// The server's base URL is not part of the key either (moving a server to
// another port keeps its cache), so two servers serving different weights
// under one model name share entries. Each entry therefore records its
// origin: the redacted base URL of the server that produced it and the
// model name that server reported, and the token usage it reported (a
// request's usage split evenly over its samples). A Response says how many
// samples came from the cache, the usage they cost when they were produced
// (CachedUsage; Usage counts only tokens spent now) and their origins
// (CacheSources). Entries written before origins and usage were recorded
// are served as before, with an unknown origin and unknown usage
// (CacheUnknownUsage), never as 0 tokens.
//
// Modes: off (pass through), read (use cached samples, never write),
// readwrite. A read-mode cache opens Badger read-only, so several processes
// may read one directory at once; a readwrite cache holds Badger's directory
// lock, so writers must open it one after another (or use directories of
// their own): a refused open is ErrCacheInUse, naming the holder. Two concurrent identical
// requests in one process may both miss and both call the model; the later
// write wins.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store/dirlock"
)

// CacheMode says how a Cache uses its store.
type CacheMode string

// Cache modes.
const (
	CacheOff       CacheMode = "off"
	CacheRead      CacheMode = "read"
	CacheReadWrite CacheMode = "readwrite"
)

// ParseCacheMode parses "off" (or ""), "read" and "readwrite" (also
// "read-write", "rw"), case-insensitively.
func ParseCacheMode(s string) (CacheMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "off", "none":
		return CacheOff, nil
	case "read", "readonly", "read-only", "ro":
		return CacheRead, nil
	case "readwrite", "read-write", "rw":
		return CacheReadWrite, nil
	}
	return "", fmt.Errorf("cache mode %q: want off, read or readwrite", s)
}

// ErrCacheInUse is returned (wrapped) by OpenCache when another process
// holds the cache's store: Badger lets one process write it, or several
// read it once none writes.
var ErrCacheInUse = errors.New("response cache in use by another process")

// CacheIdentity is the part of a cache key that identifies the model.
type CacheIdentity struct {
	Model     string         `json:"model"`
	Endpoint  string         `json:"endpoint"`
	ExtraBody map[string]any `json:"extra_body,omitempty"`
}

// CacheOptions configure OpenCache.
type CacheOptions struct {
	Dir      string
	Mode     CacheMode
	Identity CacheIdentity
	// Endpoint is the redacted base URL (RedactEndpoint) of the server
	// behind the cache, recorded in every entry written as its origin.
	Endpoint string
	// Server is ServerID of the base URL, recorded beside Endpoint so that
	// two hosts behind the same redacted endpoint are told apart.
	Server string
	// Logger receives Badger warnings and cache write failures (nil:
	// slog.Default()).
	Logger *slog.Logger
}

// cacheKeyVersion changes when the key layout changes.
const cacheKeyVersion = 1

// Cache is a Model wrapper that stores responses on disk. It is safe for
// concurrent use; call Close when done.
type Cache struct {
	inner Model
	opts  CacheOptions
	log   *slog.Logger

	mu     sync.RWMutex // guards db against Close
	db     *badger.DB   // nil when off, or read mode on a missing store
	closed bool
}

// OpenCache wraps inner. In off mode no store is opened. In read mode a
// directory without a store behaves as an empty cache.
func OpenCache(inner Model, opts CacheOptions) (*Cache, error) {
	c := &Cache{inner: inner, opts: opts, log: opts.Logger}
	if c.log == nil {
		c.log = slog.Default()
	}
	switch opts.Mode {
	case CacheOff:
		return c, nil
	case CacheRead, CacheReadWrite:
	default:
		return nil, fmt.Errorf("response cache: mode %q: want off, read or readwrite", opts.Mode)
	}
	if strings.TrimSpace(opts.Dir) == "" {
		return nil, fmt.Errorf("response cache: field Dir: required in mode %s", opts.Mode)
	}
	if opts.Mode == CacheRead && !storeExists(opts.Dir) {
		c.log.Info("response cache is empty (no store yet)", "dir", opts.Dir)
		return c, nil
	}
	db, err := badger.Open(badgerOptions(opts.Dir, opts.Mode == CacheRead, c.log))
	if dirlock.IsLocked(err) {
		holders := dirlock.Holders(opts.Dir)
		return nil, fmt.Errorf("%w: response cache %s is held by %s; a readwrite cache serves one process at a time, "+
			"and a read-mode open waits until no process writes it", ErrCacheInUse, opts.Dir,
			dirlock.Describe(holders, "another process"))
	}
	if err != nil {
		return nil, fmt.Errorf("response cache %s: open: %w", opts.Dir, err)
	}
	c.db = db
	return c, nil
}

func storeExists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "MANIFEST"))
	return err == nil
}

func badgerOptions(dir string, readOnly bool, log *slog.Logger) badger.Options {
	return badger.DefaultOptions(dir).
		WithReadOnly(readOnly).
		WithLogger(badgerLogger{log}).
		WithLoggingLevel(badger.WARNING).
		WithMetricsEnabled(false).
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(16 << 20).
		WithValueLogFileSize(64 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2)
}

// badgerLogger forwards Badger's warnings and errors to slog.
type badgerLogger struct{ log *slog.Logger }

func (l badgerLogger) Errorf(f string, a ...any) {
	l.log.Error("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}

func (l badgerLogger) Warningf(f string, a ...any) {
	l.log.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}

// Close closes the store. Generate fails after Close.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.db == nil {
		return nil
	}
	err := c.db.Close()
	c.db = nil
	if err != nil {
		return fmt.Errorf("response cache %s: close: %w", c.opts.Dir, err)
	}
	return nil
}

// Unwrap returns the wrapped model.
func (c *Cache) Unwrap() Model { return c.inner }

// cachedSample is the stored value of one sample. Usage and Endpoint are
// absent from entries written by older Groves.
type cachedSample struct {
	Text string `json:"text"`
	// Model is the model name the server reported (the configured name
	// when it reported none).
	Model   string    `json:"model"`
	Created time.Time `json:"created"`
	// Usage is the sample's share of the usage the server reported for the
	// request that produced it; nil when unknown.
	Usage *Usage `json:"usage,omitempty"`
	// Endpoint is the redacted base URL of the server that produced it.
	Endpoint string `json:"endpoint,omitempty"`
	// Server is ServerID of the producing server's base URL.
	Server string `json:"server,omitempty"`
}

// CacheSource counts the samples served from the response cache that one
// origin produced: the redacted base URL of the server (Endpoint; empty for
// entries written by older Groves, which did not record it) and the model
// name that server reported. Server (ServerID) tells apart two hosts
// whose redacted endpoints read the same.
type CacheSource struct {
	Endpoint string `json:"endpoint,omitempty"`
	Server   string `json:"server,omitempty"`
	Model    string `json:"model,omitempty"`
	Samples  int    `json:"samples"`
}

// Known reports whether the origin's endpoint was recorded.
func (s CacheSource) Known() bool { return s.Endpoint != "" }

// From reports whether the samples came from the model info describes: its
// endpoint (the same server, when both record ServerID), answering under
// its configured name.
func (s CacheSource) From(info Info) bool {
	return s.Known() && s.Endpoint == info.Endpoint && s.Model == info.Name &&
		(s.Server == "" || info.Server == "" || s.Server == info.Server)
}

// String describes the origin: `"m" at http://<host>:8000/v1`, or "an
// unknown server" for entries that did not record it.
func (s CacheSource) String() string {
	if !s.Known() {
		if s.Model == "" {
			return "an unknown server"
		}
		return fmt.Sprintf("%q at an unknown server", s.Model)
	}
	if s.Server != "" {
		return fmt.Sprintf("%q at %s (server %s)", s.Model, s.Endpoint, s.Server)
	}
	return fmt.Sprintf("%q at %s", s.Model, s.Endpoint)
}

// AddCacheSources returns sources with add's counts added by origin; new
// origins are appended in order.
func AddCacheSources(sources []CacheSource, add ...CacheSource) []CacheSource {
	for _, a := range add {
		i := slices.IndexFunc(sources, func(s CacheSource) bool {
			return s.Endpoint == a.Endpoint && s.Server == a.Server && s.Model == a.Model
		})
		if i < 0 {
			sources = append(sources, a)
			continue
		}
		sources[i].Samples += a.Samples
	}
	return sources
}

// Generate returns cached samples and asks the inner model for the rest.
func (c *Cache) Generate(ctx context.Context, req Request) (Response, error) {
	if c.opts.Mode == CacheOff {
		return c.inner.Generate(ctx, req)
	}
	start := time.Now()
	n := max(1, req.N)
	keys, err := c.keys(req, n)
	if err != nil {
		return Response{}, err
	}
	found, err := c.lookup(keys)
	if err != nil {
		return Response{}, err
	}
	resp := Response{Texts: make([]string, n)}
	var missing []int
	for i := range n {
		if s, ok := found[i]; ok {
			serveHit(&resp, i, s)
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		if err := c.fill(ctx, req, keys, missing, &resp); err != nil {
			return Response{}, err
		}
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

// DescribeCacheSources lists cache origins with their sample counts:
// `12 samples from "m" at http://<host>:9000/v1, 3 from an unknown server`.
func DescribeCacheSources(sources []CacheSource) string {
	parts := make([]string, len(sources))
	for i, s := range sources {
		unit := "samples "
		if i > 0 {
			unit = ""
		} else if s.Samples == 1 {
			unit = "sample "
		}
		parts[i] = fmt.Sprintf("%d %sfrom %s", s.Samples, unit, s)
	}
	return strings.Join(parts, ", ")
}

// serveHit puts the cached sample s at index i of resp and accounts for
// its usage and origin.
func serveHit(resp *Response, i int, s cachedSample) {
	resp.Texts[i], resp.Model = s.Text, s.Model
	resp.CacheHits++
	if s.Usage != nil {
		resp.CachedUsage = resp.CachedUsage.Add(*s.Usage)
	} else {
		resp.CacheUnknownUsage++
	}
	resp.CacheSources = AddCacheSources(resp.CacheSources, CacheSource{Endpoint: s.Endpoint, Server: s.Server, Model: s.Model, Samples: 1})
}

// fill asks the inner model for the missing samples and stores them.
func (c *Cache) fill(ctx context.Context, req Request, keys [][]byte, missing []int, resp *Response) error {
	sub := req
	sub.N = len(missing)
	r, err := c.inner.Generate(ctx, sub)
	if err != nil {
		return err
	}
	if len(r.Texts) != len(missing) {
		return fmt.Errorf("response cache: model returned %d texts for %d samples", len(r.Texts), len(missing))
	}
	for j, i := range missing {
		resp.Texts[i] = r.Texts[j]
	}
	resp.Usage, resp.Model = r.Usage, r.Model
	resp.CacheHits += r.CacheHits
	resp.CachedUsage = resp.CachedUsage.Add(r.CachedUsage)
	resp.CacheUnknownUsage += r.CacheUnknownUsage
	resp.CacheSources = AddCacheSources(resp.CacheSources, r.CacheSources...)
	if c.opts.Mode == CacheReadWrite {
		if err := c.store(keys, missing, r); err != nil {
			c.log.Warn("response cache write failed", "dir", c.opts.Dir, "task", req.Task.Name, "error", err)
		}
	}
	return nil
}

// keys computes the store key of each sample.
func (c *Cache) keys(req Request, n int) ([][]byte, error) {
	doc := struct {
		V           int            `json:"v"`
		Model       string         `json:"model"`
		Endpoint    string         `json:"endpoint"`
		ExtraBody   map[string]any `json:"extra_body"`
		Temperature float64        `json:"temperature"`
		MaxTokens   int            `json:"max_tokens"`
		Stop        []string       `json:"stop"`
		Prompt      string         `json:"prompt"`
		Messages    []Message      `json:"messages"`
		Sample      int            `json:"sample"`
	}{V: cacheKeyVersion, Model: c.opts.Identity.Model, Endpoint: c.opts.Identity.Endpoint,
		ExtraBody: c.opts.Identity.ExtraBody, Temperature: req.Temperature, MaxTokens: req.MaxTokens,
		Stop: req.Stop, Prompt: req.Prompt, Messages: req.Messages}
	keys := make([][]byte, n)
	for i := range n {
		doc.Sample = i
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("response cache: key of task %q: %w", req.Task.Name, err)
		}
		sum := sha256.Sum256(b)
		keys[i] = append([]byte("r/"), sum[:]...)
	}
	return keys, nil
}

// lookup returns the cached samples by index.
func (c *Cache) lookup(keys [][]byte) (map[int]cachedSample, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return nil, errors.New("response cache: closed")
	}
	found := map[int]cachedSample{}
	if c.db == nil {
		return found, nil
	}
	err := c.db.View(func(txn *badger.Txn) error {
		for i, k := range keys {
			item, err := txn.Get(k)
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			var s cachedSample
			if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &s) }); err != nil {
				return fmt.Errorf("sample %d: %w", i, err)
			}
			found[i] = s
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("response cache %s: read: %w", c.opts.Dir, err)
	}
	return found, nil
}

// store writes the samples at indices missing (texts in r, in order).
func (c *Cache) store(keys [][]byte, missing []int, r Response) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.db == nil {
		return errors.New("closed")
	}
	now := time.Now().UTC()
	shares := splitUsage(r.Usage, len(missing))
	return c.db.Update(func(txn *badger.Txn) error {
		for j, i := range missing {
			v, err := json.Marshal(cachedSample{Text: r.Texts[j], Model: r.Model, Created: now, Usage: &shares[j],
				Endpoint: c.opts.Endpoint, Server: c.opts.Server})
			if err != nil {
				return err
			}
			if err := txn.Set(keys[i], v); err != nil {
				return err
			}
		}
		return nil
	})
}

// splitUsage splits a request's usage evenly over its n samples (the
// server reports one total per request), the remainders going to the
// first samples, so that the shares add up to u.
func splitUsage(u Usage, n int) []Usage {
	out := make([]Usage, n)
	for j := range out {
		out[j] = Usage{PromptTokens: share(u.PromptTokens, n, j), CompletionTokens: share(u.CompletionTokens, n, j)}
	}
	return out
}

// share is sample j's part of total split over n.
func share(total, n, j int) int {
	s := total / n
	if j < total%n {
		s++
	}
	return s
}
