// Command grove is Grove's command-line interface: ingest knowledge-graph
// dumps into a local database, query it, answer questions with the
// reasoners, serve it over HTTP and run evaluations.
//
// Settings come from flags, then GROVE_* environment variables, then a
// config file (--config, or grove.yaml in the user config directory), then
// defaults.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := interrupted(ctx, newApp().root().ExecuteContext(ctx))
	stop()
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "grove:", err)
		os.Exit(1)
	}
}

// interrupted makes err, the error of a command whose context a signal
// cancelled, say so first: the store's own error may be only what the
// cancellation did to it (a socket's "i/o timeout").
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	var ee exitError
	if errors.As(err, &ee) {
		return err
	}
	return fmt.Errorf("interrupted (%v) before the command finished: %w", context.Cause(ctx), err)
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
