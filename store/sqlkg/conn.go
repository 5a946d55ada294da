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

	"github.com/grove-kg/grove/store"
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

// A call whose context has no deadline (context.Background: Cayley's
// NameOf, Stats, writes and schema creation pass no context at all; a
// CLI command's context, which only a signal cancels) is bounded by the
// connector's idle bound as well: while such a call is in progress, a
// timer runs idle ahead and each read or write that moves a byte pushes
// it idle ahead again, so a long call that keeps exchanging data (rows
// streaming in, COPY data streaming out) is not cut. A call with a
// deadline is left to its deadline.
//
// A statement may also be silent because it is busy: a big load's
// set-based INSERT ... SELECT sends nothing for minutes. So when the idle
// bound passes, the connector probes the server on a fresh connection of
// its own (connect and an empty query, within probeBound): a server that
// answers is busy, not gone, and the call goes on for another idle bound;
// a server that does not answer (a stopped process, a dead host) fails the
// call with ErrIdleTimeout. TCP keepalives cannot tell the two apart: the
// kernel answers them for a stopped process, and Go's dialer already
// enables them (they end a call whose link died, after about 2.5 min).
// Opening a connection (dial, TLS, startup) is bounded by idle, with no
// probe, as well as by its context: a handshake is never legitimately
// silent for long.
//
// lib/pq sends a cancel request over a second connection it dials with
// the same dialer; that socket gets a deadline of its own
// (cancelRequestBound), so a silent server cannot hold the goroutine
// lib/pq sends it from.

// ErrIdleTimeout is wrapped by the error of a call without a deadline
// that the database left unanswered for the idle bound (Config.IdleTimeout)
// while it did not answer a fresh connection either. It matches
// store.ErrUnavailable (errors.Is), so callers that know only the store
// package can tell an unanswering database from other failures.
var ErrIdleTimeout error = idleTimeoutError{}

// idleTimeoutError is the type of ErrIdleTimeout.
type idleTimeoutError struct{}

func (idleTimeoutError) Error() string { return "the database sent nothing for the idle bound" }

// Is makes ErrIdleTimeout match store.ErrUnavailable.
func (idleTimeoutError) Is(target error) bool { return target == store.ErrUnavailable }

// unreachableError is the error of a failed dial of the database (a
// stopped server's "connection refused", no route, a name that does not
// resolve) while the caller's context was still live: the database does
// not answer, so it matches store.ErrUnavailable (errors.Is) as an idle
// timeout does, and wraps the dial's error. Its text starts with
// unreachablePrefix, which ExplainError recognises in errors Cayley
// formatted with %v.
type unreachableError struct{ err error }

// unreachablePrefix starts the text of an unreachableError.
const unreachablePrefix = "the database is unreachable: "

func (e *unreachableError) Error() string { return unreachablePrefix + e.err.Error() }

func (e *unreachableError) Unwrap() error { return e.err }

// Is makes an unreachableError match store.ErrUnavailable.
func (e *unreachableError) Is(target error) bool { return target == store.ErrUnavailable }

// dialFailed is the error of a dial that failed with err: an
// unreachableError, unless ctx ended first (then the dial's own error,
// as the cancellation or deadline is the cause).
func dialFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return &unreachableError{err: err}
}

// maxProbeBound bounds the probe of a server silent for the idle bound
// (probeBound).
const maxProbeBound = 10 * time.Second

// probeBound is how long the probe of a server silent for idle may take:
// idle itself, at most maxProbeBound.
func probeBound(idle time.Duration) time.Duration { return min(idle, maxProbeBound) }

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
// the startup handshake. The connection's calls without a deadline probe
// the server when it is silent for the idle bound (see probe).
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	return c.open(ctx, true)
}

// open opens one connection, whose silent calls probe the server when
// probing is set (a probe's own connection does not).
func (c *connector) open(ctx context.Context, probing bool) (*watchedConn, error) {
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
	if probing {
		w.setProbe(c.probe)
	}
	return w, nil
}

// probe checks that the server answers a fresh connection within ctx: it
// connects and sends an empty query.
func (c *connector) probe(ctx context.Context) error {
	w, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer w.Close()
	return w.Ping(ctx)
}

// answered reports whether a probe's error is the server's own answer
// (too many connections, a refused login): it runs, so a silent operation
// is busy, not stalled.
func answered(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe)
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
		return nil, dialFailed(ctx, err)
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

// socket is a connection's socket that reports each read or write, and
// whether it moved a byte, to its watchedConn (see watchedConn.beginIO).
type socket struct {
	net.Conn
	w *watchedConn
}

func (s socket) Read(p []byte) (int, error) {
	s.w.beginIO()
	n, err := s.Conn.Read(p)
	s.w.endIO(n > 0)
	return n, err
}

func (s socket) Write(p []byte) (int, error) {
	s.w.beginIO()
	n, err := s.Conn.Write(p)
	s.w.endIO(n > 0)
	return n, err
}

// watchedConn is a lib/pq connection whose socket deadline follows the
// context of the latest operation started on it, or the idle bound.
type watchedConn struct {
	driver.Conn
	idle time.Duration

	mu sync.Mutex
	nc net.Conn
	// probe checks that the server answers a fresh connection (nil: a
	// silent server fails the operation at once, as in a handshake).
	probe func(context.Context) error
	ctx   context.Context
	stop  func() bool
	timer *time.Timer // the idle check of the operation in progress
	gen   uint64
	inIO  int // reads and writes blocked on the socket
	// last is when the operation in progress last moved a byte (or the
	// server last answered a probe).
	last     time.Time
	idling   bool  // the operation in progress is bounded by idle
	done     bool  // its context is done
	expired  bool  // the idle bound ended it
	probeErr error // why the probe that ended it failed
}

// past is a deadline that has passed: a read or write blocked on the
// socket returns at once.
var past = time.Unix(1, 0)

func (w *watchedConn) setSocket(nc net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nc = nc
	if w.done || w.expired || (w.ctx != nil && w.ctx.Err() != nil) {
		_ = nc.SetDeadline(past)
	}
}

// setProbe sets the probe of a silent server (see watchedConn.probe).
func (w *watchedConn) setProbe(probe func(context.Context) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.probe = probe
}

// watch makes ctx the context of the operation starting (see watchOp);
// the idle bound applies when ctx has no deadline, whether or not it can
// be cancelled.
func (w *watchedConn) watch(ctx context.Context) {
	_, hasDeadline := ctx.Deadline()
	w.watchOp(ctx, !hasDeadline)
}

// watchOp makes ctx the context of the operation starting: the socket's
// deadline is cleared now and passes when ctx is done, or when idle
// applies and a read or write has waited on a silent server for idle
// (see beginIO and idleCheck), until the next operation starts. An operation's later reads (rows of a
// query, Commit) stay under its context.
func (w *watchedConn) watchOp(ctx context.Context, idle bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopWatching()
	w.gen++
	gen := w.gen
	w.ctx = ctx
	w.idling = idle && w.idle > 0
	w.done, w.expired, w.probeErr = false, false, nil
	w.last = time.Now()
	if w.nc != nil {
		_ = w.nc.SetDeadline(time.Time{})
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

// stopWatching stops the context watch and the idle check of the last
// operation; w.mu is held.
func (w *watchedConn) stopWatching() {
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}

// idleCheck runs when operation gen may have been silent for idle: it
// stops when nothing waits on the socket, checks again later when a byte
// moved since, else probes the server and gives the operation another
// idle bound when the server answers, or ends it (the socket's deadline
// passes) when it does not.
func (w *watchedConn) idleCheck(gen uint64) {
	w.mu.Lock()
	if w.gen != gen || !w.idling || w.done {
		w.mu.Unlock()
		return
	}
	if w.inIO == 0 {
		// Nothing waits on the server (the connection is back in the
		// pool, or its caller is busy with rows): the next read or write
		// starts the check again.
		w.timer = nil
		w.mu.Unlock()
		return
	}
	if left := w.idle - time.Since(w.last); left > 0 {
		w.timer = time.AfterFunc(left, func() { w.idleCheck(gen) })
		w.mu.Unlock()
		return
	}
	probe, silentSince := w.probe, w.last
	w.mu.Unlock()
	err := errNoProbe
	if probe != nil {
		ctx, cancel := context.WithTimeout(context.Background(), probeBound(w.idle))
		err = probe(ctx)
		cancel()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen || w.done {
		return
	}
	switch {
	case w.inIO == 0:
		w.timer = nil // the operation stopped waiting meanwhile
		return
	case err == nil || answered(err) || w.last != silentSince:
		// The server answers: the operation is busy, not abandoned.
		w.last = time.Now()
		w.timer = time.AfterFunc(w.idle, func() { w.idleCheck(gen) })
		return
	}
	w.expired, w.probeErr = true, err
	if w.nc != nil {
		_ = w.nc.SetDeadline(past)
	}
}

// errNoProbe is the probe error of an operation that cannot probe (a
// connection's handshake).
var errNoProbe = errors.New("no probe while connecting")

// beginIO records a read or write starting on the socket: in an
// operation bounded by idle, the idle check starts unless it runs.
func (w *watchedConn) beginIO() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inIO++
	if w.idling && w.timer == nil && !w.done && !w.expired {
		w.last = time.Now()
		gen := w.gen
		w.timer = time.AfterFunc(w.idle, func() { w.idleCheck(gen) })
	}
}

// endIO records a read or write ending, and whether it moved a byte.
func (w *watchedConn) endIO(moved bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inIO--
	if moved && w.idling {
		w.last = time.Now()
	}
}

// explain makes err, the socket's timeout, say why the socket's deadline
// passed: it wraps ErrIdleTimeout when the idle bound ended the
// operation, and the context's cause (a deadline, a cancellation, a
// signal) when its context did.
func (w *watchedConn) explain(err error) error {
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	w.mu.Lock()
	ctx, expired, done, probeErr := w.ctx, w.expired, w.done, w.probeErr
	w.mu.Unlock()
	switch {
	case done && ctx != nil:
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			return fmt.Errorf("%w: %w", cause, err)
		}
		return err
	case !expired:
		return err
	case errors.Is(probeErr, errNoProbe):
		return fmt.Errorf("%w (%v): %w", ErrIdleTimeout, w.idle, err)
	}
	return fmt.Errorf("%w (%v) and did not answer a new connection within %v (%v): %w",
		ErrIdleTimeout, w.idle, probeBound(w.idle), probeErr, err)
}

// Close ends the connection. The context of the last operation may have
// ended since (a request's context is cancelled once it is answered), so
// the socket's deadline is reset to closeBound first: lib/pq's goodbye
// message must get through, and a silent server cannot hold Close longer.
func (w *watchedConn) Close() error {
	w.mu.Lock()
	w.stopWatching()
	w.gen++
	w.idling, w.done, w.expired = false, false, false
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
