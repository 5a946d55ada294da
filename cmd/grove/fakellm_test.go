package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The model layer's full fake server (reasoner/internal/llmtest) is internal
// to reasoner/, so the CLI's end-to-end tests use this small one: it serves
// only POST /v1/chat/completions, which is all `grove ask` sends.

// fakeRequest is one chat request as the fake server received it.
type fakeRequest struct {
	Model       string   // the model name asked for
	Text        string   // the messages' contents joined by newlines
	N           int      // choices asked for (1 when absent)
	Temperature *float64 // nil when not sent
}

// fakeLLM is an OpenAI-compatible chat server on loopback whose reply
// texts come from answer (len(texts) choices).
type fakeLLM struct {
	*httptest.Server
	answer func(r fakeRequest) string

	mu       sync.Mutex
	requests []fakeRequest
}

func newFakeLLM(t *testing.T, answer func(r fakeRequest) string) *fakeLLM {
	t.Helper()
	f := &fakeLLM{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLLM) BaseURL() string { return f.URL + "/v1" }

func (f *fakeLLM) Requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeLLM) RequestCount() int { return len(f.Requests()) }

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
		return
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		N           *int     `json:"n"`
		Temperature *float64 `json:"temperature"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	req := fakeRequest{Model: body.Model, N: 1, Temperature: body.Temperature}
	if body.N != nil {
		req.N = max(*body.N, 1)
	}
	parts := make([]string, len(body.Messages))
	for i, m := range body.Messages {
		parts[i] = m.Content
	}
	req.Text = strings.Join(parts, "\n")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	text := f.answer(req)
	choices := make([]map[string]any, req.N)
	for i := range choices {
		choices[i] = map[string]any{"index": i, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "fake", "object": "chat.completion", "created": 0, "model": body.Model, "choices": choices,
		"usage": map[string]int{"prompt_tokens": len(strings.Fields(req.Text)), "completion_tokens": len(strings.Fields(text)),
			"total_tokens": len(strings.Fields(req.Text)) + len(strings.Fields(text))},
	})
}
