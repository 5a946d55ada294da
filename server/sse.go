package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/reasoner/trace"
)

// Server-Sent Events of POST /v1/ask/stream. The run executes in its own
// goroutine; the trace Recorder hands its events (off the run's goroutine)
// to a streamBuffer that the handler goroutine alone drains to the
// connection, so writes are serialised and a slow client never stalls the
// run: the buffer is bounded, node events for a node already waiting are
// coalesced into its latest state, and model/KG call events beyond the
// bound are dropped and counted (a "dropped" event tells the client how
// many). When the client disconnects the request context is cancelled,
// which cancels the run; the handler waits for the run to end before it
// returns, so shutdown can account for every run.

// sseEvent is one event to send.
type sseEvent struct {
	name string
	data any
}

// pingInterval keeps idle streams alive through proxies.
const pingInterval = 15 * time.Second

// sseWriter writes events to a flushed response.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

func newSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	_ = s.rc.Flush()
	return s
}

// send writes one event ("event: name\ndata: json\n\n") and flushes it.
func (s *sseWriter) send(ev sseEvent) error {
	data, err := json.Marshal(ev.data)
	if err != nil {
		return err
	}
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, ev.name...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, data...)
	s.buf = append(s.buf, "\n\n"...)
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.rc.Flush()
}

// ping writes a comment line.
func (s *sseWriter) ping() error {
	if _, err := s.w.Write([]byte(": ping\n\n")); err != nil {
		return err
	}
	return s.rc.Flush()
}

// modelCallEvent is a model call without its prompt (the final trace has
// the prompts).
type modelCallEvent struct {
	Seq              int      `json:"seq"`
	Node             int      `json:"node,omitempty"`
	Task             string   `json:"task"`
	Kind             string   `json:"kind"`
	N                int      `json:"n"`
	Outputs          []string `json:"outputs"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CacheHits        int      `json:"cache_hits"`
	// CachedPromptTokens and CachedCompletionTokens are what the samples
	// from the cache cost when they were produced (not spent again).
	CachedPromptTokens     int    `json:"cached_prompt_tokens,omitempty"`
	CachedCompletionTokens int    `json:"cached_completion_tokens,omitempty"`
	LatencyNS              int64  `json:"latency_ns"`
	Error                  string `json:"error,omitempty"`
}

// maxPendingCalls bounds the model and KG call events waiting for a slow
// client; node events are never dropped (at most one per node waits).
const maxPendingCalls = 256

// droppedEvent reports call events a slow client missed.
type droppedEvent struct {
	ModelCalls int `json:"model_calls"`
	KGCalls    int `json:"kg_calls"`
}

// streamBuffer is the SSE observer: a bounded queue between the trace
// Recorder's delivery goroutine and the handler. Its methods never block.
type streamBuffer struct {
	redact *redactor

	mu      sync.Mutex
	events  []sseEvent
	calls   int
	pending map[int]int // node id -> index of its waiting node_update
	dropped droppedEvent
	done    bool
	// ready has a token whenever events or the end are waiting.
	ready chan struct{}
}

func newStreamBuffer(redact *redactor) *streamBuffer {
	return &streamBuffer{redact: redact, pending: map[int]int{}, ready: make(chan struct{}, 1)}
}

func (b *streamBuffer) signal() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// node queues a node event; an update replaces the update already
// waiting for the same node, so at most two events (the node and its
// latest state) wait per node.
func (b *streamBuffer) node(name string, n trace.Node) {
	b.mu.Lock()
	if i, ok := b.pending[n.ID]; ok && name == "node_update" {
		b.events[i].data = n
	} else {
		if name == "node_update" {
			b.pending[n.ID] = len(b.events)
		}
		b.events = append(b.events, sseEvent{name, n})
	}
	b.mu.Unlock()
	b.signal()
}

// call queues a call event, or counts it as dropped when the bound is
// reached.
func (b *streamBuffer) call(ev sseEvent, model bool) {
	b.mu.Lock()
	switch {
	case b.calls < maxPendingCalls:
		b.calls++
		b.events = append(b.events, ev)
	case model:
		b.dropped.ModelCalls++
	default:
		b.dropped.KGCalls++
	}
	b.mu.Unlock()
	b.signal()
}

// take returns the waiting events (with a "dropped" event first when calls
// were dropped since the last take) and whether the stream has ended.
func (b *streamBuffer) take() ([]sseEvent, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	evs := b.events
	if b.dropped != (droppedEvent{}) {
		evs = append([]sseEvent{{"dropped", b.dropped}}, evs...)
		b.dropped = droppedEvent{}
	}
	b.events, b.calls = nil, 0
	clear(b.pending)
	return evs, b.done
}

func (b *streamBuffer) OnNode(n trace.Node)       { b.node("node", n) }
func (b *streamBuffer) OnNodeUpdate(n trace.Node) { b.node("node_update", n) }
func (b *streamBuffer) OnKGCall(c trace.KGCall)   { b.call(sseEvent{"kg_call", c}, false) }
func (b *streamBuffer) OnModelCall(c trace.ModelCall) {
	b.call(sseEvent{"model_call", modelCallEvent{Seq: c.Seq, Node: c.Node, Task: c.Task, Kind: c.Kind, N: c.N,
		Outputs: c.Outputs, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
		CacheHits: c.CacheHits, CachedPromptTokens: c.CachedPromptTokens, CachedCompletionTokens: c.CachedCompletionTokens,
		LatencyNS: int64(c.Latency), Error: b.redact.text(c.Error)}}, true)
}

// OnFinish marks the end of the run's events.
func (b *streamBuffer) OnFinish() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
	b.signal()
}

// startEvent opens a stream.
type startEvent struct {
	RequestID     string         `json:"request_id"`
	Method        string         `json:"method"`
	Question      string         `json:"question"`
	Graphs        []string       `json:"graphs,omitempty"`
	TopicEntities []string       `json:"topic_entities,omitempty"`
	Params        map[string]any `json:"params,omitempty"`
}

type runResult struct {
	tr  *trace.Trace
	err error
}

func (s *Server) handleAskStream(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	events := newStreamBuffer(s.ask.redact)
	rn, err := s.ask.admit(w, r, events)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer rn.release()
	done := make(chan runResult, 1)
	go func() {
		tr, err := rn.answer(ctx)
		done <- runResult{tr, err}
	}()
	sse := newSSE(w)
	err = sse.send(sseEvent{"start", startEvent{RequestID: requestID(ctx), Method: rn.req.Method,
		Question: rn.req.Question, Graphs: rn.req.Graphs, TopicEntities: rn.req.TopicEntities, Params: rn.req.Params}})
	finished := false
	if err == nil {
		finished, err = s.pump(sse, events, done, r)
	}
	if !finished {
		// The client is gone (or the write deadline passed): stop the run
		// and wait for it so the slot and the store stay accounted for.
		cancel()
		<-done
	}
}

// pump forwards events until the run finishes, then sends the result. It
// reports whether it received the run's result.
func (s *Server) pump(sse *sseWriter, events *streamBuffer, done <-chan runResult, r *http.Request) (bool, error) {
	tick := time.NewTicker(pingInterval)
	defer tick.Stop()
	for {
		select {
		case <-events.ready:
			evs, _ := events.take()
			if err := sendAll(sse, evs); err != nil {
				return false, err
			}
		case <-tick.C:
			if err := sse.ping(); err != nil {
				return false, err
			}
		case res := <-done:
			return true, s.finishStream(sse, events, res, r)
		}
	}
}

func sendAll(sse *sseWriter, evs []sseEvent) error {
	for _, ev := range evs {
		if err := sse.send(ev); err != nil {
			return err
		}
	}
	return nil
}

// finishStream sends the events the run produced before it returned (the
// run flushed its Recorder, so they are all in the buffer unless the
// delivery was cut short) and then "result" (or "error" when the run
// failed without a trace).
func (s *Server) finishStream(sse *sseWriter, events *streamBuffer, res runResult, r *http.Request) error {
	evs, _ := events.take()
	if err := sendAll(sse, evs); err != nil {
		return err
	}
	status, body := s.ask.result(r, res.tr, res.err)
	switch {
	case status == 499:
		return errors.New("client gone")
	case status != http.StatusOK && res.tr == nil:
		return sse.send(sseEvent{"error", errorBody{Error: body.Error, RequestID: requestID(r.Context())}})
	}
	return sse.send(sseEvent{"result", body})
}
