package eval

import (
	"slices"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

// TestUnknownCacheUsage: results lines written before cached usage was
// recorded count their cache hits as of unknown usage, not as 0 tokens.
func TestUnknownCacheUsage(t *testing.T) {
	tests := []struct {
		name string
		r    Result
		want int
	}{
		{"no cache hits", Result{Tokens: 10}, 0},
		{"usage recorded", Result{CacheHits: 2, CachedTokens: 30}, 0},
		{"some entries without usage", Result{CacheHits: 3, CachedTokens: 30, CacheUnknownUsage: 1}, 1},
		{"no entry with usage", Result{CacheHits: 2, CacheUnknownUsage: 2}, 2},
		{"results line of an older Grove", Result{CacheHits: 4}, 4},
	}
	for _, tt := range tests {
		if got := tt.r.UnknownCacheUsage(); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestNewCacheUse: cache hits of results that recorded no origin count
// under an unknown server, and origins other than the run's model are
// foreign.
func TestNewCacheUse(t *testing.T) {
	model := llm.Info{Name: "m", Endpoint: "http://<host>:8000/v1"}
	here := llm.CacheSource{Endpoint: model.Endpoint, Model: "m", Samples: 2}
	there := llm.CacheSource{Endpoint: "http://<host>:9000/v1", Model: "m", Samples: 1}
	rs := []Result{
		{Samples: 3, CacheHits: 2, CachedTokens: 20, Tokens: 5, CacheSources: []llm.CacheSource{here}},
		{Samples: 1, CacheHits: 1, CachedTokens: 7, CacheSources: []llm.CacheSource{there}},
		{Samples: 2, CacheHits: 2}, // an older Grove's results line
	}
	u := NewCacheUse(rs, model)
	want := []llm.CacheSource{here, there, {Samples: 2}}
	if u.Samples != 6 || u.CacheHits != 5 || u.Tokens != 5 || u.CachedTokens != 27 || u.UnknownUsage != 2 ||
		u.Foreign != 3 || !slices.Equal(u.Sources, want) {
		t.Fatalf("%+v", u)
	}
	if w := u.Warning(model); w == "" {
		t.Fatal("no warning for foreign samples")
	}
	if (CacheUse{}).orNil() != nil || u.orNil() == nil {
		t.Fatal("orNil")
	}
}
