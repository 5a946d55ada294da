package llm

// The OpenAI-compatible HTTP model (OpenAI, vLLM, llama.cpp server, Ollama,
// LM Studio, ...), built on github.com/openai/openai-go/v3.
//
// The SDK does the HTTP and JSON; this file owns the policy around it:
//
//   - Retries: the SDK's own retries are disabled. Each HTTP call is retried
//     up to MaxRetries times on 408/409/429/5xx, transport errors and
//     per-attempt timeouts, waiting Retry-After (or retry-after-ms) when the
//     server sends it, else exponential backoff with jitter. The concurrency
//     slot is released while waiting.
//   - Concurrency: a semaphore bounds in-flight HTTP calls across all
//     Generate calls sharing the model.
//   - Samples: n > 1 is sent as the `n` parameter (NativeN on/auto); when a
//     server returns fewer choices than asked (Ollama ignores n) the missing
//     samples are issued as parallel single requests, and in auto mode later
//     calls skip `n` altogether. NativeN off always issues single requests.
//   - Secrets: the client never reads OPENAI_* environment variables; the
//     API key is never logged, and errors are scrubbed of it. Server errors
//     are returned as *APIError, which holds no request or headers.
//     A successful reply that is not JSON (a web page at a wrong URL) is a
//     *NotJSONError quoting its start, and is not retried.
//   - Size: a reply body is read through a cap (MaxReplyBytes; an error
//     status's body through a smaller one), so a misbehaving server cannot
//     make the client buffer without bound; past the cap the call fails
//     with *ReplyTooLargeError and is not retried.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
)

// Endpoints of an OpenAI-compatible server.
const (
	EndpointChat        = "chat"
	EndpointCompletions = "completions"
)

// NativeN modes.
const (
	NativeNAuto = "auto"
	NativeNOn   = "on"
	NativeNOff  = "off"
)

// Defaults of OpenAIConfig.
const (
	DefaultMaxConcurrency = 4
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 30 * time.Second
	DefaultMaxRetryAfter  = 2 * time.Minute
	// DefaultMaxReplyBytes bounds a reply body: far above what any
	// completion of a few thousand tokens per sample takes.
	DefaultMaxReplyBytes = 32 << 20
	// maxErrorReplyBytes bounds the body of an error status, of which only
	// the message is kept.
	maxErrorReplyBytes = 1 << 20
)

// reservedBodyKeys may not be set through ExtraBody: the model layer owns them.
var reservedBodyKeys = []string{"model", "messages", "prompt", "n", "stream"}

// OpenAIConfig configures an OpenAI-compatible model.
type OpenAIConfig struct {
	// BaseURL includes the API version path, e.g. "http://localhost:11434/v1".
	BaseURL string
	// APIKey is sent as a bearer token when non-empty.
	APIKey string
	Model  string
	// Endpoint is EndpointChat (default) or EndpointCompletions.
	Endpoint string
	// ExtraBody fields are added to every request body (e.g. top_k).
	ExtraBody map[string]any
	// NativeN is NativeNAuto (default), NativeNOn or NativeNOff.
	NativeN string
	// MaxConcurrency bounds in-flight HTTP calls (<= 0: DefaultMaxConcurrency).
	MaxConcurrency int
	// MaxRetries is the number of retries after a failed attempt (< 0: 0).
	MaxRetries int
	// Timeout bounds each HTTP attempt (0: only the caller's context).
	Timeout time.Duration
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff
	// (0: DefaultRetryBaseDelay, DefaultRetryMaxDelay).
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// MaxRetryAfter is the longest server-requested wait honoured; a longer
	// Retry-After fails the call (0: DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// MaxReplyBytes bounds the body of one HTTP reply (<= 0:
	// DefaultMaxReplyBytes); a longer reply fails the call with
	// *ReplyTooLargeError.
	MaxReplyBytes int64
	// HTTPClient replaces the default client (whose transport keeps
	// MaxConcurrency idle connections per host).
	HTTPClient *http.Client
	// Logger receives retry and fallback notices (nil: slog.Default()).
	Logger *slog.Logger
}

// String describes the configuration without the API key.
func (c OpenAIConfig) String() string {
	return fmt.Sprintf("openai{url=%s model=%s endpoint=%s api_key=%s}", c.BaseURL, c.Model, c.Endpoint, redactedMark(c.APIKey))
}

// LogValue logs the configuration without the API key.
func (c OpenAIConfig) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", c.BaseURL), slog.String("model", c.Model),
		slog.String("endpoint", c.Endpoint), slog.String("api_key", redactedMark(c.APIKey)))
}

func redactedMark(key string) string {
	if key == "" {
		return ""
	}
	return "[REDACTED]"
}

// APIError is an HTTP error status returned by the server.
type APIError struct {
	StatusCode int
	// Message is the server's error message, if it sent one.
	Message string
	// RetryAfter is the wait the server asked for (0 if none).
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// nState values for NativeNAuto.
const (
	nUnknown int32 = iota
	nSupported
	nIgnored
)

// OpenAI is a Model served by an OpenAI-compatible HTTP API. It is safe for
// concurrent use.
type OpenAI struct {
	cfg    OpenAIConfig
	chat   openai.ChatCompletionService
	comp   openai.CompletionService
	sem    chan struct{}
	nState atomic.Int32
	log    *slog.Logger
	// sleep waits between retries; tests replace it to observe delays.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewOpenAI validates cfg and returns the model.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if err := normaliseOpenAIConfig(&cfg); err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.MaxConcurrency
		client = &http.Client{Transport: tr}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0),
		option.WithMiddleware(capReply(cfg.MaxReplyBytes), jsonOnly),
	}
	m := &OpenAI{
		cfg:   cfg,
		chat:  openai.NewChatCompletionService(opts...),
		comp:  openai.NewCompletionService(opts...),
		sem:   make(chan struct{}, cfg.MaxConcurrency),
		log:   cfg.Logger,
		sleep: sleepCtx,
	}
	return m, nil
}

func normaliseOpenAIConfig(c *OpenAIConfig) error {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("openai config: field BaseURL: %q is not an http(s) URL", c.BaseURL)
	}
	if strings.TrimSpace(c.Model) == "" {
		return errors.New("openai config: field Model: required")
	}
	switch c.Endpoint {
	case "":
		c.Endpoint = EndpointChat
	case EndpointChat, EndpointCompletions:
	default:
		return fmt.Errorf("openai config: field Endpoint: %q is not %q or %q", c.Endpoint, EndpointChat, EndpointCompletions)
	}
	switch c.NativeN {
	case "":
		c.NativeN = NativeNAuto
	case NativeNAuto, NativeNOn, NativeNOff:
	default:
		return fmt.Errorf("openai config: field NativeN: %q is not auto, on or off", c.NativeN)
	}
	for _, k := range reservedBodyKeys {
		if _, ok := c.ExtraBody[k]; ok {
			return fmt.Errorf("openai config: field ExtraBody: key %q is set by the model layer", k)
		}
	}
	c.ExtraBody = maps.Clone(c.ExtraBody)
	if c.MaxConcurrency <= 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	c.MaxRetries = max(0, c.MaxRetries)
	c.RetryBaseDelay = orDefault(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.RetryMaxDelay = orDefault(c.RetryMaxDelay, DefaultRetryMaxDelay)
	c.MaxRetryAfter = orDefault(c.MaxRetryAfter, DefaultMaxRetryAfter)
	if c.MaxReplyBytes <= 0 {
		c.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Identity is what this model's cached responses are keyed by.
func (m *OpenAI) Identity() CacheIdentity {
	return CacheIdentity{Model: m.cfg.Model, Endpoint: m.cfg.Endpoint, ExtraBody: m.cfg.ExtraBody}
}

// batch is the outcome of one or more HTTP calls.
type batch struct {
	texts []string
	usage Usage
	model string
}

func (b *batch) merge(o batch) {
	b.texts = append(b.texts, o.texts...)
	b.usage = b.usage.Add(o.usage)
	if b.model == "" {
		b.model = o.model
	}
}

// Generate sends req and returns exactly max(1, req.N) texts.
func (m *OpenAI) Generate(ctx context.Context, req Request) (Response, error) {
	resp, err := m.generate(ctx, req)
	if err != nil {
		return Response{}, m.redact(fmt.Errorf("openai %s %s, task %q: %w", m.cfg.Endpoint, m.cfg.Model, req.Task.Name, err))
	}
	return resp, nil
}

func (m *OpenAI) generate(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	if err := checkRequest(req); err != nil {
		return Response{}, err
	}
	n := max(1, req.N)
	var got batch
	if m.useNativeN(n) {
		b, err := m.call(ctx, req, n)
		if err != nil {
			return Response{}, err
		}
		m.learnNativeN(n, len(b.texts))
		got.merge(b)
		if len(got.texts) > n {
			got.texts = got.texts[:n]
		}
	}
	if missing := n - len(got.texts); missing > 0 {
		b, err := m.singles(ctx, req, missing)
		if err != nil {
			return Response{}, err
		}
		got.merge(b)
	}
	if got.model == "" {
		got.model = m.cfg.Model
	}
	return Response{Texts: got.texts, Usage: got.usage, Latency: time.Since(start), Model: got.model}, nil
}

func checkRequest(req Request) error {
	switch {
	case req.Prompt == "" && len(req.Messages) == 0:
		return errors.New("request has neither messages nor a prompt")
	case req.Prompt != "" && len(req.Messages) > 0:
		return errors.New("request has both messages and a prompt")
	case req.MaxTokens < 0:
		return fmt.Errorf("request field MaxTokens: %d is negative", req.MaxTokens)
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return fmt.Errorf("request message %d: unknown role %q", i, msg.Role)
		}
	}
	return nil
}

func (m *OpenAI) useNativeN(n int) bool {
	if n <= 1 {
		return false
	}
	switch m.cfg.NativeN {
	case NativeNOn:
		return true
	case NativeNAuto:
		return m.nState.Load() != nIgnored
	}
	return false
}

// learnNativeN records, in auto mode, whether the server honours n.
func (m *OpenAI) learnNativeN(asked, got int) {
	if got >= asked {
		m.nState.CompareAndSwap(nUnknown, nSupported)
		return
	}
	if m.cfg.NativeN == NativeNAuto && m.nState.Swap(nIgnored) != nIgnored {
		m.log.Info("llm server returned fewer choices than n; using parallel single requests",
			"model", m.cfg.Model, "asked", asked, "got", got)
	}
}

// singles issues count single-sample calls in parallel.
func (m *OpenAI) singles(ctx context.Context, req Request, count int) (batch, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]batch, count)
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := range count {
		wg.Go(func() {
			results[i], errs[i] = m.call(ctx, req, 1)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return batch{}, err
	}
	var out batch
	for _, r := range results {
		r.texts = r.texts[:1]
		out.merge(r)
	}
	return out, nil
}

// firstError returns the first error that is not a cancellation caused by
// another failure, else the first error.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// call performs one logical HTTP call (asking for n choices when n > 1),
// retrying per the policy.
func (m *OpenAI) call(ctx context.Context, req Request, n int) (batch, error) {
	for attempt := 0; ; attempt++ {
		b, err := m.attempt(ctx, req, n)
		if err == nil {
			return b, nil
		}
		delay, retry := m.retryDelay(ctx, err, attempt)
		if !retry {
			var apiErr *APIError
			if errors.As(err, &apiErr) && apiErr.RetryAfter > m.cfg.MaxRetryAfter && attempt < m.cfg.MaxRetries {
				return batch{}, fmt.Errorf("attempt %d of %d: the server asked to wait %s before retrying, longer "+
					"than the %s this client waits: %w", attempt+1, m.cfg.MaxRetries+1, apiErr.RetryAfter,
					m.cfg.MaxRetryAfter, err)
			}
			return batch{}, fmt.Errorf("attempt %d of %d: %w", attempt+1, m.cfg.MaxRetries+1, err)
		}
		m.log.Warn("llm call failed; retrying", "model", m.cfg.Model, "task", req.Task.Name,
			"attempt", attempt+1, "delay", delay, "error", m.redact(err).Error())
		if err := m.sleep(ctx, delay); err != nil {
			return batch{}, fmt.Errorf("waiting to retry: %w", err)
		}
	}
}

// retryDelay decides whether err is worth another attempt and how long to
// wait first.
func (m *OpenAI) retryDelay(ctx context.Context, err error, attempt int) (time.Duration, bool) {
	if attempt >= m.cfg.MaxRetries || ctx.Err() != nil || !retryable(err) {
		return 0, false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		if apiErr.RetryAfter > m.cfg.MaxRetryAfter {
			return 0, false
		}
		return apiErr.RetryAfter, true
	}
	return backoff(m.cfg.RetryBaseDelay, m.cfg.RetryMaxDelay, attempt), true
}

// backoff is base*2^attempt capped at maxDelay, with jitter in [d/2, d].
func backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	d := maxDelay
	if attempt < 30 && base<<attempt < maxDelay && base<<attempt > 0 {
		d = base << attempt
	}
	half := d / 2
	return half + rand.N(half+1)
}

func retryable(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
			return true
		}
		return apiErr.StatusCode >= 500
	}
	if errors.Is(err, errAttemptTimeout) {
		return true
	}
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr)
}

// errAttemptTimeout marks an attempt that exceeded OpenAIConfig.Timeout.
var errAttemptTimeout = errors.New("attempt timed out")

// attempt performs one HTTP request while holding a concurrency slot.
func (m *OpenAI) attempt(ctx context.Context, req Request, n int) (batch, error) {
	select {
	case m.sem <- struct{}{}:
	case <-ctx.Done():
		return batch{}, fmt.Errorf("waiting for a concurrency slot: %w", ctx.Err())
	}
	defer func() { <-m.sem }()
	actx, cancel := ctx, context.CancelFunc(func() {})
	if m.cfg.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, m.cfg.Timeout)
	}
	defer cancel()
	var b batch
	var err error
	if m.cfg.Endpoint == EndpointCompletions {
		b, err = m.complete(actx, req, n)
	} else {
		b, err = m.chatComplete(actx, req, n)
	}
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		return batch{}, fmt.Errorf("%w after %s: %w", errAttemptTimeout, m.cfg.Timeout, err)
	}
	return b, convertError(err)
}

func (m *OpenAI) chatComplete(ctx context.Context, req Request, n int) (batch, error) {
	msgs, err := chatMessages(req)
	if err != nil {
		return batch{}, err
	}
	p := openai.ChatCompletionNewParams{Messages: msgs, Model: m.cfg.Model, Temperature: openai.Float(req.Temperature)}
	p.N, p.MaxTokens = limits(req, n)
	if len(req.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if len(m.cfg.ExtraBody) > 0 {
		p.SetExtraFields(m.cfg.ExtraBody)
	}
	res, err := m.chat.New(ctx, p)
	if err != nil {
		return batch{}, err
	}
	return batchOf(res.Model, res.Usage, res.Choices,
		func(c openai.ChatCompletionChoice) (int64, string) { return c.Index, c.Message.Content })
}

func (m *OpenAI) complete(ctx context.Context, req Request, n int) (batch, error) {
	prompt := req.Prompt
	if prompt == "" {
		prompt = MessagesToPrompt(req.Messages)
	}
	p := openai.CompletionNewParams{
		Prompt:      openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		Model:       openai.CompletionNewParamsModel(m.cfg.Model),
		Temperature: openai.Float(req.Temperature),
	}
	p.N, p.MaxTokens = limits(req, n)
	if len(req.Stop) > 0 {
		p.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if len(m.cfg.ExtraBody) > 0 {
		p.SetExtraFields(m.cfg.ExtraBody)
	}
	res, err := m.comp.New(ctx, p)
	if err != nil {
		return batch{}, err
	}
	return batchOf(res.Model, res.Usage, res.Choices, func(c openai.CompletionChoice) (int64, string) { return c.Index, c.Text })
}

// limits are the bounds both endpoints send alike: the number of
// choices n (unset, so not sent, for one) and req's token cap (unset for
// none).
func limits(req Request, n int) (choices, maxTokens param.Opt[int64]) {
	if n > 1 {
		choices = openai.Int(int64(n))
	}
	if req.MaxTokens > 0 {
		maxTokens = openai.Int(int64(req.MaxTokens))
	}
	return choices, maxTokens
}

// batchOf is the batch of either endpoint's reply: the texts of choices
// in the order of their index (a server may send them in any order; equal
// indexes keep theirs), checked by checkChoices. choice gives a choice's
// index and text. choices is not changed.
func batchOf[C any](model string, u openai.CompletionUsage, choices []C, choice func(C) (int64, string)) (batch, error) {
	type indexed struct {
		i    int64
		text string
	}
	xs := make([]indexed, len(choices))
	for j, c := range choices {
		xs[j].i, xs[j].text = choice(c)
	}
	slices.SortStableFunc(xs, func(a, b indexed) int { return cmp.Compare(a.i, b.i) })
	b := batch{model: model, usage: Usage{int(u.PromptTokens), int(u.CompletionTokens)}}
	for _, x := range xs {
		b.texts = append(b.texts, x.text)
	}
	return checkChoices(b)
}

// checkChoices refuses a reply without choices and makes the server's
// text valid UTF-8 (each run of invalid bytes one U+FFFD), here, once, so
// that the answer printed, the trace and the cache hold the same text.
func checkChoices(b batch) (batch, error) {
	if len(b.texts) == 0 {
		return batch{}, errors.New("server returned no choices")
	}
	for i, t := range b.texts {
		b.texts[i] = strings.ToValidUTF8(t, "\uFFFD")
	}
	b.model = strings.ToValidUTF8(b.model, "\uFFFD")
	return b, nil
}

// chatMessages converts req to chat messages (a prompt becomes one user
// message).
func chatMessages(req Request) ([]openai.ChatCompletionMessageParamUnion, error) {
	msgs := req.Messages
	if len(msgs) == 0 {
		msgs = PromptToMessages(req.Prompt)
	}
	out := make([]openai.ChatCompletionMessageParamUnion, len(msgs))
	for i, msg := range msgs {
		switch msg.Role {
		case RoleSystem:
			out[i] = openai.SystemMessage(msg.Content)
		case RoleUser:
			out[i] = openai.UserMessage(msg.Content)
		case RoleAssistant:
			out[i] = openai.AssistantMessage(msg.Content)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// PromptToMessages is the chat form of a completion prompt: one user message.
func PromptToMessages(prompt string) []Message {
	return []Message{{Role: RoleUser, Content: prompt}}
}

// MessagesToPrompt renders chat messages as a completion prompt: each
// message as "System: …", "User: …" or "Assistant: …" separated by blank
// lines, ending with "Assistant:" so the model writes the reply. A lone user
// message is returned as is.
func MessagesToPrompt(msgs []Message) string {
	if len(msgs) == 1 && msgs[0].Role == RoleUser {
		return msgs[0].Content
	}
	var b strings.Builder
	for _, msg := range msgs {
		role := msg.Role
		if role != "" {
			role = strings.ToUpper(role[:1]) + role[1:]
		}
		fmt.Fprintf(&b, "%s: %s\n\n", role, msg.Content)
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleAssistant {
		b.WriteString("Assistant:")
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxBodyQuoted bounds how much of a non-JSON reply an error echoes.
const maxBodyQuoted = 200

// NotJSONError is a successful HTTP reply that is not JSON: typically a
// web page (a proxy's error page, a web UI) at a URL that is not the
// OpenAI-compatible API. It is not retried.
type NotJSONError struct {
	StatusCode  int
	ContentType string
	// Body is the start of the reply.
	Body string
}

func (e *NotJSONError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("the model server answered %s, not JSON (HTTP %d; is the URL the OpenAI-compatible API, "+
		"e.g. http://host:8000/v1?): %s", ct, e.StatusCode, quoteN(flatSpace(e.Body), maxBodyQuoted))
}

// ReplyTooLargeError is an HTTP reply whose body exceeds the client's cap
// (OpenAIConfig.MaxReplyBytes, or 1 MiB for an error status). It is not
// retried.
type ReplyTooLargeError struct {
	StatusCode int
	Limit      int64
}

func (e *ReplyTooLargeError) Error() string {
	return fmt.Sprintf("the model server's reply (HTTP %d) is over %d bytes; it was not read further", e.StatusCode, e.Limit)
}

// capReply is a client middleware that reads every reply body through a
// cap: limit bytes for a success, at most maxErrorReplyBytes for an error
// status.
func capReply(limit int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil {
			return res, err
		}
		n := limit
		if res.StatusCode >= 400 {
			n = min(n, maxErrorReplyBytes)
		}
		res.Body = &cappedBody{rc: res.Body, left: n, err: &ReplyTooLargeError{StatusCode: res.StatusCode, Limit: n}}
		return res, nil
	}
}

// cappedBody reads at most left bytes of rc; a byte beyond them is err.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	// Read one byte more than allowed, to tell a body of exactly the cap
	// from a longer one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, b.err
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// jsonOnly is a client middleware that turns a successful non-JSON reply
// into a *NotJSONError. (The SDK's own error for it only names the Go
// types it could have decoded into.) Error statuses are left to the SDK.
func jsonOnly(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode >= 400 {
		return res, err
	}
	ct := res.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if strings.Contains(mt, "application/json") || strings.HasSuffix(mt, "+json") {
		return res, nil
	}
	head, _ := io.ReadAll(io.LimitReader(res.Body, 4*maxBodyQuoted))
	_ = res.Body.Close()
	return nil, &NotJSONError{StatusCode: res.StatusCode, ContentType: mt, Body: string(head)}
}

// flatSpace collapses whitespace runs to one space.
func flatSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// convertError replaces an SDK error (which holds the request and its
// headers) by an *APIError carrying only status, message and Retry-After.
func convertError(err error) error {
	var sdkErr *openai.Error
	if err == nil || !errors.As(err, &sdkErr) {
		return err
	}
	apiErr := &APIError{StatusCode: sdkErr.StatusCode, Message: sdkErr.Message}
	if sdkErr.Response != nil {
		apiErr.RetryAfter = parseRetryAfter(sdkErr.Response.Header, time.Now())
	}
	return apiErr
}

// parseRetryAfter reads retry-after-ms, then Retry-After (seconds, possibly
// fractional, or an HTTP date).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// redact removes the API key from err's message.
func (m *OpenAI) redact(err error) error {
	if err == nil || len(m.cfg.APIKey) < 4 || !strings.Contains(err.Error(), m.cfg.APIKey) {
		return err
	}
	return &redactedError{err: err, key: m.cfg.APIKey}
}

// redactedError hides the key from its message. It deliberately has no
// Unwrap (an unwrapped error would print the key); Is still matches
// sentinels such as context.Canceled, and As finds a (scrubbed) *APIError.
type redactedError struct {
	err error
	key string
}

func (e *redactedError) Error() string { return e.scrub(e.err.Error()) }

func (e *redactedError) scrub(s string) string { return strings.ReplaceAll(s, e.key, "[REDACTED]") }

// Is reports whether the wrapped error matches target.
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

// As supports **APIError only.
func (e *redactedError) As(target any) bool {
	p, ok := target.(**APIError)
	var apiErr *APIError
	if !ok || !errors.As(e.err, &apiErr) {
		return false
	}
	c := *apiErr
	c.Message = e.scrub(c.Message)
	*p = &c
	return true
}

// Describe names the model, its redacted endpoint and the settings applied
// to every request.
func (o *OpenAI) Describe() Info {
	params := map[string]any{"endpoint": o.cfg.Endpoint, "native_n": o.cfg.NativeN}
	if len(o.cfg.ExtraBody) > 0 {
		params["extra_body"] = maps.Clone(o.cfg.ExtraBody)
	}
	return Info{Name: o.cfg.Model, Provider: ProviderOpenAI, Endpoint: RedactEndpoint(o.cfg.BaseURL),
		Server: ServerID(o.cfg.BaseURL), Params: params}
}
