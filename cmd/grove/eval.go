package main

import (
	"context"
	"io"
	"net/url"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/evalcli"
	"github.com/grove-kg/grove/reasoner/llm"
)

func (a *app) evalCmd() *cobra.Command {
	cmd := evalcli.Command(evalcli.App{
		OpenKG:          a.openKG,
		OpenModel:       func(context.Context) (llm.Model, io.Closer, error) { return a.openModel() },
		ModelConfigured: a.modelConfigured,
		DescribeKG:      a.describeKG,
		Registry:        registry,
		Logger:          a.log,
		JSON:            a.jsonOut,
		Stdout:          a.stdout,
		Stderr:          a.stderr,
	})
	a.modelFlags(cmd.PersistentFlags())
	return cmd
}

// describeKG names the configured store for eval manifests and reports:
// the backend and the database directory or endpoint, without user
// information or query parameters (which may hold credentials).
func (a *app) describeKG() string {
	b, err := a.backend()
	if err != nil {
		return ""
	}
	switch b {
	case backendSPARQL:
		return b + " " + redactURL(a.v.GetString("sparql.url"))
	case backendSQL:
		return b + " " + redactURL(a.v.GetString("sql.url"))
	}
	db := a.v.GetString("db")
	if abs, err := filepath.Abs(db); err == nil {
		db = abs
	}
	return b + " " + db
}

// redactURL keeps a URL's scheme, host and path.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "(endpoint not shown)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
