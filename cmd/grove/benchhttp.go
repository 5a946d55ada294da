package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/cmd/grove/internal/loadgen"
	"github.com/grove-kg/grove/cmd/grove/internal/storebench"
	"github.com/grove-kg/grove/server"
)

// httpSample is one RSS reading during a soak.
type httpSample struct {
	At  time.Duration `json:"at_ns"`
	RSS int64         `json:"rss_bytes"`
}

// benchHTTP serves the database on a loopback port in this process and
// drives Relations and Edges requests at it for a bounded time, sampling
// the process RSS: the throughput figure and the soak in one command.
func (a *app) benchHTTP() *cobra.Command {
	var clients, entities int
	var duration time.Duration
	var ids []string
	cmd := &cobra.Command{
		Use:   "http",
		Short: "Load-test the HTTP KG API on loopback (relations and edges) and watch RSS over the run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := errors.Join(atLeast("--clients", clients, 1), atMost("--clients", clients, loadgen.MaxClients), positive("--duration", duration),
				atLeast("--synthetic", entities, 0)); err != nil {
				return err
			}
			if entities > 0 {
				ids = syntheticIDs(entities)
			}
			if len(ids) == 0 {
				return fmt.Errorf("give --ids or --synthetic")
			}
			db, err := a.openDB(true)
			if err != nil {
				return err
			}
			defer db.Close()
			s, err := server.New(server.Config{}, db, server.Deps{Logger: a.log})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			go s.Serve(ctx, ln)
			var targets []loadgen.Target
			for _, id := range ids {
				targets = append(targets, loadgen.Target{Path: "/v1/relations?dir=both&id=" + url.QueryEscape(id)})
				if rels, err := db.Relations(ctx, []string{id}, 0); err == nil && len(rels) > 0 {
					targets = append(targets, loadgen.Target{Path: "/v1/edges?dir=out&limit=50&id=" + url.QueryEscape(id) +
						"&relation=" + url.QueryEscape(rels[0].ID)})
				}
			}
			samples := []httpSample{}
			done := make(chan struct{})
			go func() {
				start := time.Now()
				t := time.NewTicker(rssInterval(duration))
				defer t.Stop()
				for {
					select {
					case <-done:
						return
					case <-t.C:
						runtime.GC()
						samples = append(samples, httpSample{time.Since(start), storebench.CurrentRSS()})
					}
				}
			}()
			res, err := loadgen.Run(ctx, loadgen.Config{BaseURL: "http://" + ln.Addr().String(), Targets: targets,
				Clients: clients, Duration: duration})
			close(done)
			if err != nil {
				return err
			}
			out := struct {
				Result  loadgen.Result `json:"result"`
				Samples []httpSample   `json:"rss_samples"`
			}{res, samples}
			return a.emit(out, func(w io.Writer) error {
				fmt.Fprintf(w, "%d requests in %s: %.0f req/s, p50 %s, p99 %s, max %s, %d errors\n", res.Requests,
					res.Elapsed.Round(time.Millisecond), res.RPS, res.P50, res.P99, res.Max, res.Errors)
				for _, s := range samples {
					fmt.Fprintf(w, "  t=%s rss=%d MiB\n", s.At.Round(time.Second), s.RSS>>20)
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&clients, "clients", 64, "concurrent clients")
	cmd.Flags().DurationVar(&duration, "duration", 30*time.Second, "how long to run (bounded)")
	cmd.Flags().StringSliceVar(&ids, "ids", nil, "entity ids to query")
	cmd.Flags().IntVar(&entities, "synthetic", 0, "database holds 'grove gen' output with this many entities")
	return cmd
}

// rssInterval is how often a run of d samples RSS: ten times a run, but
// not more often than every millisecond (a GC precedes each sample).
func rssInterval(d time.Duration) time.Duration {
	return max(d/10, time.Millisecond)
}
