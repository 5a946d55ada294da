package sqlkg_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	cquery "github.com/cayleygraph/cayley/query"
	_ "github.com/cayleygraph/cayley/query/gizmo" // Gizmo queries
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

// stallProxy forwards TCP connections to target until stall is set; then
// it keeps every connection open and forwards nothing more, like a
// server that stopped answering (a stopped process, a dead link).
type stallProxy struct {
	ln    net.Listener
	stall atomic.Bool
	mu    sync.Mutex
	conns []net.Conn
}

func startStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			if target == "" {
				continue // accept and never answer
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, up)
			p.mu.Unlock()
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
	return p
}

func (p *stallProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			for p.stall.Load() {
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}

// within runs f and fails the test when it has not returned after d.
func within(t *testing.T, d time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s hangs past its context (still running after %v)", what, d)
		return nil
	}
}

// TestOpenSilentServer: a server that accepts the connection and never
// answers fails Open when its context ends, with an error wrapping the
// context's.
func TestOpenSilentServer(t *testing.T) {
	p := startStallProxy(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := within(t, 5*time.Second, "Open", func() error {
		kg, err := sqlkg.Open(ctx, sqlkg.Config{URL: "postgres://grove@" + p.ln.Addr().String() + "/grove?sslmode=disable"})
		if err == nil {
			kg.Close()
		}
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Open on a silent server: %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

// TestStalledServer: once the server stops answering, every call returns
// when its context ends, with an error wrapping the context's; Load too.
func TestStalledServer(t *testing.T) {
	kg, p := openStalled(t, sqlkg.Config{})
	ctx := context.Background()
	if _, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	if e, err := kg.Entity(ctx, "beatles"); err != nil || e.Label != "The Beatles" {
		t.Fatalf("entity before the stall = %+v, %v", e, err)
	}
	p.stall.Store(true)
	calls := map[string]func(context.Context) error{
		"Entity": func(ctx context.Context) error { _, err := kg.Entity(ctx, "beatles"); return err },
		"Relations": func(ctx context.Context) error {
			_, err := kg.Relations(ctx, []string{"beatles"}, store.Both)
			return err
		},
		"Search": func(ctx context.Context) error { _, err := kg.Search(ctx, "", "Beatles", 5); return err },
		"Load": func(ctx context.Context) error {
			_, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads())
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := within(t, 15*time.Second, name, func() error { return call(ctx) })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s on a stalled server: %v, want an error wrapping context.DeadlineExceeded", name, err)
			}
		})
	}
}

// TestStalledQuadStore: once the server stops answering, Cayley's quad
// store (what Gizmo, GraphQL and MQL run on) returns too: a call with a
// context when the context ends (ApplyDeltasContext, the server's writes,
// too), a call without one (NameOf, Stats, ApplyDeltas: Cayley passes
// them none) after the idle bound, with an error wrapping
// sqlkg.ErrIdleTimeout.
func TestStalledQuadStore(t *testing.T) {
	const idle = time.Second
	kg, p := openStalled(t, sqlkg.Config{IdleTimeout: idle})
	ctx := context.Background()
	if _, err := kg.Load(ctx, kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	qs := kg.QuadStore()
	gizmo := `g.V("<beatles>").Out().All()`
	if out, err := runGizmo(ctx, qs, gizmo); err != nil || len(out) == 0 {
		t.Fatalf("gizmo before the stall = %v, %v", out, err)
	}
	p.stall.Store(true)
	cases := []struct {
		name string
		ctx  bool // the call takes a context (ended after 300ms)
		call func(context.Context) error
	}{
		{"Gizmo", true, func(ctx context.Context) error {
			_, err := runGizmo(ctx, qs, gizmo)
			return err
		}},
		{"QuadsAllIterator", true, func(ctx context.Context) error {
			it := qs.QuadsAllIterator().Iterate()
			defer it.Close()
			for it.Next(ctx) {
			}
			return it.Err()
		}},
		{"ApplyDeltasContext", true, func(ctx context.Context) error {
			a, ok := qs.(interface {
				ApplyDeltasContext(context.Context, []graph.Delta, graph.IgnoreOpts) error
			})
			if !ok {
				return errors.New("the quad store has no ApplyDeltasContext")
			}
			err := a.ApplyDeltasContext(ctx, []graph.Delta{{Action: graph.Add,
				Quad: quad.MakeIRI("a", "b", "c", "")}}, graph.IgnoreOpts{IgnoreDup: true})
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("want an error wrapping context.DeadlineExceeded: %w", err)
			}
			return err
		}},
		{"NameOf", false, func(context.Context) error {
			ref, err := qs.ValueOf(quad.IRI("not looked up before"))
			if err != nil {
				return err
			}
			_, err = qs.NameOf(ref)
			return err
		}},
		{"Stats", false, func(ctx context.Context) error { _, err := qs.Stats(ctx, true); return err }},
		{"ApplyDeltas", false, func(context.Context) error {
			return qs.ApplyDeltas([]graph.Delta{{Action: graph.Add,
				Quad: quad.MakeIRI("a", "b", "c", "")}}, graph.IgnoreOpts{IgnoreDup: true})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if !c.ctx {
				ctx = context.Background()
			}
			start := time.Now()
			err := within(t, 15*time.Second, c.name, func() error { return c.call(ctx) })
			took := time.Since(start)
			switch {
			case err == nil:
				t.Fatalf("%s on a stalled server succeeded", c.name)
			case c.ctx && took > 5*time.Second:
				// Cayley's iterators quote the driver's error (%v), so
				// only the time tells the context's deadline ended it.
				t.Errorf("%s returned after %v, want soon after its context's 300ms", c.name, took)
			case !c.ctx && !errors.Is(err, sqlkg.ErrIdleTimeout):
				t.Errorf("%s on a stalled server: %v, want an error wrapping sqlkg.ErrIdleTimeout", c.name, err)
			case !c.ctx && (took < idle || took > idle+5*time.Second):
				t.Errorf("%s returned after %v, want about the idle bound %v", c.name, took, idle)
			}
			t.Logf("%s: %v after %v", c.name, err, took)
		})
	}
}

// runGizmo runs a Gizmo query on qs the way Cayley does (store/query's
// Guard is left out: Cayley's SQL shapes build only on the SQL store
// itself) and returns its results.
func runGizmo(ctx context.Context, qs graph.QuadStore, q string) ([]any, error) {
	it, err := cquery.Execute(ctx, qs, "gizmo", q, cquery.Options{Limit: 10, Collation: cquery.JSON})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []any
	for it.Next(ctx) {
		out = append(out, it.Result())
	}
	return out, it.Err()
}

// TestCloseAfterCancelledCalls: calls whose contexts are cancelled once
// they returned (as every request's and every evaluated question's are)
// leave connections that still close cleanly.
func TestCloseAfterCancelledCalls(t *testing.T) {
	kg, _ := openPostgres(t)
	if _, err := kg.Load(context.Background(), kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := kg.Entity(ctx, "beatles"); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	time.Sleep(100 * time.Millisecond) // context.AfterFunc runs its function on a goroutine of its own
	if err := kg.Close(); err != nil {
		t.Errorf("Close after cancelled calls: %v", err)
	}
}

// openStalled opens the SQL backend (cfg with its URL set) on a private
// PostgreSQL behind a proxy that can stop answering; the KG is closed when
// the test ends.
func openStalled(t *testing.T, cfg sqlkg.Config) (*sqlkg.KG, *stallProxy) {
	t.Helper()
	pg := testserver.StartPostgres(t)
	u, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := startStallProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	cfg.URL = u.String()
	kg, err := sqlkg.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kg.Close() })
	return kg, p
}

// TestNoDeadline: a call whose context has no deadline (a CLI command's,
// which only a signal cancels; Cayley's context.Background) is bounded by
// the idle bound when the server stops answering, but a statement that is
// silent because it is busy (a big load's INSERT ... SELECT) is not cut:
// the server answers the probe of a fresh connection. A call cancelled
// (by a signal) fails with the cancellation's cause, not a bare socket
// timeout.
func TestNoDeadline(t *testing.T) {
	const idle = time.Second
	kg, p := openStalled(t, sqlkg.Config{IdleTimeout: idle})
	if _, err := kg.Load(context.Background(), kgtest.ExtraGraph, kgtest.ExtraQuads()); err != nil {
		t.Fatal(err)
	}
	interrupted := errors.New("interrupted by the test")
	cases := []struct {
		name  string
		stall bool
		ctx   func() (context.Context, context.CancelFunc)
		call  func(context.Context) error
		check func(err error, took time.Duration) string // what is wrong, or ""
	}{
		{"busy statement, cancellable context", false, cancellable,
			func(ctx context.Context) error { return sqlkg.Exec(ctx, kg, "SELECT pg_sleep(3)") },
			func(err error, _ time.Duration) string { return wantNil(err) }},
		{"busy statement, no context", false, background,
			func(ctx context.Context) error { return sqlkg.Exec(ctx, kg, "SELECT pg_sleep(3)") },
			func(err error, _ time.Duration) string { return wantNil(err) }},
		{"stalled server, cancellable context", true, cancellable,
			func(ctx context.Context) error { _, err := kg.Entity(ctx, "beatles"); return err },
			func(err error, took time.Duration) string {
				if !errors.Is(err, sqlkg.ErrIdleTimeout) || took > idle+10*time.Second {
					return "want an error wrapping sqlkg.ErrIdleTimeout soon after the idle bound"
				}
				return ""
			}},
		{"stalled server, interrupted", true, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(300*time.Millisecond, func() { cancel(interrupted) })
			return ctx, func() { cancel(nil) }
		},
			func(ctx context.Context) error { _, err := kg.Entity(ctx, "beatles"); return err },
			func(err error, took time.Duration) string {
				if !errors.Is(err, context.Canceled) || !strings.Contains(fmt.Sprint(err), interrupted.Error()) ||
					errors.Is(err, sqlkg.ErrIdleTimeout) || took > idle {
					return "want an error wrapping context.Canceled and naming its cause, at the cancellation"
				}
				return ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.stall.Store(c.stall)
			ctx, cancel := c.ctx()
			defer cancel()
			start := time.Now()
			err := within(t, 30*time.Second, c.name, func() error { return c.call(ctx) })
			took := time.Since(start)
			if msg := c.check(err, took); msg != "" {
				t.Errorf("%s: %v after %v; %s", c.name, err, took, msg)
			}
			t.Logf("%s: %v after %v", c.name, err, took)
		})
	}
}

func cancellable() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func background() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

func wantNil(err error) string {
	if err != nil {
		return "want success"
	}
	return ""
}
