package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/grove-kg/grove/reasoner/internal/llmtest"
)

// newTestOpenAI builds a model against srv; sleeps between retries are
// recorded instead of slept.
func newTestOpenAI(t *testing.T, srv *llmtest.Server, mod func(*OpenAIConfig)) (*OpenAI, *[]time.Duration) {
	t.Helper()
	cfg := OpenAIConfig{BaseURL: srv.BaseURL(), Model: "fake-model", Logger: slog.New(slog.DiscardHandler)}
	if mod != nil {
		mod(&cfg)
	}
	m, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var delays []time.Duration
	m.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		delays = append(delays, d)
		mu.Unlock()
		return ctx.Err()
	}
	return m, &delays
}

func echoSample(r *llmtest.Request, i int) string { return fmt.Sprintf("%s#%d", r.Text(), i) }

func TestOpenAIChatRequestBody(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.HonourN(echoSample))
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) {
		c.ExtraBody = map[string]any{"top_k": 40, "options": map[string]any{"num_ctx": 4096}}
	})
	req := Request{
		Messages:  []Message{{Role: RoleSystem, Content: "be brief"}, {Role: RoleUser, Content: "hi"}},
		MaxTokens: 64, Stop: []string{"\n\n"}, Temperature: 0,
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.Texts, []string{"be brief\nhi#0"}) || resp.Model != "fake-model" {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (Usage{PromptTokens: 3, CompletionTokens: 3}) || resp.Latency <= 0 {
		t.Fatalf("usage/latency %+v", resp)
	}
	got := srv.Requests()[0]
	if got.Endpoint != "chat" || got.Model != "fake-model" || len(got.Messages) != 2 || got.Messages[0].Role != "system" {
		t.Fatalf("request %+v", got)
	}
	if raw, ok := got.Fields["temperature"]; !ok || string(raw) != "0" {
		t.Fatalf("temperature 0 must be sent, body %s", got.Body)
	}
	if got.HasN || got.MaxTokens != 64 || !slices.Equal(got.Stop, []string{"\n\n"}) {
		t.Fatalf("n/max_tokens/stop wrong, body %s", got.Body)
	}
	if string(got.Fields["top_k"]) != "40" || string(got.Fields["options"]) != `{"num_ctx":4096}` {
		t.Fatalf("extra body missing, body %s", got.Body)
	}
}

func TestOpenAICompletionsEndpoint(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.HonourN(func(r *llmtest.Request, i int) string { return "done" }))
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.Endpoint = EndpointCompletions })
	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "question"}}, Temperature: 0.5,
	})
	if err != nil || resp.Texts[0] != "done" {
		t.Fatalf("%v, %v", resp, err)
	}
	got := srv.Requests()[0]
	if got.Endpoint != "completions" || got.Prompt != "System: sys\n\nUser: question\n\nAssistant:" {
		t.Fatalf("prompt %q", got.Prompt)
	}
	if string(got.Fields["temperature"]) != "0.5" {
		t.Fatalf("body %s", got.Body)
	}
}

func TestOpenAIPromptOnChatEndpoint(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fixed("ok"))
	m, _ := newTestOpenAI(t, srv, nil)
	if _, err := m.Generate(context.Background(), Request{Prompt: "plain prompt"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	if len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Content != "plain prompt" {
		t.Fatalf("messages %+v", msgs)
	}
}

func TestOpenAINativeN(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		ignoring bool
		// requests per Generate, and how many of them carried n.
		wantReqs1, wantN1, wantReqs2, wantN2 int
	}{
		{"auto honoured", NativeNAuto, false, 1, 1, 1, 1},
		{"auto ignored learns", NativeNAuto, true, 3, 1, 3, 0},
		{"on ignored keeps asking", NativeNOn, true, 3, 1, 3, 1},
		{"off", NativeNOff, false, 3, 0, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := llmtest.HonourN(echoSample)
			if tt.ignoring {
				h = llmtest.IgnoreN(func(r *llmtest.Request) string { return "one" })
			}
			srv := llmtest.NewServer(t, h)
			m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.NativeN = tt.mode })
			for round, want := range [][2]int{{tt.wantReqs1, tt.wantN1}, {tt.wantReqs2, tt.wantN2}} {
				before := srv.RequestCount()
				resp, err := m.Generate(context.Background(), Request{Prompt: "p", N: 3, Temperature: 0.7})
				if err != nil || len(resp.Texts) != 3 {
					t.Fatalf("round %d: %v, %v", round, resp.Texts, err)
				}
				reqs := srv.Requests()[before:]
				withN := 0
				for _, r := range reqs {
					if r.HasN {
						withN++
						if r.N != 3 {
							t.Fatalf("n = %d, want 3", r.N)
						}
					}
				}
				if len(reqs) != want[0] || withN != want[1] {
					t.Fatalf("round %d: %d requests (%d with n), want %d (%d)", round, len(reqs), withN, want[0], want[1])
				}
				if resp.Usage != (Usage{PromptTokens: len(reqs), CompletionTokens: 3}) {
					t.Fatalf("usage %+v for %d requests", resp.Usage, len(reqs))
				}
			}
		})
	}
}

func TestOpenAIFillInIsParallel(t *testing.T) {
	// Ollama-like server; the fill-in requests must overlap in time.
	var arrived atomic.Int32
	release := make(chan struct{})
	srv := llmtest.NewServer(t, func(r *llmtest.Request) llmtest.Reply {
		if !r.HasN && arrived.Add(1) == 3 {
			close(release)
		}
		if !r.HasN {
			select {
			case <-release:
			case <-time.After(5 * time.Second):
				return llmtest.Reply{Status: 500, Message: "fill-in requests were not parallel"}
			}
		}
		return llmtest.Reply{Texts: []string{"x"}}
	})
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxConcurrency = 4 })
	resp, err := m.Generate(context.Background(), Request{Prompt: "p", N: 4})
	if err != nil || len(resp.Texts) != 4 {
		t.Fatalf("%v, %v", resp.Texts, err)
	}
	if srv.MaxInFlight() < 3 {
		t.Fatalf("max in flight %d, want 3", srv.MaxInFlight())
	}
}

func TestOpenAIFillInErrorPropagates(t *testing.T) {
	var calls atomic.Int32
	srv := llmtest.NewServer(t, func(r *llmtest.Request) llmtest.Reply {
		if calls.Add(1) == 3 {
			return llmtest.Reply{Status: http.StatusBadRequest, Message: "bad sample"}
		}
		return llmtest.Reply{Texts: []string{"x"}}
	})
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.NativeN = NativeNOff; c.MaxConcurrency = 1 })
	_, err := m.Generate(context.Background(), Request{Prompt: "p", N: 4})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "bad sample" {
		t.Fatalf("want APIError 400, got %v", err)
	}
}

func TestOpenAIRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		status int
		want   time.Duration
	}{
		{"429 seconds", map[string]string{"Retry-After": "1"}, 429, time.Second},
		{"503 seconds", map[string]string{"Retry-After": "2"}, 503, 2 * time.Second},
		{"429 ms", map[string]string{"Retry-After-Ms": "250"}, 429, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := llmtest.NewServer(t, func(r *llmtest.Request) llmtest.Reply {
				if calls.Add(1) == 1 {
					return llmtest.Reply{Status: tt.status, Header: tt.header, Message: "slow down"}
				}
				return llmtest.Reply{Texts: []string{"ok"}}
			})
			m, delays := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 2 })
			resp, err := m.Generate(context.Background(), Request{Prompt: "p"})
			if err != nil || resp.Texts[0] != "ok" {
				t.Fatalf("%v, %v", resp, err)
			}
			if srv.RequestCount() != 2 || !slices.Equal(*delays, []time.Duration{tt.want}) {
				t.Fatalf("%d requests, delays %v; want 2, [%v]", srv.RequestCount(), *delays, tt.want)
			}
		})
	}
}

func TestOpenAIRetryAfterTooLong(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3600"}}
	})
	m, delays := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 3 })
	_, err := m.Generate(context.Background(), Request{Prompt: "p"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour || srv.RequestCount() != 1 || len(*delays) != 0 {
		t.Fatalf("err %v, %d requests, delays %v", err, srv.RequestCount(), *delays)
	}
	if !strings.Contains(err.Error(), "asked to wait 1h0m0s before retrying, longer than the 2m0s this client waits") {
		t.Errorf("the error does not say why it did not retry: %v", err)
	}
}

func TestOpenAIBackoffAndExhaustion(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 502} })
	m, delays := newTestOpenAI(t, srv, func(c *OpenAIConfig) {
		c.MaxRetries = 3
		c.RetryBaseDelay = 100 * time.Millisecond
		c.RetryMaxDelay = 300 * time.Millisecond
	})
	_, err := m.Generate(context.Background(), Request{Prompt: "p"})
	if err == nil || !strings.Contains(err.Error(), "attempt 4 of 4") || srv.RequestCount() != 4 {
		t.Fatalf("err %v after %d requests", err, srv.RequestCount())
	}
	caps := []time.Duration{100, 200, 300}
	if len(*delays) != 3 {
		t.Fatalf("delays %v", *delays)
	}
	for i, d := range *delays {
		hi := caps[i] * time.Millisecond
		if d < hi/2 || d > hi {
			t.Errorf("delay %d = %v, want in [%v, %v]", i, d, hi/2, hi)
		}
	}
}

func TestOpenAINoRetryOnClientError(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 400, Message: "model not found"}
	})
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 3 })
	_, err := m.Generate(context.Background(), Request{Prompt: "p", Task: Task{Name: "tot/select"}})
	if srv.RequestCount() != 1 || err == nil || !strings.Contains(err.Error(), "model not found") || !strings.Contains(err.Error(), "tot/select") {
		t.Fatalf("err %v after %d requests", err, srv.RequestCount())
	}
}

func TestOpenAITimeout(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Texts: []string{"late"}, Delay: 10 * time.Second}
	})
	m, delays := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 1 })
	_, err := m.Generate(context.Background(), Request{Prompt: "p"})
	if !errors.Is(err, errAttemptTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want attempt timeout, got %v", err)
	}
	if srv.RequestCount() != 2 || len(*delays) != 1 {
		t.Fatalf("timeouts are retried: %d requests, delays %v", srv.RequestCount(), *delays)
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Texts: []string{"late"}, Delay: 10 * time.Second}
	})
	m, delays := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 3 })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.RequestCount() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := m.Generate(ctx, Request{Prompt: "p", N: 2})
	if !errors.Is(err, context.Canceled) || len(*delays) != 0 {
		t.Fatalf("want context.Canceled without retry, got %v (delays %v)", err, *delays)
	}
	// A cancelled context never reaches the server.
	before := srv.RequestCount()
	if _, err := m.Generate(ctx, Request{Prompt: "p"}); !errors.Is(err, context.Canceled) || srv.RequestCount() != before {
		t.Fatalf("pre-cancelled: %v", err)
	}
}

func TestOpenAIConcurrencyLimit(t *testing.T) {
	const limit, calls = 3, 10
	release := make(chan struct{})
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply {
		<-release
		return llmtest.Reply{Texts: []string{"x"}}
	})
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxConcurrency = limit })
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			if _, err := m.Generate(context.Background(), Request{Prompt: "p"}); err != nil {
				errs <- err
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.RequestCount() < limit && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // room for a violation to show
	if n := srv.RequestCount(); n != limit {
		t.Errorf("%d requests in flight while blocked, want %d", n, limit)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if srv.MaxInFlight() != limit || srv.RequestCount() != calls {
		t.Fatalf("max in flight %d (want %d), requests %d", srv.MaxInFlight(), limit, srv.RequestCount())
	}
}

func TestOpenAIAPIKeyHandling(t *testing.T) {
	const key = "sk-test-secret-123456"
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	srv := llmtest.NewServer(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 401, Message: "Incorrect API key provided: " + key}
	})
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.APIKey = key })
	_, err := m.Generate(context.Background(), Request{Prompt: "p"})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("key leaked or error unexpected: %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || strings.Contains(apiErr.Message, key) {
		t.Fatalf("APIError through redaction: %+v", apiErr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("authorization header %q", got)
	}
	for _, s := range []string{fmt.Sprint(m.cfg), fmt.Sprintf("%+v", m.cfg), fmt.Sprint(Config{APIKey: key})} {
		if strings.Contains(s, key) {
			t.Fatalf("key in %q", s)
		}
	}

	// Without a configured key, the environment's key is not sent.
	srv2 := llmtest.NewServer(t, llmtest.Fixed("ok"))
	m2, _ := newTestOpenAI(t, srv2, nil)
	if _, err := m2.Generate(context.Background(), Request{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if got := srv2.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Fatalf("environment key sent: %q", got)
	}
}

func TestOpenAIConfigValidation(t *testing.T) {
	tests := []struct {
		cfg  OpenAIConfig
		want string
	}{
		{OpenAIConfig{BaseURL: "", Model: "m"}, "BaseURL"},
		{OpenAIConfig{BaseURL: "ftp://x", Model: "m"}, "BaseURL"},
		{OpenAIConfig{BaseURL: "http://x/v1"}, "Model"},
		{OpenAIConfig{BaseURL: "http://x/v1", Model: "m", Endpoint: "responses"}, "Endpoint"},
		{OpenAIConfig{BaseURL: "http://x/v1", Model: "m", NativeN: "maybe"}, "NativeN"},
		{OpenAIConfig{BaseURL: "http://x/v1", Model: "m", ExtraBody: map[string]any{"n": 2}}, "ExtraBody"},
	}
	for _, tt := range tests {
		if _, err := NewOpenAI(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewOpenAI(%v): %v, want error naming %s", tt.cfg, err, tt.want)
		}
	}
}

func TestOpenAIBadRequests(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fixed("ok"))
	m, _ := newTestOpenAI(t, srv, nil)
	for _, req := range []Request{
		{},
		{Prompt: "p", Messages: []Message{{Role: RoleUser, Content: "m"}}},
		{Messages: []Message{{Role: "tool", Content: "m"}}},
		{Prompt: "p", MaxTokens: -1},
	} {
		if _, err := m.Generate(context.Background(), req); err == nil {
			t.Errorf("Generate(%+v): want error", req)
		}
	}
	if srv.RequestCount() != 0 {
		t.Fatalf("invalid requests reached the server")
	}
}

func TestOpenAIMalformedResponses(t *testing.T) {
	srv := llmtest.NewServer(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Texts: nil} })
	m, _ := newTestOpenAI(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 2 })
	if _, err := m.Generate(context.Background(), Request{Prompt: "p"}); err == nil || !strings.Contains(err.Error(), "no choices") {
		t.Fatalf("want no-choices error, got %v", err)
	}
	if srv.RequestCount() != 1 {
		t.Fatalf("no-choices is not retried; got %d requests", srv.RequestCount())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Second).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-4"}}, 0},
		{http.Header{"Retry-After-Ms": {"20"}, "Retry-After": {"9"}}, 20 * time.Millisecond},
		{http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.h, now); got != tt.want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestMessagesToPrompt(t *testing.T) {
	if got := MessagesToPrompt([]Message{{Role: RoleUser, Content: "only"}}); got != "only" {
		t.Errorf("lone user message: %q", got)
	}
	got := MessagesToPrompt([]Message{{Role: RoleUser, Content: "q"}, {Role: RoleAssistant, Content: "a"}})
	if got != "User: q\n\nAssistant: a" {
		t.Errorf("ending with assistant: %q", got)
	}
	if p := PromptToMessages("x"); len(p) != 1 || p[0].Role != RoleUser {
		t.Errorf("PromptToMessages: %+v", p)
	}
}

// TestOpenAINotJSON: a successful reply that is not JSON (a web page at the
// wrong URL) fails once, not retried, with an error that says what the
// server sent instead of the SDK's message about Go destination types.
func TestOpenAINotJSON(t *testing.T) {
	page := "<html><body>Bad gateway</body></html>"
	for _, tc := range []struct {
		name, contentType, body string
		want                    []string
	}{
		{"html", "text/html; charset=utf-8", page,
			[]string{"the model server answered text/html, not JSON", `"<html><body>Bad gateway</body></html>"`}},
		{"plain text", "text/plain", "502 upstream", []string{"answered text/plain, not JSON", `"502 upstream"`}},
		{"no content type", "", "ok", []string{"answered no content type, not JSON"}},
		{"long page", "text/html", "<html>" + strings.Repeat("x ", 5000), []string{"answered text/html", "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header()["Content-Type"] = nil
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			m, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Generate(t.Context(), Request{Prompt: "p"})
			var nj *NotJSONError
			if !errors.As(err, &nj) {
				t.Fatalf("err = %v, want *NotJSONError", err)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "expected destination type") || len(err.Error()) > 400 {
				t.Errorf("error %q", err)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests, want 1 (not retried)", calls.Load())
			}
		})
	}
}

func TestOpenAIReplyCap(t *testing.T) {
	reply := func(text string) string {
		return `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop",` +
			`"message":{"role":"assistant","content":"` + text + `"}}]}`
	}
	exact := reply("ok")
	for _, tc := range []struct {
		name   string
		status int
		body   string
		limit  int64
		tooBig bool
	}{
		{"under the cap", 200, exact, int64(len(exact)) + 1, false},
		{"exactly the cap", 200, exact, int64(len(exact)), false},
		{"one byte over", 200, exact, int64(len(exact)) - 1, true},
		{"far over", 200, reply(strings.Repeat("x", 1<<20)), 4096, true},
		{"error status over 1 MiB", 500, `{"error":{"message":"` + strings.Repeat("y", 2<<20) + `"}}`, 64 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			m, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 2, MaxReplyBytes: tc.limit,
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			m.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
			resp, err := m.Generate(t.Context(), Request{Prompt: "p"})
			var big *ReplyTooLargeError
			if got := errors.As(err, &big); got != tc.tooBig {
				t.Fatalf("err = %v, want too large: %v", err, tc.tooBig)
			}
			if !tc.tooBig && (len(resp.Texts) != 1 || resp.Texts[0] != "ok") {
				t.Fatalf("texts = %q", resp.Texts)
			}
			if tc.tooBig && calls.Load() != 1 {
				t.Errorf("%d requests, want 1 (not retried)", calls.Load())
			}
		})
	}
}

// TestOpenAIInvalidUTF8: a server's text with invalid UTF-8 comes out
// valid, each run of bad bytes one U+FFFD, on both endpoints, so that the
// printed answer, the trace and the cache agree.
func TestOpenAIInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		body     string
	}{
		{EndpointChat, `{"id":"x","object":"chat.completion","model":"m` + "\xff" + `","choices":[{"index":0,"finish_reason":"stop",` +
			`"message":{"role":"assistant","content":"Ridley ` + "\xff\xfe\xc3" + ` Scott"}}]}`},
		{EndpointCompletions, `{"id":"x","object":"text_completion","model":"m` + "\xff" + `","choices":[{"index":0,` +
			`"finish_reason":"stop","text":"Ridley ` + "\xff\xfe\xc3" + ` Scott"}]}`},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			m, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Endpoint: tc.endpoint})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := m.Generate(t.Context(), Request{Prompt: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Texts[0]; got != "Ridley \uFFFD Scott" {
				t.Errorf("text %q, want %q", got, "Ridley \uFFFD Scott")
			}
			if resp.Model != "m\uFFFD" {
				t.Errorf("model %q", resp.Model)
			}
		})
	}
}

// TestBatchOf: both endpoints' replies become batches alike: texts in the
// order of the choices' index (equal indexes keep their order), the
// usage and model kept, no choices refused.
func TestBatchOf(t *testing.T) {
	type choice struct {
		i    int64
		text string
	}
	cases := []struct {
		name    string
		choices []choice
		want    []string
		err     bool
	}{
		{name: "none", err: true},
		{name: "in order", choices: []choice{{0, "a"}, {1, "b"}}, want: []string{"a", "b"}},
		{name: "out of order", choices: []choice{{2, "c"}, {0, "a"}, {1, "b"}}, want: []string{"a", "b", "c"}},
		{name: "equal indexes", choices: []choice{{1, "y"}, {0, "a"}, {1, "x"}}, want: []string{"a", "y", "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.choices)
			b, err := batchOf("m", openai.CompletionUsage{PromptTokens: 3, CompletionTokens: 5}, in,
				func(c choice) (int64, string) { return c.i, c.text })
			if !slices.Equal(in, c.choices) {
				t.Errorf("choices changed to %v", in)
			}
			if c.err {
				if err == nil {
					t.Fatalf("no error, batch %+v", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.texts, c.want) || b.model != "m" || b.usage != (Usage{3, 5}) {
				t.Errorf("batch %+v, want texts %q", b, c.want)
			}
		})
	}
}

// TestLimits: n and max_tokens are sent only when they bound anything.
func TestLimits(t *testing.T) {
	cases := []struct {
		n, maxTokens  int
		wantN, wantMT int64 // 0: not sent
	}{
		{1, 0, 0, 0},
		{0, 0, 0, 0},
		{2, 0, 2, 0},
		{1, 64, 0, 64},
		{3, 16, 3, 16},
	}
	for _, c := range cases {
		n, mt := limits(Request{MaxTokens: c.maxTokens}, c.n)
		if n.Valid() != (c.wantN != 0) || n.Or(0) != c.wantN || mt.Valid() != (c.wantMT != 0) || mt.Or(0) != c.wantMT {
			t.Errorf("limits(MaxTokens %d, n %d) = %v, %v; want %d, %d", c.maxTokens, c.n, n, mt, c.wantN, c.wantMT)
		}
	}
}
