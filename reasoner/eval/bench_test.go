package eval

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
)

// BenchmarkRunOverhead measures what the runner adds to answering: the
// 37 demo questions with the scripted-model CoT baseline, answered in a
// plain loop (the baseline), by Run without traces (scoring, one synced
// record per question) and by Run with traces (plus a synced, gzipped
// trace file per question). Compare ns/op across the sub-benchmarks.
func BenchmarkRunOverhead(b *testing.B) {
	qs := loadDemo(b)
	m := goldModel(qs)
	b.Run("plain-loop", func(b *testing.B) {
		r, err := baseline.NewCoT(reasoner.Deps{Model: m}, baseline.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			for _, q := range qs {
				if _, err := r.Answer(b.Context(), reasoner.Query{Question: q.Question}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, traces := range []bool{false, true} {
		b.Run("run-traces-"+strconv.FormatBool(traces), func(b *testing.B) {
			root := b.TempDir()
			i := 0
			for b.Loop() {
				i++
				_, err := Run(b.Context(), Config{Questions: qs, Methods: []string{"cot"}, Registry: registry(),
					Deps: reasoner.Deps{Model: m}, Out: filepath.Join(root, strconv.Itoa(i)), NoTraces: !traces})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
