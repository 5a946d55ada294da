package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/grove-kg/grove/store/query"
)

// DefaultAddr is the address `grove serve` listens on by default.
const DefaultAddr = "127.0.0.1:7777"

// Config is everything `grove serve` can set. The zero value of each field
// means "use the default" (see Defaults).
type Config struct {
	// DB is the database directory opened by Run (unused by New).
	DB string `mapstructure:"-"`
	// Addr is the listen address used by Run (host:port).
	Addr string `mapstructure:"addr"`
	// ReadOnly rejects every write (the Cayley write routes answer 403) and
	// makes Run open the database read-only.
	ReadOnly bool `mapstructure:"read_only"`
	// Token is the bearer token clients must send. When empty and TokenFile
	// is set, the token is read from that file.
	Token string `mapstructure:"-"`
	// TokenFile holds the bearer token (surrounding white space is trimmed).
	TokenFile string `mapstructure:"token_file"`

	// MaxBodyBytes bounds request bodies (default 1 MiB).
	MaxBodyBytes int64 `mapstructure:"max_body_bytes"`
	// RequestTimeout bounds every request except reasoning runs (default 30s).
	RequestTimeout time.Duration `mapstructure:"request_timeout"`
	// AskTimeout bounds one reasoning run (default 5m).
	AskTimeout time.Duration `mapstructure:"ask_timeout"`
	// ShutdownTimeout is how long in-flight requests may take to finish
	// after shutdown starts (default 15s); afterwards they are cancelled.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	// MaxConcurrentRuns bounds reasoning runs in flight (default 2); beyond
	// it /v1/ask answers 429 with a Retry-After header.
	MaxConcurrentRuns int `mapstructure:"max_concurrent_runs"`
	// RetryAfter is the Retry-After hint of a 429 answer (default 5s).
	RetryAfter time.Duration `mapstructure:"retry_after"`
	// MaxResults caps every result limit, including Cayley queries
	// (default 1000).
	MaxResults int `mapstructure:"max_results"`
	// DefaultLimit is the limit used when a request gives none (default 50).
	DefaultLimit int `mapstructure:"default_limit"`
	// MaxIDs bounds the entity ids of one request (default 100).
	MaxIDs int `mapstructure:"max_ids"`
	// MaxCayleyReadBytes cuts a Cayley /read response after this many bytes
	// (default 64 MiB).
	MaxCayleyReadBytes int64 `mapstructure:"max_cayley_read_bytes"`
	// MaxCayleyQueryBytes bounds the answer of a Cayley query, which is
	// held in memory before it is sent (default 16 MiB); a larger answer
	// is a 413.
	MaxCayleyQueryBytes int64 `mapstructure:"max_cayley_query_bytes"`
	// MaxQueryHeapBytes bounds the growth of the live heap while a Cayley
	// query runs (default 1 GiB, query.DefaultMaxHeapGrowth): the query
	// languages have no memory limit of their own, so a query past it is
	// stopped and answered 413 (see query.WatchHeap; the growth is the
	// process's, concurrent queries count against each other).
	MaxQueryHeapBytes int64 `mapstructure:"max_query_heap_bytes"`

	// Ask bounds what clients may choose for reasoning runs.
	Ask AskLimits `mapstructure:"ask"`
}

// AskLimits are the server-side bounds on reasoning runs. The server owns
// the model endpoint; clients choose the method and its parameters only
// within these caps.
type AskLimits struct {
	// ParamCaps maps a numeric reasoner parameter (k, max_depth, ...) to
	// its largest allowed value. Numeric parameters not listed here are
	// rejected. Nil means DefaultParamCaps.
	ParamCaps map[string]float64 `mapstructure:"param_caps"`
	// MaxQuestionBytes bounds the question (default 2000).
	MaxQuestionBytes int `mapstructure:"max_question_bytes"`
	// MaxModelCalls bounds the model calls of one run (default 400).
	MaxModelCalls int `mapstructure:"max_model_calls"`
	// MaxTokens caps Request.MaxTokens of every model call (default 1024).
	MaxTokens int `mapstructure:"max_tokens"`
	// MaxSamples caps Request.N of every model call (default 8).
	MaxSamples int `mapstructure:"max_samples"`
}

// DefaultParamCaps are the caps used when AskLimits.ParamCaps is nil: the
// Tree-of-Traversals parameters plus common search bounds of the other
// methods (width, samples, iterations, steps). Operators add the numeric
// parameters of further methods in the configuration.
func DefaultParamCaps() map[string]float64 {
	return map[string]float64{
		"k":                5,
		"max_depth":        10,
		"max_expansions":   50,
		"tau":              1,
		"temperature":      2,
		"eval_temperature": 2,
		"max_edges":        200,
		"search_limit":     20,
		"width":            5,
		"beam":             5,
		"samples":          5,
		"iterations":       50,
		"max_steps":        20,
	}
}

// Defaults returns c with every unset field given its default.
func (c Config) Defaults() Config {
	setDefault(&c.Addr, DefaultAddr)
	setDefault(&c.MaxBodyBytes, 1<<20)
	setDefault(&c.RequestTimeout, 30*time.Second)
	setDefault(&c.AskTimeout, 5*time.Minute)
	setDefault(&c.ShutdownTimeout, 15*time.Second)
	setDefault(&c.MaxConcurrentRuns, 2)
	setDefault(&c.RetryAfter, 5*time.Second)
	setDefault(&c.MaxResults, 1000)
	setDefault(&c.DefaultLimit, 50)
	setDefault(&c.MaxIDs, 100)
	setDefault(&c.MaxCayleyReadBytes, 64<<20)
	setDefault(&c.MaxCayleyQueryBytes, 16<<20)
	setDefault(&c.MaxQueryHeapBytes, query.DefaultMaxHeapGrowth)
	if c.Ask.ParamCaps == nil {
		c.Ask.ParamCaps = DefaultParamCaps()
	}
	setDefault(&c.Ask.MaxQuestionBytes, 2000)
	setDefault(&c.Ask.MaxModelCalls, 400)
	setDefault(&c.Ask.MaxTokens, 1024)
	setDefault(&c.Ask.MaxSamples, 8)
	c.DefaultLimit = min(c.DefaultLimit, c.MaxResults)
	return c
}

func setDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// validate rejects negative bounds and loads the token.
func (c *Config) validate() error {
	if c.MaxBodyBytes < 0 || c.RequestTimeout < 0 || c.AskTimeout < 0 || c.ShutdownTimeout < 0 ||
		c.MaxConcurrentRuns < 0 || c.MaxResults < 0 || c.DefaultLimit < 0 || c.MaxIDs < 0 ||
		c.MaxCayleyReadBytes < 0 || c.MaxCayleyQueryBytes < 0 || c.MaxQueryHeapBytes < 0 {
		return errors.New("server config: limits and timeouts must not be negative")
	}
	for name, v := range c.Ask.ParamCaps {
		if v < 0 {
			return fmt.Errorf("server config: ask cap %q is negative", name)
		}
	}
	if c.Token == "" && c.TokenFile != "" {
		tok, err := ReadTokenFile(c.TokenFile)
		if err != nil {
			return err
		}
		c.Token = tok
	}
	return nil
}

// ReadTokenFile reads a bearer token from a file, trimming white space. An
// empty file or a token with inner white space is an error.
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s: empty", path)
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("token file %s: the token must be one line without spaces", path)
	}
	return tok, nil
}

// IsLoopback reports whether a listen address (host:port) only accepts
// connections from this machine: "localhost" or a loopback IP. An empty
// host ("":7777) listens on every interface and is not loopback.
func IsLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback(), nil
}

// checkExposure refuses to serve on a non-loopback address without a token.
func checkExposure(addr string, token string) error {
	loop, err := IsLoopback(addr)
	if err != nil {
		return err
	}
	if !loop && token == "" {
		return fmt.Errorf("listen address %s is not loopback: a bearer token is required (--token-file)", addr)
	}
	return nil
}
