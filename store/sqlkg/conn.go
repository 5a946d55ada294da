package sqlkg

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
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

// connector opens lib/pq connections whose I/O is bounded by the context
// of the operation in progress.
type connector struct {
	dsn string
}

// newConnector checks dsn the way lib/pq does.
func newConnector(dsn string) (*connector, error) {
	if _, err := pq.NewConnector(dsn); err != nil {
		return nil, err
	}
	return &connector{dsn: dsn}, nil
}

// Connect opens one connection; ctx bounds the dial and the startup
// handshake.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	pc, err := pq.NewConnector(c.dsn)
	if err != nil {
		return nil, err
	}
	w := &watchedConn{}
	pc.Dialer(&watchDialer{w: w})
	w.watch(ctx)
	conn, err := pc.Connect(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = errors.Join(ctxErr, err)
		}
		return nil, err
	}
	w.Conn = conn
	return w, nil
}

// Driver is lib/pq's driver.
func (c *connector) Driver() driver.Driver { return &pq.Driver{} }

// watchDialer dials TCP or Unix sockets and hands the socket to its
// watchedConn.
type watchDialer struct {
	w *watchedConn
	d net.Dialer
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
	nc, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	d.w.setSocket(nc)
	return nc, nil
}

// watchedConn is a lib/pq connection whose socket deadline follows the
// context of the latest operation started on it.
type watchedConn struct {
	driver.Conn

	mu   sync.Mutex
	nc   net.Conn
	ctx  context.Context
	stop func() bool
	gen  uint64
}

// past is a deadline that has passed: a read or write blocked on the
// socket returns at once.
var past = time.Unix(1, 0)

func (w *watchedConn) setSocket(nc net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nc = nc
	if w.ctx != nil && w.ctx.Err() != nil {
		_ = nc.SetDeadline(past)
	}
}

// watch makes ctx the context of the operation starting: the socket's
// deadline is cleared now and passes when ctx is done (until the next
// operation starts). An operation's later reads (rows of a query,
// Commit) stay under its context.
func (w *watchedConn) watch(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.gen++
	gen := w.gen
	w.ctx = ctx
	if w.nc != nil {
		_ = w.nc.SetDeadline(time.Time{})
	}
	if ctx.Done() == nil {
		return
	}
	w.stop = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.gen == gen && w.nc != nil {
			_ = w.nc.SetDeadline(past)
		}
	})
}

func (w *watchedConn) Close() error {
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.gen++
	w.mu.Unlock()
	return w.Conn.Close()
}

func (w *watchedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	w.watch(ctx)
	return w.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (w *watchedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	w.watch(ctx)
	return w.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (w *watchedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	w.watch(ctx)
	return w.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (w *watchedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	w.watch(ctx)
	st, err := w.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &watchedStmt{Stmt: st, w: w}, nil
}

func (w *watchedConn) Ping(ctx context.Context) error {
	w.watch(ctx)
	return w.Conn.(driver.Pinger).Ping(ctx)
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
