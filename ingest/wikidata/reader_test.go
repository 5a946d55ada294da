package wikidata

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

var (
	sampleOnce sync.Once
	sampleData []byte
	sampleErr  error
)

// sample returns the decompressed real Wikidata sample.
func sample(tb testing.TB) []byte {
	tb.Helper()
	samplePath := datadir.Repo(tb, "wikidata-sample-entities.json.gz")
	sampleOnce.Do(func() {
		f, err := os.Open(samplePath)
		if err != nil {
			sampleErr = err
			return
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			sampleErr = err
			return
		}
		sampleData, sampleErr = io.ReadAll(z)
	})
	if sampleErr != nil {
		tb.Fatalf("wikidata sample: %v", sampleErr)
	}
	return sampleData
}

// run reads input with opts and returns the quads as N-Quad lines.
func run(tb testing.TB, opts Options, input []byte) ([]string, Stats, error) {
	tb.Helper()
	var out []string
	w := source.WriterFunc(func(q quad.Quad) error {
		out = append(out, q.NQuad())
		return nil
	})
	st, err := New(opts).ReadStats(context.Background(), "x.json", bytes.NewReader(input), w)
	return out, st, err
}

func mustRun(tb testing.TB, opts Options, input []byte) ([]string, Stats) {
	tb.Helper()
	out, st, err := run(tb, opts, input)
	if err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return out, st
}

func nq(s, p, o string) string { return s + " " + p + " " + o + " ." }

func TestSampleCounts(t *testing.T) {
	_, st := mustRun(t, Options{}, sample(t))
	// The file holds 49 entities ("[" then one entity per line, no
	// closing "]"); 3,568 of its 4,282 statements are truthy.
	want := Stats{Lines: 50, Entities: 49, Items: 49, Statements: 3568, Quads: st.Quads}
	if st != want {
		t.Fatalf("stats = %+v, want %+v", st, want)
	}
	_, all := mustRun(t, Options{AllRanks: true}, sample(t))
	// 4,282 statements less 12 deprecated and 4 novalue ones.
	if all.Statements != 4266 {
		t.Fatalf("all ranks kept %d statements, want 4266", all.Statements)
	}
}

func TestSampleBerlin(t *testing.T) {
	out, _ := mustRun(t, Options{}, sample(t))
	stmt := "<q64$25A421CA-14DF-463C-ACAD-F1199ADFACE7>"
	pop := "<Q64$f2ac6e4d-4410-5ef1-6371-9de33f4f362b>"
	tests := []struct{ name, quad string }{
		{"node type", nq("<Q64>", "<grove:nodeType>", `"item"`)},
		{"label", nq("<Q64>", "<"+store.RDFSLabel+">", `"Berlin"@en`)},
		{"description", nq("<Q64>", "<"+store.SchemaDesc+">", `"capital city of Germany"@en`)},
		{"alias", nq("<Q64>", "<"+store.SKOSAltLabel+">", `"Berlin, Germany"@en`)},
		{"country", nq("<Q64>", "<P17>", "<Q183>")},
		{"country statement", nq("<Q64>", "<p:P17>", stmt)},
		{"country statement value", nq(stmt, "<ps:P17>", "<Q183>")},
		{"country start time", nq(stmt, "<pq:P580>", `"+1990-10-03T00:00:00Z 11"^^<grove:time>`)},
		{"population", nq("<Q64>", "<P1082>", `"3469849"^^<grove:quantity>`)},
		{"population point in time", nq(pop, "<pq:P585>", `"+2014-12-31T00:00:00Z 11"^^<grove:time>`)},
		{"inception (year)", nq("<Q64>", "<P571>", `"+1237-01-01T00:00:00Z 9"^^<grove:time>`)},
		{"area with unit", nq("<Q64>", "<P2046>", `"891.68 Q712226"^^<grove:quantity>`)},
		{"coordinates", nq("<Q64>", "<P625>", `"Point(13.383333333333 52.516666666667)"^^<`+store.WKTLiteral+`>`)},
		{"url", nq("<Q64>", "<P856>", `"http://www.berlin.de/"^^<`+store.XSDAnyURI+`>`)},
		{"monolingual text", nq("<Q64>", "<P1448>", `"Berlin"@de`)},
		{"external id", nq("<Q64>", "<P214>", `"122530980"`)},
		{"musicbrainz area", nq("<Q64>", "<grove:sameAs>", "<mb:area/c9ac1239-e832-41bc-9930-e252a1fd1105>")},
		{"sitelink", nq("<Q64>", "<"+SitelinkPredicate+">", `"https://en.wikipedia.org/wiki/Berlin"^^<`+store.XSDAnyURI+`>`)},
		{"external id hidden", nq("<P214>", "<grove:hidden>", `"true"`)},
		{"musicbrainz artist", nq("<Q255>", "<grove:sameAs>", "<mb:artist/1f9df192-a621-4f54-8850-2c5373b7eac9>")},
		{"julian day", nq("<Q220>", "<P571>", `"-0753-04-13T00:00:00Z 11 julian"^^<grove:time>`)},
		{"deep time", nq("<Q1>", "<P580>", `"-13798000000-00-00T00:00:00Z 3"^^<grove:time>`)},
		{"quantity bounds", nq("<Q144>", "<P3395>", `"95 [70,120] Q743895"^^<grove:quantity>`)},
		{"quantity bounds, unitless", nq("<Q142>", "<P1082>", `"66628000 [66627500,66628500]"^^<grove:quantity>`)},
		{"some value", nq("<Q31>", "<P1589>", `"Q31$15b2441e-47ed-bd45-548c-d03a6c2e490d"^^<grove:unknown>`)},
		{"sitelink predicate hidden", nq("<"+SitelinkPredicate+">", "<grove:hidden>", `"true"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Contains(out, tt.quad) {
				t.Errorf("missing %s", tt.quad)
			}
		})
	}
	absent := []string{
		nq("<Q64>", "<P17>", "<Q7318>"),                    // normal rank, a preferred one exists
		nq("<Q64>", "<P31>", "<Q262166>"),                  // deprecated
		nq("<Q64>", "<P1082>", `"1200"^^<grove:quantity>`), // normal rank population
		nq("<P17>", "<grove:hidden>", `"true"`),            // not an external id
		nq("<Q31>", "<P1589>", `"unknown value"`),          // somevalue is not this string
	}
	for _, q := range absent {
		if slices.Contains(out, q) {
			t.Errorf("unexpected %s", q)
		}
	}
}

func TestSampleRendering(t *testing.T) {
	out, _ := mustRun(t, Options{}, sample(t))
	labels := map[string]string{"Q712226": "square kilometre"}
	want := map[string]string{
		nq("<Q64>", "<P571>", ""):  "1237",
		nq("<Q220>", "<P571>", ""): "13 April 753 BC (Julian)",
		nq("<Q1>", "<P580>", ""):   "13.798 billion years ago",
		nq("<Q64>", "<P2046>", ""): "891.68 square kilometre",
		nq("<Q64>", "<P625>", ""):  "52.516667°N, 13.383333°E",
		nq("<Q64>", "<P1082>", ""): "3,469,849",
	}
	for prefix, text := range want {
		prefix = strings.TrimSuffix(prefix, " .")
		v := objectOf(t, out, prefix)
		if got := literal.Render(v, func(id string) string { return labels[id] }); got != text {
			t.Errorf("%s rendered %q, want %q", prefix, got, text)
		}
	}
}

// objectOf parses the object of the first quad starting with prefix.
func objectOf(t *testing.T, out []string, prefix string) quad.Value {
	t.Helper()
	for _, l := range out {
		if strings.HasPrefix(l, prefix) {
			obj := strings.TrimSuffix(strings.TrimPrefix(l, prefix), " .")
			return quad.StringToValue(obj)
		}
	}
	t.Fatalf("no quad %s", prefix)
	return nil
}

func TestSampleAllRanks(t *testing.T) {
	out, _ := mustRun(t, Options{AllRanks: true}, sample(t))
	if !slices.Contains(out, nq("<Q64>", "<P17>", "<Q7318>")) {
		t.Error("AllRanks: normal-rank P17 missing")
	}
	if slices.Contains(out, nq("<Q64>", "<P31>", "<Q262166>")) {
		t.Error("AllRanks: deprecated statement emitted")
	}
}

func TestSampleDeterministic(t *testing.T) {
	first, _ := mustRun(t, Options{Workers: 1}, sample(t))
	for _, o := range []Options{{Workers: 4, BatchBytes: 4096}, {Workers: 3, BatchBytes: 1}, {}} {
		again, _ := mustRun(t, o, sample(t))
		if !slices.Equal(first, again) {
			t.Fatalf("output differs with workers=%d batch=%d", o.Workers, o.BatchBytes)
		}
	}
}

func TestSampleOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		want    []string
		notWant []string
		stats   func(Stats) bool
	}{
		{"languages", Options{Options: source.Options{Languages: []string{"de", "en"}}},
			[]string{nq("<Q64>", "<"+store.RDFSLabel+">", `"Berlin"@de`), nq("<Q64>", "<"+store.RDFSLabel+">", `"Berlin"@en`),
				nq("<Q64>", "<"+SitelinkPredicate+">", `"https://de.wikipedia.org/wiki/Berlin"^^<`+store.XSDAnyURI+`>`)},
			nil, nil},
		{"skip sitelinks", Options{SkipSitelinks: true}, nil,
			[]string{nq("<Q64>", "<"+SitelinkPredicate+">", `"https://en.wikipedia.org/wiki/Berlin"^^<`+store.XSDAnyURI+`>`)}, nil},
		{"ids", Options{IDs: map[string]bool{"Q64": true, "Q84": true}},
			[]string{nq("<Q64>", "<P17>", "<Q183>")}, []string{nq("<Q31>", "<grove:nodeType>", `"item"`)},
			func(s Stats) bool { return s.Entities == 2 && s.Filtered == 47 }},
		{"claim filter", Options{ClaimFilter: ClaimFilter{{Property: "P31", Values: []string{"Q515"}}}},
			[]string{nq("<Q220>", "<grove:nodeType>", `"item"`)}, []string{nq("<Q31>", "<grove:nodeType>", `"item"`)},
			func(s Stats) bool { return s.Entities == 5 && s.Filtered == 44 }},
		{"ids or claims", Options{IDs: map[string]bool{"Q31": true}, ClaimFilter: ClaimFilter{{Property: "P31", Values: []string{"Q515"}}}},
			[]string{nq("<Q31>", "<grove:nodeType>", `"item"`)}, nil,
			func(s Stats) bool { return s.Entities == 6 }},
		{"negated claim", Options{ClaimFilter: ClaimFilter{{Property: "P31", Values: []string{"Q515"}, Negate: true}}},
			nil, []string{nq("<Q64>", "<grove:nodeType>", `"item"`)},
			func(s Stats) bool { return s.Entities == 44 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, st := mustRun(t, tt.opts, sample(t))
			for _, q := range tt.want {
				if !slices.Contains(out, q) {
					t.Errorf("missing %s", q)
				}
			}
			for _, q := range tt.notWant {
				if slices.Contains(out, q) {
					t.Errorf("unexpected %s", q)
				}
			}
			if tt.stats != nil && !tt.stats(st) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}
