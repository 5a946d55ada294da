package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cayleygraph/quad"
)

// wikidataQuads are n quads shaped like a Wikidata load: entities of 27
// quads over a few hundred predicates, with mostly new objects (texts,
// statement ids, URLs) and some entity ids.
func wikidataQuads(n int) []quad.Quad {
	r := rand.New(rand.NewPCG(5, 6))
	qs := make([]quad.Quad, n)
	preds := make([]quad.Value, 300)
	for i := range preds {
		preds[i] = quad.IRI(fmt.Sprintf("http://www.wikidata.org/prop/direct/P%d", i))
	}
	for i := range qs {
		s := quad.IRI(fmt.Sprintf("Q%d", i/27))
		var o quad.Value
		switch r.IntN(4) {
		case 0:
			o = quad.IRI(fmt.Sprintf("Q%d", r.IntN(5_000_000)))
		case 1:
			o = quad.LangString{Value: quad.String(fmt.Sprintf("word%d text %d", r.IntN(1<<30), i)), Lang: "en"}
		case 2:
			o = quad.IRI(fmt.Sprintf("Q%d$%08X-%04X-%012X", i/27, r.Uint32(), r.IntN(1<<16), r.Uint64()>>16))
		default:
			o = quad.TypedString{Value: quad.String(fmt.Sprintf("https://en.wikipedia.org/wiki/Article_%d", r.IntN(1<<30))), Type: "http://www.w3.org/2001/XMLSchema#anyURI"}
		}
		qs[i] = quad.Quad{Subject: s, Predicate: preds[r.IntN(len(preds))], Object: o}
	}
	return qs
}

// BenchmarkAddBlock adds Wikidata-shaped quads to a batch a feed block at
// a time (touching the block's vocabulary slots first) and one quad at a
// time (each lookup waits for its own cache misses).
func BenchmarkAddBlock(b *testing.B) {
	qs := wikidataQuads(2 << 20)
	for _, mode := range []string{"block", "per-quad"} {
		b.Run(mode, func(b *testing.B) {
			db, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for b.Loop() {
				l, err := db.NewLoader(LoadOptions{Graph: "g"})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < len(qs); i += feedBlock {
					blk := qs[i:min(i+feedBlock, len(qs))]
					if mode == "block" {
						err = l.addBlock(blk)
					} else {
						for _, q := range blk {
							s, _ := encodeTerm(nil, q.Subject)
							o, _ := encodeTerm(nil, q.Object)
							if err = l.addQuad(q, s, o, l.batch.vocab.hash(o)); err != nil {
								break
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				l.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/quad")
		})
	}
}
