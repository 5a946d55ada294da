package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/grove-kg/grove/server"
	"github.com/grove-kg/grove/store"
)

// serveSection is the config file section (and GROVE_SERVE_* prefix) of
// `grove serve`: every field of server.Config with a mapstructure tag.
const serveSection = "serve"

// serveFlagKeys maps the serve flags to their viper keys.
func serveFlagKeys() map[string]string {
	return map[string]string{"addr": "serve.addr", "read-only": "serve.read_only", "token-file": "serve.token_file",
		"max-runs": "serve.max_concurrent_runs"}
}

func (a *app) serveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the KG interface, Cayley's query API, the reasoners and a web page over HTTP",
		Long: `Serve the database over HTTP: the JSON API under /v1 (documented at /v1/openapi.json),
Cayley's HTTP API under /cayley/, /metrics, /healthz, /readyz, and a web page at / that
searches entities and shows a reasoning tree growing live. Binding to a non-loopback
address requires --token-file. The model settings are the server's own; clients choose
the method and its parameters within the server's caps.

Every setting of server.Config can also come from the config file's serve: section
(addr, read_only, token_file, max_concurrent_runs, request_timeout, ask_timeout,
max_results, ask: {max_model_calls, param_caps, ...}) or from GROVE_SERVE_<KEY>
(GROVE_SERVE_ADDR, GROVE_SERVE_READ_ONLY, GROVE_SERVE_ASK_MAX_MODEL_CALLS, ...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.serveConfig(cmd)
			if err != nil {
				return err
			}
			var kg store.KG
			if b, err := a.backend(); err != nil {
				return err
			} else if b != backendBadger {
				var closeKG io.Closer
				if kg, closeKG, err = a.openKGFor(cmd.Context(), cfg.ReadOnly); err != nil {
					return err
				}
				defer closeKG.Close()
			} else if err := serveDatabase(cfg.DB, cfg.ReadOnly); err != nil {
				return err
			}
			model, closer, err := a.openModel()
			if err != nil {
				return err
			}
			defer closer.Close()
			deps := server.Deps{Model: model, Reasoners: registry(), Logger: a.log, KG: kg}
			if kg != nil {
				mountCayley(&deps, kg)
			}
			if url := a.v.GetString("llm.url"); url != "" {
				deps.Redact = append(deps.Redact, url)
			}
			if key := os.Getenv(a.v.GetString("llm.api_key_env")); key != "" {
				deps.Redact = append(deps.Redact, key)
			}
			deps.Listening = func(addr string) {
				fmt.Fprintf(a.stderr, "grove: serving on http://%s (Ctrl-C stops it)\n", addr)
			}
			return server.Run(cmd.Context(), cfg, deps)
		},
	}
	fl := cmd.Flags()
	fl.String("addr", server.DefaultAddr, "listen address")
	fl.Bool("read-only", false, "reject every write")
	fl.String("token-file", "", "file holding the bearer token clients must send (required off loopback)")
	fl.Int("max-runs", 2, "reasoning runs in flight before /v1/ask answers 429")
	a.modelFlags(fl)
	return cmd
}

// serveConfig reads server.Config through viper: flags, then GROVE_SERVE_*
// variables, then the config file's serve: section, then defaults. The
// database is the global db setting.
func (a *app) serveConfig(cmd *cobra.Command) (server.Config, error) {
	for flag, key := range serveFlagKeys() {
		if f := cmd.Flags().Lookup(flag); f != nil {
			if err := a.v.BindPFlag(key, f); err != nil {
				return server.Config{}, err
			}
		}
	}
	var cfg server.Config
	if err := a.decodeSection(serveSection, &cfg); err != nil {
		return server.Config{}, err
	}
	cfg.DB = a.v.GetString("db")
	return cfg, nil
}

// decodeSection fills the struct *out (whose fields carry mapstructure
// tags) from the viper section: flags bound to section.* keys, then
// GROVE_<SECTION>_<KEY> variables (bound here for every field), then the
// config file, keeping out's values for keys set nowhere. Unknown keys in
// the config file are an error naming them.
func (a *app) decodeSection(section string, out any) error {
	if err := bindEnvKeys(a.v, section, reflect.TypeOf(out).Elem()); err != nil {
		return err
	}
	// AllSettings merges every source per key; UnmarshalKey would see
	// only the config file's section.
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: out, WeaklyTypedInput: true,
		ErrorUnused: true, DecodeHook: mapstructure.ComposeDecodeHookFunc(mapstructure.StringToTimeDurationHookFunc(),
			mapstructure.StringToSliceHookFunc(","))})
	if err != nil {
		return err
	}
	if err := dec.Decode(a.v.AllSettings()[section]); err != nil {
		return fmt.Errorf("%s settings: %s", section, decodeErrorText(section, err))
	}
	return nil
}

// decodeErrorText rewrites mapstructure's "” has invalid keys: a, b"
// (after a "decoding failed" preamble) as "unknown key(s) section.a,
// section.b", on one line.
func decodeErrorText(section string, err error) string {
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "decoding failed") {
			continue
		}
		if _, keys, ok := strings.Cut(line, "has invalid keys: "); ok {
			var named []string
			for _, k := range strings.Split(keys, ",") {
				named = append(named, section+"."+strings.TrimSpace(k))
			}
			line = "unknown key(s) " + strings.Join(named, ", ")
		}
		out = append(out, strings.TrimPrefix(line, "* "))
	}
	return strings.Join(out, "; ")
}

// bindEnvKeys binds prefix.<tag> to GROVE_<PREFIX>_<TAG> for every
// mapstructure-tagged field of the struct type t, recursively, so that
// viper's Unmarshal sees environment values for keys no flag or config
// file mentions.
func bindEnvKeys(v *viper.Viper, prefix string, t reflect.Type) error {
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		key := prefix + "." + tag
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
			if err := bindEnvKeys(v, key, f.Type); err != nil {
				return err
			}
			continue
		}
		if err := v.BindEnv(key); err != nil {
			return err
		}
	}
	return nil
}

// serveDatabase checks the database a server is started on: a read-only
// server needs one; a writable server also starts on an empty directory
// (clients fill it through the write routes), never on a missing one.
func serveDatabase(dir string, readOnly bool) error {
	if readOnly {
		return requireDatabase(dir)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return noDatabase(dir)
	} else if err != nil {
		return err
	}
	return nil
}

// mountCayley gives the server kg's Cayley quad store, or, for a backend
// without one (sparql), the reason, which the /cayley/ routes answer with.
func mountCayley(deps *server.Deps, kg store.KG) {
	if qs, err := quadStoreOf(kg); err == nil {
		deps.QuadStore = qs
	} else {
		deps.NoCayley = err
	}
}
