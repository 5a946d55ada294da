package llm

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestStatsCountsPerStep(t *testing.T) {
	boom := errors.New("boom")
	inner := &Scripted{Rules: []Rule{
		{Name: "fail", Err: boom},
		{Name: "", Func: func(Request, int) (string, error) { return "a b", nil }},
	}}
	s := NewStats(inner)
	ctx := context.Background()
	reqs := []Request{
		{Prompt: "x y z", N: 3, Task: Task{Name: "select"}},
		{Prompt: "x", Task: Task{Name: "select"}},
		{Prompt: "x", Task: Task{Name: "fail"}},
		{Prompt: "x"},
	}
	for _, r := range reqs {
		_, _ = s.Generate(ctx, r)
	}
	snap := s.Snapshot()
	sel := snap.Steps["select"]
	if sel.Calls != 2 || sel.Samples != 4 || sel.Errors != 0 || sel.Usage != (Usage{4, 8}) {
		t.Errorf("select stats %+v", sel)
	}
	if f := snap.Steps["fail"]; f.Calls != 1 || f.Errors != 1 {
		t.Errorf("fail stats %+v", f)
	}
	if u := snap.Steps[UnnamedStep]; u.Calls != 1 {
		t.Errorf("unnamed stats %+v", u)
	}
	if snap.Total.Calls != 4 || snap.Total.Samples != 6 || snap.Total.Errors != 1 {
		t.Errorf("total %+v", snap.Total)
	}
	if names := snap.Names(); len(names) != 3 || names[0] != UnnamedStep || names[2] != "select" {
		t.Errorf("names %v", names)
	}
	if snap.Total.MaxLatency < snap.Steps["select"].MaxLatency || snap.Total.MeanLatency() > snap.Total.MaxLatency {
		t.Errorf("latency totals inconsistent %+v", snap.Total)
	}
	s.Reset()
	if s.Snapshot().Total.Calls != 0 {
		t.Error("reset did not clear")
	}
}

func TestStatsConcurrent(t *testing.T) {
	s := NewStats(&Scripted{Default: Reply("ok")})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for range 10 {
				_, _ = s.Generate(context.Background(), Request{N: 2, Task: Task{Name: "x", Kind: KindFree}})
			}
		})
	}
	wg.Wait()
	if got := s.Snapshot().Steps["x"]; got.Calls != 200 || got.Samples != 400 {
		t.Fatalf("got %+v", got)
	}
}

func TestRecordersContextAndStatic(t *testing.T) {
	var static, fromCtx []Call
	var mu sync.Mutex
	rec := func(dst *[]Call) Recorder {
		return RecorderFunc(func(_ context.Context, c Call) {
			mu.Lock()
			defer mu.Unlock()
			*dst = append(*dst, c)
		})
	}
	// Two stacked observing wrappers: the context recorder must see each
	// call once.
	m := Observe(NewStats(&Scripted{Default: Reply("ok")}), rec(&static))
	ctx := WithRecorder(context.Background(), rec(&fromCtx))
	resp, err := m.Generate(ctx, Request{Prompt: "p", Task: Task{Name: "step"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(static) != 1 || len(fromCtx) != 1 {
		t.Fatalf("static %d, ctx %d calls; want 1 each", len(static), len(fromCtx))
	}
	c := fromCtx[0]
	if c.Request.Task.Name != "step" || c.Response.Texts[0] != resp.Texts[0] || c.Err != nil || c.Start.IsZero() {
		t.Fatalf("bad call %+v", c)
	}
	tally := &Tally{}
	ctx2 := WithRecorder(ctx, tally)
	_, _ = m.Generate(ctx2, Request{Prompt: "p", Task: Task{Name: "step"}})
	if len(fromCtx) != 2 || tally.Snapshot().Total.Calls != 1 {
		t.Fatalf("chained ctx recorders: ctx %d, tally %d", len(fromCtx), tally.Snapshot().Total.Calls)
	}
	if m.Unwrap() == nil {
		t.Fatal("Unwrap")
	}
}
