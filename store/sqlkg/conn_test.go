package sqlkg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/grove-kg/grove/store"
)

// TestIdleBound: an operation whose context has no deadline, whether it
// can be cancelled (a CLI command's) or not (Cayley's), fails once the
// socket has been silent for the idle bound and the server does not
// answer a probe; not while bytes keep coming, nor while the server
// answers probes (a busy statement). An operation with a deadline is left
// to its deadline. (Before, a cancellable context without a deadline was
// left to its cancellation: a CLI command waited on a stopped server for
// ever.)
func TestIdleBound(t *testing.T) {
	const idle = 200 * time.Millisecond
	alive := func(context.Context) error { return nil }
	gone := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	refused := func(context.Context) error {
		return fmt.Errorf("open: %w", &pq.Error{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"})
	}
	cases := []struct {
		name    string
		trickle int    // bytes the server sends, one per idle/2
		ctx     string // "background", "cancel" (cancelled after 5 idle) or "deadline" (3 idle ahead)
		probe   func(context.Context) error
		want    int           // bytes read before the read fails
		idleErr bool          // the read fails with ErrIdleTimeout
		after   time.Duration // the read fails after this long (from its last byte), and before 2 idle more
	}{
		{"progressing without a context", 6, "background", nil, 6, true, idle},
		{"silent without a context", 0, "background", nil, 0, true, idle},
		{"silent with a cancellable context", 0, "cancel", nil, 0, true, idle},
		{"silent with a deadline", 0, "deadline", nil, 0, false, 3 * idle},
		{"busy: the server answers probes", 0, "cancel", alive, 0, false, 5 * idle},
		{"busy and full: the server refuses the probe's connection", 0, "cancel", refused, 0, false, 5 * idle},
		{"stopped: the server answers no probe", 0, "cancel", gone, 0, true, idle + probeBound(idle)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			defer server.Close()
			w := &watchedConn{idle: idle}
			w.setSocket(client)
			w.setProbe(c.probe)
			start := time.Now() // before the context's timers, so took >= their time when they fire
			ctx := context.Background()
			switch c.ctx {
			case "cancel":
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				time.AfterFunc(5*idle, cancel)
			case "deadline":
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 3*idle)
				defer cancel()
			}
			w.watch(ctx)
			go func() {
				for range c.trickle {
					time.Sleep(idle / 2)
					if _, err := server.Write([]byte{1}); err != nil {
						return
					}
				}
			}()
			s := socket{Conn: client, w: w}
			n, err := io.ReadFull(s, make([]byte, c.trickle+1))
			took := time.Since(start)
			if n != c.want || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("read %d bytes, %v; want %d and a deadline error", n, err, c.want)
			}
			err = w.explain(err)
			idleErr := errors.Is(err, ErrIdleTimeout)
			min := time.Duration(c.trickle)*idle/2 + c.after
			if idleErr != c.idleErr || took < min || took > min+2*idle {
				t.Errorf("the read failed after %v with %v (idle error %v); want after %v, idle error %v",
					took, err, idleErr, min, c.idleErr)
			}
			if c.ctx != "background" && !c.idleErr && !errors.Is(err, ctx.Err()) {
				t.Errorf("the read ended by its context failed with %v, want an error wrapping %v", err, ctx.Err())
			}
		})
	}
}

// silentServer listens on loopback, accepts connections and never
// answers; it closes them and itself when the test ends.
func silentServer(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return ln
}

// TestConnectSilentIdle: a connection Cayley opens without a context
// (the watched driver's Open) to a server that accepts and never answers
// fails after the idle bound.
func TestConnectSilentIdle(t *testing.T) {
	ln := silentServer(t)
	const idle = 300 * time.Millisecond
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		conn, err := newConnector("postgres://grove@"+ln.Addr().String()+"/grove?sslmode=disable", idle)
		if err != nil {
			done <- err
			return
		}
		addr, release := cayleyAddr(conn)
		defer release()
		c, err := watchedDriver{}.Open(addr)
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrIdleTimeout) || !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("connect to a silent server: %v, want an error wrapping ErrIdleTimeout and store.ErrUnavailable", err)
		}
		t.Logf("failed after %v: %v", time.Since(start), err)
	case <-time.After(10 * time.Second):
		t.Fatal("connect to a silent server hangs past the idle bound")
	}
}

// TestCayleyAddr: Cayley is given a handle of the connector, never the
// database URL (it logs the address when a connection fails); a handle
// resolves while registered, and nothing else does.
func TestCayleyAddr(t *testing.T) {
	const dsn = "postgres://u:secret@h/db"
	c, err := newConnector(dsn, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	addr, release := cayleyAddr(c)
	if strings.Contains(addr, "secret") || strings.Contains(addr, "h/db") {
		t.Errorf("address %q names the database", addr)
	}
	if got, err := connectorAt(addr); err != nil || got != c {
		t.Errorf("connectorAt(%q) = %v, %v; want the registered connector", addr, got, err)
	}
	if other, release2 := cayleyAddr(c); other == addr {
		t.Errorf("two registrations share the handle %q", addr)
	} else {
		release2()
	}
	release()
	for _, a := range []string{addr, dsn, ""} {
		if _, err := connectorAt(a); err == nil {
			t.Errorf("connectorAt(%q) resolved", a)
		}
	}
}

// TestConnectSilentDeadline: a connection opened for a request with a
// deadline far ahead (a server request's) to a server that accepts and
// never answers fails after the idle bound, with an error that says so
// (ErrIdleTimeout, store.ErrUnavailable), not at the request's deadline.
func TestConnectSilentDeadline(t *testing.T) {
	ln := silentServer(t)
	const idle = 300 * time.Millisecond
	conn, err := newConnector("postgres://grove@"+ln.Addr().String()+"/grove?sslmode=disable", idle)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	c, err := conn.Connect(ctx)
	if err == nil {
		c.Close()
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("connect took %v, want about the idle bound %v", took, idle)
	}
	if !errors.Is(err, ErrIdleTimeout) || !errors.Is(err, store.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("connect to a silent server: %v, want an error wrapping ErrIdleTimeout and store.ErrUnavailable", err)
	}
}

// TestExplainError: an error that holds ErrIdleTimeout's text but lost
// the chain (Cayley's SQL iterator formats with %v) is made to wrap it
// again, so that it matches store.ErrUnavailable; other errors stay as
// they are.
func TestExplainError(t *testing.T) {
	lost := fmt.Errorf("sql query failed: %v\nquery: SELECT 1", fmt.Errorf("%w (5s): read: i/o timeout", ErrIdleTimeout))
	other := errors.New("sql query failed: relation does not exist")
	tests := []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"nil", nil, false},
		{"wrapped", fmt.Errorf("lookup: %w", ErrIdleTimeout), true},
		{"chain lost", lost, true},
		{"other", other, false},
	}
	qs := &quadStore{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := qs.ExplainError(tc.err)
			if errors.Is(got, store.ErrUnavailable) != tc.unavailable || errors.Is(got, ErrIdleTimeout) != tc.unavailable {
				t.Errorf("ExplainError(%v) = %v; unavailable %v, want %v", tc.err, got, !tc.unavailable, tc.unavailable)
			}
			if !tc.unavailable && got != tc.err {
				t.Errorf("ExplainError(%v) = %v, want it unchanged", tc.err, got)
			}
		})
	}
}
