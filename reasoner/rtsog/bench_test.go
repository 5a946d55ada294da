package rtsog

import (
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/store/storetest"
)

// BenchmarkFilmLexical answers "Who directed Blade Runner?" on the film
// sample with the lexical policy, RTSoG against Tree-of-Traversals as the
// baseline measured in the same run (one loaded database).
func BenchmarkFilmLexical(b *testing.B) {
	db := storetest.Film(b)
	reg := reasoner.NewRegistry()
	Register(reg)
	tot.Register(reg)
	q := reasoner.Query{Question: "Who directed Blade Runner?"}
	for _, method := range []string{tot.MethodToT, Method} {
		b.Run(method, func(b *testing.B) {
			r, err := reg.New(method, reasoner.Deps{KG: db, Model: lexical.Policy{}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			calls := 0
			for b.Loop() {
				tr, err := r.Answer(b.Context(), q)
				if err != nil || tr.Answer.Text != "Ridley Scott" {
					b.Fatalf("%v %+v", err, tr.Answer)
				}
				calls = tr.Totals.ModelCalls + tr.Totals.KGCalls
			}
			b.ReportMetric(float64(calls), "calls/op")
		})
	}
}

// BenchmarkConcurrency runs the toy search (5 iterations, 35 model calls)
// with a model latency of 2ms per call and reports how much of the summed
// model latency the concurrent expansions hide: model-time/wall-time (1
// means fully sequential).
func BenchmarkConcurrency(b *testing.B) {
	db := storetest.Open(b, map[string]string{"toy": toyGraph})
	o := toyOracle()
	o.eos["Beta One"] = true
	var modelTime, wall time.Duration
	for b.Loop() {
		m := o.model()
		m.Latency = 2 * time.Millisecond
		r, err := New(reasoner.Deps{KG: db, Model: m}, toyConfig(nil))
		if err != nil {
			b.Fatal(err)
		}
		tr, err := r.Answer(b.Context(), toyQuery)
		if err != nil {
			b.Fatal(err)
		}
		modelTime += tr.Totals.ModelTime
		wall += tr.Totals.WallTime
	}
	b.ReportMetric(float64(modelTime)/float64(wall), "model-time/wall")
}
