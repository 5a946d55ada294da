package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

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

// oldCachedSample is the entry the cache wrote before it recorded usage
// and origin.
type oldCachedSample struct {
	Text    string    `json:"text"`
	Model   string    `json:"model"`
	Created time.Time `json:"created"`
}

// putOld writes an entry for sample i of req the way older Groves did.
func putOld(t *testing.T, c *Cache, req Request, i int, text string) {
	t.Helper()
	keys, err := c.keys(req, i+1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := json.Marshal(oldCachedSample{Text: text, Model: "old-model", Created: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.db.Update(func(txn *badger.Txn) error { return txn.Set(keys[i], v) }); err != nil {
		t.Fatal(err)
	}
}

func TestCacheRecordsUsageAndOrigin(t *testing.T) {
	const here, there = "http://<host>:8000/v1", "http://<host>:9000/v1"
	dir := t.TempDir()
	inner := &counter{}
	ctx := context.Background()
	req := Request{Prompt: "q", N: 3}

	hostA, hostB := ServerID("http://gpu-a:8000/v1"), ServerID("http://gpu-b:8000/v1")
	open := func(endpoint, server string) *Cache {
		c, err := OpenCache(inner, CacheOptions{Dir: dir, Mode: CacheReadWrite, Identity: testIdentity,
			Endpoint: endpoint, Server: server, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open(here, hostA)
	first, err := c.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Usage != (Usage{PromptTokens: 1, CompletionTokens: 3}) || first.CachedUsage != (Usage{}) || first.CacheSources != nil {
		t.Fatalf("fresh call: %+v", first)
	}
	_ = c.Close()

	tests := []struct {
		name, endpoint, server string
		fromHere               bool
	}{
		{"same server", here, hostA, true},
		{"server moved", there, hostA, false},
		{"another host on the same port", here, hostB, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := open(tt.endpoint, tt.server)
			defer c.Close()
			r, err := c.Generate(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if r.CacheHits != 3 || r.Usage != (Usage{}) || r.CacheUnknownUsage != 0 {
				t.Fatalf("hits spend nothing now: %+v", r)
			}
			if r.CachedUsage != first.Usage {
				t.Fatalf("cached usage %+v, want the usage reported when produced %+v", r.CachedUsage, first.Usage)
			}
			want := []CacheSource{{Endpoint: here, Server: hostA, Model: "counter", Samples: 3}}
			if !slices.Equal(r.CacheSources, want) {
				t.Fatalf("sources %+v, want %+v", r.CacheSources, want)
			}
			cur := Info{Name: "counter", Endpoint: tt.endpoint, Server: tt.server}
			if got := r.CacheSources[0].From(cur); got != tt.fromHere {
				t.Fatalf("From(%+v) = %v, want %v", cur, got, tt.fromHere)
			}
		})
	}
}

func TestCacheServesOldEntriesWithUnknownUsage(t *testing.T) {
	inner := &counter{}
	c := openTestCache(t, inner, t.TempDir(), CacheReadWrite, testIdentity)
	req := Request{Prompt: "q", N: 2}
	putOld(t, c, req, 0, "old text")

	r, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Texts[0] != "old text" || r.CacheHits != 1 || inner.calls.Load() != 1 || inner.last.Load() != 1 {
		t.Fatalf("old entry not served: %+v (calls %d)", r, inner.calls.Load())
	}
	if r.CacheUnknownUsage != 1 || r.CachedUsage != (Usage{}) || r.Usage != (Usage{PromptTokens: 1, CompletionTokens: 1}) {
		t.Fatalf("usage: %+v", r)
	}
	want := []CacheSource{{Model: "old-model", Samples: 1}}
	if !slices.Equal(r.CacheSources, want) || r.CacheSources[0].Known() {
		t.Fatalf("sources %+v, want %+v (unknown endpoint)", r.CacheSources, want)
	}
	if s := r.CacheSources[0].String(); !strings.Contains(s, "unknown") {
		t.Fatalf("String() = %q", s)
	}
}

func TestSplitUsage(t *testing.T) {
	tests := []struct {
		u    Usage
		n    int
		want []Usage
	}{
		{Usage{10, 4}, 1, []Usage{{10, 4}}},
		{Usage{1, 3}, 3, []Usage{{1, 1}, {0, 1}, {0, 1}}},
		{Usage{7, 5}, 2, []Usage{{4, 3}, {3, 2}}},
		{Usage{}, 2, []Usage{{}, {}}},
	}
	for _, tt := range tests {
		got := splitUsage(tt.u, tt.n)
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitUsage(%+v, %d) = %+v, want %+v", tt.u, tt.n, got, tt.want)
		}
		sum := Usage{}
		for _, g := range got {
			sum = sum.Add(g)
		}
		if sum != tt.u {
			t.Errorf("splitUsage(%+v, %d) adds up to %+v", tt.u, tt.n, sum)
		}
	}
}

func TestAddCacheSources(t *testing.T) {
	a := CacheSource{Endpoint: "e", Model: "m", Samples: 1}
	b := CacheSource{Model: "m", Samples: 2}
	got := AddCacheSources(nil, a, b, a)
	want := []CacheSource{{Endpoint: "e", Model: "m", Samples: 2}, b}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestServerID(t *testing.T) {
	a := ServerID("http://gpu-a:8000/v1")
	tests := []struct {
		url  string
		same bool
	}{
		{"http://GPU-A:8000/v1/", true},
		{"http://user:secret@gpu-a:8000/v1?x=1", true},
		{"http://gpu-b:8000/v1", false},
		{"http://gpu-a:8001/v1", false},
		{"https://gpu-a:8000/v1", false},
		{"http://gpu-a:8000/v2", false},
	}
	if len(a) != 8 {
		t.Fatalf("ServerID = %q, want 8 hex digits", a)
	}
	for _, tt := range tests {
		if got := ServerID(tt.url) == a; got != tt.same {
			t.Errorf("ServerID(%q) == ServerID(gpu-a) is %v, want %v", tt.url, got, tt.same)
		}
		if id := ServerID(tt.url); strings.Contains(id, "gpu") {
			t.Errorf("ServerID(%q) = %q names the host", tt.url, id)
		}
	}
	if id := ServerID("not a url"); id != "" {
		t.Errorf("ServerID of a URL without host = %q, want \"\"", id)
	}
}
