package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/reasoner/trace"
)

// Server-Sent Events of POST /v1/ask/stream. The run executes in its own
// goroutine; its observer pushes events into a channel that the handler
// goroutine alone writes to the connection, so writes are serialised and a
// slow client only slows the run down (back-pressure) instead of growing a
// buffer. When the client disconnects the request context is cancelled,
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
	LatencyNS        int64    `json:"latency_ns"`
	Error            string   `json:"error,omitempty"`
}

// chanObserver forwards trace events to the stream's channel until the
// run's context ends.
type chanObserver struct {
	ctx    context.Context
	ch     chan<- sseEvent
	redact *redactor
}

func (o chanObserver) push(ev sseEvent) {
	select {
	case o.ch <- ev:
	case <-o.ctx.Done():
	}
}

func (o chanObserver) OnNode(n trace.Node)       { o.push(sseEvent{"node", n}) }
func (o chanObserver) OnNodeUpdate(n trace.Node) { o.push(sseEvent{"node_update", n}) }
func (o chanObserver) OnKGCall(c trace.KGCall)   { o.push(sseEvent{"kg_call", c}) }
func (o chanObserver) OnModelCall(c trace.ModelCall) {
	o.push(sseEvent{"model_call", modelCallEvent{Seq: c.Seq, Node: c.Node, Task: c.Task, Kind: c.Kind, N: c.N,
		Outputs: c.Outputs, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
		CacheHits: c.CacheHits, LatencyNS: int64(c.Latency), Error: o.redact.text(c.Error)}})
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
	events := make(chan sseEvent, 64)
	rn, err := s.ask.admit(w, r, chanObserver{ctx: ctx, ch: events, redact: s.ask.redact})
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
func (s *Server) pump(sse *sseWriter, events <-chan sseEvent, done <-chan runResult, r *http.Request) (bool, error) {
	tick := time.NewTicker(pingInterval)
	defer tick.Stop()
	for {
		select {
		case ev := <-events:
			if err := sse.send(ev); err != nil {
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

// finishStream drains the events the run produced before it returned and
// sends "result" (or "error" when the run failed without a trace).
func (s *Server) finishStream(sse *sseWriter, events <-chan sseEvent, res runResult, r *http.Request) error {
	for {
		select {
		case ev := <-events:
			if err := sse.send(ev); err != nil {
				return err
			}
			continue
		default:
		}
		break
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
