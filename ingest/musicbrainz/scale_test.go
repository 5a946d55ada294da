package musicbrainz

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

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

// readTime is the fastest of three reads of data, or the first when it
// takes over a second.
func readTime(t testing.TB, data []byte) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		w := source.WriterFunc(func(quad.Quad) error { return nil })
		if err := New(Options{EntityType: "artist"}).Read(context.Background(), "a.jsonl", bytes.NewReader(data), w); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
		if best > time.Second {
			break
		}
	}
	return best
}

// TestRelationsScaleLinearly reads one document with 2,000 and with 32,000
// relationships: linear work takes about 16 times as long, quadratic work
// (a scan of the document's pending state per relationship) about 256
// times. The bound of 64 leaves room for noise on a loaded machine.
func TestRelationsScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	small, large := readTime(t, oneBand(2000)), readTime(t, oneBand(32000))
	ratio := float64(large) / float64(small)
	t.Logf("2,000 relationships %v, 32,000 %v: ratio %.1f", small, large, ratio)
	if ratio > 64 {
		t.Errorf("16 times the relationships took %.0f times as long (%v vs %v): time grows faster than linearly", ratio, large, small)
	}
}

// BenchmarkRelationsPerDocument reads one document with many
// relationships; ns per relationship should not grow with their number.
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
