package grounded

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
)

// gateKG holds the first Relations call until release is closed.
type gateKG struct {
	store.KG
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func (g *gateKG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.started)
		<-g.release
	}
	return g.KG.Relations(ctx, ids, dir)
}

// testExplorer is an explorer over kg and model with cfg, outside a run.
func testExplorer(kg store.KG, model *fake, cfg Config, question string, graphs ...string) *explorer {
	s := &reasoner.Session{Question: question, Graphs: graphs, KG: kg, Model: model, Evaluator: model,
		Rec: trace.NewRecorder(trace.Meta{}, nil), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return &explorer{r: &run{Session: s, cfg: cfg}}
}

// TestExploreOnceOwnBudget: two chains reach the same entity at once; the
// first explores it with a spent budget, the second waits for it. The
// second must not fail with the first chain's budget error: it explores
// the entity with its own budget.
func TestExploreOnceOwnBudget(t *testing.T) {
	kg := &gateKG{KG: goodreads(t), started: make(chan struct{}), release: make(chan struct{})}
	// book/6186 has 4 attributes (> the width 3): exploring it needs a call.
	m := exploreModel(map[string]func(fcall) string{TaskPruneAttributes: always("title")})
	x := testExplorer(kg, m, DefaultConfig(Explore, ToT), "Which series includes the book Demelza?", "goodreads")
	c := &state{sub: subgraph.New(), extra: map[string]string{}}
	spent, own := &budget{}, &budget{}
	own.left.Store(40)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = x.exploreOnce(context.Background(), c, "book/6186", spent)
	}()
	<-kg.started
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[1] = x.exploreOnce(context.Background(), c, "book/6186", own)
	}()
	time.Sleep(100 * time.Millisecond) // let the second chain wait on the first
	close(kg.release)
	wg.Wait()
	if !errors.Is(errs[0], errBudget) {
		t.Errorf("the chain with a spent budget: err = %v, want the budget error", errs[0])
	}
	if errs[1] != nil {
		t.Errorf("the chain with a budget failed: %v", errs[1])
	}
	if n := len(m.calls(TaskPruneAttributes)); n != 1 {
		t.Errorf("%d attribute pruning calls, want 1 (by the chain with a budget)", n)
	}
}
