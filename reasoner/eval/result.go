package eval

import (
	"errors"
	"fmt"
	"time"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/eval/metric"
	"github.com/grove-kg/grove/reasoner/llm"
)

// Score names, the keys of Result.Scores.
const (
	ScoreEMIn   = "em_in"
	ScoreEM     = "em"
	ScoreF1     = "f1"
	ScoreRougeL = "rouge_l"
	// ScoreHits1 is present only for datasets with gold entity ids.
	ScoreHits1 = "hits1"
	// ScoreJudge is present only when a judge model is configured.
	ScoreJudge = "judge"
)

// ScoreNames lists every score name in report order.
func ScoreNames() []string {
	return []string{ScoreEMIn, ScoreEM, ScoreF1, ScoreHits1, ScoreRougeL, ScoreJudge}
}

// Result is the record of one (question, method) run: one line of a
// results file.
type Result struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	// Index is the question's position in the evaluated list (after
	// sampling), which orders reports and merges.
	Index    int    `json:"index"`
	Question string `json:"question"`
	Type     string `json:"type,omitempty"`

	Answer string `json:"answer"`
	// Model is the configured name of the model that answered;
	// ServedModels the names its server reported instead, if any (see
	// trace.Trace.ServedModels).
	Model        string   `json:"model,omitempty"`
	ServedModels []string `json:"served_models,omitempty"`
	// Found is false when the method gave no answer.
	Found     bool    `json:"found"`
	Value     float64 `json:"value"`
	Confident bool    `json:"confident"`
	// Fallback is true when a "->" fallback method produced the answer.
	Fallback       bool     `json:"fallback,omitempty"`
	AnswerEntities []string `json:"answer_entities,omitempty"`

	Gold    []string `json:"gold"`
	GoldIDs []string `json:"gold_ids,omitempty"`
	// GoldIDsOnly is set when the KG has no label for any gold id, so the
	// gold answers are bare ids, which a text answer cannot match.
	GoldIDsOnly bool `json:"gold_ids_only,omitempty"`
	// MissingTopics are the question's topic entities that the KG does not
	// have (checked with --topic-entities only).
	MissingTopics []string           `json:"missing_topics,omitempty"`
	Scores        map[string]float64 `json:"scores"`

	// Tokens (PromptTokens + CompletionTokens) are the tokens spent by
	// this run: samples served from the response cache spend none.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Tokens           int `json:"tokens"`
	ModelCalls       int `json:"model_calls"`
	// Samples are the texts the method asked for (a call may ask for
	// several); CacheHits counts the samples the response cache gave.
	Samples   int `json:"samples"`
	CacheHits int `json:"cache_hits"`
	// CachedTokens (CachedPromptTokens + CachedCompletionTokens) are what
	// the samples from the cache cost when they were produced, as their
	// server reported it; CacheUnknownUsage counts the samples from the
	// cache whose usage is unknown (cache entries written by older Groves),
	// which CachedTokens leaves out. CacheSources say where the samples
	// from the cache came from (see llm.CacheSource).
	CachedPromptTokens     int               `json:"cached_prompt_tokens,omitempty"`
	CachedCompletionTokens int               `json:"cached_completion_tokens,omitempty"`
	CachedTokens           int               `json:"cached_tokens,omitempty"`
	CacheUnknownUsage      int               `json:"cache_unknown_usage,omitempty"`
	CacheSources           []llm.CacheSource `json:"cache_sources,omitempty"`
	KGCalls                int               `json:"kg_calls"`
	Nodes                  int               `json:"nodes"`
	Expansions             int               `json:"expansions"`
	// JudgeTokens were spent asking the judge; JudgeCachedTokens are what
	// a verdict served from the response cache cost when produced
	// (JudgeCacheUnknownUsage: 1 when its cache entry did not record it).
	JudgeTokens            int `json:"judge_tokens,omitempty"`
	JudgeCachedTokens      int `json:"judge_cached_tokens,omitempty"`
	JudgeCacheUnknownUsage int `json:"judge_cache_unknown_usage,omitempty"`

	WallTime time.Duration `json:"wall_time_ns"`
	// Trace is the trace file, relative to the results file's directory.
	Trace string `json:"trace,omitempty"`
	// Error is set when the run failed. A result that is not Found (no
	// answer, or an error) scores 0 on every metric.
	Error      string    `json:"error,omitempty"`
	JudgeError string    `json:"judge_error,omitempty"`
	Shard      string    `json:"shard,omitempty"`
	Finished   time.Time `json:"finished"`
}

// UnknownCacheUsage is the number of the result's samples from the cache
// whose usage is unknown: CacheUnknownUsage, or every cache hit of a
// result written by a Grove that recorded no cached usage (cache hits, but
// neither cached tokens nor unknown ones).
func (r Result) UnknownCacheUsage() int {
	if r.CacheHits > 0 && r.CachedTokens == 0 && r.CacheUnknownUsage == 0 {
		return r.CacheHits
	}
	return r.CacheUnknownUsage
}

// Key identifies a result: its method and question id.
func (r Result) Key() string { return r.Method + "\x00" + r.ID }

// check reports a record missing its identifying fields.
func (r Result) check() error {
	switch {
	case r.ID == "":
		return errors.New(`field "id": missing`)
	case r.Method == "":
		return errors.New(`field "method": missing`)
	case r.Index < 0:
		return fmt.Errorf(`field "index": negative (%d)`, r.Index)
	}
	return nil
}

// Score scores a prediction against a question's gold answers: EM-in, EM,
// F1 and Rouge-L (the best over the golds) on the answer text, and Hits@1
// of the answer's entities against the gold ids when the dataset has them.
func Score(answer string, entities []string, q dataset.Question) map[string]float64 {
	s := map[string]float64{
		ScoreEMIn: metric.EMIn(answer, q.Answers),
		ScoreEM:   metric.EM(answer, q.Answers),
		ScoreF1:   metric.F1(answer, q.Answers),
	}
	best := 0.0
	for _, g := range q.Answers {
		best = max(best, metric.RougeL(answer, g))
	}
	s[ScoreRougeL] = best
	if len(q.AnswerIDs) > 0 {
		s[ScoreHits1] = metric.Hits1(entities, q.AnswerIDs)
	}
	return s
}
