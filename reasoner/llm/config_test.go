package llm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/grove-kg/grove/reasoner/internal/llmtest"
)

func TestOpenNoModelWithoutURL(t *testing.T) {
	for _, url := range []string{"", "  "} {
		m, closer, err := Open(Config{URL: url})
		if !errors.Is(err, ErrNoModel) || m != nil || closer != nil {
			t.Fatalf("Open(url=%q) = %v, %v, %v; want ErrNoModel", url, m, closer, err)
		}
	}
}

// TestOpenModelWithoutURL: a model name without a URL is an error, not
// "no model" (which lets applications fall back to a non-LLM baseline).
func TestOpenModelWithoutURL(t *testing.T) {
	for _, tc := range []struct{ url, model string }{{"", "Qwen"}, {"  ", "Qwen"}, {"", " m "}} {
		m, closer, err := Open(Config{URL: tc.url, Model: tc.model})
		if !errors.Is(err, ErrModelWithoutURL) || errors.Is(err, ErrNoModel) || m != nil || closer != nil {
			t.Errorf("Open(url=%q, model=%q) = %v, %v, %v; want ErrModelWithoutURL", tc.url, tc.model, m, closer, err)
		} else if !strings.Contains(err.Error(), strings.TrimSpace(tc.model)) {
			t.Errorf("error %q does not name the model %q", err, tc.model)
		}
	}
}

func TestOpenOpenAIWithCache(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.HonourN(func(r *llmtest.Request, i int) string { return "x" }))
	t.Setenv("GROVE_TEST_KEY", " sk-abc ")
	cfg := Config{URL: srv.BaseURL(), Model: "m", APIKeyEnv: "GROVE_TEST_KEY", CacheDir: t.TempDir(),
		ExtraBody: map[string]any{"top_k": 3}, Retries: -1, Timeout: time.Second}
	m, closer, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := m.Generate(context.Background(), Request{Prompt: "p", N: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	if srv.RequestCount() != 1 {
		t.Fatalf("cache (readwrite by default with cache_dir) should serve the repeat: %d requests", srv.RequestCount())
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-abc" {
		t.Fatalf("key from env: %q", got)
	}
	snap := m.(*Stats).Snapshot()
	if snap.Total.Calls != 2 || snap.Total.CacheHits != 2 {
		t.Fatalf("stats %+v", snap.Total)
	}
}

func TestOpenConfigErrors(t *testing.T) {
	t.Setenv("GROVE_EMPTY_KEY", "")
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://127.0.0.1:1/v1"}, "field model"},
		{Config{URL: "http://127.0.0.1:1/v1", Model: "m", APIKeyEnv: "GROVE_EMPTY_KEY"}, "GROVE_EMPTY_KEY"},
		{Config{URL: "http://127.0.0.1:1/v1", Model: "m", CacheMode: "readwrite"}, "cache_dir"},
		{Config{URL: "http://127.0.0.1:1/v1", Model: "m", CacheMode: "bogus", CacheDir: "x"}, "cache_mode"},
		{Config{URL: "http://127.0.0.1:1/v1", Model: "m", MaxConcurrency: -1}, "max_concurrency"},
		{Config{URL: "not a url", Model: "m"}, "BaseURL"},
		{Config{URL: "http://127.0.0.1:1/v1", Model: "m", Endpoint: "x"}, "Endpoint"},
	}
	for _, tt := range tests {
		_, _, err := Open(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%v) = %v, want error naming %s", tt.cfg, err, tt.want)
		}
	}
}

func TestOpenRetriesDefault(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 400} })
	for _, tt := range []struct{ retries, want int }{{0, DefaultRetries}, {-1, 0}, {5, 5}} {
		oc, err := Config{URL: srv.BaseURL(), Model: "m", Retries: tt.retries}.openAIConfig(nil)
		if err != nil || oc.MaxRetries != tt.want || oc.Timeout != DefaultTimeout {
			t.Errorf("retries %d: %+v, %v", tt.retries, oc.MaxRetries, err)
		}
	}
	m, _, err := Open(Config{URL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var apiErr *APIError
	if _, err := m.Generate(context.Background(), Request{Prompt: "p"}); !errors.As(err, &apiErr) {
		t.Fatalf("want APIError, got %v", err)
	}
	if srv.RequestCount() != 1 {
		t.Fatalf("400 must not be retried: %d requests", srv.RequestCount())
	}
}

func TestConfigMapstructureTags(t *testing.T) {
	raw := map[string]any{
		"url": "http://localhost:11434/v1", "model": "qwen", "api_key_env": "K", "endpoint": "completions",
		"native_n":        "off",
		"max_concurrency": 8, "timeout": "30s", "retries": 2, "extra_body": map[string]any{"top_k": 20},
		"cache_dir": "/tmp/c", "cache_mode": "read",
	}
	var cfg Config
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result: &cfg, ErrorUnused: true, DecodeHook: mapstructure.StringToTimeDurationHookFunc(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(raw); err != nil {
		t.Fatal(err)
	}
	want := Config{URL: "http://localhost:11434/v1", Model: "qwen", APIKeyEnv: "K", Endpoint: "completions",
		NativeN: "off", MaxConcurrency: 8,
		Timeout: 30 * time.Second, Retries: 2, CacheDir: "/tmp/c", CacheMode: "read"}
	got := cfg
	got.ExtraBody = nil
	if !reflect.DeepEqual(got, want) || cfg.ExtraBody["top_k"] != 20 {
		t.Fatalf("decoded %+v", cfg)
	}
	// The removed per-request settings are rejected, not silently ignored.
	raw["temperature"] = 0.1
	if err := dec.Decode(raw); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Fatalf("temperature accepted: %v", err)
	}
}
