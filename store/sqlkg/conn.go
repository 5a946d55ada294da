package sqlkg

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/lib/pq"
)

// lib/pq honours a context only in part: it dials with it, and on
// cancellation it sends PostgreSQL a cancel request over a second
// connection, but it keeps reading the first until the server answers.
// A server that accepts connections and never answers (a stopped
// process, a dead link behind a proxy) thus hangs Open's startup
// handshake and every query past its deadline. The connector below ties
// each operation's context to the connection's socket: once the context
// is done, the socket's deadline passes, the blocked read fails and the
// call returns (lib/pq then discards the connection, as it does after
// any cancellation).

// A call whose context can never be done (context.Background: Cayley's
// NameOf, Stats, writes and schema creation pass no context at all) is
// bounded by the connector's idle bound instead: while such a call is in
// progress, the socket's deadline is idle ahead and each read or write
// that moves a byte pushes it idle ahead again, so a long call that keeps
// exchanging data (rows streaming in, COPY data streaming out) is not
// cut, and a server silent for idle fails the call with ErrIdleTimeout.
// Opening a connection (dial, TLS, startup) is bounded by idle as well as
// by its context: a handshake is never legitimately silent for long.
//
// lib/pq sends a cancel request over a second connection it dials with
// the same dialer; that socket gets a deadline of its own
// (cancelRequestBound), so a silent server cannot hold the goroutine
// lib/pq sends it from.

// ErrIdleTimeout is wrapped by the error of a call without a deadline
// that the database left unanswered for the idle bound (Config.IdleTimeout).
var ErrIdleTimeout = errors.New("the database sent nothing for the idle bound")

// cancelRequestBound bounds a cancel request's connection, dial included
// (lib/pq's own dial timeout for it is 10s).
const cancelRequestBound = 10 * time.Second

// connector opens lib/pq connections whose I/O is bounded by the context
// of the operation in progress, or by idle when that context can never be
// done (idle 0: no bound).
type connector struct {
	dsn  string
	idle time.Duration
}

// newConnector checks dsn the way lib/pq does.
func newConnector(dsn string, idle time.Duration) (*connector, error) {
	if _, err := pq.NewConnector(dsn); err != nil {
		return nil, err
	}
	return &connector{dsn: dsn, idle: max(idle, 0)}, nil
}

// Connect opens one connection; ctx and the idle bound bound the dial and
// the startup handshake.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	pc, err := pq.NewConnector(c.dsn)
	if err != nil {
		return nil, err
	}
	w := &watchedConn{idle: c.idle}
	pc.Dialer(&watchDialer{w: w, d: net.Dialer{Timeout: c.idle}})
	w.watchOp(ctx, true)
	conn, err := pc.Connect(ctx)
	if err != nil {
		err = w.explain(err)
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = errors.Join(ctxErr, err)
		}
		return nil, err
	}
	w.Conn = conn
	return w, nil
}

// Driver is the watched driver.
func (c *connector) Driver() driver.Driver { return watchedDriver{} }

// watchDialer dials TCP or Unix sockets. The first socket it dials is
// the connection's, handed to its watchedConn; later ones carry lib/pq's
// cancel requests.
type watchDialer struct {
	w      *watchedConn
	d      net.Dialer
	dialed bool
}

func (d *watchDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d *watchDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d *watchDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.w.mu.Lock()
	first := !d.dialed
	d.dialed = true
	d.w.mu.Unlock()
	if !first {
		return dialCancel(ctx, network, address)
	}
	nc, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	d.w.setSocket(nc)
	return socket{Conn: nc, w: d.w}, nil
}

// dialCancel dials the connection of a cancel request, bounded by
// cancelRequestBound from dial to close.
func dialCancel(ctx context.Context, network, address string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cancelRequestBound)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	if err := nc.SetDeadline(deadline); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}

// socket is a connection's socket that reports each read or write that
// moved a byte to its watchedConn (see watchedConn.progress).
type socket struct {
	net.Conn
	w *watchedConn
}

func (s socket) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	if n > 0 {
		s.w.progress()
	}
	return n, err
}

func (s socket) Write(p []byte) (int, error) {
	n, err := s.Conn.Write(p)
	if n > 0 {
		s.w.progress()
	}
	return n, err
}

// watchedConn is a lib/pq connection whose socket deadline follows the
// context of the latest operation started on it, or the idle bound.
type watchedConn struct {
	driver.Conn
	idle time.Duration

	mu     sync.Mutex
	nc     net.Conn
	ctx    context.Context
	stop   func() bool
	gen    uint64
	idling bool // the operation in progress is bounded by idle
	done   bool // its context is done
}

// past is a deadline that has passed: a read or write blocked on the
// socket returns at once.
var past = time.Unix(1, 0)

func (w *watchedConn) setSocket(nc net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nc = nc
	switch {
	case w.done || (w.ctx != nil && w.ctx.Err() != nil):
		_ = nc.SetDeadline(past)
	case w.idling:
		_ = nc.SetDeadline(time.Now().Add(w.idle))
	}
}

// watch makes ctx the context of the operation starting (see watchOp);
// the idle bound applies when ctx can never be done.
func (w *watchedConn) watch(ctx context.Context) {
	w.watchOp(ctx, ctx.Done() == nil)
}

// watchOp makes ctx the context of the operation starting: the socket's
// deadline is cleared now (set idle ahead when idle applies) and passes
// when ctx is done (until the next operation starts). An operation's
// later reads (rows of a query, Commit) stay under its context.
func (w *watchedConn) watchOp(ctx context.Context, idle bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.gen++
	gen := w.gen
	w.ctx = ctx
	w.idling = idle && w.idle > 0
	w.done = false
	if w.nc != nil {
		deadline := time.Time{}
		if w.idling {
			deadline = time.Now().Add(w.idle)
		}
		_ = w.nc.SetDeadline(deadline)
	}
	if ctx.Done() == nil {
		return
	}
	w.stop = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.gen == gen {
			w.done = true
			if w.nc != nil {
				_ = w.nc.SetDeadline(past)
			}
		}
	})
}

// progress pushes the deadline of an operation bounded by idle forward
// after a read or write that moved a byte.
func (w *watchedConn) progress() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idling && !w.done && w.nc != nil {
		_ = w.nc.SetDeadline(time.Now().Add(w.idle))
	}
}

// explain wraps ErrIdleTimeout around err when err is the socket's
// timeout in an operation bounded by idle.
func (w *watchedConn) explain(err error) error {
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	w.mu.Lock()
	idling, done := w.idling, w.done
	w.mu.Unlock()
	if !idling || done {
		return err
	}
	return fmt.Errorf("%w (%v): %w", ErrIdleTimeout, w.idle, err)
}

// Close ends the connection. The context of the last operation may have
// ended since (a request's context is cancelled once it is answered), so
// the socket's deadline is reset to closeBound first: lib/pq's goodbye
// message must get through, and a silent server cannot hold Close longer.
func (w *watchedConn) Close() error {
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.gen++
	w.idling, w.done = false, false
	if w.nc != nil {
		_ = w.nc.SetDeadline(time.Now().Add(closeBound))
	}
	w.mu.Unlock()
	return w.Conn.Close()
}

// closeBound bounds closing a connection.
const closeBound = 5 * time.Second

func (w *watchedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	w.watch(ctx)
	tx, err := w.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	return tx, w.explain(err)
}

func (w *watchedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	w.watch(ctx)
	rows, err := w.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	return rows, w.explain(err)
}

func (w *watchedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	w.watch(ctx)
	res, err := w.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	return res, w.explain(err)
}

func (w *watchedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	w.watch(ctx)
	st, err := w.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, w.explain(err)
	}
	return &watchedStmt{Stmt: st, w: w}, nil
}

func (w *watchedConn) Ping(ctx context.Context) error {
	w.watch(ctx)
	return w.explain(w.Conn.(driver.Pinger).Ping(ctx))
}

func (w *watchedConn) ResetSession(ctx context.Context) error {
	if r, ok := w.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (w *watchedConn) IsValid() bool {
	if v, ok := w.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// watchedStmt is a prepared statement (COPY included) of a watchedConn.
type watchedStmt struct {
	driver.Stmt
	w *watchedConn
}

func (s *watchedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.w.watch(ctx)
	res, err := s.exec(ctx, args)
	return res, s.w.explain(err)
}

func (s *watchedStmt) exec(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if ec, ok := s.Stmt.(driver.StmtExecContext); ok {
		return ec.ExecContext(ctx, args)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Stmt.Exec(plainValues(args)) //nolint:staticcheck // lib/pq's COPY statement has no ExecContext
}

func (s *watchedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.w.watch(ctx)
	rows, err := s.query(ctx, args)
	return rows, s.w.explain(err)
}

func (s *watchedStmt) query(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if qc, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return qc.QueryContext(ctx, args)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Stmt.Query(plainValues(args)) //nolint:staticcheck // as in ExecContext
}

func plainValues(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}
