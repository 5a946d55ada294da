package llm

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/grove-kg/grove/reasoner/internal/llmtest"
)

// counter is a model whose every sample is unique, so cached and fresh
// samples can be told apart.
type counter struct {
	calls   atomic.Int64
	samples atomic.Int64
	last    atomic.Int64 // N of the last request
}

func (c *counter) Generate(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	c.calls.Add(1)
	n := max(1, req.N)
	c.last.Store(int64(n))
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("sample-%d", c.samples.Add(1))
	}
	return Response{Texts: texts, Usage: Usage{PromptTokens: 1, CompletionTokens: n}, Model: "counter"}, nil
}

var testIdentity = CacheIdentity{Model: "m", Endpoint: EndpointChat}

func openTestCache(t *testing.T, inner Model, dir string, mode CacheMode, id CacheIdentity) *Cache {
	t.Helper()
	c, err := OpenCache(inner, CacheOptions{Dir: dir, Mode: mode, Identity: id, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCacheReadWrite(t *testing.T) {
	dir := t.TempDir()
	inner := &counter{}
	c := openTestCache(t, inner, dir, CacheReadWrite, testIdentity)
	ctx := context.Background()
	req := Request{Prompt: "q", N: 2, Temperature: 0.7}

	first, err := c.Generate(ctx, req)
	if err != nil || first.CacheHits != 0 || inner.calls.Load() != 1 {
		t.Fatalf("first: %+v, %v", first, err)
	}
	second, err := c.Generate(ctx, req)
	if err != nil || second.CacheHits != 2 || inner.calls.Load() != 1 || !slices.Equal(first.Texts, second.Texts) {
		t.Fatalf("second: %+v, %v (calls %d)", second, err, inner.calls.Load())
	}
	if second.Usage != (Usage{}) || second.Model != "counter" {
		t.Fatalf("hits spend no tokens and keep the model name: %+v", second)
	}

	// N=3 with 2 cached: one call for one sample, samples 0 and 1 unchanged.
	third, err := c.Generate(ctx, Request{Prompt: "q", N: 3, Temperature: 0.7})
	if err != nil || third.CacheHits != 2 || inner.calls.Load() != 2 || inner.last.Load() != 1 {
		t.Fatalf("third: %+v, %v (calls %d, last n %d)", third, err, inner.calls.Load(), inner.last.Load())
	}
	if !slices.Equal(third.Texts[:2], first.Texts) || third.Texts[2] == first.Texts[0] {
		t.Fatalf("sample order not reproducible: %q vs %q", third.Texts, first.Texts)
	}
	if third.Usage != (Usage{PromptTokens: 1, CompletionTokens: 1}) {
		t.Fatalf("usage counts only the missing sample: %+v", third.Usage)
	}
}

func TestCacheKeyFields(t *testing.T) {
	dir := t.TempDir()
	inner := &counter{}
	c := openTestCache(t, inner, dir, CacheReadWrite, testIdentity)
	ctx := context.Background()
	base := Request{Prompt: "q", Temperature: 0.2, MaxTokens: 10, Stop: []string{"x"}}
	variants := []Request{
		base,
		{Prompt: "q2", Temperature: 0.2, MaxTokens: 10, Stop: []string{"x"}},
		{Prompt: "q", Temperature: 0, MaxTokens: 10, Stop: []string{"x"}},
		{Prompt: "q", Temperature: 0.2, MaxTokens: 11, Stop: []string{"x"}},
		{Prompt: "q", Temperature: 0.2, MaxTokens: 10},
		{Messages: []Message{{Role: RoleUser, Content: "q"}}, Temperature: 0.2, MaxTokens: 10, Stop: []string{"x"}},
	}
	for i, v := range variants {
		if r, err := c.Generate(ctx, v); err != nil || r.CacheHits != 0 {
			t.Fatalf("variant %d should miss: %+v, %v", i, r, err)
		}
	}
	// Task is not part of the key.
	withTask := base
	withTask.Task = Task{Name: "other", Kind: KindFree}
	if r, _ := c.Generate(ctx, withTask); r.CacheHits != 1 {
		t.Fatalf("same prompt, different task should hit: %+v", r)
	}
	// Model identity is.
	for _, id := range []CacheIdentity{
		{Model: "m2", Endpoint: EndpointChat},
		{Model: "m", Endpoint: EndpointCompletions},
		{Model: "m", Endpoint: EndpointChat, ExtraBody: map[string]any{"top_k": 5}},
	} {
		_ = c.Close()
		c = openTestCache(t, inner, dir, CacheReadWrite, id)
		if r, _ := c.Generate(ctx, base); r.CacheHits != 0 {
			t.Fatalf("identity %+v should miss", id)
		}
	}
}

func TestCachePersistsAcrossOpensAndReadMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	inner := &counter{}
	ctx := context.Background()
	req := Request{Prompt: "q", N: 2}

	// Read mode on a missing store: empty cache, nothing written.
	ro := openTestCache(t, inner, dir, CacheRead, testIdentity)
	if r, err := ro.Generate(ctx, req); err != nil || r.CacheHits != 0 {
		t.Fatalf("%+v, %v", r, err)
	}
	_ = ro.Close()

	rw := openTestCache(t, inner, dir, CacheReadWrite, testIdentity)
	first, err := rw.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Generate(ctx, req); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("after Close: %v", err)
	}

	// Two read-only openers at once, as two evaluation processes would.
	ro1 := openTestCache(t, inner, dir, CacheRead, testIdentity)
	ro2 := openTestCache(t, inner, dir, CacheRead, testIdentity)
	calls := inner.calls.Load()
	for _, c := range []*Cache{ro1, ro2} {
		r, err := c.Generate(ctx, req)
		if err != nil || r.CacheHits != 2 || !slices.Equal(r.Texts, first.Texts) {
			t.Fatalf("reopened: %+v, %v", r, err)
		}
	}
	// Read mode never writes: a new request misses every time.
	other := Request{Prompt: "new"}
	for range 2 {
		if r, _ := ro1.Generate(ctx, other); r.CacheHits != 0 {
			t.Fatal("read mode wrote a sample")
		}
	}
	if inner.calls.Load() != calls+2 {
		t.Fatalf("calls %d, want %d", inner.calls.Load(), calls+2)
	}
}

func TestCacheConcurrent(t *testing.T) {
	inner := &counter{}
	c := openTestCache(t, inner, t.TempDir(), CacheReadWrite, testIdentity)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				req := Request{Prompt: fmt.Sprint(i % 5), N: 1 + g%3}
				if r, err := c.Generate(context.Background(), req); err != nil || len(r.Texts) != req.N {
					t.Error(r, err)
				}
			}
		})
	}
	wg.Wait()
	// Every (prompt, sample) pair is now cached.
	for i := range 5 {
		r, err := c.Generate(context.Background(), Request{Prompt: fmt.Sprint(i), N: 3})
		if err != nil || r.CacheHits != 3 {
			t.Fatalf("prompt %d: %+v, %v", i, r, err)
		}
	}
}

func TestCacheOffAndErrors(t *testing.T) {
	inner := &counter{}
	c := openTestCache(t, inner, "", CacheOff, testIdentity)
	for range 2 {
		if r, err := c.Generate(context.Background(), Request{Prompt: "q"}); err != nil || r.CacheHits != 0 {
			t.Fatalf("off: %+v, %v", r, err)
		}
	}
	if inner.calls.Load() != 2 {
		t.Fatal("off mode must always call the model")
	}
	if _, err := OpenCache(inner, CacheOptions{Mode: CacheReadWrite}); err == nil || !strings.Contains(err.Error(), "Dir") {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := OpenCache(inner, CacheOptions{Dir: t.TempDir(), Mode: "sometimes"}); err == nil {
		t.Fatal("bad mode: want error")
	}
	// A second writer on the same directory fails with a clear error.
	dir := t.TempDir()
	openTestCache(t, inner, dir, CacheReadWrite, testIdentity)
	if _, err := OpenCache(inner, CacheOptions{Dir: dir, Mode: CacheReadWrite}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second writer: %v", err)
	}
	// Inner errors pass through and nothing is stored.
	failing := &Scripted{Rules: []Rule{{Err: fmt.Errorf("down"), Times: 1}, {Replies: []string{"ok"}}}}
	fc := openTestCache(t, failing, t.TempDir(), CacheReadWrite, testIdentity)
	if _, err := fc.Generate(context.Background(), Request{Prompt: "q"}); err == nil {
		t.Fatal("want inner error")
	}
	if r, err := fc.Generate(context.Background(), Request{Prompt: "q"}); err != nil || r.CacheHits != 0 || r.Texts[0] != "ok" {
		t.Fatalf("after error: %+v, %v", r, err)
	}
}

func TestParseCacheMode(t *testing.T) {
	tests := map[string]CacheMode{"": CacheOff, "off": CacheOff, "READ": CacheRead, "readwrite": CacheReadWrite, "rw": CacheReadWrite, "read-write": CacheReadWrite}
	for in, want := range tests {
		if got, err := ParseCacheMode(in); err != nil || got != want {
			t.Errorf("ParseCacheMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCacheMode("write"); err == nil {
		t.Error("want error for write")
	}
}

// BenchmarkCache compares a cache hit with the HTTP round trip it saves
// (a loopback fake server, so the real saving is larger).
func BenchmarkCache(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.HonourN(func(*llmtest.Request, int) string { return "Answer: Ridley Scott" }))
	oa, err := NewOpenAI(OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	c, err := OpenCache(oa, CacheOptions{Dir: b.TempDir(), Mode: CacheReadWrite, Identity: oa.Identity(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := Request{Prompt: strings.Repeat("word ", 200), N: 3}
	if _, err := c.Generate(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.Run("http", func(b *testing.B) {
		for b.Loop() {
			if _, err := oa.Generate(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache-hit", func(b *testing.B) {
		for b.Loop() {
			if r, err := c.Generate(context.Background(), req); err != nil || r.CacheHits != 3 {
				b.Fatal(r, err)
			}
		}
	})
}
