package tot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
)

// barrier is an evaluator whose calls block until want calls are in
// flight together (or a generous deadline passes, which fails the test):
// it proves that the children of one expansion are evaluated concurrently
// without timing anything.
type barrier struct {
	want int

	mu       sync.Mutex
	inFlight int
	peak     int
	arrived  chan struct{}
	once     sync.Once
}

func (b *barrier) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	b.once.Do(func() { b.arrived = make(chan struct{}) })
	b.mu.Lock()
	b.inFlight++
	b.peak = max(b.peak, b.inFlight)
	if b.inFlight == b.want {
		close(b.arrived)
	}
	ch := b.arrived
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.inFlight--
		b.mu.Unlock()
	}()
	select {
	case <-ch:
		return llm.Response{Texts: []string{"Score: 0.5"}}, nil
	case <-time.After(10 * time.Second):
		return llm.Response{}, fmt.Errorf("only %d evaluations ran together, want %d", b.peak, b.want)
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// TestConcurrentStep: one k=3 expansion is one sampling request (n=3)
// followed by three evaluations in flight together, i.e. two model
// latencies rather than six.
func TestConcurrentStep(t *testing.T) {
	policy := &llm.Scripted{Latency: time.Millisecond, Rules: []llm.Rule{{Name: TaskAction, Replies: []string{
		"THINK: the mother first", "EXPAND_KG: find the mother of Bob Dylan", "ANSWER: Beatrice Stone"}}}}
	eval := &barrier{want: 3}
	cfg := cfgWith(func(c *Config) { c.MaxExpansions = 1 })
	tr := answerAll(t, family(t), policy, eval, cfg,
		reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}})
	if eval.peak != 3 {
		t.Errorf("peak concurrent evaluations = %d, want 3", eval.peak)
	}
	if policy.CallCount() != 1 || policy.Calls()[0].N != 3 {
		t.Errorf("sampling requests = %+v", policy.Calls())
	}
	if len(tr.Nodes) != 4 || tr.Totals.ModelCalls != 4 {
		t.Errorf("%d nodes, %d model calls", len(tr.Nodes), tr.Totals.ModelCalls)
	}
}

// TestErrors: model and KG failures and cancellation end the run with a
// wrapped error and the partial trace.
func TestErrors(t *testing.T) {
	boom := errors.New("boom")
	db := family(t)
	q := reasoner.Query{Question: grandmother, TopicEntities: []string{"Q392"}}
	t.Run("model error", func(t *testing.T) {
		policy := &llm.Scripted{Rules: []llm.Rule{{Name: TaskAction, Err: boom}}}
		r, _ := New(reasoner.Deps{KG: db, Model: policy}, DefaultConfig())
		tr, err := r.Answer(t.Context(), q)
		if !errors.Is(err, boom) || tr == nil || !strings.Contains(tr.Error, "boom") || len(tr.Nodes) != 1 {
			t.Fatalf("err %v, trace %+v", err, tr)
		}
	})
	t.Run("evaluator error", func(t *testing.T) {
		policy := &llm.Scripted{Rules: []llm.Rule{{Name: TaskAction, Repeat: true, Replies: []string{"ANSWER: x"}}}}
		eval := &llm.Scripted{Rules: []llm.Rule{{Kind: llm.KindScore, Err: boom}}}
		r, _ := New(reasoner.Deps{KG: db, Model: policy, Evaluator: eval}, DefaultConfig())
		if _, err := r.Answer(t.Context(), q); !errors.Is(err, boom) || !strings.Contains(err.Error(), TaskEvaluateAnswer) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		r, _ := New(reasoner.Deps{KG: db, Model: lexical.Policy{}}, DefaultConfig())
		tr, err := r.Answer(ctx, q)
		if !errors.Is(err, context.Canceled) || tr == nil || tr.Error == "" {
			t.Fatalf("err %v trace %+v", err, tr)
		}
	})
	t.Run("unknown graph", func(t *testing.T) {
		r, _ := New(reasoner.Deps{KG: db, Model: lexical.Policy{}}, DefaultConfig())
		_, err := r.Answer(t.Context(), reasoner.Query{Question: "x", Graphs: []string{"nope"}})
		if err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("empty question", func(t *testing.T) {
		r, _ := New(reasoner.Deps{KG: db, Model: lexical.Policy{}}, DefaultConfig())
		if _, err := r.Answer(t.Context(), reasoner.Query{Question: "  "}); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("unknown topic entity", func(t *testing.T) {
		policy := &llm.Scripted{Rules: []llm.Rule{{Name: TaskAction, Replies: []string{"THINK: nothing to see"}}}}
		cfg := cfgWith(func(c *Config) { c.K, c.MaxExpansions = 1, 1 })
		tr := answerAll(t, db, policy, scores(0.5, nil), cfg, reasoner.Query{Question: "x", TopicEntities: []string{"Q1"}})
		if !tracetest.HasWarning(tr, `"Q1" is not in the store`) {
			t.Fatalf("warnings:\n%s", tracetest.Warnings(tr))
		}
	})
}

// TestRegister builds both methods through a registry and checks that
// parameters are validated.
func TestRegister(t *testing.T) {
	reg := reasoner.NewRegistry()
	Register(reg)
	if got := strings.Join(reg.Names(), ","); got != "chain,tot" {
		t.Fatalf("names = %s", got)
	}
	deps := reasoner.Deps{KG: family(t), Model: lexical.Policy{}}
	for _, tc := range []struct {
		method string
		params reasoner.Params
		k      int
		err    string
	}{
		{"tot", nil, 3, ""},
		{"tot", reasoner.Params{"k": 2, "tau": "0.9", "max_edges": 10.0}, 2, ""},
		{"chain", nil, 1, ""},
		{"chain", reasoner.Params{"k": 1}, 1, ""},
		{"chain", reasoner.Params{"k": 3}, 0, "chain always uses k=1"},
		{"tot", reasoner.Params{"branching": 3}, 0, `unknown parameter(s) "branching"`},
		{"tot", reasoner.Params{"tau": "high"}, 0, `parameter "tau": want a number`},
		{"tot", reasoner.Params{"tau": 1.5}, 0, "must be in [0, 1]"},
		{"tot", reasoner.Params{"k": 0}, 0, "must be at least 1"},
		{"got", nil, 0, "unknown reasoning method"},
	} {
		r, err := reg.New(tc.method, deps, tc.params)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %v: err = %v, want %q", tc.method, tc.params, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", tc.method, tc.params, err)
			continue
		}
		if k := r.(*Reasoner).Config().K; k != tc.k {
			t.Errorf("%s %v: k = %d, want %d", tc.method, tc.params, k, tc.k)
		}
	}
	if _, err := reg.New("tot", reasoner.Deps{Model: lexical.Policy{}}, nil); err == nil {
		t.Error("no error without a KG")
	}
}
