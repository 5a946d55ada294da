package grounded

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

// fcall is one sample asked of the fake model.
type fcall struct {
	// Node is the trace node the call serves.
	Node   int
	Req    llm.Request
	Sample int
}

// Prompt is the user message.
func (c fcall) Prompt() string {
	if len(c.Req.Messages) == 0 {
		return c.Req.Prompt
	}
	return c.Req.Messages[len(c.Req.Messages)-1].Content
}

var thoughtLine = regexp.MustCompile(`(?m)^Thought \d+: (.*)$`)

// Thought is the last "Thought i:" line of the prompt (the thought an
// agent action call acts on).
func (c fcall) Thought() string {
	p := c.Prompt()
	if i := strings.LastIndex(p, "\nQuestion: "); i >= 0 {
		p = p[i:]
	}
	m := thoughtLine.FindAllStringSubmatch(p, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// Steps is the number of completed steps in an agent prompt (after the
// question, so the prompt's example does not count).
func (c fcall) Steps() int {
	p := c.Prompt()
	if i := strings.LastIndex(p, "\nQuestion: "); i >= 0 {
		p = p[i:]
	}
	return strings.Count(p, "\nObservation ")
}

// fake is a test model that answers by task name through handlers that
// see the serving node, the request and the sample index; calls of one
// level arrive concurrently, so handlers decide by content, never by
// arrival order. Unhandled tasks fail the call.
type fake struct {
	handlers map[string]func(fcall) string

	mu  sync.Mutex
	log []fcall
}

func newFake(h map[string]func(fcall) string) *fake { return &fake{handlers: h} }

func (f *fake) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	h, ok := f.handlers[req.Task.Name]
	if !ok {
		return llm.Response{}, fmt.Errorf("fake model: unexpected task %q", req.Task.Name)
	}
	texts := make([]string, max(1, req.N))
	for i := range texts {
		c := fcall{Node: trace.NodeFrom(ctx), Req: req, Sample: i}
		texts[i] = h(c)
		f.mu.Lock()
		f.log = append(f.log, c)
		f.mu.Unlock()
	}
	return llm.Response{Texts: texts, Model: "fake"}, nil
}

// calls returns the samples asked for a task.
func (f *fake) calls(task string) []fcall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fcall
	for _, c := range f.log {
		if c.Req.Task.Name == task {
			out = append(out, c)
		}
	}
	return out
}

// always replies text.
func always(text string) func(fcall) string { return func(fcall) string { return text } }

// script replies the i-th text to the i-th completed step of an agent
// prompt (the last text once past the end).
func script(texts ...string) func(fcall) string {
	return func(c fcall) string {
		return texts[min(c.Steps(), len(texts)-1)]
	}
}

// byThought replies by the first key the call's thought contains, else
// def.
func byThought(def string, pairs ...string) func(fcall) string {
	return func(c fcall) string {
		th := c.Thought()
		for i := 0; i+1 < len(pairs); i += 2 {
			if strings.Contains(th, pairs[i]) {
				return pairs[i+1]
			}
		}
		return def
	}
}
