package sqlkg

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestIdleBound: an operation whose context can never be done fails once
// the socket has been silent for the idle bound, and not while bytes keep
// coming; an operation with a context is left to its context.
func TestIdleBound(t *testing.T) {
	const idle = 200 * time.Millisecond
	cases := []struct {
		name    string
		trickle int  // bytes the server sends, one per idle/2
		cancel  bool // the operation's context can be cancelled (and is, after 3 idle)
		want    int  // bytes read before the read fails
	}{
		{"progressing without a context", 6, false, 6},
		{"silent without a context", 0, false, 0},
		{"silent with a context", 0, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			defer server.Close()
			w := &watchedConn{idle: idle}
			w.setSocket(client)
			start := time.Now() // before the cancel timer, so took >= 3*idle when it fires
			ctx := context.Background()
			if c.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(3*idle, cancel)
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
			idleErr := errors.Is(w.explain(err), ErrIdleTimeout)
			switch {
			case c.cancel && (took < 3*idle || idleErr):
				t.Errorf("the read with a context failed after %v (idle error %v), want when the context ended (%v), not idle", took, idleErr, 3*idle)
			case !c.cancel && (!idleErr || took < time.Duration(c.trickle)*idle/2+idle):
				t.Errorf("the read failed after %v (idle error %v), want an idle error %v after the last byte", took, idleErr, idle)
			}
		})
	}
}

// TestConnectSilentIdle: a connection Cayley opens without a context
// (the watched driver's Open) to a server that accepts and never answers
// fails after the idle bound.
func TestConnectSilentIdle(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
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
		if !errors.Is(err, ErrIdleTimeout) {
			t.Errorf("connect to a silent server: %v, want an error wrapping ErrIdleTimeout", err)
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
