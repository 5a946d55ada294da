package labelindex

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	vlev "github.com/blevesearch/vellum/levenshtein"

	"github.com/grove-kg/grove/store/storetest/cputime"
)

// syllables make pronounceable synthetic words, so that keys share prefixes
// and near neighbours the way real labels do.
var syllables = strings.Fields("ka lo mi ren ta bu sel dor an vi que pra sto li ne ma ro gu fen tal ber is on ya")

// genLabels returns n deterministic labels of one to four words.
func genLabels(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	labels := make([]string, n)
	var sb strings.Builder
	for i := range labels {
		sb.Reset()
		for w := range 1 + r.IntN(4) {
			if w > 0 {
				sb.WriteByte(' ')
			}
			for range 1 + r.IntN(3) {
				sb.WriteString(syllables[r.IntN(len(syllables))])
			}
			if r.IntN(8) == 0 {
				sb.WriteString(string(rune('0' + r.IntN(10))))
			}
		}
		labels[i] = sb.String()
	}
	return labels
}

// benchFixture is a 1M-label index with the same data as a Go map and a
// flat key list, plus query sets.
type benchFixture struct {
	ix       *Index
	blob     []byte
	byKey    map[string][]uint64
	keys     []string
	exact    []string // existing keys
	prefixes []string // 3-6 byte prefixes of existing keys
	typos    []string // existing keys of >= 4 runes with one substitution
}

func newBenchFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	labels := genLabels(n, 1)
	f := &benchFixture{byKey: make(map[string][]uint64, n)}
	bld := NewBuilder()
	for i, l := range labels {
		bld.Add(l, uint64(i))
		k := Normalize(l)
		f.byKey[k] = append(f.byKey[k], uint64(i))
	}
	var buf bytes.Buffer
	if err := bld.Build(&buf); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	f.ix, f.blob = ix, buf.Bytes()
	for k := range f.byKey {
		f.keys = append(f.keys, k)
	}
	slices.Sort(f.keys)
	r := rand.New(rand.NewPCG(2, 3))
	for range 1000 {
		k := f.keys[r.IntN(len(f.keys))]
		f.exact = append(f.exact, k)
		f.prefixes = append(f.prefixes, k[:min(len(k), 3+r.IntN(4))])
		f.typos = append(f.typos, typo(r, k))
	}
	return f
}

// typo replaces one letter of k (made at least 4 runes long) so that the
// query gets a fuzzy phase.
func typo(r *rand.Rand, k string) string {
	for utf8.RuneCountInString(k) < 4 {
		k += "a"
	}
	b := []byte(k)
	b[r.IntN(len(b))] = byte('a' + r.IntN(26))
	return string(b)
}

// timed runs op over queries b.N times and reports the median latency.
func timed(b *testing.B, queries []string, op func(q string)) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		op(queries[i%len(queries)])
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
}

// BenchmarkSearch1M compares the index with a Go map (exact lookups) and a
// linear Levenshtein scan (fuzzy search) on one million generated labels.
func BenchmarkSearch1M(b *testing.B) {
	f := newBenchFixture(b, 1_000_000)
	b.Logf("index: %d keys, %d ids, %d bytes", f.ix.Len(), f.ix.NumIDs(), len(f.blob))
	var sink int
	b.Run("exact/lookup", func(b *testing.B) {
		timed(b, f.exact, func(q string) { sink += len(f.ix.Lookup(q)) })
	})
	b.Run("exact/map-baseline", func(b *testing.B) {
		timed(b, f.exact, func(q string) { sink += len(f.byKey[q]) })
	})
	b.Run("exact/search", func(b *testing.B) {
		opts := SearchOptions{NoPrefix: true, NoFuzzy: true}
		timed(b, f.exact, func(q string) { sink += len(f.ix.Search(q, 10, opts)) })
	})
	b.Run("prefix/search", func(b *testing.B) {
		opts := SearchOptions{NoFuzzy: true}
		timed(b, f.prefixes, func(q string) { sink += len(f.ix.Search(q, 10, opts)) })
	})
	b.Run("fuzzy/search", func(b *testing.B) {
		opts := SearchOptions{NoPrefix: true}
		timed(b, f.typos, func(q string) { sink += len(f.ix.Search(q, 10, opts)) })
	})
	b.Run("fuzzy/vellum-dfa-baseline", func(b *testing.B) {
		lb := levBuilders(b)
		timed(b, f.typos, func(q string) { sink += len(vellumDFAFuzzy(b, f.ix, lb, q)) })
	})
	b.Run("fuzzy/linear-scan-baseline", func(b *testing.B) {
		timed(b, f.typos, func(q string) { sink += len(linearFuzzy(f.keys, q)) })
	})
	b.Run("all/search", func(b *testing.B) {
		timed(b, f.typos, func(q string) { sink += len(f.ix.Search(q, 10, SearchOptions{})) })
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			if _, err := Open(f.blob); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := f.ix.Verify(); err != nil {
				b.Fatal(err)
			}
		}
	})
	_ = sink
}

// linearFuzzy is the baseline: every key within FuzzyDistance of q.
func linearFuzzy(keys []string, q string) []string {
	d := FuzzyDistance(utf8.RuneCountInString(q))
	var out []string
	for _, k := range keys {
		if levenshtein.ComputeDistance(q, k) <= d {
			out = append(out, k)
		}
	}
	return out
}

// vellumDFAFuzzy is the other baseline: the keys within FuzzyDistance of q
// found by walking the FST with vellum's Levenshtein DFA, built per query
// from the parametric builders in lb (indexed by distance).
func vellumDFAFuzzy(tb testing.TB, ix *Index, lb []*vlev.LevenshteinAutomatonBuilder, q string) []string {
	q = Normalize(q)
	d := uint8(FuzzyDistance(utf8.RuneCountInString(q)))
	dfa, err := lb[d].BuildDfa(q, d)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	it, err := ix.fst.Search(dfa, nil, nil)
	for ; err == nil; err = it.Next() {
		k, _ := it.Current()
		out = append(out, string(k))
	}
	return out
}

// levBuilders returns vellum's parametric Levenshtein builders for distances
// 0..MaxFuzzy.
func levBuilders(tb testing.TB) []*vlev.LevenshteinAutomatonBuilder {
	lb := make([]*vlev.LevenshteinAutomatonBuilder, MaxFuzzy+1)
	for d := range lb {
		var err error
		if lb[d], err = vlev.NewLevenshteinAutomatonBuilder(uint8(d), false); err != nil {
			tb.Fatal(err)
		}
	}
	return lb
}

// BenchmarkBuild1M measures building the blob of one million labels.
func BenchmarkBuild1M(b *testing.B) {
	labels := genLabels(1_000_000, 1)
	for b.Loop() {
		bld := NewBuilder()
		for i, l := range labels {
			bld.Add(l, uint64(i))
		}
		var buf bytes.Buffer
		if err := bld.Build(&buf); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len()), "bytes")
	}
}

// BenchmarkNormalize measures key normalization of ASCII and accented text.
func BenchmarkNormalize(b *testing.B) {
	for name, s := range map[string]string{
		"ascii":    "The Lord of the Rings: The Return of the King",
		"accented": "Ærøskøbing Kommune, Région Île-de-France",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_ = Normalize(s)
			}
		})
	}
}

// BenchmarkBuildSpill builds the blob of N million generated labels into a
// file with an in-memory Builder and with spilling ones, and reports the
// peak Go heap (sampled every 5 ms) and the wall and CPU time per label.
// Run it once:
//
//	go test ./store/labelindex -run '^$' -bench BuildSpill -benchtime 1x
func BenchmarkBuildSpill(b *testing.B) {
	for _, millions := range []int{2, 8} {
		for _, budget := range []int64{0, 64 << 20, 16 << 20} {
			name := fmt.Sprintf("labels=%dM/budget=%dMiB", millions, budget>>20)
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					benchBuildSpill(b, millions*1_000_000, budget)
				}
			})
		}
	}
}

func benchBuildSpill(b *testing.B, n int, budget int64) {
	dir := b.TempDir()
	bld := NewBuilder()
	if budget > 0 {
		bld = NewSpillingBuilder(SpillOptions{Dir: dir, Budget: budget})
	}
	defer bld.Close()
	runtime.GC()
	peak := sampleHeap()
	start, cpu0 := time.Now(), cputime.Process()
	var sb []byte
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		sb = appendLabel(sb[:0], r)
		bld.Add(string(sb), uint64(i))
	}
	f, err := os.Create(filepath.Join(dir, "blob"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if err := bld.Build(w); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	took, cpu := time.Since(start), cputime.Process()-cpu0
	heap, live := peak()
	size, _ := f.Seek(0, io.SeekCurrent)
	b.ReportMetric(float64(took.Nanoseconds())/float64(n), "ns/label")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/label")
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
	b.ReportMetric(float64(bld.Runs()), "runs")
	b.ReportMetric(float64(size)/(1<<20), "blob-MiB")
}

// appendLabel appends a generated label of one to three pseudo-words.
func appendLabel(dst []byte, r *rand.Rand) []byte {
	for w := range 1 + r.IntN(3) {
		if w > 0 {
			dst = append(dst, ' ')
		}
		for range 2 + r.IntN(3) {
			dst = append(dst, syllables[r.IntN(len(syllables))]...)
		}
	}
	if r.IntN(3) == 0 {
		dst = strconv.AppendInt(append(dst, ' '), int64(r.IntN(100000)), 10)
	}
	return dst
}

// sampleHeap samples the Go heap every 5 ms until the returned function
// is called, which returns the peak bytes in heap objects (garbage
// included) and the peak live heap after a GC.
func sampleHeap() func() (heap, live uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peakHeap, peakLive uint64
	read := func() {
		metrics.Read(samples)
		peakHeap = max(peakHeap, samples[0].Value.Uint64())
		peakLive = max(peakLive, samples[1].Value.Uint64())
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() (uint64, uint64) {
		close(stop)
		<-done
		return peakHeap, peakLive
	}
}
