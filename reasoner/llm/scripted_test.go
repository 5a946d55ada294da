package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func gen(t *testing.T, m Model, name string, kind Kind, n int) ([]string, error) {
	t.Helper()
	resp, err := m.Generate(context.Background(), Request{Prompt: "p q", N: n, Task: Task{Name: name, Kind: kind}})
	if err == nil && len(resp.Texts) != max(1, n) {
		t.Fatalf("got %d texts for n=%d", len(resp.Texts), n)
	}
	return resp.Texts, err
}

func TestScriptedQueueAndMatching(t *testing.T) {
	s := &Scripted{Rules: []Rule{
		{Name: "tot/action", Replies: []string{"THINK", "ANSWER: x"}},
		{Name: "tot/*", Kind: KindScore, Replies: []string{"Score: 1"}, Repeat: true},
		{Kind: KindExtract, Func: func(req Request, i int) (string, error) { return fmt.Sprintf("m%d", i), nil }},
	}}
	steps := []struct {
		name string
		kind Kind
		n    int
		want []string
	}{
		{"tot/action", KindAction, 1, []string{"THINK"}},
		{"tot/eval", KindScore, 2, []string{"Score: 1", "Score: 1"}},
		{"tot/action", KindAction, 1, []string{"ANSWER: x"}},
		{"other/extract", KindExtract, 3, []string{"m0", "m1", "m2"}},
		{"tot/eval", KindScore, 1, []string{"Score: 1"}},
	}
	for _, st := range steps {
		got, err := gen(t, s, st.name, st.kind, st.n)
		if err != nil || !slices.Equal(got, st.want) {
			t.Fatalf("%s: got %q, %v; want %q", st.name, got, err, st.want)
		}
	}
	if _, err := gen(t, s, "tot/action", KindAction, 1); err == nil || !strings.Contains(err.Error(), "no rule") {
		t.Fatalf("exhausted queue: want no-rule error, got %v", err)
	}
	if s.CallCount() != 6 || len(s.CallsFor("tot/action")) != 3 || s.Calls()[1].Task.Name != "tot/eval" {
		t.Fatalf("calls not recorded: %d", s.CallCount())
	}
}

func TestScriptedErrorsThenReplies(t *testing.T) {
	boom := errors.New("boom")
	s := &Scripted{Rules: []Rule{
		{Name: "a", Err: boom, Times: 2},
		{Name: "a", Replies: []string{"ok"}},
	}}
	for i := range 2 {
		if _, err := gen(t, s, "a", KindFree, 1); !errors.Is(err, boom) {
			t.Fatalf("call %d: want boom, got %v", i, err)
		}
	}
	if got, err := gen(t, s, "a", KindFree, 1); err != nil || got[0] != "ok" {
		t.Fatalf("third call: %q, %v", got, err)
	}
}

func TestScriptedQueueTooShortForN(t *testing.T) {
	s := &Scripted{Rules: []Rule{{Name: "a", Replies: []string{"1", "2"}}}}
	if _, err := gen(t, s, "a", KindFree, 3); err == nil || !strings.Contains(err.Error(), "ran out") {
		t.Fatalf("want ran-out error, got %v", err)
	}
}

func TestScriptedDefaultAndUsage(t *testing.T) {
	s := &Scripted{Default: Reply("one two three"), Name: "fake"}
	resp, err := s.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "a b"}}, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "fake" || resp.Usage != (Usage{PromptTokens: 2, CompletionTokens: 6}) {
		t.Fatalf("bad response %+v", resp)
	}
}

func TestScriptedLatencyHonoursContext(t *testing.T) {
	s := &Scripted{Default: Reply("x"), Latency: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for s.CallCount() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := s.Generate(ctx, Request{Prompt: "p"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestScriptedConcurrent(t *testing.T) {
	replies := make([]string, 100)
	for i := range replies {
		replies[i] = fmt.Sprint(i)
	}
	s := &Scripted{Rules: []Rule{{Name: "a", Replies: replies}}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []string
	for range 50 {
		wg.Go(func() {
			r, err := s.Generate(context.Background(), Request{Prompt: "p", N: 2, Task: Task{Name: "a"}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, r.Texts...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	want := slices.Clone(replies)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("each reply must be used exactly once; got %d replies", len(got))
	}
}
