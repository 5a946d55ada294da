package server

import (
	"context"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

// TestMetricsCachedTokens: samples from the response cache count their
// hits and what they cost when produced, apart from the tokens spent.
func TestMetricsCachedTokens(t *testing.T) {
	m := newMetrics()
	m.Record(context.Background(), llm.Call{Response: llm.Response{CacheHits: 2,
		Usage:       llm.Usage{PromptTokens: 7, CompletionTokens: 1},
		CachedUsage: llm.Usage{PromptTokens: 40, CompletionTokens: 6}}})
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			key := f.GetName()
			for _, l := range mt.GetLabel() {
				key += "/" + l.GetValue()
			}
			got[key] = mt.GetCounter().GetValue()
		}
	}
	for key, want := range map[string]float64{
		"grove_model_tokens_total/prompt": 7, "grove_model_tokens_total/completion": 1,
		"grove_model_cache_hits_total":           2,
		"grove_model_cached_tokens_total/prompt": 40, "grove_model_cached_tokens_total/completion": 6,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
}
