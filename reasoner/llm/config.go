package llm

// Configuration and assembly of the model stack.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Config is the model section of Grove's configuration (mapstructure tags
// for viper). With an empty URL there is no model: Open returns ErrNoModel,
// and the application decides (loudly) whether to use a baseline policy
// such as reasoner/lexical instead.
type Config struct {
	// URL is the OpenAI-compatible base URL including the version path,
	// e.g. "http://localhost:11434/v1".
	URL   string `mapstructure:"url"`
	Model string `mapstructure:"model"`
	// APIKey is the key itself; APIKeyEnv names an environment variable
	// holding it (used when APIKey is empty). Neither is ever logged.
	APIKey    string `mapstructure:"api_key"`
	APIKeyEnv string `mapstructure:"api_key_env"`
	// Endpoint is "chat" (default) or "completions".
	Endpoint string `mapstructure:"endpoint"`
	// NativeN is "auto" (default), "on" or "off"; see OpenAIConfig.
	NativeN string `mapstructure:"native_n"`

	// There are no temperature or max-token settings here: every Request
	// carries its own (a temperature of 0 is sent as 0), and the methods
	// set them from their parameters (tot.temperature, cot.max_tokens, ...),
	// which traces and eval manifests record.

	// MaxConcurrency bounds in-flight HTTP calls (0: 4).
	MaxConcurrency int `mapstructure:"max_concurrency"`
	// Timeout bounds each HTTP attempt (0: 2m; negative: none).
	Timeout time.Duration `mapstructure:"timeout"`
	// Retries after a failed attempt (0: 3; negative: none).
	Retries int `mapstructure:"retries"`
	// ExtraBody fields are added to every request (e.g. top_k).
	ExtraBody map[string]any `mapstructure:"extra_body"`

	// CacheDir holds the response cache; CacheMode is off, read or
	// readwrite (default off; readwrite when only CacheDir is set).
	CacheDir  string `mapstructure:"cache_dir"`
	CacheMode string `mapstructure:"cache_mode"`
}

// Config defaults.
const (
	DefaultTimeout = 2 * time.Minute
	DefaultRetries = 3
)

// DefaultConfig is the configuration with defaults filled in and no URL.
func DefaultConfig() Config {
	return Config{
		Endpoint:       EndpointChat,
		NativeN:        NativeNAuto,
		MaxConcurrency: DefaultMaxConcurrency,
		Timeout:        DefaultTimeout,
		Retries:        DefaultRetries,
		CacheMode:      string(CacheOff),
	}
}

// String describes the configuration without the API key.
func (c Config) String() string {
	return fmt.Sprintf("llm{url=%s model=%s endpoint=%s api_key=%s api_key_env=%s cache=%s:%s}",
		c.URL, c.Model, c.Endpoint, redactedMark(c.APIKey), c.APIKeyEnv, c.CacheMode, c.CacheDir)
}

// LogValue logs the configuration without the API key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", c.URL), slog.String("model", c.Model),
		slog.String("endpoint", c.Endpoint), slog.String("api_key", redactedMark(c.APIKey)),
		slog.String("cache_mode", c.CacheMode), slog.String("cache_dir", c.CacheDir))
}

// ErrNoModel is returned by Open when the configuration names no model
// (an empty URL and no model name).
var ErrNoModel = errors.New("llm config: field url: empty, no model configured")

// ErrModelWithoutURL is returned by Open when a model name is set without
// the URL of a server to ask it: a model was asked for, so falling back to
// no model (and a baseline policy) would be wrong.
var ErrModelWithoutURL = errors.New("llm config: field url: required when model is set")

// Open builds the model stack for cfg and a Closer releasing it: the
// OpenAI-compatible client, behind the response cache when CacheMode is not
// off, wrapped in a *Stats so that per-step counts (Snapshot) and context
// recorders (WithRecorder) work the same for every configuration. With an
// empty URL it returns ErrNoModel, or ErrModelWithoutURL when a model name
// is set.
func Open(cfg Config) (Model, io.Closer, error) {
	return OpenWithLogger(cfg, nil)
}

// OpenWithLogger is Open with a logger for retries and cache notices (nil:
// slog.Default()).
func OpenWithLogger(cfg Config, log *slog.Logger) (Model, io.Closer, error) {
	if strings.TrimSpace(cfg.URL) == "" {
		if name := strings.TrimSpace(cfg.Model); name != "" {
			return nil, nil, fmt.Errorf("%w (model %q)", ErrModelWithoutURL, name)
		}
		return nil, nil, ErrNoModel
	}
	oc, err := cfg.openAIConfig(log)
	if err != nil {
		return nil, nil, err
	}
	oa, err := NewOpenAI(oc)
	if err != nil {
		return nil, nil, fmt.Errorf("llm config: %w", err)
	}
	mode, err := cfg.cacheMode()
	if err != nil {
		return nil, nil, err
	}
	cache, err := OpenCache(oa, CacheOptions{Dir: cfg.CacheDir, Mode: mode, Identity: oa.Identity(),
		Endpoint: RedactEndpoint(oc.BaseURL), Server: ServerID(oc.BaseURL), Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("llm config: %w", err)
	}
	if mode == CacheOff {
		return NewStats(oa), nopCloser{}, nil
	}
	return NewStats(cache), cache, nil
}

func (c Config) cacheMode() (CacheMode, error) {
	if strings.TrimSpace(c.CacheMode) == "" && c.CacheDir != "" {
		return CacheReadWrite, nil
	}
	mode, err := ParseCacheMode(c.CacheMode)
	if err != nil {
		return "", fmt.Errorf("llm config: field cache_mode: %w", err)
	}
	if mode != CacheOff && c.CacheDir == "" {
		return "", fmt.Errorf("llm config: field cache_dir: required when cache_mode is %s", mode)
	}
	return mode, nil
}

func (c Config) openAIConfig(log *slog.Logger) (OpenAIConfig, error) {
	if strings.TrimSpace(c.Model) == "" {
		return OpenAIConfig{}, errors.New("llm config: field model: required when url is set")
	}
	key, err := c.apiKey()
	if err != nil {
		return OpenAIConfig{}, err
	}
	oc := OpenAIConfig{BaseURL: c.URL, APIKey: key, Model: c.Model, Endpoint: c.Endpoint,
		NativeN: c.NativeN, ExtraBody: c.ExtraBody, MaxConcurrency: c.MaxConcurrency, Logger: log}
	switch {
	case c.Timeout == 0:
		oc.Timeout = DefaultTimeout
	case c.Timeout > 0:
		oc.Timeout = c.Timeout
	}
	switch {
	case c.Retries == 0:
		oc.MaxRetries = DefaultRetries
	case c.Retries > 0:
		oc.MaxRetries = c.Retries
	}
	if c.MaxConcurrency < 0 {
		return OpenAIConfig{}, fmt.Errorf("llm config: field max_concurrency: %d is negative", c.MaxConcurrency)
	}
	return oc, nil
}

// apiKey resolves APIKey / APIKeyEnv. A named but unset variable is an
// error; no key at all is fine (local servers need none).
func (c Config) apiKey() (string, error) {
	if c.APIKey != "" || c.APIKeyEnv == "" {
		return c.APIKey, nil
	}
	key, ok := os.LookupEnv(c.APIKeyEnv)
	if !ok || strings.TrimSpace(key) == "" {
		return "", fmt.Errorf("llm config: field api_key_env: environment variable %s is not set", c.APIKeyEnv)
	}
	return strings.TrimSpace(key), nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
