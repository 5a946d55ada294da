package sqlkg

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cayleygraph/cayley/graph"
	graphlog "github.com/cayleygraph/cayley/graph/log"
	csql "github.com/cayleygraph/cayley/graph/sql"
	"github.com/cayleygraph/cayley/graph/sql/cockroach"
	"github.com/cayleygraph/cayley/graph/sql/postgres"
	"github.com/lib/pq"
)

// Cayley's quad store opens its own database/sql pool, with
// sql.Open(flavor's driver, address), and some of its calls take no
// context (NameOf, Stats, writes, Init). So that those connections are
// watched like Grove's own (see connector), Grove registers, once in
// init, a database/sql driver of its own (driverName) and a Cayley flavor
// per supported flavor that names it; Open passes Cayley the private
// flavor and a handle of its connector as the address (cayleyAddr). The
// user-facing flavor names stay "postgres" and "cockroach".
//
// Cayley's flavor registry is not readable, so the registrations are
// built from the values the postgres package exports and from what
// cockroach.go registers. The cockroach flavor of Cayley runs on pgx,
// whose errors its error conversion and retry loop look for; Grove's runs
// on lib/pq like the rest of this package, so it converts lib/pq's errors
// (postgres.ConvError, postgres.RunTx) and retries on lib/pq's codes
// (retryCockroach).

const (
	// driverName is the database/sql driver of the private flavors.
	driverName = "grove-sqlkg-watched"
	// postgresFlavor and cockroachFlavor are the private Cayley flavors.
	postgresFlavor  = "grove-sqlkg-postgres"
	cockroachFlavor = "grove-sqlkg-cockroach"
)

func init() {
	sql.Register(driverName, watchedDriver{})
	csql.Register(postgresFlavor, postgresRegistration())
	csql.Register(cockroachFlavor, cockroachRegistration())
}

// cayleyFlavor is the private Cayley flavor of a user-facing flavor name.
func cayleyFlavor(flavor string) (string, error) {
	switch flavor {
	case postgres.Type:
		return postgresFlavor, nil
	case cockroach.Type:
		return cockroachFlavor, nil
	}
	return "", fmt.Errorf("sql flavor %q: want postgres or cockroach", flavor)
}

// postgresRegistration is Cayley's postgres flavor on the watched driver.
func postgresRegistration() csql.Registration {
	return csql.Registration{
		Driver:             driverName,
		HashType:           `BYTEA`,
		BytesType:          `BYTEA`,
		HorizonType:        `BIGSERIAL`,
		TimeType:           `timestamp with time zone`,
		QueryDialect:       postgres.QueryDialect,
		ConditionalIndexes: true,
		FillFactor:         true,
		Error:              postgres.ConvError,
		Estimated: func(table string) string {
			return "SELECT reltuples::BIGINT AS estimate FROM pg_class WHERE relname='" + table + "';"
		},
		RunTx: postgres.RunTxPostgres,
	}
}

// cockroachRegistration is Cayley's cockroach flavor on the watched
// driver (lib/pq). Writes use the postgres flavor's statements with the
// conflict target of the cockroach schema's unique index (Cayley's own
// cockroach flavor batches them into fewer INSERTs).
func cockroachRegistration() csql.Registration {
	return csql.Registration{
		Driver:      driverName,
		HashType:    `BYTEA`,
		BytesType:   `BYTEA`,
		HorizonType: `BIGSERIAL`,
		TimeType:    `timestamp with time zone`,
		NodesTableExtra: `
	FAMILY fhash (hash),
	FAMILY frefs (refs),
	FAMILY fvalue (value, value_string, datatype, language, iri, bnode,
		value_int, value_bool, value_float, value_time)
`,
		QueryDialect:  postgres.QueryDialect,
		NoForeignKeys: true,
		Error:         postgres.ConvError,
		RunTx: func(tx *sql.Tx, nodes []graphlog.NodeUpdate, quads []graphlog.QuadUpdate, opts graph.IgnoreOpts) error {
			return postgres.RunTx(tx, nodes, quads, opts, "(subject_hash, predicate_hash, object_hash)")
		},
		TxRetry:             retryCockroach,
		NoSchemaChangesInTx: true,
	}
}

// retryCockroach is Cayley's client-side retry of a CockroachDB
// transaction (a savepoint, rolled back to and run again on a retryable
// error) for lib/pq's errors. A retryable error of the RELEASE itself is
// retried too; any other error after it is a cockroach.AmbiguousCommitError.
func retryCockroach(tx *sql.Tx, stmts func() error) error {
	if _, err := tx.Exec("SAVEPOINT cockroach_restart"); err != nil {
		return err
	}
	for {
		released := false
		err := stmts()
		if err == nil {
			released = true
			if _, err = tx.Exec("RELEASE SAVEPOINT cockroach_restart"); err == nil {
				return nil
			}
		}
		var pqErr *pq.Error
		if !errors.As(err, &pqErr) {
			return err
		}
		if pqErr.Code != "CR000" && pqErr.Code != "40001" {
			if released {
				err = &cockroach.AmbiguousCommitError{Err: err}
			}
			return err
		}
		if _, err = tx.Exec("ROLLBACK TO SAVEPOINT cockroach_restart"); err != nil {
			return err
		}
	}
}

// Cayley logs the address it was given when a connection fails
// ("Couldn't open database at ADDR"), so it is never given the database
// URL, which may hold a password: Open registers its connector in
// connectors under an opaque handle, passes Cayley the handle as the
// address, and removes it once Cayley's pool holds the connector
// (database/sql asks for the connector in sql.Open). The registry is
// process-wide, like the driver registration that uses it.
var (
	connectors sync.Map // handle (string) -> *connector
	handles    atomic.Uint64
)

// handlePrefix starts every handle.
const handlePrefix = "grove-sqlkg-connector:"

// cayleyAddr registers c under a new handle and returns the handle, to be
// given to Cayley as the address, and the function that removes it.
func cayleyAddr(c *connector) (addr string, release func()) {
	addr = handlePrefix + strconv.FormatUint(handles.Add(1), 10)
	connectors.Store(addr, c)
	return addr, func() { connectors.Delete(addr) }
}

// connectorAt returns the connector registered under addr.
func connectorAt(addr string) (*connector, error) {
	if c, ok := connectors.Load(addr); ok {
		return c.(*connector), nil
	}
	return nil, fmt.Errorf("sqlkg: %q is not the handle of an open SQL backend (the driver %s serves only sqlkg.Open)",
		addr, driverName)
}

// watchedDriver is the database/sql driver of the private flavors: its
// connections are the connector's.
type watchedDriver struct{}

var _ driver.DriverContext = watchedDriver{}

// Open opens one connection of the connector registered under addr,
// bounded by the idle bound alone.
func (d watchedDriver) Open(addr string) (driver.Conn, error) {
	c, err := d.OpenConnector(addr)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector is the connector registered under addr (see cayleyAddr).
func (watchedDriver) OpenConnector(addr string) (driver.Connector, error) {
	return connectorAt(addr)
}
