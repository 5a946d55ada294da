package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/server"
	"github.com/grove-kg/grove/store"
)

func (a *app) serveCmd() *cobra.Command {
	var cfg server.Config
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the KG interface, Cayley's query API, the reasoners and a web page over HTTP",
		Long: `Serve the database over HTTP: the JSON API under /v1 (documented at /v1/openapi.json),
Cayley's HTTP API under /cayley/, /metrics, /healthz, /readyz, and a web page at / that
searches entities and shows a reasoning tree growing live. Binding to a non-loopback
address requires --token-file. The model settings are the server's own; clients choose
the method and its parameters within the server's caps.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.DB = a.v.GetString("db")
			var kg store.KG
			if b, err := a.backend(); err != nil {
				return err
			} else if b != backendBadger {
				var closeKG io.Closer
				if kg, closeKG, err = a.openKG(cmd.Context()); err != nil {
					return err
				}
				defer closeKG.Close()
			} else if _, err := os.Stat(cfg.DB); err != nil {
				return err
			}
			model, closer, err := a.openModel()
			if err != nil {
				return err
			}
			defer closer.Close()
			deps := server.Deps{Model: model, Reasoners: registry(), Logger: a.log, KG: kg}
			if kg != nil {
				if qs, err := quadStoreOf(kg); err == nil {
					deps.QuadStore = qs
				}
			}
			if url := a.v.GetString("llm.url"); url != "" {
				deps.Redact = append(deps.Redact, url)
			}
			if key := os.Getenv(a.v.GetString("llm.api_key_env")); key != "" {
				deps.Redact = append(deps.Redact, key)
			}
			return server.Run(cmd.Context(), cfg, deps)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Addr, "addr", server.DefaultAddr, "listen address")
	fl.BoolVar(&cfg.ReadOnly, "read-only", false, "reject every write")
	fl.StringVar(&cfg.TokenFile, "token-file", "", "file holding the bearer token clients must send (required off loopback)")
	fl.IntVar(&cfg.MaxConcurrentRuns, "max-runs", 2, "reasoning runs in flight before /v1/ask answers 429")
	a.modelFlags(fl)
	return cmd
}
