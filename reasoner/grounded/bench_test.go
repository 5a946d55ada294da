package grounded

import (
	"context"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/grounded/schema"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// slow delays every call of a model, like a remote model would.
type slow struct {
	llm.Model
	d time.Duration
}

func (s slow) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	t := time.NewTimer(s.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	case <-t.C:
	}
	return s.Model.Generate(ctx, req)
}

// benchAnswer answers qid 40 b.N times with the branching agent.
func benchAnswer(b *testing.B, kg store.KG, cfg Config, latency time.Duration) {
	ev := newFake(map[string]func(fcall) string{TaskScore: scoreBy("Finish[The Poldark Saga]", 1.0,
		"find the book", 0.9, "Cornwall", 0.6, "author", 0.1)})
	m := branching(nil)
	sample := m.handlers[TaskAgentThought]
	m.handlers[TaskAgentThought] = func(c fcall) string { // B, the right branch, first
		c.Sample = (c.Sample + 1) % 3
		return sample(c)
	}
	r, err := New(reasoner.Deps{KG: kg, Model: slow{m, latency}, Evaluator: slow{ev, latency}}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	q := reasoner.Query{Question: qid40, TopicEntities: []string{"book/6186"}}
	b.ResetTimer()
	for range b.N {
		tr, err := r.Answer(context.Background(), q)
		if err != nil || tr.Answer.Text == "" {
			b.Fatalf("%v %+v", err, tr.Answer)
		}
	}
}

// BenchmarkLatencyBound compares, with a model of 2ms latency, one chain
// (agent-cot: 3 steps of a thought and an action call, 6 calls in a row)
// with a tree on the same path (agent-tot, k=3, t=1, Score: level 1
// grounds and scores 3 candidates, 7 calls; levels 2 and 3 one candidate,
// 3 calls each). Run one after the other, the tree's 13 calls would cost
// 13 latencies; with the calls of a level concurrent they cost 9.
func BenchmarkLatencyBound(b *testing.B) {
	db := goodreads(b)
	b.Run("agent-cot", func(b *testing.B) {
		cfg := DefaultConfig(Agent, CoT)
		benchAnswer(b, db, cfg, 2*time.Millisecond)
	})
	b.Run("agent-tot", func(b *testing.B) {
		cfg := cfgWith(Agent, ToT, func(c *Config) { c.Evaluator, c.T = Score, 1 })
		benchAnswer(b, db, cfg, 2*time.Millisecond)
	})
}

// BenchmarkGraphDefinition compares deriving the goodreads definition
// with reusing the Reasoner's cached one (one Graphs call).
func BenchmarkGraphDefinition(b *testing.B) {
	db := goodreads(b)
	ctx := context.Background()
	infos, err := db.Graphs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("derive", func(b *testing.B) {
		for range b.N {
			if _, err := schema.Derive(ctx, db, "goodreads", nil, schema.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := &schemaCache{defs: map[string]cachedDef{}}
		if _, _, err := c.definition(ctx, db, infos[0], 24); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, _, err := c.definition(ctx, db, infos[0], 24); err != nil {
				b.Fatal(err)
			}
		}
	})
}
