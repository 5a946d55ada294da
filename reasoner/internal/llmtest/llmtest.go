// Package llmtest provides a fake OpenAI-compatible HTTP server for tests of
// the model layer, the CLI and the HTTP server.
//
// The server listens on loopback only (net/http/httptest), serves
// POST {base}/chat/completions and POST {base}/completions, decodes each
// request into a Request, asks a Handler for a Reply, and encodes the reply
// as an OpenAI response (or an OpenAI error body for a non-200 status). It
// records every request and measures the peak number of requests in
// flight, so tests can assert what was sent and how concurrently.
//
//	srv := llmtest.NewServer(t, llmtest.HonourN(func(r *llmtest.Request, i int) string { return "Q42" }))
//	m, _ := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "fake"})
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// BasePath is the API version path the server serves under.
const BasePath = "/v1"

// Request is one decoded request received by the server.
type Request struct {
	// Endpoint is "chat" or "completions".
	Endpoint string
	Header   http.Header
	// Body is the raw JSON body and Fields its top-level fields.
	Body   []byte
	Fields map[string]json.RawMessage

	Model       string
	Messages    []Message
	Prompt      string
	N           int  // 0 when absent
	HasN        bool // whether "n" was sent
	Temperature *float64
	MaxTokens   int
	Stop        []string
}

// Message is a chat message as sent on the wire.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Text is the request's prompt, or its messages' contents joined by
// newlines.
func (r *Request) Text() string {
	if r.Prompt != "" || len(r.Messages) == 0 {
		return r.Prompt
	}
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// Reply is what the server sends back.
type Reply struct {
	// Texts become the choices (status 200).
	Texts []string
	// Status, when not 0 or 200, sends an OpenAI error body with Message.
	Status  int
	Message string
	// Header is added to the response (e.g. Retry-After).
	Header map[string]string
	// Delay is waited (or until the client goes away) before replying.
	Delay time.Duration
	// Usage; when both are zero the server counts words.
	PromptTokens, CompletionTokens int
	// Model is echoed in the response (request model when empty).
	Model string
}

// Handler computes the reply to a request. It may be called concurrently.
type Handler func(r *Request) Reply

// Server is a running fake server.
type Server struct {
	*httptest.Server
	handler Handler

	mu          sync.Mutex
	requests    []*Request
	inFlight    int
	maxInFlight int
}

// NewServer starts a server on loopback and closes it when the test ends.
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the base URL to configure clients with (URL + BasePath).
func (s *Server) BaseURL() string { return s.URL + BasePath }

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// RequestCount is the number of requests received.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// MaxInFlight is the largest number of requests handled at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) enter(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
}

func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	endpoint, ok := endpointOf(hr)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route for %s %s", hr.Method, hr.URL.Path))
		return
	}
	req, err := decode(hr, endpoint)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.enter(req)
	defer s.leave()
	reply := s.handler(req)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-hr.Context().Done():
			return
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.Message)
		return
	}
	writeJSON(w, http.StatusOK, encodeReply(req, reply))
}

func endpointOf(hr *http.Request) (string, bool) {
	if hr.Method != http.MethodPost {
		return "", false
	}
	switch hr.URL.Path {
	case BasePath + "/chat/completions":
		return "chat", true
	case BasePath + "/completions":
		return "completions", true
	}
	return "", false
}

func decode(hr *http.Request, endpoint string) (*Request, error) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	req := &Request{Endpoint: endpoint, Header: hr.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &req.Fields); err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %w", err)
	}
	var wire struct {
		Model       string          `json:"model"`
		Messages    []Message       `json:"messages"`
		Prompt      json.RawMessage `json:"prompt"`
		N           *int            `json:"n"`
		Temperature *float64        `json:"temperature"`
		MaxTokens   int             `json:"max_tokens"`
		Stop        json.RawMessage `json:"stop"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("decoding body: %w", err)
	}
	req.Model, req.Messages, req.Temperature, req.MaxTokens = wire.Model, wire.Messages, wire.Temperature, wire.MaxTokens
	if wire.N != nil {
		req.N, req.HasN = *wire.N, true
	}
	req.Prompt = stringOrFirst(wire.Prompt)
	req.Stop = stringList(wire.Stop)
	if endpoint == "chat" && len(req.Messages) == 0 {
		return nil, fmt.Errorf("chat request without messages")
	}
	if endpoint == "completions" && req.Prompt == "" {
		return nil, fmt.Errorf("completion request without prompt")
	}
	return req, nil
}

// stringOrFirst reads a JSON string or the first string of an array.
func stringOrFirst(raw json.RawMessage) string {
	if l := stringList(raw); len(l) > 0 {
		return l[0]
	}
	return ""
}

func stringList(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var l []string
	_ = json.Unmarshal(raw, &l)
	return l
}

func encodeReply(req *Request, reply Reply) map[string]any {
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	pt, ct := reply.PromptTokens, reply.CompletionTokens
	if pt == 0 && ct == 0 {
		pt = len(strings.Fields(req.Text()))
		for _, t := range reply.Texts {
			ct += len(strings.Fields(t))
		}
	}
	choices := make([]map[string]any, len(reply.Texts))
	for i, t := range reply.Texts {
		c := map[string]any{"index": i, "finish_reason": "stop"}
		if req.Endpoint == "chat" {
			c["message"] = map[string]any{"role": "assistant", "content": t}
		} else {
			c["text"] = t
			c["logprobs"] = nil
		}
		choices[i] = c
	}
	object := "chat.completion"
	if req.Endpoint == "completions" {
		object = "text_completion"
	}
	return map[string]any{
		"id": "fake-1", "object": object, "created": 1700000000, "model": model, "choices": choices,
		"usage": map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": "fake_error", "param": nil, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// HonourN answers with n texts (text(r, i) for i < max(1, n)), like OpenAI.
func HonourN(text func(r *Request, i int) string) Handler {
	return func(r *Request) Reply {
		texts := make([]string, max(1, r.N))
		for i := range texts {
			texts[i] = text(r, i)
		}
		return Reply{Texts: texts}
	}
}

// IgnoreN always answers with one text, ignoring n, like Ollama.
func IgnoreN(text func(r *Request) string) Handler {
	return func(r *Request) Reply { return Reply{Texts: []string{text(r)}} }
}

// Fixed answers every request with one choice, text.
func Fixed(text string) Handler {
	return func(*Request) Reply { return Reply{Texts: []string{text}} }
}
