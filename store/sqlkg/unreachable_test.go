package sqlkg_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sqlkg"
)

// stop makes the proxy's server look stopped: its connections are
// dropped and new ones refused (the port is closed).
func (p *stallProxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestStoppedServer: once PostgreSQL is down (its connections dropped,
// new ones refused), the KG's calls and the quad store's reads fail with
// an error matching store.ErrUnavailable (the server's 503), where the
// bare "connection refused" answered 500; the dial's error stays in the
// chain for the log.
func TestStoppedServer(t *testing.T) {
	kg, p := openStalled(t, sqlkg.Config{IdleTimeout: 2 * time.Second})
	ctx := context.Background()
	if _, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	p.stop()
	qs := kg.QuadStore()
	explain := qs.(interface{ ExplainError(error) error })
	cases := []struct {
		name string
		call func(context.Context) error
	}{
		{"Graphs", func(ctx context.Context) error {
			_, err := kg.Graphs(ctx)
			return err
		}},
		{"Entity", func(ctx context.Context) error {
			_, err := kg.Entity(ctx, "beatles")
			return err
		}},
		{"QuadsAllIterator", func(ctx context.Context) error {
			it := qs.QuadsAllIterator().Iterate()
			defer it.Close()
			for it.Next(ctx) {
			}
			return explain.ExplainError(it.Err())
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := c.call(ctx)
			if !errors.Is(err, store.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s on a stopped server: %v; want an error matching store.ErrUnavailable", c.name, err)
			}
			if !strings.Contains(err.Error(), "refused") {
				t.Errorf("%s: %v; want the dial's error in the text", c.name, err)
			}
		})
	}
}
