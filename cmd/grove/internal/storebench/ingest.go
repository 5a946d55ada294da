// Package storebench measures the store as a whole process would see it,
// always next to a baseline run in the same process or script: bulk ingest
// against Cayley's own loaders (its kv layer on Badger, and its in-memory
// store), and warm KG-interface latencies against the same questions asked
// through Cayley's Gizmo on the same database. `grove bench` drives it; the
// figures go into BENCHMARKS.md as ratios, because the machines are noisy.
package storebench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/cayley/graph"
	ckv "github.com/cayleygraph/cayley/graph/kv"
	ckvbadger "github.com/cayleygraph/cayley/graph/kv/badger"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/cayley/writer"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest"
	"github.com/grove-kg/grove/ingest/input"
	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/engine"
)

// Systems that IngestOne can load with.
const (
	SystemGrove     = "grove"
	SystemCayleyKV  = "cayley-kv-badger"
	SystemCayleyMem = "cayley-memstore"
	// SystemGroveWriter is Grove's incremental path: Cayley's quad writer
	// (graph/writer, what `cayley load` uses) adding WriterBatch quads per
	// AddQuadSet, each one ApplyDeltas transaction.
	SystemGroveWriter = "grove-writer"
	// SystemGroveSecond labels a Grove load into a database that already
	// holds another graph (grove bench ingest --onto); IngestOne runs it
	// as SystemGrove.
	SystemGroveSecond = "grove-second"
)

// Systems lists the systems IngestOne loads with (SystemGroveSecond is
// a label, not one of them).
func Systems() []string {
	return []string{SystemGrove, SystemCayleyKV, SystemCayleyMem, SystemGroveWriter}
}

// WriterBatch is the AddQuadSet size of SystemGroveWriter: Cayley's own
// default batch for loads.
const WriterBatch = 10000

// IngestResult is one system's bulk load of one file.
type IngestResult struct {
	System      string        `json:"system"`
	Quads       int64         `json:"quads"`
	Duration    time.Duration `json:"duration_ns"`
	QuadsPerSec float64       `json:"quads_per_sec"`
	PeakRSS     int64         `json:"peak_rss_bytes"`
	DiskBytes   int64         `json:"disk_bytes"`
	BytesPerQ   float64       `json:"disk_bytes_per_quad"`
	Error       string        `json:"error,omitempty"`
}

// IngestOne loads at most limit quads (0 = all) of file into a new store
// of the given system in dir and reports the rate, peak RSS of this
// process and the size on disk. Run it in a fresh process per system so
// that peak RSS belongs to one system only.
// For Grove, graph names the graph the quads go into ("" for "bench"), and
// dir may hold other graphs already (the second-graph benchmark).
func IngestOne(ctx context.Context, system, file, dir string, limit int64, graph string) (IngestResult, error) {
	res := IngestResult{System: system}
	start := time.Now()
	var err error
	switch system {
	case SystemGrove:
		res.Quads, err = ingestGrove(ctx, file, dir, limit, graph)
	case SystemCayleyKV:
		res.Quads, err = ingestCayleyKV(ctx, file, dir, limit)
	case SystemCayleyMem:
		res.Quads, err = ingestCayleyMem(ctx, file, limit)
	case SystemGroveWriter:
		res.Quads, err = ingestGroveWriter(ctx, file, dir, limit)
	default:
		err = fmt.Errorf("unknown system %q: want one of %s", system, strings.Join(Systems(), ", "))
	}
	res.Duration = time.Since(start)
	if err != nil {
		return res, err
	}
	res.QuadsPerSec = float64(res.Quads) / res.Duration.Seconds()
	res.PeakRSS = PeakRSS()
	if system != SystemCayleyMem {
		res.DiskBytes = DirSize(dir)
		res.BytesPerQ = float64(res.DiskBytes) / float64(max(res.Quads, 1))
	}
	return res, nil
}

func ingestGrove(ctx context.Context, file, dir string, limit int64, graph string) (int64, error) {
	if limit > 0 {
		return 0, errors.New("grove ingest benchmark loads whole files; cut the file instead")
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if graph == "" {
		graph = "bench"
	}
	r, err := ingest.Run(ctx, db, []string{file}, ingest.Options{Graph: graph})
	return r.Load.Added, err
}

// ingestGroveWriter loads through Cayley's quad writer into the engine.
func ingestGroveWriter(ctx context.Context, file, dir string, limit int64) (int64, error) {
	engine.Register()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	w, err := writer.NewSingleReplication(db, graph.Options{"ignore_duplicate": true})
	if err != nil {
		return 0, err
	}
	buf := make([]quad.Quad, 0, WriterBatch)
	n, err := readQuads(ctx, file, limit, func(q quad.Quad) error {
		buf = append(buf, q)
		if len(buf) < WriterBatch {
			return nil
		}
		err := w.AddQuadSet(buf)
		buf = buf[:0]
		return err
	})
	if err == nil && len(buf) > 0 {
		err = w.AddQuadSet(buf)
	}
	return n, err
}

// readQuads streams the quads of an N-Triples file with Grove's reader
// (so every system gets the same parsed input) to fn, up to limit.
func readQuads(ctx context.Context, file string, limit int64, fn func(quad.Quad) error) (int64, error) {
	f, err := input.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	errLimit := errors.New("limit")
	err = rdf.New(rdf.Options{Options: source.Options{Graph: "bench"}}).Read(ctx, file, f,
		source.WriterFunc(func(q quad.Quad) error {
			if limit > 0 && n >= limit {
				return errLimit
			}
			n++
			return fn(q)
		}))
	if errors.Is(err, errLimit) {
		err = nil
	}
	return n, err
}

// ingestCayleyKV is Cayley's own bulk path: its kv layer on Badger, fed by
// quad.CopyBatch in batches small enough to avoid ErrTxnTooBig.
func ingestCayleyKV(ctx context.Context, file, dir string, limit int64) (int64, error) {
	kvdb, err := ckvbadger.Create(dir, nil)
	if err != nil {
		return 0, err
	}
	if err := ckv.Init(kvdb, nil); err != nil {
		return 0, err
	}
	qs, err := ckv.New(kvdb, nil)
	if err != nil {
		return 0, err
	}
	defer qs.Close()
	return copyInto(ctx, qs, file, limit)
}

func ingestCayleyMem(ctx context.Context, file string, limit int64) (int64, error) {
	return copyInto(ctx, memstore.New(), file, limit)
}

// copyInto writes quads through Cayley's quad writer, one writer (one
// transaction) per batch: Cayley's kv writer otherwise accumulates 200k
// quads per transaction and fails on Badger with ErrTxnTooBig.
func copyInto(ctx context.Context, qs graph.QuadStore, file string, limit int64) (int64, error) {
	const batch = 2000
	buf := make([]quad.Quad, 0, batch)
	flush := func() error {
		w, err := qs.NewQuadWriter()
		if err != nil {
			return err
		}
		if _, err := w.WriteQuads(buf); err != nil {
			w.Close()
			return err
		}
		buf = buf[:0]
		return w.Close()
	}
	n, err := readQuads(ctx, file, limit, func(q quad.Quad) error {
		buf = append(buf, q)
		if len(buf) == batch {
			return flush()
		}
		return nil
	})
	if err == nil && len(buf) > 0 {
		err = flush()
	}
	return n, err
}

// PeakRSS returns this process's peak resident set size (VmHWM), or 0.
func PeakRSS() int64 { return procStatus("VmHWM:") }

// CurrentRSS returns this process's resident set size (VmRSS), or 0.
func CurrentRSS() int64 { return procStatus("VmRSS:") }

// procStatus reads a kB field of /proc/self/status.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// DirSize sums the sizes of the files under dir.
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
