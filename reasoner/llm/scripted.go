package llm

// The scripted model: a test double every reasoner's tests use. It lives in
// the non-test package so other packages can import it.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ScriptedModelName is Response.Model for scripted responses unless
// Scripted.Name is set.
const ScriptedModelName = "scripted"

// ReplyFunc computes the reply for sample i of a request.
type ReplyFunc func(req Request, i int) (string, error)

// Rule scripts the replies to the requests it matches.
//
// A rule matches a request when Name (if set) equals Task.Name, or is a
// prefix of it when Name ends in "*" ("tot/*"), and Kind (if set) equals
// Task.Kind. The first matching rule that is not used up answers.
//
// A rule answers with Err if set (the call fails), else with Func if set,
// else by popping Replies, one per sample. A rule is used up when its queue
// is empty (unless Repeat, which keeps returning the last reply) or when it
// has answered Times calls (Times > 0). Chain rules for the same step to
// script a sequence: {Err: e, Times: 2} then {Replies: ...} fails twice and
// then replies.
type Rule struct {
	Name    string
	Kind    Kind
	Replies []string
	Repeat  bool
	Func    ReplyFunc
	Err     error
	Times   int
}

// Scripted is a Model whose replies are chosen by Task.Name / Task.Kind
// following Rules. It records every request and is safe for concurrent use;
// use it by pointer. Unmatched requests go to Default, or fail when Default
// is nil, so a test notices an unexpected call.
type Scripted struct {
	Rules []Rule
	// Default answers requests no rule matches.
	Default ReplyFunc
	// Latency is slept (honouring ctx) before each reply.
	Latency time.Duration
	// Name is Response.Model (ScriptedModelName when empty).
	Name string
	// Served, when set, is Response.Model instead of Name: a server that
	// answers under another name than the one configured.
	Served string

	mu    sync.Mutex
	calls []Request
	used  []ruleState
}

type ruleState struct {
	calls int
	next  int
}

// Generate answers req per the rules.
func (s *Scripted) Generate(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	texts, err := s.reply(req)
	if err != nil {
		return Response{}, err
	}
	if err := sleepCtx(ctx, s.Latency); err != nil {
		return Response{}, fmt.Errorf("scripted model, task %q: %w", req.Task.Name, err)
	}
	name := s.Describe().Name
	if s.Served != "" {
		name = s.Served
	}
	usage := Usage{PromptTokens: countWords(requestText(req))}
	for _, t := range texts {
		usage.CompletionTokens += countWords(t)
	}
	return Response{Texts: texts, Usage: usage, Latency: time.Since(start), Model: name}, nil
}

// reply records req and computes its texts under the lock, so queues are
// consumed in call order.
func (s *Scripted) reply(req Request) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, req)
	if len(s.used) < len(s.Rules) {
		s.used = append(s.used, make([]ruleState, len(s.Rules)-len(s.used))...)
	}
	n := max(1, req.N)
	for k := range s.Rules {
		r, st := &s.Rules[k], &s.used[k]
		if !r.matches(req.Task) || r.usedUp(st) {
			continue
		}
		st.calls++
		return r.answer(req, n, st, k)
	}
	if s.Default == nil {
		return nil, fmt.Errorf("scripted model: no rule for task %q (kind %q)", req.Task.Name, req.Task.Kind)
	}
	return answerFunc(s.Default, req, n)
}

func (r *Rule) matches(t Task) bool {
	if r.Kind != "" && r.Kind != t.Kind {
		return false
	}
	if p, ok := strings.CutSuffix(r.Name, "*"); ok {
		return strings.HasPrefix(t.Name, p)
	}
	return r.Name == "" || r.Name == t.Name
}

func (r *Rule) usedUp(st *ruleState) bool {
	if r.Times > 0 && st.calls >= r.Times {
		return true
	}
	switch {
	case r.Err != nil || r.Func != nil:
		return false
	case r.Repeat:
		return len(r.Replies) == 0
	}
	return st.next >= len(r.Replies)
}

func (r *Rule) answer(req Request, n int, st *ruleState, k int) ([]string, error) {
	switch {
	case r.Err != nil:
		return nil, fmt.Errorf("scripted model, task %q: %w", req.Task.Name, r.Err)
	case r.Func != nil:
		return answerFunc(r.Func, req, n)
	}
	texts := make([]string, n)
	for i := range texts {
		switch {
		case st.next < len(r.Replies):
			texts[i] = r.Replies[st.next]
			st.next++
		case r.Repeat:
			texts[i] = r.Replies[len(r.Replies)-1]
		default:
			return nil, fmt.Errorf("scripted model: rule %d (%q) ran out of replies at sample %d of task %q",
				k, r.Name, i, req.Task.Name)
		}
	}
	return texts, nil
}

func answerFunc(f ReplyFunc, req Request, n int) ([]string, error) {
	texts := make([]string, n)
	for i := range texts {
		t, err := f(req, i)
		if err != nil {
			return nil, fmt.Errorf("scripted model, task %q, sample %d: %w", req.Task.Name, i, err)
		}
		texts[i] = t
	}
	return texts, nil
}

// Calls returns a copy of every request received, in order.
func (s *Scripted) Calls() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.calls...)
}

// CallsFor returns the requests whose Task.Name is name.
func (s *Scripted) CallsFor(name string) []Request {
	var out []Request
	for _, c := range s.Calls() {
		if c.Task.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// CallCount is the number of requests received.
func (s *Scripted) CallCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Reply returns a ReplyFunc that always replies text.
func Reply(text string) ReplyFunc {
	return func(Request, int) (string, error) { return text, nil }
}

// sleepCtx sleeps d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// requestText is the prompt text of req in either form.
func requestText(req Request) string {
	if len(req.Messages) == 0 {
		return req.Prompt
	}
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// countWords approximates a token count for test doubles.
func countWords(s string) int { return len(strings.Fields(s)) }

// Describe names the scripted model (not an LLM).
func (s *Scripted) Describe() Info {
	name := s.Name
	if name == "" {
		name = ScriptedModelName
	}
	return Info{Name: name, Provider: "scripted", NotLLM: true}
}
