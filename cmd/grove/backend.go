package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/spf13/pflag"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/sparqlkg"
	"github.com/grove-kg/grove/store/sqlkg"
)

// Knowledge-graph backends: --kg-backend (GROVE_KG_BACKEND, kg-backend in
// the config file).
const (
	backendBadger = "badger"
	backendSPARQL = "sparql"
	backendSQL    = "sql"
)

// backendFlags adds the backend choice and its settings to the root.
func (a *app) backendFlags(pf *pflag.FlagSet) {
	pf.String("kg-backend", backendBadger, "knowledge-graph backend: badger (embedded, --db), sparql (--sparql-url) or sql (--sql-url)")
	pf.String("sparql-url", "", "SPARQL 1.1 endpoint, e.g. http://localhost:8890/sparql")
	pf.String("sparql-dialect", "rdf", "layout of the KG in the endpoint: rdf, virtuoso, qlever, freebase, wikidata, or one defined under sparql.dialects in the config file (starting from the built-in its base: names, default rdf)")
	pf.StringToString("sparql-graph", nil, "Grove graph name = named-graph IRI (repeatable; default: the endpoint's default graph)")
	pf.String("sparql-auth-file", "", "file holding the Authorization header value (or user:password); GROVE_SPARQL_AUTH holds it otherwise")
	pf.String("sparql-cache", "", "directory caching endpoint responses across runs (default: memory only)")
	pf.Duration("sparql-timeout", 0, "timeout of one SPARQL request, and the most its retries wait in total (default 60s)")
	pf.Int("sparql-max-in-flight", 0, "concurrent SPARQL requests (default 4)")
	pf.String("sql-url", "", "database URL for --kg-backend sql, e.g. postgres://user@localhost/grove?sslmode=disable")
	pf.String("sql-flavor", "postgres", "SQL database: postgres or cockroach")
	pf.Duration("sql-idle-timeout", sqlkg.DefaultIdleTimeout, "--kg-backend sql: a database call without a deadline of its own (every CLI command's; the server's Cayley name lookups) fails after this long without a byte from the database if the database does not answer a fresh connection either (a busy statement goes on; negative: never)")
	for flag, key := range backendKeys() {
		_ = a.v.BindPFlag(key, pf.Lookup(flag))
	}
}

// backendKeys maps the backend flags to their settings (config file keys).
func backendKeys() map[string]string {
	return map[string]string{
		"kg-backend": "kg-backend", "sparql-url": "sparql.url", "sparql-dialect": "sparql.dialect",
		"sparql-graph": "sparql.graphs", "sparql-auth-file": "sparql.auth_file", "sparql-cache": "sparql.cache_dir",
		"sparql-timeout": "sparql.timeout", "sparql-max-in-flight": "sparql.max_in_flight",
		"sql-url": "sql.url", "sql-flavor": "sql.flavor", "sql-idle-timeout": "sql.idle_timeout",
	}
}

// backend is the configured backend name, checked.
func (a *app) backend() (string, error) {
	b := strings.ToLower(a.v.GetString("kg-backend"))
	switch b {
	case "", backendBadger:
		return backendBadger, nil
	case backendSPARQL, backendSQL:
		return b, nil
	}
	return "", fmt.Errorf("--kg-backend %q: want badger, sparql or sql", b)
}

// openKG opens the configured knowledge-graph backend for reading. Every
// command that reads the KG goes through here.
func (a *app) openKG(ctx context.Context) (store.KG, io.Closer, error) {
	return a.openKGFor(ctx, true)
}

// openKGFor opens the configured knowledge-graph backend, read-only or
// writable (grove serve without --read-only writes through Cayley's API).
// A read-only sql backend changes no schema, so a role with SELECT alone
// can read and a read never waits for a writer's locks.
func (a *app) openKGFor(ctx context.Context, readOnly bool) (store.KG, io.Closer, error) {
	b, err := a.backend()
	if err != nil {
		return nil, nil, err
	}
	switch b {
	case backendSPARQL:
		kg, err := a.openSPARQL(ctx)
		return kg, kg, err
	case backendSQL:
		kg, err := a.openSQL(ctx, readOnly)
		return kg, kg, err
	}
	db, err := a.openDB(true)
	return db, db, err
}

// kgWriter is what `grove ingest` writes through on a non-embedded
// backend.
type kgWriter interface {
	// WriteFrom adds (or deletes) the quads of src in one transaction and
	// returns how many it added (deleted).
	WriteFrom(ctx context.Context, o sqlkg.StreamOptions, src sqlkg.QuadSource) (int64, error)
	io.Closer
}

// openWriter opens a writable non-embedded backend; the embedded one is
// opened by ingest itself (nil writer).
func (a *app) openWriter(ctx context.Context) (kgWriter, error) {
	b, err := a.backend()
	if err != nil {
		return nil, err
	}
	switch b {
	case backendSPARQL:
		return nil, fmt.Errorf("ingest: %w: the sparql backend reads a remote endpoint; load data with the endpoint's own bulk loader (Virtuoso: ld_dir + rdf_loader_run), or use --kg-backend badger or sql", store.ErrReadOnly)
	case backendSQL:
		return a.openSQL(ctx, false)
	}
	return nil, nil
}

func (a *app) openSPARQL(ctx context.Context) (*sparqlkg.KG, error) {
	url := a.v.GetString("sparql.url")
	if url == "" {
		return nil, errors.New("--kg-backend sparql needs --sparql-url (or GROVE_SPARQL_URL, sparql.url in the config file)")
	}
	d, err := a.dialect()
	if err != nil {
		return nil, err
	}
	auth, err := sparqlkg.ReadAuth(a.v.GetString("sparql.auth_file"), os.Getenv("GROVE_SPARQL_AUTH"))
	if err != nil {
		return nil, err
	}
	return sparqlkg.Open(ctx, sparqlkg.Config{
		URL: url, Dialect: d, Auth: auth, CacheDir: a.v.GetString("sparql.cache_dir"),
		Timeout: a.v.GetDuration("sparql.timeout"), MaxInFlight: a.v.GetInt("sparql.max_in_flight"), Logger: a.log,
	})
}

// dialect is a built-in dialect, overridden or defined by the config
// file's sparql.dialects.<name>, with the graphs of --sparql-graph. The
// fields a config entry sets replace those of the dialect it starts from:
// the built-in of its base: field, else the built-in of the same name, else
// rdf (rdfs:label, skos:prefLabel and schema:name labels, skos:altLabel
// aliases, schema:description, owl:sameAs links, label search). So a new
// dialect that only lists its own label predicates keeps aliases and
// descriptions.
func (a *app) dialect() (sparqlkg.Dialect, error) {
	name := a.v.GetString("sparql.dialect")
	key := "sparql.dialects." + name
	var d sparqlkg.Dialect
	if !a.v.IsSet(key) {
		var err error
		if d, err = sparqlkg.LookupDialect(name); err != nil {
			return d, err
		}
	} else {
		base := a.v.GetString(key + ".base")
		if base == "" {
			base = "rdf"
			if _, err := sparqlkg.LookupDialect(name); err == nil {
				base = name
			}
		}
		var err error
		if d, err = sparqlkg.LookupDialect(base); err != nil {
			return d, fmt.Errorf("config %s.base: %w", key, err)
		}
		if err := a.v.UnmarshalKey(key, &d); err != nil {
			return d, fmt.Errorf("config %s: %w", key, err)
		}
		d.Name = name
	}
	if gs := a.v.GetStringMapString("sparql.graphs"); len(gs) > 0 {
		d.Graphs = gs
	}
	return d, nil
}

// quadStoreOf is the Cayley QuadStore behind a KG, for `grove query` and
// `grove serve`; for a backend without one, an error wrapping
// store.ErrNoQuadStore that says what to do instead.
func quadStoreOf(kg store.KG) (graph.QuadStore, error) {
	switch kg := kg.(type) {
	case graph.QuadStore:
		return kg, nil
	case *sqlkg.KG:
		return kg.QuadStore(), nil
	}
	return nil, fmt.Errorf("the %T backend has %w: send SPARQL to the endpoint itself", kg, store.ErrNoQuadStore)
}

// openSQL opens the sql backend, read-only or writable (a writable open
// creates what of the schema the database lacks).
func (a *app) openSQL(ctx context.Context, readOnly bool) (*sqlkg.KG, error) {
	url := a.v.GetString("sql.url")
	if url == "" {
		return nil, errors.New("--kg-backend sql needs --sql-url (or GROVE_SQL_URL, sql.url in the config file)")
	}
	return sqlkg.Open(ctx, sqlkg.Config{URL: url, Flavor: a.v.GetString("sql.flavor"),
		IdleTimeout: a.v.GetDuration("sql.idle_timeout"), ReadOnly: readOnly, Logger: a.log})
}
