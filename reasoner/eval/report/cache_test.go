package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/eval"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/internal/llmtest"
	"github.com/grove-kg/grove/reasoner/llm"
)

// cacheQuestions are answered by one zero-shot call each.
var cacheQuestions = []dataset.Question{
	{ID: "1", Question: "Who directed Blade Runner?", Answers: []string{"Ridley Scott"}},
	{ID: "2", Question: "Who directed Jaws?", Answers: []string{"Steven Spielberg"}},
	{ID: "3", Question: "Who directed Titanic?", Answers: []string{"James Cameron"}},
}

// cacheRun evaluates cacheQuestions with model "m" at srv through the
// response cache in cacheDir, into a new directory.
func cacheRun(t *testing.T, srv *llmtest.Server, cacheDir string) (*eval.Summary, string) {
	t.Helper()
	model, closer, err := llm.OpenWithLogger(llm.Config{URL: srv.BaseURL(), Model: "m", CacheDir: cacheDir,
		CacheMode: "readwrite", Retries: -1}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	reg := reasoner.NewRegistry()
	baseline.Register(reg)
	out := t.TempDir()
	sum, err := eval.Run(t.Context(), eval.Config{Questions: cacheQuestions, Methods: []string{baseline.MethodZeroShot},
		Out: out, Concurrency: 2, Registry: reg, Deps: reasoner.Deps{Model: model}})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out
}

// rewriteOld turns every entry of the cache in dir into the format older
// Groves wrote: text, model and creation time, without usage or origin.
func rewriteOld(t *testing.T, dir string) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		type entry struct{ k, v []byte }
		var old []entry
		for it.Rewind(); it.Valid(); it.Next() {
			var e map[string]any
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return err
			}
			v, err := json.Marshal(map[string]any{"text": e["text"], "model": e["model"], "created": e["created"]})
			if err != nil {
				return err
			}
			old = append(old, entry{it.Item().KeyCopy(nil), v})
		}
		if len(old) != len(cacheQuestions) {
			t.Errorf("%d cache entries, want %d", len(old), len(cacheQuestions))
		}
		for _, e := range old {
			if err := txn.Set(e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEvalFromCache: an evaluation re-run from the response cache reports
// no tokens spent and, apart, the tokens its samples cost when produced;
// samples produced by another server answering to the same model name are
// counted and named in the summary, the manifest and a warning; entries
// written by older Groves are served with their usage reported as unknown.
func TestEvalFromCache(t *testing.T) {
	reply := llmtest.HonourN(func(*llmtest.Request, int) string { return "Answer: Ridley Scott" })
	srvA, srvB := llmtest.NewServer(t, reply), llmtest.NewServer(t, reply)
	here, hereID := llm.RedactEndpoint(srvA.BaseURL()), llm.ServerID(srvA.BaseURL())
	cacheDir := t.TempDir()

	first, _ := cacheRun(t, srvA, cacheDir)
	if first.Cache.CacheHits != 0 || first.Cache.Tokens == 0 || srvA.RequestCount() != 3 {
		t.Fatalf("first run: %+v, %d requests", first.Cache, srvA.RequestCount())
	}
	spent := map[string]int{}
	for _, r := range first.Results {
		spent[r.ID] = r.Tokens
	}

	tests := []struct {
		name         string
		srv          *llmtest.Server
		old          bool // cache entries rewritten in the old format first
		sources      []llm.CacheSource
		foreign      int
		unknownUsage int
		warning      string
		costCell     string
	}{
		{name: "same server", srv: srvA, sources: []llm.CacheSource{{Endpoint: here, Server: hereID, Model: "m", Samples: 3}},
			costCell: fmt.Sprintf("| 1.0 | %.0f |", float64(first.Cache.Tokens)/3)},
		{name: "another server, same model name", srv: srvB,
			sources: []llm.CacheSource{{Endpoint: here, Server: hereID, Model: "m", Samples: 3}}, foreign: 3,
			warning: `3 of the 3 samples from the response cache were not produced by m (openai-compatible, ` +
				llm.RedactEndpoint(srvB.BaseURL()) + `) (the cache is keyed by model name, not server): 3 samples from "m" at ` + here + " (server " + hereID + ")"},
		{name: "entries of an older Grove", srv: srvA, old: true,
			sources: []llm.CacheSource{{Model: "m", Samples: 3}}, foreign: 3, unknownUsage: 3,
			warning: `3 samples from "m" at an unknown server`, costCell: "| 1.0 | 0 + 3 unknown |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.old {
				rewriteOld(t, cacheDir)
			}
			reqA, reqB := srvA.RequestCount(), srvB.RequestCount()
			sum, out := cacheRun(t, tt.srv, cacheDir)
			if srvA.RequestCount() != reqA || srvB.RequestCount() != reqB {
				t.Fatalf("a run from the cache sent requests")
			}
			for _, r := range sum.Results {
				wantCached := spent[r.ID]
				if tt.old {
					wantCached = 0
				}
				if r.Tokens != 0 || r.CacheHits != 1 || r.CachedTokens != wantCached || r.CachedTokens == 0 && !tt.old ||
					r.UnknownCacheUsage() != tt.unknownUsage/3 || !slices.Equal(r.CacheSources, []llm.CacheSource{{
					Endpoint: tt.sources[0].Endpoint, Server: tt.sources[0].Server, Model: "m", Samples: 1}}) {
					t.Errorf("result %s: %+v", r.ID, r)
				}
			}
			c := sum.Cache
			wantTokens := first.Cache.Tokens
			if tt.old {
				wantTokens = 0
			}
			if c.CacheHits != 3 || c.Samples != 3 || c.Tokens != 0 || c.CachedTokens != wantTokens ||
				c.UnknownUsage != tt.unknownUsage || c.Foreign != tt.foreign || !slices.Equal(c.Sources, tt.sources) {
				t.Errorf("summary cache %+v", c)
			}
			man, err := eval.ReadManifest(filepath.Join(out, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			if man.Cache == nil || man.Cache.CacheHits != 3 || man.Cache.Foreign != tt.foreign ||
				!slices.Equal(man.Cache.Sources, tt.sources) {
				t.Errorf("manifest cache %+v", man.Cache)
			}
			warned := slices.ContainsFunc(sum.Warnings, func(w string) bool { return tt.warning != "" && strings.Contains(w, tt.warning) })
			if warned != (tt.warning != "") || (tt.warning == "" && len(sum.Warnings) > 0) {
				t.Errorf("warnings %q, want one containing %q", sum.Warnings, tt.warning)
			}
			rep, err := Build(out)
			if err != nil {
				t.Fatal(err)
			}
			var md bytes.Buffer
			if err := rep.WriteMarkdown(io.Writer(&md)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md.String(), "| Samples from cache | Tokens of cached samples |") ||
				(tt.costCell != "" && !strings.Contains(md.String(), tt.costCell)) {
				t.Errorf("cost table lacks %q:\n%s", tt.costCell, md.String())
			}
			if tt.unknownUsage > 0 && !strings.Contains(md.String(), "3 samples from the cache (in all) have unknown usage") {
				t.Errorf("report does not say the usage is unknown:\n%s", md.String())
			}
		})
	}
}
