package llm

import (
	"context"
	"fmt"
)

// Reply size bounds of Bounded: a reply may hold ReplyBytesPerToken bytes
// per max token of its request, and never less than MinReplyBytes.
const (
	ReplyBytesPerToken = 16
	MinReplyBytes      = 64 << 10
)

// Bounded returns m with every reply bounded: a request that sets no
// MaxTokens gets maxTokens, and a reply longer than its request's max
// tokens can explain (ReplyBytesPerToken bytes per token, at least
// MinReplyBytes) fails the call, naming the model and the sizes, never the
// text — a model server that ignores max_tokens would otherwise fill
// every later prompt, the trace and the answer with megabytes. With
// maxTokens <= 0 a request without MaxTokens goes unbounded. Replies are
// bounded because they go back into later prompts.
func Bounded(m Model, maxTokens int) Model {
	if m == nil {
		return nil
	}
	return &bounded{inner: m, maxTokens: maxTokens}
}

type bounded struct {
	inner     Model
	maxTokens int
}

func (b *bounded) Generate(ctx context.Context, req Request) (Response, error) {
	if req.MaxTokens <= 0 {
		req.MaxTokens = max(0, b.maxTokens)
	}
	resp, err := b.inner.Generate(ctx, req)
	if err != nil || req.MaxTokens == 0 {
		return resp, err
	}
	limit := max(MinReplyBytes, ReplyBytesPerToken*req.MaxTokens)
	for i, t := range resp.Texts {
		if len(t) > limit {
			return Response{}, fmt.Errorf("model %q sent a reply of %d bytes (sample %d), over the limit of %d bytes "+
				"for %d max tokens (does its server ignore max_tokens?); the reply was dropped",
				Describe(b.inner).Name, len(t), i+1, limit, req.MaxTokens)
		}
	}
	return resp, nil
}

// Unwrap returns the bounded model (Describe looks through it).
func (b *bounded) Unwrap() Model { return b.inner }
