package eval

import (
	"fmt"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/literal"
)

// CacheUse says how much of a run's results the response cache served:
// the samples it gave, the tokens they cost when they were produced (as
// opposed to the tokens spent by the run) and where they came from. The
// cache key has no server address, so samples produced by another server
// answering to the same model name are served too: Foreign counts the
// samples whose origin is not the run's model at its endpoint (unknown
// origins included), which the run's warnings name.
type CacheUse struct {
	// Samples are all the samples of the results; CacheHits those the
	// cache gave.
	Samples   int `json:"samples"`
	CacheHits int `json:"cache_hits"`
	// Tokens were spent by the runs; CachedTokens are what the samples
	// from the cache cost when produced, leaving out the UnknownUsage
	// samples whose cache entries recorded no usage.
	Tokens       int `json:"tokens"`
	CachedTokens int `json:"cached_tokens"`
	UnknownUsage int `json:"unknown_usage,omitempty"`
	// Sources are the origins of the samples from the cache; samples of
	// results that recorded none count under an unknown server.
	Sources []llm.CacheSource `json:"sources,omitempty"`
	Foreign int               `json:"foreign,omitempty"`
}

// NewCacheUse sums the cache use of results answered by model.
func NewCacheUse(results []Result, model llm.Info) CacheUse {
	var u CacheUse
	for _, r := range results {
		u.Samples += r.Samples
		u.CacheHits += r.CacheHits
		u.Tokens += r.Tokens
		u.CachedTokens += r.CachedTokens
		u.UnknownUsage += r.UnknownCacheUsage()
		recorded := 0
		for _, s := range r.CacheSources {
			u.Sources = llm.AddCacheSources(u.Sources, s)
			recorded += s.Samples
		}
		if rest := r.CacheHits - recorded; rest > 0 {
			u.Sources = llm.AddCacheSources(u.Sources, llm.CacheSource{Samples: rest})
		}
	}
	for _, s := range u.Sources {
		if !s.From(model) {
			u.Foreign += s.Samples
		}
	}
	return u
}

// orNil returns nil when the cache served nothing, for manifests.
func (u CacheUse) orNil() *CacheUse {
	if u.CacheHits == 0 {
		return nil
	}
	return &u
}

// String is a one-line account: "30 of 40 samples from the response
// cache, which cost 4500 tokens when produced (2 of unknown usage); 120
// tokens spent".
func (u CacheUse) String() string {
	s := fmt.Sprintf("%d of %d samples from the response cache, which cost %d tokens when produced",
		u.CacheHits, u.Samples, u.CachedTokens)
	if u.UnknownUsage > 0 {
		s += fmt.Sprintf(" (%d %s of unknown usage, not counted)", u.UnknownUsage, literal.Plural(u.UnknownUsage, "sample"))
	}
	return s + fmt.Sprintf("; %d tokens spent", u.Tokens)
}

// Warning says which samples from the cache were produced elsewhere than
// by model at its endpoint; "" when none were.
func (u CacheUse) Warning(model llm.Info) string {
	if u.Foreign == 0 {
		return ""
	}
	var other []llm.CacheSource
	for _, s := range u.Sources {
		if !s.From(model) {
			other = append(other, s)
		}
	}
	return fmt.Sprintf("%d of the %d samples from the response cache were not produced by %s (the cache is keyed by "+
		"model name, not server): %s", u.Foreign, u.CacheHits, model, llm.DescribeCacheSources(other))
}
