package musicbrainz

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// syntheticArtists builds n artist documents shaped like the fixture: a
// group with aliases, an area, a life span and six relationships.
func syntheticArtists(n int) []byte {
	var buf bytes.Buffer
	mbid := func(i, k int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, k) }
	for i := 0; i < n; i++ {
		rels := []map[string]any{}
		for k := 0; k < 4; k++ {
			rels = append(rels, map[string]any{
				"type": "member of band", "type-id": "5be4c609-9afa-4ea0-910b-12ffb71e3821", "direction": "backward",
				"target-type": "artist", "attributes": []string{"guitar", "original"}, "attribute-values": map[string]string{},
				"begin": "1960", "end": "1970-04-10", "ended": true, "source-credit": "", "target-credit": "",
				"artist": map[string]any{"id": mbid(n+i*4+k, 1), "name": fmt.Sprintf("Member %d-%d", i, k), "sort-name": "Member", "disambiguation": ""},
			})
		}
		rels = append(rels, map[string]any{
			"type": "wikidata", "direction": "forward", "target-type": "url", "attributes": []string{},
			"url": map[string]any{"id": mbid(i, 2), "resource": fmt.Sprintf("https://www.wikidata.org/wiki/Q%d", 1000+i)},
		}, map[string]any{
			"type": "official homepage", "direction": "forward", "target-type": "url", "attributes": []string{},
			"url": map[string]any{"id": mbid(i, 3), "resource": fmt.Sprintf("https://band%d.example.org/", i)},
		})
		doc := map[string]any{
			"id": mbid(i, 0), "name": fmt.Sprintf("Band %d", i), "sort-name": fmt.Sprintf("Band %d, The", i), "type": "Group",
			"country": "GB", "gender": nil, "disambiguation": "",
			"area":      map[string]any{"id": mbid(0, 9), "name": "United Kingdom", "sort-name": "United Kingdom"},
			"life-span": map[string]any{"begin": "1960", "end": "1970-04-10", "ended": true},
			"aliases": []map[string]any{
				{"name": fmt.Sprintf("Band%d", i), "locale": nil}, {"name": fmt.Sprintf("バンド%d", i), "locale": "ja"},
			},
			"isnis": []string{"0000000121707484"}, "relations": rels,
		}
		line, err := stdjson.Marshal(doc)
		if err != nil {
			panic(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// BenchmarkRead compares the reader (decode, validate, write quads) with
// decoding every line into a generic map with encoding/json, which writes
// nothing: the baseline bounds the parsing work only.
func BenchmarkRead(b *testing.B) {
	data := syntheticArtists(2000)
	b.Run("grove", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var n int
		w := source.WriterFunc(func(quad.Quad) error { n++; return nil })
		for b.Loop() {
			if err := New(Options{EntityType: "artist"}).Read(context.Background(), "a.jsonl", bytes.NewReader(data), w); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "quads/op")
	})
	b.Run("baseline-stdlib-map-per-line", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(line) == 0 {
					continue
				}
				var v map[string]any
				if err := stdjson.Unmarshal(line, &v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
