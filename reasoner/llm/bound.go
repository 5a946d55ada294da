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
func Bounded(m Model, maxTokens int) Model { return WithMaxTokens(CheckReplies(m), maxTokens) }

// CheckReplies returns m failing every call whose reply is longer than its
// request's MaxTokens explain (see Bounded; a request without MaxTokens is
// not checked). Bounded is CheckReplies under WithMaxTokens; a recorder
// that must see the bound sent and never an oversized reply goes between
// the two.
func CheckReplies(m Model) Model {
	if m == nil {
		return nil
	}
	return &replyCheck{inner: m}
}

// replyCheck fails a call whose reply is longer than its request's max
// tokens explain.
type replyCheck struct{ inner Model }

func (c *replyCheck) Generate(ctx context.Context, req Request) (Response, error) {
	resp, err := c.inner.Generate(ctx, req)
	if err != nil || req.MaxTokens <= 0 {
		return resp, err
	}
	limit := max(MinReplyBytes, ReplyBytesPerToken*req.MaxTokens)
	for i, t := range resp.Texts {
		if len(t) > limit {
			return Response{}, fmt.Errorf("model %q sent a reply of %d bytes (sample %d), over the limit of %d bytes "+
				"for %d max tokens (does its server ignore max_tokens?); the reply was dropped",
				Describe(c.inner).Name, len(t), i+1, limit, req.MaxTokens)
		}
	}
	return resp, nil
}

// Unwrap returns the checked model (Describe looks through it).
func (c *replyCheck) Unwrap() Model { return c.inner }

// WithMaxTokens returns m with maxTokens as the MaxTokens of every request
// that sets none (maxTokens <= 0: m itself).
func WithMaxTokens(m Model, maxTokens int) Model {
	if m == nil || maxTokens <= 0 {
		return m
	}
	return &withMaxTokens{inner: m, n: maxTokens}
}

type withMaxTokens struct {
	inner Model
	n     int
}

func (w *withMaxTokens) Generate(ctx context.Context, req Request) (Response, error) {
	if req.MaxTokens <= 0 {
		req.MaxTokens = w.n
	}
	return w.inner.Generate(ctx, req)
}

// Unwrap returns the wrapped model.
func (w *withMaxTokens) Unwrap() Model { return w.inner }
