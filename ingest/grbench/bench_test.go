package grbench

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// syntheticDBLP builds a DBLP-shaped graph.json with n papers, n/2 authors
// and n/100+1 venues, indented like Python's json.dump(indent=4).
func syntheticDBLP(n int) []byte {
	authors, venues := n/2+1, n/100+1
	papers := map[string]any{}
	for i := 0; i < n; i++ {
		refs := []string{}
		for k := 1; k <= 5; k++ {
			refs = append(refs, fmt.Sprintf("p%d", (i+k*37)%n))
		}
		papers[fmt.Sprintf("p%d", i)] = map[string]any{
			"features": map[string]any{
				"title":    fmt.Sprintf("A study of graph reasoning number %d", i),
				"abstract": "We study how language models traverse knowledge graphs to answer questions, and report results.",
				"keywords": []string{"graphs", "reasoning", "language models"},
				"lang":     "en",
				"year":     1990 + i%35,
			},
			"neighbors": map[string]any{
				"author":    []string{fmt.Sprintf("a%d", i%authors), fmt.Sprintf("a%d", (i*7)%authors)},
				"venue":     []string{fmt.Sprintf("pub_%d", i%venues)},
				"reference": refs,
				"cited_by":  []string{},
			},
		}
	}
	people := map[string]any{}
	for i := 0; i < authors; i++ {
		people[fmt.Sprintf("a%d", i)] = map[string]any{
			"features":  map[string]any{"name": fmt.Sprintf("Author %d", i), "organization": "University"},
			"neighbors": map[string]any{"paper": []string{fmt.Sprintf("p%d", i)}},
		}
	}
	places := map[string]any{}
	for i := 0; i < venues; i++ {
		places[fmt.Sprintf("pub_%d", i)] = map[string]any{
			"features":  map[string]any{"name": fmt.Sprintf("Venue %d", i)},
			"neighbors": map[string]any{"paper": []string{fmt.Sprintf("p%d", i)}},
		}
	}
	data, err := stdjson.MarshalIndent(map[string]any{"paper_nodes": papers, "author_nodes": people, "venue_nodes": places}, "", "    ")
	if err != nil {
		panic(err)
	}
	return data
}

// BenchmarkRead compares the streaming reader (decode and emit quads) with
// loading the whole file into memory the way Graph-CoT does (json.load),
// which produces no quads at all: the baseline is a lower bound on parsing
// work, not an equivalent reader.
func BenchmarkRead(b *testing.B) {
	data := syntheticDBLP(5000)
	b.Run("grove-stream", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var n int
		w := source.WriterFunc(func(quad.Quad) error { n++; return nil })
		for b.Loop() {
			if err := New(Options{}).Read(context.Background(), "g.json", bytes.NewReader(data), w); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "quads/op")
	})
	b.Run("baseline-stdlib-load-whole", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var v map[string]any
			if err := stdjson.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNaNFilter measures the NaN rewrite against a plain copy.
func BenchmarkNaNFilter(b *testing.B) {
	data := syntheticDBLP(2000)
	buf := make([]byte, 32<<10)
	b.Run("filter", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			f := newNaNFilter(bytes.NewReader(data))
			for {
				if _, err := f.Read(buf); err != nil {
					break
				}
			}
		}
	})
	b.Run("baseline-copy", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r := bytes.NewReader(data)
			for {
				if _, err := r.Read(buf); err != nil {
					break
				}
			}
		}
	})
}
