// Package evalcli is the `grove eval` command tree (internal to cmd/grove:
// reasoner/eval is an application library with no CLI code), built by the
// application (cmd/grove) from a small App value so that it depends on
// nothing of the application but what it is handed:
//
//	grove eval --dataset FILE --method tot,chain,cot,tot->cot --kg film --out DIR
//	           [--limit N] [--seed S] [--concurrency C] [--shard i/n] [--resume]
//	           [--retry-errors] [--question-timeout D] [--topic-entities] [--param tot.k=5]
//	           [--judge] [--no-traces] [--sim P [--sim-noise X] [--sim-seed S]]
//	grove eval report DIR... [--out DIR]
//	grove eval merge --out DIR DIR...
//	grove eval sim --questions FILE [--kg film] [--p 0.5,0.6,...] [--seeds 3] [--noise 0.1]
//
// `grove eval` runs package eval's Run with a progress bar on standard
// error (schollz/progressbar: count, rate, elapsed time, ETA, and the
// running EM-in of each method in the description); `report` builds the
// tables and figures of package report and prints the Markdown; `merge`
// combines shard directories; `sim` runs the Chain- vs Tree-of-Traversals
// study of package sim and prints its table. With --sim P, `grove eval`
// answers with the simulated oracle of skill P instead of the configured
// model, so the whole pipeline (results, traces, report, figures) can be
// exercised without a language model; a configured model (--llm, --model,
// GROVE_LLM_*, llm: in the config file) is then refused, not ignored.
package evalcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store"
)

// App is what the eval commands need from the application.
type App struct {
	// OpenKG opens the knowledge graph; the closer releases it.
	OpenKG func(ctx context.Context) (store.KG, io.Closer, error)
	// OpenModel builds the configured model (the policy and evaluator).
	OpenModel func(ctx context.Context) (llm.Model, io.Closer, error)
	// ModelConfigured describes the model the application is configured to
	// use (its flags, environment or config file), or returns "" when none
	// is; nil means none. `grove eval --sim` refuses a configured model
	// rather than ignore it.
	ModelConfigured func() string
	// DescribeKG names the knowledge-graph store the commands read (backend
	// and location, no credentials), recorded in the run's manifest and
	// report; nil records none.
	DescribeKG func() string
	// Registry returns the registry of reasoning methods.
	Registry func() *reasoner.Registry
	// Logger receives the runs' logs; nil discards them.
	Logger *slog.Logger
	// JSON reports whether JSON output was asked for (the application's
	// --json flag); nil means never.
	JSON func() bool
	// Stdout and Stderr default to the command's streams.
	Stdout, Stderr io.Writer
}

func (a App) check() error {
	var errs []error
	if a.OpenKG == nil {
		errs = append(errs, errors.New("evalcli: App.OpenKG is nil"))
	}
	if a.Registry == nil {
		errs = append(errs, errors.New("evalcli: App.Registry is nil"))
	}
	return errors.Join(errs...)
}

func (a App) modelConfigured() string {
	if a.ModelConfigured == nil {
		return ""
	}
	return a.ModelConfigured()
}

func (a App) json() bool { return a.JSON != nil && a.JSON() }

func (a App) stdout(cmd *cobra.Command) io.Writer {
	if a.Stdout != nil {
		return a.Stdout
	}
	return cmd.OutOrStdout()
}

func (a App) stderr(cmd *cobra.Command) io.Writer {
	if a.Stderr != nil {
		return a.Stderr
	}
	return cmd.ErrOrStderr()
}

func (a App) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Command returns `eval` with its subcommands report, merge and sim.
func Command(app App) *cobra.Command {
	cmd := runCommand(app)
	cmd.AddCommand(reportCommand(app), mergeCommand(app), simCommand(app))
	return cmd
}

// withKG opens the KG, runs fn and closes it.
func withKG(ctx context.Context, app App, fn func(store.KG) error) (err error) {
	if err := app.check(); err != nil {
		return err
	}
	kg, closer, err := app.OpenKG(ctx)
	if err != nil {
		return fmt.Errorf("open knowledge graph: %w", err)
	}
	defer func() {
		if closer != nil {
			if cerr := closer.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close knowledge graph: %w", cerr)
			}
		}
	}()
	return fn(kg)
}

// ParseParams parses --param values "method.key=value" into parameters by
// method. Values stay strings; each method's typed getters convert them.
func ParseParams(specs []string) (map[string]reasoner.Params, error) {
	out := map[string]reasoner.Params{}
	for _, s := range specs {
		lhs, value, ok := strings.Cut(s, "=")
		method, key, dot := strings.Cut(strings.TrimSpace(lhs), ".")
		method, key = strings.TrimSpace(method), strings.TrimSpace(key)
		if !ok || !dot || method == "" || key == "" {
			return nil, fmt.Errorf("--param %q: want method.key=value, e.g. tot.k=5", s)
		}
		if out[method] == nil {
			out[method] = reasoner.Params{}
		}
		if _, dup := out[method][key]; dup {
			return nil, fmt.Errorf("--param %q: %s.%s is set twice", s, method, key)
		}
		out[method][key] = strings.TrimSpace(value)
	}
	return out, nil
}
