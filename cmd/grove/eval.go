package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/evalcli"
	"github.com/grove-kg/grove/reasoner/llm"
)

func (a *app) evalCmd() *cobra.Command {
	cmd := evalcli.Command(evalcli.App{
		OpenKG:          a.openKG,
		OpenModel:       func(context.Context) (llm.Model, io.Closer, error) { return a.openModel() },
		ModelConfigured: a.modelConfigured,
		Registry:        registry,
		Logger:          a.log,
		JSON:            a.jsonOut,
		Stdout:          a.stdout,
		Stderr:          a.stderr,
	})
	a.modelFlags(cmd.PersistentFlags())
	return cmd
}
