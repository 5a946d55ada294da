package wikidata

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/ingest/synth"
	"github.com/grove-kg/grove/store/storetest/cputime"
)

// repeatedSample is the sample's entity lines repeated n times as one dump.
func repeatedSample(b *testing.B, n int) (dump []byte, lines [][]byte) {
	for _, l := range bytes.Split(sample(b), []byte("\n")) {
		if e := entityBytes(l); e != nil {
			lines = append(lines, e)
		}
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	var all [][]byte
	for i := 0; i < n; i++ {
		for _, l := range lines {
			buf.Write(l)
			buf.WriteString(",\n")
			all = append(all, l)
		}
	}
	buf.WriteString("]\n")
	return buf.Bytes(), all
}

// report adds entities/s (wall clock) and entities/cpu-s metrics.
func report(b *testing.B, entities float64, cpu time.Duration) {
	b.ReportMetric(entities*float64(b.N)/b.Elapsed().Seconds(), "entities/s")
	b.ReportMetric(entities*float64(b.N)/cpu.Seconds(), "entities/cpu-s")
}

// BenchmarkRead measures entities/s end to end (quads delivered to a
// writer) against plain goccy/go-json decoding of the same lines.
func BenchmarkRead(b *testing.B) {
	dump, lines := repeatedSample(b, 4)
	compareReader(b, "bench.json", dump, lines)
}

// compareReader runs, in one benchmark, plain goccy/go-json decoding of
// every entity line into a typed struct (the baseline) and the reader with
// one worker and with GOMAXPROCS workers on the whole dump: entities/s,
// entities/cpu-s, quads/s and MB/s of JSON.
func compareReader(b *testing.B, name string, dump []byte, lines [][]byte) {
	perOp := float64(len(lines))
	b.Run("baseline=goccy-decode/workers=1", func(b *testing.B) {
		b.SetBytes(int64(len(dump)))
		start := cputime.Process()
		for b.Loop() {
			for _, l := range lines {
				var e PlainEntity
				if err := json.Unmarshal(l, &e); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, perOp, cputime.Process()-start)
	})
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("reader/workers="+strconv.Itoa(w), func(b *testing.B) {
			rd := New(Options{Workers: w})
			var n int64
			sink := source.WriterFunc(func(quad.Quad) error { n++; return nil })
			b.SetBytes(int64(len(dump)))
			start := cputime.Process()
			for b.Loop() {
				if err := rd.Read(context.Background(), name, bytes.NewReader(dump), sink); err != nil {
					b.Fatal(err)
				}
			}
			report(b, perOp, cputime.Process()-start)
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "quads/s")
		})
	}
}

// dumpLike is a Wikidata-dump-like array of n entities from ingest/synth
// (calibrated on the real dump; see synth.WriteWikidata) and its entity
// lines.
func dumpLike(b *testing.B, n int64) (dump []byte, lines [][]byte) {
	var buf bytes.Buffer
	if _, err := synth.WriteWikidata(&buf, synth.WikidataConfig{Entities: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if e := entityBytes(l); e != nil {
			lines = append(lines, e)
		}
	}
	return buf.Bytes(), lines
}

// BenchmarkDumpLike measures the reader on dump-like input (mean entity
// ~11 KB, heavy tail) against plain goccy/go-json decoding of the same
// lines into a typed struct, in the same run.
func BenchmarkDumpLike(b *testing.B) {
	dump, lines := dumpLike(b, 10000)
	compareReader(b, "dump.json", dump, lines)
}
