package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/reasoner/trace"
)

// registry builds the registry of every reasoning method.
func registry() *reasoner.Registry {
	r := reasoner.NewRegistry()
	tot.Register(r)
	registerMore(r)
	return r
}

// modelFlags adds the model settings shared by ask, serve and eval. They
// are read through viper under "llm.*", so GROVE_LLM_URL or a config file's
// llm: section work too.
func (a *app) modelFlags(fs *pflag.FlagSet) {
	fs.String("llm", "", "OpenAI-compatible base URL (vLLM, llama.cpp, Ollama, LM Studio, hosted); empty = lexical keyword baseline, not an LLM")
	fs.String("model", "", "model name")
	fs.String("api-key-env", "", "environment variable holding the API key, e.g. OPENAI_API_KEY (none: send no key)")
	fs.String("endpoint", "chat", "chat or completions")
	fs.String("cache", "readwrite", "response cache: off, read or readwrite")
	fs.String("cache-dir", filepath.Join(filepath.Dir(defaultDBDir()), "llm-cache"), "response cache directory")
	fs.Int("max-concurrency", 8, "maximum concurrent model requests")
	fs.Duration("timeout", 2*time.Minute, "per-call model timeout")
}

// modelFlagKeys maps the model flags to their viper keys. They are bound in
// setup for the command that runs: ask, serve and eval each define them,
// and binding at definition time would let the last command win.
func modelFlagKeys() map[string]string {
	return map[string]string{"llm": "llm.url", "model": "llm.model", "api-key-env": "llm.api_key_env",
		"endpoint": "llm.endpoint", "cache": "llm.cache_mode", "cache-dir": "llm.cache_dir",
		"max-concurrency": "llm.max_concurrency", "timeout": "llm.timeout"}
}

// lexicalWarning is printed on standard error by every command that falls
// back to the lexical policy, so that its results are never taken for an
// LLM's.
const lexicalWarning = "WARNING: no model configured (--llm / GROVE_LLM_URL / llm.url): using the lexical " +
	"keyword baseline (" + lexical.ModelName + "), not an LLM; every answer, trace and report names it"

// openModel builds the configured model; without --llm it is the lexical
// policy, announced on standard error. A model name without --llm is an
// error: a model was asked for.
func (a *app) openModel() (llm.Model, io.Closer, error) {
	cfg := llm.DefaultConfig()
	if err := a.decodeSection("llm", &cfg); err != nil {
		return nil, nil, err
	}
	if cfg.URL == "" {
		cfg.CacheMode = "off"
	}
	m, closer, err := llm.OpenWithLogger(cfg, a.log)
	if errors.Is(err, llm.ErrModelWithoutURL) {
		return nil, nil, fmt.Errorf("%w: give the model server with --llm URL (or GROVE_LLM_URL, llm.url), or drop "+
			"--model (GROVE_LLM_MODEL, llm.model) to run the lexical baseline, not an LLM", err)
	}
	if errors.Is(err, llm.ErrNoModel) {
		fmt.Fprintln(a.stderr, lexicalWarning)
		return llm.NewStats(lexical.Policy{}), nothingToClose{}, nil
	}
	if errors.Is(err, llm.ErrCacheInUse) {
		return nil, nil, fmt.Errorf("%w: runs side by side need a cache directory each (--cache-dir DIR, "+
			"GROVE_LLM_CACHE_DIR), or --cache off", err)
	}
	return m, closer, err
}

// modelConfigured describes the configured model (--llm / --model,
// GROVE_LLM_URL / GROVE_LLM_MODEL or the config file's llm: section), or
// returns "" when there is none.
func (a *app) modelConfigured() string {
	var parts []string
	if u := strings.TrimSpace(a.v.GetString("llm.url")); u != "" {
		parts = append(parts, "url "+llm.RedactEndpoint(u))
	}
	if m := strings.TrimSpace(a.v.GetString("llm.model")); m != "" {
		parts = append(parts, fmt.Sprintf("model %q", m))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " from --llm / --model, GROVE_LLM_URL / GROVE_LLM_MODEL or llm: in the config file"
}

// nothingToClose is the Closer of a model that holds no resources.
type nothingToClose struct{}

func (nothingToClose) Close() error { return nil }

// parseParams turns key=value flags into method parameters.
func parseParams(kvs []string) (reasoner.Params, error) {
	p := reasoner.Params{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--param %q: want key=value", kv)
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			p[k] = n
		} else if f, err := strconv.ParseFloat(v, 64); err == nil {
			p[k] = f
		} else if b, err := strconv.ParseBool(v); err == nil {
			p[k] = b
		} else {
			p[k] = v
		}
	}
	return p, nil
}

func (a *app) askCmd() *cobra.Command {
	var method, traceFile string
	var graphs, params, topics []string
	cmd := &cobra.Command{
		Use:   `ask "QUESTION"`,
		Short: "Answer a question by reasoning over the KGs (Tree-of-Traversals and other methods)",
		Long: `Answer a question with a reasoning method over one or more graphs. Without --llm the
deterministic lexical policy is used: a keyword-overlap baseline, not an LLM, so that ask works
offline on a fresh machine. Methods: ` + strings.Join(registry().Names(), ", ") + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := parseParams(params)
			if err != nil {
				return err
			}
			db, closeKG, err := a.openKG(cmd.Context())
			if err != nil {
				return err
			}
			defer closeKG.Close()
			model, closer, err := a.openModel()
			if err != nil {
				return err
			}
			defer closer.Close()
			r, err := registry().New(method, reasoner.Deps{KG: db, Model: model, Logger: a.log}, p)
			if err != nil {
				return err
			}
			t, err := r.Answer(cmd.Context(), reasoner.Query{Question: args[0], Graphs: graphs, TopicEntities: topics})
			a.warnForeignCache(t)
			if t != nil && traceFile != "" {
				if werr := writeTrace(traceFile, t); werr != nil {
					return werr
				}
			}
			if err != nil {
				if t != nil && a.jsonOut() {
					// The partial trace names the model and the error: a
					// script reading standard output gets it too.
					_ = a.printJSON(t)
				}
				return err
			}
			return a.emit(t, func(w io.Writer) error { return trace.Render(w, t) })
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&method, "method", "tot", "reasoning method, or primary->fallback (tot->cot: Chain-of-Thought when tot finds no answer)")
	fl.StringSliceVar(&graphs, "kg", nil, "graphs (KGs) to use (default: all)")
	fl.StringSliceVar(&topics, "topic", nil, "topic entity ids, when known")
	fl.StringArrayVar(&params, "param", nil, "method parameter key=value (e.g. k=3, max_depth=7); with --method a->b they go to a")
	fl.StringVar(&traceFile, "trace", "", "write the full trace as JSON to this file")
	a.modelFlags(fl)
	return cmd
}

func writeTrace(path string, t *trace.Trace) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// warnForeignCache logs, once per question, the samples the response cache
// served that were not produced by the configured model at its endpoint
// (the cache is keyed by model name, not server).
func (a *app) warnForeignCache(t *trace.Trace) {
	if t == nil {
		return
	}
	if f := t.ForeignCacheSources(); len(f) > 0 {
		n := 0
		for _, s := range f {
			n += s.Samples
		}
		a.log.Warn("response cache served samples not produced by the configured model at its endpoint",
			"samples", n, "model", t.Model.String(), "sources", llm.DescribeCacheSources(f))
	}
}
