package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cayleygraph/cayley/graph"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
)

// Server is Grove's HTTP server over one knowledge graph. Build it with New,
// mount Handler anywhere or run it with Serve; Run does everything for the
// command line.
type Server struct {
	cfg  Config
	deps Deps
	kg   store.KG
	// warner, if set, reports the store's unfinished writes (the kg
	// given to New, when it is one).
	warner  warner
	log     *slog.Logger
	metrics *metrics
	routes  []route
	handler http.Handler
	cayley  http.Handler
	ask     *asker
	// hasCayley is set when cayley serves a Cayley quad store; without
	// one, cayley refuses every request and the server is read-only.
	hasCayley bool

	hasToken  bool
	tokenHash [32]byte
	idPrefix  string
	reqSeq    atomic.Uint64
	ready     atomic.Bool
	started   time.Time
	serving   atomic.Bool
	// runs tracks reasoning runs so shutdown can wait for them.
	runs sync.WaitGroup
	// requests tracks requests inside handlers, likewise.
	requests gate
}

// New builds a Server over kg. It validates cfg (reading Config.TokenFile),
// and refuses a non-loopback Config.Addr without a token.
func New(cfg Config, kg store.KG, deps Deps) (*Server, error) {
	if kg == nil {
		return nil, errors.New("server: no knowledge graph")
	}
	cfg = cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := checkExposure(cfg.Addr, cfg.Token); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, deps: deps, log: deps.Logger, metrics: newMetrics(), started: time.Now()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.kg = newMeteredKG(kg, s.metrics.kgLatency)
	if w, ok := kg.(warner); ok {
		s.warner = w
	}
	if cfg.Token != "" {
		s.hasToken, s.tokenHash = true, sha256.Sum256([]byte(cfg.Token))
	}
	s.idPrefix = randomPrefix()
	if deps.QuadStore != nil {
		h, err := s.newCayley(deps.QuadStore)
		if err != nil {
			return nil, err
		}
		s.cayley, s.hasCayley = h, true
	} else {
		s.cayley = s.newNoCayley(noCayleyReason(kg, deps.NoCayley))
	}
	var err error
	if s.ask, err = newAsker(s); err != nil {
		return nil, err
	}
	s.handler = s.buildMux()
	s.ready.Store(true)
	return s, nil
}

// warner is a store that reports its unfinished writes, one sentence
// each saying what to do (engine.DB.Warnings: an interrupted ingest,
// grove ingest --incremental or --delete run, node delete or grove
// optimize run).
type warner interface {
	Warnings() ([]string, error)
}

// storeWarnings returns the store's warnings (see warner); nil for a
// store that has none or reports none.
func (s *Server) storeWarnings() ([]string, error) {
	if s.warner == nil {
		return nil, nil
	}
	return s.warner.Warnings()
}

// logWarnings logs the store's warnings when the server starts, so that
// its log says why writes are refused or what data is partly written.
func (s *Server) logWarnings() {
	ws, err := s.storeWarnings()
	if err != nil {
		s.log.Error("read the store's records of unfinished writes", "err", err)
	}
	for _, w := range ws {
		s.log.Warn("the database needs attention: "+w, "read_only", s.readOnly())
	}
}

// randomPrefix makes request ids unique across restarts.
func randomPrefix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b) + "-"
}

// Handler returns the server's HTTP handler (every route, with auth,
// limits, metrics and access logs applied).
func (s *Server) Handler() http.Handler { return s.handler }

// Config returns the effective configuration (defaults applied). The token
// is never included.
func (s *Server) Config() Config {
	c := s.cfg
	c.Token = ""
	return c
}

// Serve answers HTTP requests on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, lets in-flight requests
// finish within Config.ShutdownTimeout, cancels what is still running after
// that, and waits for every reasoning run to end before returning. A
// non-loopback listener is refused when no token is configured. Serve may
// be called once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !s.serving.CompareAndSwap(false, true) {
		return errors.New("server: Serve called twice")
	}
	if err := checkExposure(ln.Addr().String(), s.cfg.Token); err != nil {
		ln.Close()
		return err
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.cfg.RequestTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	s.logWarnings() // before any request is answered
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "read_only", s.readOnly(), "auth", s.hasToken,
		"cayley", s.hasCayley, "ask", s.ask.enabled())
	select {
	case err := <-errc:
		s.ready.Store(false)
		cancelBase()
		s.runs.Wait()
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.shutdown(srv, cancelBase)
	<-errc
	return nil
}

// shutdown drains the server within the deadline, then cancels the rest.
func (s *Server) shutdown(srv *http.Server, cancel context.CancelFunc) {
	s.ready.Store(false)
	s.log.Info("shutting down", "deadline", s.cfg.ShutdownTimeout)
	sctx, stop := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer stop()
	if err := srv.Shutdown(sctx); err != nil {
		s.log.Warn("shutdown deadline passed; cancelling remaining requests", "err", err)
		cancel()
		_ = srv.Close()
	}
	s.runs.Wait()
	// Handlers still inside the store after Close (which does not wait
	// for them) finish before Run closes the database: their contexts are
	// cancelled, so they end at their next check.
	s.requests.close(func(n int) { s.log.Warn("waiting for requests still running", "requests", n) })
	s.log.Info("shut down")
}

// Run is `grove serve`: it opens the database in cfg.DB (read-only when
// cfg.ReadOnly), mounts the Cayley API over it when it is a Cayley
// QuadStore, listens on cfg.Addr and serves until ctx is cancelled or the
// process receives SIGINT or SIGTERM; then it shuts down gracefully and
// closes the database.
func Run(ctx context.Context, cfg Config, deps Deps) (err error) {
	cfg = cfg.Defaults()
	if cfg.DB == "" && deps.KG == nil {
		return errors.New("serve: no database directory (--db)")
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := checkExposure(cfg.Addr, cfg.Token); err != nil {
		return err
	}
	kg := deps.KG
	if kg == nil {
		db, err := engine.Open(cfg.DB, engine.Options{ReadOnly: cfg.ReadOnly, Logger: deps.Logger})
		if err != nil {
			return err
		}
		defer func() {
			if cerr := db.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close database: %w", cerr)
			}
		}()
		kg = db
	}
	if deps.QuadStore == nil {
		if qs, ok := kg.(graph.QuadStore); ok {
			deps.QuadStore = qs
		}
	}
	s, err := New(cfg, kg, deps)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("serve: %w: another process listens there; choose another address with --addr "+
			"(or serve.addr, GROVE_SERVE_ADDR)", err)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if deps.Listening != nil {
		deps.Listening(ln.Addr().String())
	}
	return s.Serve(ctx, ln)
}
