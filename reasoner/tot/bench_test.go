package tot

import (
	"context"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// funcModel is a zero-latency scripted model: reply(req, i) is sample i.
// It records nothing, so the benchmark measures the reasoner.
type funcModel func(req llm.Request, i int) string

func (f funcModel) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	texts := make([]string, max(1, req.N))
	for i := range texts {
		texts[i] = f(req, i)
	}
	return llm.Response{Texts: texts, Model: "func"}, nil
}

// benchPolicy explores the film graph from Blade Runner and never
// satisfies tau, so every Answer performs exactly MaxExpansions
// expansions: default states sample EXPAND_KG, THINK and ANSWER; the
// selection states pick distinct options by sample index.
func benchPolicy(req llm.Request, i int) string {
	t := req.Task
	switch t.Name {
	case TaskExtract:
		return "Blade Runner"
	case TaskLink:
		return "/en/blade_runner"
	case TaskAction, TaskForceAnswer:
		return [...]string{"EXPAND_KG: find who Blade Runner was directed by",
			"THINK: the director is probably listed", "ANSWER: Ridley Scott"}[i%3]
	case TaskSelectEntities, TaskSelectRelation:
		return t.Options[i%len(t.Options)].ID
	}
	return "Score: 0.5"
}

// BenchmarkExpansion measures the reasoner's own cost per expansion on the
// film data with a zero-latency model (prompt building, parsing, local
// graph copies, tracing and the real KG calls), and as a baseline the raw
// KG calls of one relation expansion (Relations of Blade Runner in both
// directions plus the directed-by Edges). Reported metrics: ns/expansion,
// baseline-ns (raw KG calls), x-baseline (ratio).
func BenchmarkExpansion(b *testing.B) {
	db := storetest.Film(b)
	ctx := context.Background()
	base := baselineKG(b, ctx, db)
	cfg := DefaultConfig()
	r, err := New(reasoner.Deps{KG: db, Model: funcModel(benchPolicy)}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	q := reasoner.Query{Question: bladeRunner}
	expansions := 0
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		tr, err := r.Answer(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		expansions += tr.Totals.Expansions
	}
	per := float64(time.Since(start).Nanoseconds()) / float64(expansions)
	b.ReportMetric(per, "ns/expansion")
	b.ReportMetric(float64(base.Nanoseconds()), "baseline-ns")
	b.ReportMetric(per/float64(base.Nanoseconds()), "x-baseline")
}

// baselineKG times the raw KG calls of one relation expansion.
func baselineKG(b *testing.B, ctx context.Context, kg store.KG) time.Duration {
	const rounds = 500
	ids := []string{"/en/blade_runner"}
	start := time.Now()
	for range rounds {
		if _, err := kg.Relations(ctx, ids, store.Both); err != nil {
			b.Fatal(err)
		}
		if _, err := kg.Edges(ctx, ids, "/film/film/directed_by", store.Out, 50); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / rounds
}
