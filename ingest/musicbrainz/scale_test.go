package musicbrainz

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// oneBand is a single artist document with n "member of band"
// relationships, each to a different artist: the shape of a large group or
// label in the dumps.
func oneBand(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":"11111111-1111-1111-1111-111111111111","name":"Band","sort-name":"Band","type":"Group","relations":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"member of band","direction":"backward","target-type":"artist",`+
			`"attributes":["guitar"],"begin":"1960","artist":{"id":"%08d-2222-2222-2222-222222222222","name":"B%d"}}`, i, i)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// BenchmarkRelationsPerDocument reads one document with many
// relationships; ns per relationship should not grow with their number
// (a scan of the document's pending state per relationship made 40,000
// of them take 6.8 s; a timing test would be noise, so this is measured
// here, not tested).
func BenchmarkRelationsPerDocument(b *testing.B) {
	for _, n := range []int{1000, 10000, 40000} {
		data := oneBand(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			w := source.WriterFunc(func(quad.Quad) error { return nil })
			for b.Loop() {
				if err := New(Options{EntityType: "artist"}).Read(context.Background(), "a.jsonl", bytes.NewReader(data), w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/relation")
		})
	}
}
