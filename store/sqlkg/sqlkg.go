// Package sqlkg is a store.KG on Cayley's SQL quad store (PostgreSQL, or
// CockroachDB through Cayley's cockroach flavor): a graph several machines
// share and write.
//
// Design. The tables are Cayley's own (nodes keyed by the hash of a value,
// quads by the hashes of their four directions), created by Cayley's
// graph/sql Init, so QuadStore() serves Gizmo and Cayley's HTTP API on the
// same data. The KG methods are plain SQL over those tables: an id's hash
// is computed client-side, relation summaries are GROUP BY queries, edges
// are index range reads with LIMIT, and names come from one batched query
// per call. Search matches labels and aliases exactly and by prefix
// through an expression index on the lower-cased first 512 characters of
// each value, which a writable Open adds (schema.go: a read-only Open
// changes no schema). Load
// writes a batch of quads in one transaction, a large one through COPY into
// temporary tables followed by set-based INSERTs, a small one (up to 64
// quads) through direct INSERT/DELETE ... RETURNING statements
// (direct.go), so readers see a load entirely or not at all; Delete and the
// writes of QuadStore (Cayley's HTTP API) take the same path (load.go), so
// every write keeps the node reference counts and the per-graph counts of
// grove_graphs exact in its own transaction.
//
// Connections. Every connection, Grove's and those of Cayley's quad store
// (opened through a private driver and private Cayley flavors, flavor.go),
// is watched (conn.go): a call's context ends its network I/O, since
// lib/pq alone keeps reading a silent server after cancellation, and a
// call without a deadline (Cayley's NameOf, Stats, writes and Init pass
// no context; a CLI command's context only a signal cancels) fails with
// ErrIdleTimeout once the database has been silent for Config.IdleTimeout
// (default 2 minutes) and does not answer a fresh connection either; a
// call that keeps receiving or sending data is not cut, nor one whose
// statement is busy (the server answers the probe). Opening a connection
// is bounded by both.
package sqlkg

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/cayley/graph"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/quad"
	"github.com/lib/pq"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/urlsafe"
)

// Config configures a SQL backend.
type Config struct {
	// URL is a PostgreSQL connection URL (postgres://user@host/db?...).
	URL string
	// Flavor is "postgres" (default) or "cockroach".
	Flavor string
	// IdleTimeout bounds a database call whose context has no deadline
	// (context.Background, as Cayley's NameOf, Stats and writes pass, or
	// a cancellable context such as a CLI command's): when the database
	// has sent and taken nothing for this long, the connection probes the
	// server on a fresh connection (within IdleTimeout, at most 10 s),
	// and the call fails with ErrIdleTimeout when it does not answer. A
	// call that keeps moving data is not cut, nor a single statement that
	// works long before its first row while the server answers the
	// probe. Opening a connection is bounded by it too, without a probe.
	// A call with a deadline is bounded by its deadline only. 0 means
	// DefaultIdleTimeout; a negative value removes the bound.
	IdleTimeout time.Duration
	// ReadOnly opens the database for reading: Open runs no
	// schema-changing statement (a role with SELECT alone may open it),
	// and writes fail with store.ErrReadOnly. A writable open creates
	// what of the schema is missing (see initSchema).
	ReadOnly bool
	Logger   *slog.Logger
}

// DefaultIdleTimeout is Config.IdleTimeout's default.
const DefaultIdleTimeout = 2 * time.Minute

// idleTimeout is the idle bound cfg asks for (0: none).
func (cfg Config) idleTimeout() time.Duration {
	switch {
	case cfg.IdleTimeout == 0:
		return DefaultIdleTimeout
	case cfg.IdleTimeout < 0:
		return 0
	}
	return cfg.IdleTimeout
}

// KG is a store.KG on Cayley's SQL schema. It is safe for concurrent use.
type KG struct {
	db *sql.DB
	// cayley is Cayley's quad store on the tables, qs the same with
	// Grove's writes (QuadStore).
	cayley *csql.QuadStore
	qs     *quadStore
	log    *slog.Logger
	labels store.LabelConfig
	closed atomic.Bool
	// readOnly is Config.ReadOnly.
	readOnly bool
	// labelChars is how many characters of each value the label index
	// that search goes through holds (0: whole values; see schema.go).
	labelChars int

	labelH, aliasH, descH, hiddenH [][]byte
	// groveHiddenH and groveInverseH are the hashes of grove:hidden and
	// grove:inverseLabel.
	groveHiddenH, groveInverseH []byte
}

var _ store.KG = (*KG)(nil)

// Open connects; opened writable, it creates Cayley's tables, Grove's
// indexes and grove_graphs where the database lacks them (see schema.go).
func Open(ctx context.Context, cfg Config) (*KG, error) {
	flavor, err := cayleyFlavor(cmp.Or(cfg.Flavor, "postgres"))
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if strings.Contains(cfg.URL, "://") {
		if _, err := url.Parse(cfg.URL); err != nil {
			return nil, fmt.Errorf("sql: %w", scrub(err, cfg.URL))
		}
	}
	idle := cfg.idleTimeout()
	conn, err := newConnector(cfg.URL, idle)
	if err != nil {
		return nil, fmt.Errorf("sql %s: %w", redact(cfg.URL), scrub(err, cfg.URL))
	}
	// ctx bounds every call's network I/O, the connection's startup
	// included, and idle bounds calls without a context (see connector).
	// Cayley's quad store opens its pool through the same connector
	// (flavor.go), given a handle of it (cayleyAddr), never the URL.
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sql %s: %w", redact(cfg.URL), scrub(err, cfg.URL))
	}
	k := &KG{db: db, log: log, labels: store.DefaultLabelConfig(), readOnly: cfg.ReadOnly}
	addr, release := cayleyAddr(conn)
	defer release()
	if err := k.initSchema(ctx, flavor, addr, cfg.URL); err != nil {
		db.Close()
		return nil, err
	}
	qs, err := graph.NewQuadStore(flavor, addr, nil)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sql %s: cayley quad store: %w", redact(cfg.URL), scrub(err, cfg.URL))
	}
	cq, ok := qs.(*csql.QuadStore)
	if !ok {
		qs.Close()
		db.Close()
		return nil, fmt.Errorf("sql: cayley opened a %T, not its SQL quad store", qs)
	}
	k.cayley, k.qs = cq, &quadStore{QuadStore: cq, k: k}
	k.labelH, k.aliasH, k.descH = hashIRIs(k.labels.Label), hashIRIs(k.labels.Alias), hashIRIs(k.labels.Description)
	k.hiddenH = slices.Concat(k.labelH, k.aliasH, k.descH, hashIRIs([]string{store.OWLSameAs, store.GroveSameAs,
		store.GroveHidden, store.GroveInverseLabel, store.GroveNodeType, store.GroveTextFeature}))
	k.groveHiddenH, k.groveInverseH = hashOf(quad.IRI(store.GroveHidden)), hashOf(quad.IRI(store.GroveInverseLabel))
	return k, nil
}

// redact is a database URL fit for errors and logs: no password in the
// user info, and the values of password, sslpassword and any parameter
// whose name holds "password", "key", "token" or "secret" replaced by ***
// (the other parameters, sslmode for one, stay: they explain failures).
// A key=value connection string is redacted the same way; a URL that does
// not parse is not quoted at all.
func redact(u string) string {
	if !strings.Contains(u, "://") {
		return dsnSecret.ReplaceAllString(u, "${1}***")
	}
	r, ok := urlsafe.Redact(u, false, secretParam)
	if !ok {
		return "(a database URL that does not parse)"
	}
	return r
}

// secretParam reports a connection parameter whose value is a secret.
func secretParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(name)
	for _, w := range []string{"password", "key", "token", "secret"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// dsnSecret matches a secret's value in a key=value connection string.
var dsnSecret = regexp.MustCompile(`(?i)(\b\w*(?:password|key|token|secret)\w*\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// scrub makes an error of the driver or of Cayley safe to show: lib/pq and
// net/url quote the whole URL when it does not parse, password included.
// Such an error is replaced by one that says what is wrong without the
// URL; any other error that quotes the URL or the password gets them
// redacted. Errors that quote neither are returned as they are.
func scrub(err error, raw string) error {
	if err == nil {
		return nil
	}
	var esc url.EscapeError
	if errors.As(err, &esc) {
		return errors.New("the database URL has an invalid %-escape (a literal % in a password is written %25)")
	}
	var ue *url.Error
	if errors.As(err, &ue) && (ue.URL == raw || strings.Contains(raw, ue.URL)) {
		detail := ue.Err.Error()
		if u := userInfo(raw); u != "" && strings.Contains(detail, u) {
			detail = "invalid user or password part"
		}
		return fmt.Errorf("the database URL does not parse: %s; want postgres://user[:password]@host[:port]/database?param=value", detail)
	}
	msg := err.Error()
	clean := strings.ReplaceAll(msg, raw, redact(raw))
	for _, s := range secrets(raw) {
		clean = strings.ReplaceAll(clean, s, "***")
	}
	if clean == msg {
		return err
	}
	return errors.New(clean)
}

// userInfo is the user[:password] part of a URL that may not parse.
func userInfo(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		return rest[:i]
	}
	return ""
}

// secrets lists the secret values a database URL holds, to blank them out
// of messages that quote them.
func secrets(raw string) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 3 { // shorter values would blank out unrelated text
			out = append(out, s)
		}
	}
	p, err := url.Parse(raw)
	if err != nil {
		for _, m := range dsnSecret.FindAllStringSubmatch(raw, -1) {
			add(strings.Trim(m[2], "'"))
		}
		return out
	}
	if pw, ok := p.User.Password(); ok {
		add(pw)
		add(url.QueryEscape(pw))
	}
	for k, vs := range p.Query() {
		if secretParam(k) {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	return out
}

// QuadStore is Cayley's SQL quad store over the same tables (for Gizmo and
// Cayley's HTTP API), whose writes (ApplyDeltas, NewQuadWriter) are the
// KG's own: one transaction each, keeping the graph counts exact, so a
// graph written only through it is listed and searchable.
func (k *KG) QuadStore() graph.QuadStore { return k.qs }

// Close closes the connections; it is idempotent.
func (k *KG) Close() error {
	if k.closed.Swap(true) {
		return nil
	}
	err := k.cayley.Close()
	return errors.Join(err, k.db.Close())
}

func (k *KG) usable(ctx context.Context) error {
	if k.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// writable is usable, and store.ErrReadOnly when k was opened read-only.
func (k *KG) writable(ctx context.Context) error {
	if err := k.usable(ctx); err != nil {
		return err
	}
	if k.readOnly {
		return fmt.Errorf("sql write: %w: the database was opened read-only (Config.ReadOnly; grove opens it writable for ingest and serve without --read-only)", store.ErrReadOnly)
	}
	return nil
}

// --- values -----------------------------------------------------------------

func hashOf(v quad.Value) []byte { return csql.HashOf(v).SQLValue().([]byte) }

func hashIRIs(ids []string) [][]byte {
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		out = append(out, hashOf(quad.IRI(id)))
	}
	return out
}

// valueOfID is the quad value an id names: "_:x" a blank node, else an IRI.
func valueOfID(id string) quad.Value {
	if b, ok := strings.CutPrefix(id, "_:"); ok {
		return quad.BNode(b)
	}
	return quad.IRI(id)
}

// idOf is the id of a node value (literals: their N-Quads form).
func idOf(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.BNode:
		return "_:" + string(v)
	case nil:
		return ""
	}
	return v.String()
}

// row is one nodes row.
type row struct {
	hash             []byte
	str, dtype, lang sql.NullString
	iri, bnode       sql.NullBool
	vint             sql.NullInt64
	vbool            sql.NullBool
	vfloat           sql.NullFloat64
	vtime            sql.NullTime
}

const nodeCols = `hash, value_string, datatype, language, iri, bnode, value_int, value_bool, value_float, value_time`

// fields are the destinations of r's columns, in nodeCols' order.
func (r *row) fields() []any {
	return []any{&r.hash, &r.str, &r.dtype, &r.lang, &r.iri, &r.bnode, &r.vint, &r.vbool, &r.vfloat, &r.vtime}
}

// value decodes a nodes row.
func (r *row) value() quad.Value {
	switch {
	case r.iri.Valid && r.iri.Bool:
		return quad.IRI(r.str.String)
	case r.bnode.Valid && r.bnode.Bool:
		return quad.BNode(r.str.String)
	case r.dtype.Valid:
		return quad.TypedString{Value: quad.String(r.str.String), Type: quad.IRI(r.dtype.String)}
	case r.lang.Valid:
		return quad.LangString{Value: quad.String(r.str.String), Lang: r.lang.String}
	case r.str.Valid:
		return quad.String(r.str.String)
	case r.vint.Valid:
		return quad.Int(r.vint.Int64)
	case r.vbool.Valid:
		return quad.Bool(r.vbool.Bool)
	case r.vfloat.Valid:
		return quad.Float(r.vfloat.Float64)
	case r.vtime.Valid:
		return quad.Time(r.vtime.Time)
	}
	return nil
}

// values reads the nodes of hashes.
func (k *KG) values(ctx context.Context, hashes [][]byte) (map[string]quad.Value, error) {
	out := make(map[string]quad.Value, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	rs, err := queryAll(ctx, k, (*row).fields, `SELECT `+nodeCols+` FROM nodes WHERE hash = ANY($1)`, pq.ByteaArray(hashes))
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		out[string(r.hash)] = r.value()
	}
	return out, nil
}

// queryAll runs query on k's pool and returns one T per row, in the
// order the rows come. fields gives the destinations of a row's columns
// within a fresh T, as rows.Scan takes them; it is called once per row.
// The rows are closed before queryAll returns, so the caller's next read
// may take the same connection. An error of the query, of a row's Scan
// or of the rows (rows.Err) is returned through k.wrap (so a timeout or
// cancellation wraps ctx.Err(), and a closed KG ErrClosed), with no
// rows. The returned slice is new and the caller's; it is nil when no
// row came. queryAll is safe for concurrent use, as k is.
func queryAll[T any](ctx context.Context, k *KG, fields func(*T) []any, query string, args ...any) ([]T, error) {
	rows, err := k.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, k.wrap(ctx, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(fields(&v)...); err != nil {
			return nil, k.wrap(ctx, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, k.wrap(ctx, err)
	}
	return out, nil
}

// single is the fields of a one-column row (queryAll).
func single[T any](v *T) []any { return []any{v} }

// wrap makes a driver error a backend error: ErrClosed after Close, and
// an error wrapping ctx.Err() when ctx ended (the driver may report only
// the socket's timeout).
func (k *KG) wrap(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if k.closed.Load() {
		return fmt.Errorf("%w: %v", store.ErrClosed, err)
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("sql: %w (%v)", cerr, err)
	}
	return fmt.Errorf("sql: %w", err)
}

// graphName of a label value.
func graphName(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case nil:
		return ""
	}
	return quad.StringOf(v)
}
