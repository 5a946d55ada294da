package sqlkg

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/lib/pq"
)

// Load writes quads into graph in one transaction: COPY into temporary
// tables, then set-based INSERTs that skip quads already present and keep
// Cayley's node reference counts. It returns the number of new quads.
// Readers see the whole load or none of it.
func (k *KG) Load(ctx context.Context, graph string, qs []quad.Quad) (int64, error) {
	if err := k.usable(ctx); err != nil {
		return 0, err
	}
	if graph == "" {
		return 0, fmt.Errorf("sql load: empty graph name")
	}
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	n, err := k.load(ctx, tx, graph, qs)
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, k.wrap(ctx, err)
	}
	// Fresh statistics let the planner use the label and hash indexes
	// right away instead of after autovacuum's next pass.
	if _, err := k.db.ExecContext(ctx, `ANALYZE nodes; ANALYZE quads`); err != nil {
		k.log.Warn("sql load: analyze failed", "err", err)
	}
	return n, nil
}

func (k *KG) load(ctx context.Context, tx *sql.Tx, graph string, qs []quad.Quad) (int64, error) {
	for _, stmt := range []string{
		`CREATE TEMP TABLE grove_tn (hash BYTEA, value_string TEXT, datatype TEXT, language TEXT, iri BOOLEAN, bnode BOOLEAN,
			value_int BIGINT, value_bool BOOLEAN, value_float DOUBLE PRECISION, value_time TIMESTAMPTZ) ON COMMIT DROP`,
		`CREATE TEMP TABLE grove_tq (s BYTEA, p BYTEA, o BYTEA, l BYTEA) ON COMMIT DROP`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return 0, k.wrap(ctx, err)
		}
	}
	label := quad.IRI(graph)
	start := time.Now()
	if err := k.copyNodes(ctx, tx, qs, label); err != nil {
		return 0, err
	}
	if err := k.copyQuads(ctx, tx, qs, label); err != nil {
		return 0, err
	}
	k.log.Debug("sql load: copied", "graph", graph, "quads", len(qs), "took", time.Since(start))
	start = time.Now()
	// The quads not stored yet, and how many of them reference each node:
	// new nodes are inserted with their reference count, existing ones get
	// theirs raised, so a first load never updates a row it just wrote.
	for _, stmt := range []string{
		`CREATE TEMP TABLE grove_new ON COMMIT DROP AS SELECT DISTINCT s, p, o, l FROM grove_tq t
			WHERE NOT EXISTS (SELECT 1 FROM quads q WHERE q.subject_hash = t.s AND q.predicate_hash = t.p
				AND q.object_hash = t.o AND q.label_hash = t.l)`,
		`CREATE TEMP TABLE grove_refs ON COMMIT DROP AS SELECT h, count(*) AS n FROM (SELECT s AS h FROM grove_new
			UNION ALL SELECT p FROM grove_new UNION ALL SELECT o FROM grove_new UNION ALL SELECT l FROM grove_new) x GROUP BY h`,
		`ANALYZE grove_new`, `ANALYZE grove_refs`,
		`INSERT INTO nodes (hash, refs, value_string, datatype, language, iri, bnode, value_int, value_bool, value_float, value_time)
			SELECT DISTINCT ON (t.hash) t.hash, coalesce(r.n, 0), t.value_string, t.datatype, t.language, t.iri, t.bnode,
				t.value_int, t.value_bool, t.value_float, t.value_time
			FROM grove_tn t LEFT JOIN grove_refs r ON r.h = t.hash
			ON CONFLICT (hash) DO UPDATE SET refs = nodes.refs + EXCLUDED.refs WHERE EXCLUDED.refs > 0`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return 0, k.wrap(ctx, err)
		}
	}
	k.log.Debug("sql load: nodes inserted", "took", time.Since(start))
	start = time.Now()
	// Every node of the batch is in nodes now (same transaction), so the
	// per-row foreign-key triggers of Cayley's schema only cost time: skip
	// them when the role may (superuser); otherwise they run.
	if _, err := tx.ExecContext(ctx, `SAVEPOINT grove_fk`); err != nil {
		return 0, k.wrap(ctx, err)
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT grove_fk`); err != nil {
			return 0, k.wrap(ctx, err)
		}
		k.log.Debug("sql load: foreign-key checks stay on (not a superuser)", "err", err)
	}
	// ON CONFLICT only matters when another writer stored the same quad
	// since grove_new was computed.
	res, err := tx.ExecContext(ctx, `INSERT INTO quads (subject_hash, predicate_hash, object_hash, label_hash)
		SELECT s, p, o, l FROM grove_new ORDER BY s, p, o ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	added, err := res.RowsAffected()
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	k.log.Debug("sql load: quads inserted", "added", added, "took", time.Since(start))
	// Graph counts are kept here so that Graphs costs O(graphs): reasoners
	// call it on every run.
	if _, err := tx.ExecContext(ctx, `INSERT INTO grove_graphs (name, quads, relations)
		VALUES ($1, $2, (SELECT count(DISTINCT predicate_hash) FROM quads WHERE label_hash = $3))
		ON CONFLICT (name) DO UPDATE SET quads = grove_graphs.quads + EXCLUDED.quads, relations = EXCLUDED.relations`,
		graph, added, hashOf(label)); err != nil {
		return 0, k.wrap(ctx, err)
	}
	return added, nil
}

// copyNodes COPYs every distinct value of qs (and the graph label).
func (k *KG) copyNodes(ctx context.Context, tx *sql.Tx, qs []quad.Quad, label quad.Value) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("grove_tn", "hash", "value_string", "datatype", "language", "iri", "bnode",
		"value_int", "value_bool", "value_float", "value_time"))
	if err != nil {
		return k.wrap(ctx, err)
	}
	seen := map[string]bool{}
	add := func(v quad.Value) error {
		h := hashOf(v)
		if seen[string(h)] {
			return nil
		}
		seen[string(h)] = true
		cols, err := nodeColumns(v)
		if err != nil {
			return err
		}
		_, err = stmt.ExecContext(ctx, append([]any{h}, cols...)...)
		return err
	}
	if err := add(label); err != nil {
		stmt.Close()
		return k.wrap(ctx, err)
	}
	for i, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
			if v == nil {
				stmt.Close()
				return fmt.Errorf("sql load: quad %d (%v) lacks a direction", i+1, q)
			}
			if err := add(v); err != nil {
				stmt.Close()
				return fmt.Errorf("sql load: quad %d: %w", i+1, err)
			}
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		stmt.Close()
		return k.wrap(ctx, err)
	}
	return k.wrap(ctx, stmt.Close())
}

// copyQuads COPYs the hashes of qs, labelled with the graph.
func (k *KG) copyQuads(ctx context.Context, tx *sql.Tx, qs []quad.Quad, label quad.Value) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("grove_tq", "s", "p", "o", "l"))
	if err != nil {
		return k.wrap(ctx, err)
	}
	l := hashOf(label)
	for _, q := range qs {
		if _, err := stmt.ExecContext(ctx, hashOf(q.Subject), hashOf(q.Predicate), hashOf(q.Object), l); err != nil {
			stmt.Close()
			return k.wrap(ctx, err)
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		stmt.Close()
		return k.wrap(ctx, err)
	}
	return k.wrap(ctx, stmt.Close())
}

// nodeColumns are the value columns of v, as Cayley's schema stores them.
func nodeColumns(v quad.Value) ([]any, error) {
	c := make([]any, 9) // value_string, datatype, language, iri, bnode, int, bool, float, time
	switch v := v.(type) {
	case quad.IRI:
		c[0], c[3] = string(v), true
	case quad.BNode:
		c[0], c[4] = string(v), true
	case quad.String:
		c[0] = string(v)
	case quad.TypedString:
		c[0], c[1] = string(v.Value), string(v.Type)
	case quad.LangString:
		c[0], c[2] = string(v.Value), v.Lang
	case quad.Int:
		c[5] = int64(v)
	case quad.Bool:
		c[6] = bool(v)
	case quad.Float:
		c[7] = float64(v)
	case quad.Time:
		c[8] = time.Time(v)
	default:
		return nil, fmt.Errorf("value %v of type %T cannot be stored", v, v)
	}
	return c, nil
}
