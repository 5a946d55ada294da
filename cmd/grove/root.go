package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"runtime/trace"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/store/engine"
)

// app holds what the commands share: configuration and output streams. No
// package-level mutable state: tests build their own app.
type app struct {
	v      *viper.Viper
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	log    *slog.Logger
	// level is set from --log-level once flags are parsed; the logger is
	// built earlier so that commands can hold it.
	level *slog.LevelVar
}

func newApp() *app {
	return &app{v: viper.New(), stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin}
}

func (a *app) root() *cobra.Command {
	a.level = new(slog.LevelVar)
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: a.level}))
	cmd := &cobra.Command{
		Use:           "grove",
		Short:         "Embedded knowledge-graph database with built-in LLM reasoning",
		SilenceUsage:  true,
		SilenceErrors: true,
		// grove --version prints the version every trace, manifest and
		// report records.
		Version: reasoner.Version(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup(cmd)
		},
	}
	pf := cmd.PersistentFlags()
	pf.String("config", "", "config file (default: grove.yaml in the user config directory, if present)")
	pf.String("db", defaultDBDir(), "database directory")
	pf.Bool("json", false, "print JSON")
	pf.String("log-level", "warn", "log level: debug, info, warn, error")
	pf.String("cpuprofile", "", "write a CPU profile of the command to this file")
	_ = pf.MarkHidden("cpuprofile")
	pf.String("exectrace", "", "write a Go execution trace of the command to this file (go tool trace)")
	_ = pf.MarkHidden("exectrace")
	for _, name := range []string{"db", "json", "log-level"} {
		_ = a.v.BindPFlag(name, pf.Lookup(name))
	}
	a.backendFlags(pf)
	cmd.SetOut(a.stdout)
	cmd.SetErr(a.stderr)
	cmd.AddCommand(a.ingestCmd(), a.statsCmd(), a.kgCmd(), a.queryCmd(), a.askCmd(), a.serveCmd(),
		a.evalCmd(), a.benchCmd(), a.genCmd(), a.optimizeCmd())
	return cmd
}

// setup reads the config file and environment and builds the logger.
func (a *app) setup(cmd *cobra.Command) error {
	a.v.SetEnvPrefix("GROVE")
	a.v.SetEnvKeyReplacer(envKeys())
	a.v.AutomaticEnv()
	// Flags bound to a section key (llm.*, serve.*) are not bound under
	// their own name too: the --llm flag would shadow the llm: section.
	var bindErr error
	var byName []*pflag.Flag
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := modelFlagKeys()[f.Name]; ok {
			return
		}
		if _, ok := serveFlagKeys()[f.Name]; ok && cmd.Name() == "serve" {
			return
		}
		if err := a.v.BindPFlag(f.Name, f); err != nil && bindErr == nil {
			bindErr = err
		}
		byName = append(byName, f)
	})
	if bindErr != nil {
		return bindErr
	}
	for flag, key := range modelFlagKeys() {
		if f := cmd.Flags().Lookup(flag); f != nil {
			if err := a.v.BindPFlag(key, f); err != nil {
				return err
			}
		}
	}
	if err := a.readConfig(cmd); err != nil {
		return err
	}
	if err := a.settleFlags(byName); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.v.GetString("log-level"))); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	a.level.Set(level)
	if path, _ := cmd.Flags().GetString("cpuprofile"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		cobra.OnFinalize(func() { pprof.StopCPUProfile(); f.Close() })
	}
	return startTrace(cmd)
}

// envKeys maps a setting's key to its environment variable's name after
// the GROVE_ prefix, as viper looks it up ("max-memory", "llm.url" ->
// "max_memory", "llm_url").
func envKeys() *strings.Replacer { return strings.NewReplacer("-", "_", ".", "_") }

// settleFlags gives each flag not set on the command line the value of its
// GROVE_* variable or config file key, when there is one, so that commands
// reading their flag variables honour every source the README lists
// (flags, then the environment, then the config file); a bad value is an
// error naming its source.
func (a *app) settleFlags(flags []*pflag.Flag) error {
	for _, f := range flags {
		if f.Changed || !a.v.IsSet(f.Name) {
			continue
		}
		var err error
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			err = sv.Replace(a.v.GetStringSlice(f.Name))
		} else {
			err = f.Value.Set(a.v.GetString(f.Name))
		}
		if err != nil {
			env := "GROVE_" + strings.ToUpper(envKeys().Replace(f.Name))
			return fmt.Errorf("--%s from %s or the config file key %q: %w", f.Name, env, f.Name, err)
		}
	}
	return nil
}

// startTrace starts the execution trace asked for by --exectrace.
func startTrace(cmd *cobra.Command) error {
	path, _ := cmd.Flags().GetString("exectrace")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--exectrace: %w", err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return fmt.Errorf("--exectrace: %w", err)
	}
	cobra.OnFinalize(func() { trace.Stop(); f.Close() })
	return nil
}

func (a *app) readConfig(cmd *cobra.Command) error {
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			candidate := filepath.Join(dir, "grove", "grove.yaml")
			if _, err := os.Stat(candidate); err == nil {
				path = candidate
			}
		}
	}
	if path == "" {
		return nil
	}
	a.v.SetConfigFile(path)
	if err := a.v.ReadInConfig(); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return checkConfigKeys(path, cmd.Root())
}

// defaultDBDir is <user data dir>/grove/db ($XDG_DATA_HOME or ~/.local/share).
func defaultDBDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "grove", "db")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "grove", "db")
	}
	return "grove-db"
}

// openDB opens the configured database.
func (a *app) openDB(readOnly bool) (*engine.DB, error) { return a.openDBFor(readOnly, 0) }

// openDBFor opens it for bulk loads with this memory budget (0: the
// engine's default), which also sizes the tables they write.
func (a *app) openDBFor(readOnly bool, loadMemory int64) (*engine.DB, error) {
	dir := a.v.GetString("db")
	// compress-temp, table-compression and own-segment are ingest flags
	// (also GROVE_COMPRESS_TEMP, GROVE_TABLE_COMPRESSION, GROVE_OWN_SEGMENT).
	opts := engine.Options{Logger: a.log, CompressTemp: a.v.GetBool("compress-temp"), LoadMemory: loadMemory,
		Compression: a.v.GetString("table-compression")}
	if a.v.IsSet("own-segment") && !a.v.GetBool("own-segment") {
		opts.SegmentMinQuads = -1
	}
	// Readers open Badger read-only, which takes a shared lock: several
	// commands (evaluations of different datasets, grove kg, grove serve
	// --read-only) can read one database at once.
	opts.ReadOnly = readOnly
	db, err := engine.Open(dir, opts)
	if errors.Is(err, engine.ErrNoDatabase) {
		return nil, noDatabase(dir)
	}
	return db, err
}

// noDatabase is the error of a command that needs a database where there is
// none.
func noDatabase(dir string) error {
	return fmt.Errorf("no database at %s: run `grove ingest` first (or pass --db)", dir)
}

// requireDatabase fails with noDatabase unless dir holds a database: for
// the commands that open it writable without being meant to create one.
func requireDatabase(dir string) error {
	ok, err := engine.Exists(dir)
	if err == nil && !ok {
		err = noDatabase(dir)
	}
	return err
}

func (a *app) jsonOut() bool { return a.v.GetBool("json") }

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []any{} // an empty list, as the HTTP API answers, not null
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // IRIs print as <...>, not \u003c...\u003e
	return enc.Encode(v)
}

// emit prints v as JSON with --json, otherwise calls text.
func (a *app) emit(v any, text func(w io.Writer) error) error {
	if a.jsonOut() {
		return a.printJSON(v)
	}
	return text(a.stdout)
}
