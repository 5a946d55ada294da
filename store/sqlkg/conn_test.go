package sqlkg

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
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
			start := time.Now()
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
		c, err := watchedDriver{}.Open(cayleyAddr(idle, "postgres://grove@"+ln.Addr().String()+"/grove?sslmode=disable"))
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

// TestCayleyAddr: the address of the private flavors carries the idle
// bound and the URL, and nothing else is accepted.
func TestCayleyAddr(t *testing.T) {
	cases := []struct {
		addr string
		idle time.Duration
		dsn  string
		ok   bool
	}{
		{cayleyAddr(2*time.Minute, "postgres://u@h/db?a=b c"), 2 * time.Minute, "postgres://u@h/db?a=b c", true},
		{cayleyAddr(0, "host=h user=u"), 0, "host=h user=u", true},
		{"postgres://u@h/db", 0, "", false},
		{"12", 0, "", false},
	}
	for _, c := range cases {
		idle, dsn, err := splitCayleyAddr(c.addr)
		if (err == nil) != c.ok || idle != c.idle || dsn != c.dsn {
			t.Errorf("splitCayleyAddr(%q) = %v, %q, %v", c.addr, idle, dsn, err)
		}
	}
}
