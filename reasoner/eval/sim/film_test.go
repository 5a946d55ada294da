package sim

import (
	"os"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

const demoQuestions = "../../../data/film-questions.jsonl"

// filmGolds loads the film KG and the demo questions' gold paths.
func filmGolds(tb testing.TB) (store.KG, []Gold) {
	tb.Helper()
	db := storetest.Film(tb)
	qs, err := dataset.Load(demoQuestions, dataset.FormatAuto)
	if err != nil {
		tb.Fatal(err)
	}
	paths, err := ReadPaths(demoQuestions)
	if err != nil {
		tb.Fatal(err)
	}
	golds, err := Golds(tb.Context(), db, qs, paths)
	if err != nil {
		tb.Fatal(err)
	}
	return db, golds
}

func totRegistry() *reasoner.Registry {
	reg := reasoner.NewRegistry()
	tot.Register(reg)
	return reg
}

// TestFilmSim runs Chain- and Tree-of-Traversals with the oracle on the
// 37 demo questions: a perfect oracle answers every question with both
// methods, and at P=0.6 the tree search recovers from the oracle's
// mistakes far more often than the chain.
func TestFilmSim(t *testing.T) {
	db, golds := filmGolds(t)
	if len(golds) != 37 {
		t.Fatalf("%d gold paths", len(golds))
	}
	tb, err := Run(t.Context(), Config{KG: db, Registry: totRegistry(), Golds: golds, Ps: []float64{0.6, 1},
		Seeds: 2, Noise: 0.1, Graphs: []string{"film"}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := tb.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, m := range []string{"chain", "tot"} {
		if v, _ := tb.EMIn(m, 1); v < 0.99 {
			t.Errorf("%s at P=1: EM-in %.3f", m, v)
		}
	}
	chain, _ := tb.EMIn("chain", 0.6)
	tree, _ := tb.EMIn("tot", 0.6)
	if tree < chain+0.3 {
		t.Errorf("at P=0.6 tot %.3f is not well above chain %.3f", tree, chain)
	}
	// Reproducible: the same study gives the same table.
	again, err := Run(t.Context(), Config{KG: db, Registry: totRegistry(), Golds: golds, Ps: []float64{0.6},
		Seeds: 2, Noise: 0.1, Graphs: []string{"film"}, Methods: []string{"tot"}, Concurrency: 7})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := again.EMIn("tot", 0.6); v != tree {
		t.Errorf("rerun gave %.4f, first run %.4f", v, tree)
	}
}

// BenchmarkChainVsTree prints EM-in of Chain- and Tree-of-Traversals on
// the demo questions as the oracle's skill P varies, and reports EM-in at
// P=0.7 as metrics.
func BenchmarkChainVsTree(b *testing.B) {
	db, golds := filmGolds(b)
	cfg := Config{KG: db, Registry: totRegistry(), Golds: golds, Seeds: 3, Noise: 0.1, Graphs: []string{"film"}}
	var tb *Table
	for b.Loop() {
		var err error
		if tb, err = Run(b.Context(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	tb.Write(os.Stdout)
	for _, m := range tb.Methods {
		v, _ := tb.EMIn(m, 0.7)
		b.ReportMetric(100*v, m+"-EMin@p0.7")
	}
}
