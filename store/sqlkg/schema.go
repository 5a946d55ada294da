package sqlkg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cayleygraph/cayley/graph"
)

// Schema. Grove adds to Cayley's tables (nodes, quads) a label index on
// nodes, an index of quads by label and the grove_graphs table. Open reads
// the catalog (SELECTs only) and creates only what is missing, and only
// when opened writable: a read-only open (Config.ReadOnly) runs no
// schema-changing statement, so a role with SELECT alone can read, and a
// read never waits for the SHARE lock a CREATE INDEX IF NOT EXISTS takes
// behind a running writer.
//
// The label index covers the first labelPrefix characters of each value
// (lower(left(value_string, 512))): an index over whole values refused
// any literal too long for a btree entry (about 2.7 KB, an abstract), so
// that it could not be loaded. Search matches on the indexed prefix and
// rechecks the whole value. Databases made before have the whole-value
// index grove_nodes_lower: a writable open replaces it; a read-only open
// searches through it as it is (with lower(value_string)).

const (
	// labelIndex is the label index, over labelPrefix characters.
	labelIndex = "grove_nodes_label"
	// oldLabelIndex is the label index of databases made before, over
	// whole values.
	oldLabelIndex = "grove_nodes_lower"
	// quadsLabelIndex indexes quads by label.
	quadsLabelIndex = "grove_quads_label"
	// labelPrefix is how many characters of a value the label index
	// holds: 4 bytes each at most, well under a btree entry's ~2.7 KB.
	labelPrefix = 512
)

// labelExpr is the expression of a label index over the first chars
// characters of column col (value_string, or n.value_string); chars 0
// means whole values (oldLabelIndex).
func labelExpr(col string, chars int) string {
	if chars == 0 {
		return "lower(" + col + ")"
	}
	return "lower(left(" + col + ", " + strconv.Itoa(chars) + "))"
}

// labelCol is the expression of the label index k searches through, on
// column col.
func (k *KG) labelCol(col string) string { return labelExpr(col, k.labelChars) }

// catalog is what of Grove's schema a database has.
type catalog struct {
	tables     bool // Cayley's nodes and quads
	graphs     bool // grove_graphs
	label      bool // labelIndex
	oldLabel   bool // oldLabelIndex
	quadsLabel bool // quadsLabelIndex
}

// missing lists what c lacks, for messages.
func (c catalog) missing() []string {
	var out []string
	for _, m := range []struct {
		has  bool
		what string
	}{{c.tables, "Cayley's tables nodes and quads"}, {c.graphs, "table grove_graphs"},
		{c.label || c.oldLabel, "label index " + labelIndex}, {c.quadsLabel, "index " + quadsLabelIndex}} {
		if !m.has {
			out = append(out, m.what)
		}
	}
	return out
}

// readCatalog reads which parts of the schema exist, in the current
// schema, with one SELECT on the catalog (PostgreSQL and CockroachDB both
// have information_schema.tables and pg_indexes).
func (k *KG) readCatalog(ctx context.Context) (catalog, error) {
	var c catalog
	var nodes bool
	err := k.db.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'nodes'),
		EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'quads'),
		EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'grove_graphs'),
		EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'nodes' AND indexname = $1),
		EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'nodes' AND indexname = $2),
		EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'quads' AND indexname = $3)`,
		labelIndex, oldLabelIndex, quadsLabelIndex).Scan(&nodes, &c.tables, &c.graphs, &c.label, &c.oldLabel, &c.quadsLabel)
	if err != nil {
		return c, fmt.Errorf("sql schema check: %w", k.wrap(ctx, err))
	}
	c.tables = c.tables && nodes
	return c, nil
}

// initSchema reads the catalog and, on a writable open, creates what is
// missing (flavor is the private Cayley flavor, addr its address, url the
// database URL, for scrubbing errors), replaces an old label index, and
// counts the quads without a label that writes before made (graph "").
// A read-only open creates nothing: without the tables it fails, saying
// what is missing and that a writable open creates it; without an index
// it reads more slowly, and says so in the log.
//
// Writable opens of one database take turns on PostgreSQL (schemaLock),
// so that two processes opening it at once do not both create the tables
// and indexes or both migrate: the second reads the catalog once the
// first is done, and finds nothing to do.
func (k *KG) initSchema(ctx context.Context, flavor, addr, url string) error {
	k.labelChars = labelPrefix
	if k.readOnly {
		c, err := k.readCatalog(ctx)
		if err != nil {
			return err
		}
		return k.useSchema(c)
	}
	unlock, err := k.schemaLock(ctx, flavor)
	if err != nil {
		return err
	}
	defer unlock()
	c, err := k.readCatalog(ctx)
	if err != nil {
		return err
	}
	return k.updateSchema(ctx, c, flavor, addr, url)
}

// schemaLockKey is the PostgreSQL advisory lock that writable opens of a
// database take turns on (an arbitrary number: "grove" in ASCII).
const schemaLockKey = 0x67726f7665

// schemaLock makes the caller wait until no other writable open of the
// database is updating its schema (PostgreSQL only: a transaction that
// holds an advisory lock, ended by the returned function, or by the
// server when the connection drops). On CockroachDB, which has no
// advisory locks, it waits for nothing: its schema statements are IF NOT
// EXISTS (IF EXISTS) ones.
func (k *KG) schemaLock(ctx context.Context, flavor string) (func(), error) {
	if flavor != postgresFlavor {
		return func() {}, nil
	}
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sql: waiting for other writable opens' schema updates: %w", k.wrap(ctx, err))
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey)); err != nil {
		tx.Rollback() //nolint:errcheck // the lock's error is the one to report
		return nil, fmt.Errorf("sql: waiting for other writable opens' schema updates: %w", k.wrap(ctx, err))
	}
	return func() {
		if err := tx.Rollback(); err != nil {
			k.log.Warn("sql: releasing the schema lock failed (the server releases it when the connection ends)", "err", err)
		}
	}, nil
}

// updateSchema creates what c lacks, replaces an old label index, and
// counts the quads without a label (see initSchema).
func (k *KG) updateSchema(ctx context.Context, c catalog, flavor, addr, url string) error {
	if !c.tables {
		if err := graph.InitQuadStore(flavor, addr, nil); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
			return fmt.Errorf("sql: create cayley tables: %w", scrub(err, url))
		}
	}
	if !c.graphs {
		if err := k.create(ctx, `CREATE TABLE IF NOT EXISTS grove_graphs (name TEXT PRIMARY KEY,
			quads BIGINT NOT NULL DEFAULT 0, relations BIGINT NOT NULL DEFAULT 0)`); err != nil {
			return err
		}
	}
	if !c.quadsLabel {
		if err := k.create(ctx, `CREATE INDEX IF NOT EXISTS `+quadsLabelIndex+` ON quads (label_hash)`); err != nil {
			return err
		}
	}
	if err := k.migrateLabelIndex(ctx, c); err != nil {
		return err
	}
	return k.countUnlabelled(ctx)
}

// useSchema checks, for a read-only open, that the schema c can be read,
// and picks the label expression of the index there is.
func (k *KG) useSchema(c catalog) error {
	if !c.tables || !c.graphs {
		return fmt.Errorf("sql: the database lacks %s; a writable open creates them (grove ingest, or grove serve without --read-only), "+
			"this one is read-only", strings.Join(c.missing(), " and "))
	}
	switch {
	case c.label:
	case c.oldLabel:
		k.labelChars = 0
	default:
		k.log.Warn("sql: the database has no label index; search scans every value until a writable open creates it",
			"index", labelIndex)
	}
	if !c.quadsLabel {
		k.log.Warn("sql: the database has no index of quads by graph; graph-scoped reads are slower until a writable open creates it",
			"index", quadsLabelIndex)
	}
	return nil
}

// migrateLabelIndex creates the label index when the database lacks it
// and drops the old whole-value one, which refuses long literals. Both
// are schema changes, outside any transaction (CockroachDB makes none in
// one); an open that stops between them leaves both, and the next
// writable open drops the old one.
func (k *KG) migrateLabelIndex(ctx context.Context, c catalog) error {
	if !c.label {
		if err := k.create(ctx, `CREATE INDEX IF NOT EXISTS `+labelIndex+` ON nodes (`+labelExpr("value_string", labelPrefix)+` text_pattern_ops)`); err != nil {
			return err
		}
		// The planner's estimates for the new expression.
		if _, err := k.db.ExecContext(ctx, `ANALYZE nodes`); err != nil {
			k.log.Warn("sql: analyze after creating the label index failed", "err", err)
		}
	}
	if c.oldLabel {
		if err := k.create(ctx, `DROP INDEX IF EXISTS `+oldLabelIndex); err != nil {
			return err
		}
		k.log.Info("sql: replaced the label index over whole values by one over their first characters, which takes long literals",
			"old", oldLabelIndex, "new", labelIndex, "chars", labelPrefix)
	}
	return nil
}

// create runs a schema-changing statement, saying what it was for when
// it fails (most often: the role does not own the tables).
func (k *KG) create(ctx context.Context, stmt string) error {
	if _, err := k.db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("sql: updating the schema on a writable open (%s): %w; a role that may only read can open the database read-only",
			strings.Join(strings.Fields(stmt), " "), k.wrap(ctx, err))
	}
	return nil
}

// countUnlabelled gives the quads without a label that writes made before
// they were counted (graph "") their row of grove_graphs, once: a
// database that has such quads and no row for "". Every write since
// keeps the row exact.
func (k *KG) countUnlabelled(ctx context.Context) error {
	var need bool
	err := k.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM quads WHERE label_hash IS NULL)
		AND NOT EXISTS (SELECT 1 FROM grove_graphs WHERE name = '')`).Scan(&need)
	if err != nil || !need {
		return k.wrapSchema(ctx, err)
	}
	_, err = k.db.ExecContext(ctx, `INSERT INTO grove_graphs (name, quads, relations)
		SELECT '', count(*), count(DISTINCT predicate_hash) FROM quads WHERE label_hash IS NULL
		ON CONFLICT (name) DO NOTHING`)
	return k.wrapSchema(ctx, err)
}

// wrapSchema wraps an error of the schema's upkeep.
func (k *KG) wrapSchema(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sql: counting the quads without a graph label: %w", k.wrap(ctx, err))
}
