package labelindex

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func threadCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

func BenchmarkExplore(b *testing.B) {
	f := newBenchFixture(b, 1_000_000)
	fmt.Printf("blob %d bytes, keys %d\n", f.blobSize, f.ix.Len())
	runtime.LockOSThread()
	lb := levBuilders(b)
	for _, set := range []struct {
		name string
		qs   []string
		fn   func(q string) searchStats
	}{
		{"exact", f.exact, func(q string) searchStats { _, st := f.ix.search(q, 10, SearchOptions{NoFuzzy: true, NoPrefix: true}); return st }},
		{"lookup", f.exact, func(q string) searchStats { f.ix.Lookup(q); return searchStats{} }},
		{"map", f.exact, func(q string) searchStats { _ = f.byKey[q]; return searchStats{} }},
		{"prefix", f.prefixes, func(q string) searchStats { _, st := f.ix.search(q, 10, SearchOptions{NoFuzzy: true}); return st }},
		{"fuzzy", f.typos, func(q string) searchStats { _, st := f.ix.search(q, 10, SearchOptions{NoPrefix: true}); return st }},
		{"dfa", f.typos, func(q string) searchStats { vellumDFAFuzzy(b, f.ix, lb, q); return searchStats{} }},
		{"all", f.typos, func(q string) searchStats { _, st := f.ix.search(q, 10, SearchOptions{}); return st }},
	} {
		type rec struct {
			q  string
			d  time.Duration
			st searchStats
		}
		var recs []rec
		for _, q := range set.qs {
			t := threadCPU()
			st := set.fn(q)
			recs = append(recs, rec{q, threadCPU() - t, st})
		}
		slices.SortFunc(recs, func(a, b rec) int { return int(a.d - b.d) })
		var tot time.Duration
		steps := 0
		for _, r := range recs {
			steps += r.st.steps
			tot += r.d
		}
		fmt.Printf("%s: p50 %v p90 %v p99 %v max %v mean %v; mean steps %d; max rec %q %+v\n", set.name, recs[len(recs)/2].d, recs[len(recs)*9/10].d, recs[len(recs)*99/100].d, recs[len(recs)-1].d, tot/time.Duration(len(recs)), steps/len(recs), recs[len(recs)-1].q, recs[len(recs)-1].st)
	}
}
