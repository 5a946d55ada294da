package sqlkg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/lib/pq"

	"github.com/grove-kg/grove/store"
)

// Load writes quads into graph in one transaction (a large batch through
// COPY into temporary tables and set-based INSERTs, a small one through
// direct statements, see write) that skips quads already present and
// keeps Cayley's node reference counts and the graph's counts. It returns
// the number of new quads. Readers see the whole load or none of it.
func (k *KG) Load(ctx context.Context, graph string, qs []quad.Quad) (int64, error) {
	if graph == "" {
		return 0, fmt.Errorf("sql load: empty graph name")
	}
	r, err := k.write(ctx, &writeSet{adds: qs, label: quad.IRI(graph), opts: ignoreAll})
	if err != nil {
		return 0, err
	}
	k.analyzeAfterLoad(ctx, len(qs))
	return r.added, nil
}

// analyzeAfterLoad refreshes the tables' statistics after a load of n
// quads, so that the planner uses the label and hash indexes right away
// instead of after autovacuum's next pass; a small load barely changes
// them, and sampling the tables would cost it more than the write.
func (k *KG) analyzeAfterLoad(ctx context.Context, n int) {
	if n <= smallWrite {
		return
	}
	if _, err := k.db.ExecContext(ctx, `ANALYZE nodes; ANALYZE quads`); err != nil {
		k.log.Warn("sql load: analyze failed", "err", err)
	}
}

// Delete removes quads from graph in one transaction (quads not stored
// are skipped), lowering Cayley's node reference counts, removing the
// nodes no quad references any more, and keeping the graph's counts. It
// returns the number of quads deleted; a graph that holds no quads is
// store.ErrNotFound.
func (k *KG) Delete(ctx context.Context, graph string, qs []quad.Quad) (int64, error) {
	if err := k.writable(ctx); err != nil {
		return 0, err
	}
	if err := k.mustHaveGraph(ctx, graph); err != nil {
		return 0, err
	}
	r, err := k.write(ctx, &writeSet{dels: qs, label: quad.IRI(graph), opts: ignoreAll})
	return r.deleted, err
}

// ignoreAll skips duplicate adds and missing deletes (Load and Delete).
var ignoreAll = graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}

// writeSet is one transaction's quads: adds are applied before dels, as
// Cayley applies a batch of deltas.
type writeSet struct {
	adds, dels []quad.Quad
	// label, when not nil, is the label of every quad (Load, Delete);
	// otherwise each quad's own label is (nil: no named graph).
	label quad.Value
	opts  graph.IgnoreOpts
}

// quad is the i-th delete (del) or add, with its label as stored.
func (w *writeSet) quad(del bool, i int) quad.Quad {
	q := w.adds
	if del {
		q = w.dels
	}
	out := q[i]
	if w.label != nil {
		out.Label = w.label
	}
	return out
}

// writeResult is what a write changed.
type writeResult struct {
	added, deleted int64
}

// write applies w in one transaction, with the strategy its size calls
// for.
func (k *KG) write(ctx context.Context, w *writeSet) (writeResult, error) {
	return k.writeWith(ctx, w, k.strategyFor)
}

// deadlockRetries is how many times a write that PostgreSQL chose as a
// deadlock's victim is tried again (its transaction rolled back, nothing
// of it applied) before its error is returned.
const deadlockRetries = 3

// writeWith applies w in one transaction with the strategy choose picks
// for it, again (from the start) when the transaction was a deadlock's
// victim: staged writes of graphs that share nodes may lock them in
// different orders.
func (k *KG) writeWith(ctx context.Context, w *writeSet, choose func(*batch) writeStrategy) (writeResult, error) {
	if err := k.writable(ctx); err != nil {
		return writeResult{}, err
	}
	b, err := newBatch(w)
	if err != nil {
		return writeResult{}, err
	}
	return k.retryDeadlocks(ctx, func() (writeResult, error) { return k.writeOnce(ctx, b, choose(b)) })
}

// retryDeadlocks runs once, a whole transaction, again (up to
// deadlockRetries times) while PostgreSQL makes it a deadlock's victim
// (or it is rolled back on errConcurrentInsert, see retryable).
func (k *KG) retryDeadlocks(ctx context.Context, once func() (writeResult, error)) (writeResult, error) {
	for try := 1; ; try++ {
		r, err := once()
		if try > deadlockRetries || !retryable(err) || ctx.Err() != nil {
			return r, err
		}
		msg := "sql write: deadlock, trying again"
		if errors.Is(err, errConcurrentInsert) {
			msg = "sql write: rolled back (its reference counts could drift), trying again"
		}
		k.log.Warn(msg, "try", try, "err", err)
	}
}

// retryable is true for an error after which the whole write may be tried
// again: its transaction was a deadlock's victim or found its counts
// could drift (errConcurrentInsert), and was rolled back.
func retryable(err error) bool {
	var pe *pq.Error
	return errors.Is(err, errConcurrentInsert) || errors.As(err, &pe) && pe.Code == "40P01"
}

// writeOnce applies b in one transaction with strategy s.
func (k *KG) writeOnce(ctx context.Context, b *batch, s writeStrategy) (writeResult, error) {
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return writeResult{}, k.wrap(ctx, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	r, err := k.apply(ctx, tx, b, s)
	if err != nil {
		return writeResult{}, err
	}
	if err := k.commit(ctx, tx); err != nil {
		return writeResult{}, err
	}
	k.forgetCounts()
	return r, nil
}

// ErrCommitUnknown is wrapped by the error of a write whose context ended
// (its deadline, or a cancel) while PostgreSQL was running its COMMIT: the
// client cannot tell whether the server committed, so the write may have
// been applied, or not. (A context that ends before COMMIT is sent rolls
// the write back: its error wraps only the context's.)
var ErrCommitUnknown = fmt.Errorf("%w: its context ended during COMMIT, so it may have been applied", store.ErrOutcomeUnknown)

// commit commits tx. Its error says when the outcome is unknown: ctx
// ended while COMMIT ran (ErrCommitUnknown, with ctx.Err()), rather than
// before it was sent (database/sql then returns ctx.Err() itself, or
// sql.ErrTxDone once it has rolled tx back).
func (k *KG) commit(ctx context.Context, tx *sql.Tx) error {
	if err := ctx.Err(); err != nil {
		return k.wrap(ctx, err)
	}
	err := tx.Commit()
	if err == nil {
		return nil
	}
	cerr := ctx.Err()
	if cerr == nil || err == cerr || errors.Is(err, sql.ErrTxDone) { //nolint:errorlint // database/sql returns ctx.Err() itself
		return k.wrap(ctx, err)
	}
	return fmt.Errorf("sql write: %w (%w: %v)", ErrCommitUnknown, cerr, err)
}

// forgetCounts makes Cayley's quad store drop the quad and node counts it
// caches (and reports as exact) since a write of its own: an empty batch
// of deltas is a transaction that writes nothing and resets them.
func (k *KG) forgetCounts() {
	if err := k.cayley.ApplyDeltas(nil, graph.IgnoreOpts{}); err != nil {
		k.log.Warn("sql write: resetting cayley's cached counts failed", "err", err)
	}
}

// apply runs b's statements in tx with strategy s: prepare the batch,
// lock its graphs' rows of grove_graphs (writers of a graph take turns, so
// its counts stay exact), note which (graph, predicate) pairs it touches
// exist, insert, delete, and update the graphs' counts.
func (k *KG) apply(ctx context.Context, tx *sql.Tx, b *batch, s writeStrategy) (writeResult, error) {
	start := time.Now()
	if err := s.prepare(ctx, tx, b); err != nil {
		return writeResult{}, err
	}
	k.log.Debug("sql write: prepared", "adds", len(b.adds), "deletes", len(b.dels), "strategy", fmt.Sprintf("%T", s),
		"took", time.Since(start))
	return k.finish(ctx, tx, b, s, len(b.adds) > 0, len(b.dels) > 0)
}

// finish runs the statements of a prepared batch b (adds and dels: it has
// some) in tx with strategy s: lock its graphs' rows of grove_graphs
// (writers of a graph take turns, so its counts stay exact) and nodes,
// note which (graph, predicate) pairs it touches exist, insert, delete,
// and update the graphs' counts.
func (k *KG) finish(ctx context.Context, tx *sql.Tx, b *batch, s writeStrategy, adds, dels bool) (writeResult, error) {
	if err := k.lockGraphs(ctx, tx, b.labels); err != nil {
		return writeResult{}, err
	}
	if err := s.lockNodes(ctx, tx, b); err != nil {
		return writeResult{}, err
	}
	if err := k.notePairsBefore(ctx, tx, b); err != nil {
		return writeResult{}, err
	}
	counts := map[string]*graphDelta{}
	for h := range b.labels {
		counts[h] = &graphDelta{}
	}
	var r writeResult
	var err error
	if adds {
		if r.added, err = s.insert(ctx, tx, b, counts); err != nil {
			return writeResult{}, err
		}
	}
	if dels {
		if r.deleted, err = s.remove(ctx, tx, b, counts); err != nil {
			return writeResult{}, err
		}
	}
	return r, k.account(ctx, tx, b, counts)
}

// graphDelta is how a write changes one label's counts.
type graphDelta struct {
	quads, relations int64
}

// stored is true for a staged quad t that quads holds (a NULL label
// matches the quads without one).
const stored = `EXISTS (SELECT 1 FROM quads q WHERE q.subject_hash = t.s AND q.predicate_hash = t.p
	AND q.object_hash = t.o AND q.label_hash IS NOT DISTINCT FROM t.l)`

// execAll runs statements in order.
func (k *KG) execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return k.wrap(ctx, err)
		}
	}
	return nil
}

// staged writes a batch through temporary tables and set-based
// statements: their cost hardly grows with the batch.
type staged struct{ k *KG }

// prepare COPYs the batch into temporary tables: grove_tn, the values of
// the adds (and their labels), and grove_tq, the hashes of every quad with
// its index and whether it is a delete.
func (s staged) prepare(ctx context.Context, tx *sql.Tx, b *batch) error {
	if err := s.createTables(ctx, tx); err != nil {
		return err
	}
	return s.copy(ctx, tx, b, 0, nodeSet{})
}

// createTables creates the temporary tables the batch is copied into.
func (s staged) createTables(ctx context.Context, tx *sql.Tx) error {
	return s.k.execAll(ctx, tx,
		`CREATE TEMP TABLE grove_tn (hash BYTEA, value_string TEXT, datatype TEXT, language TEXT, iri BOOLEAN, bnode BOOLEAN,
			value_int BIGINT, value_bool BOOLEAN, value_float DOUBLE PRECISION, value_time TIMESTAMPTZ) ON COMMIT DROP`,
		`CREATE TEMP TABLE grove_tq (s BYTEA, p BYTEA, o BYTEA, l BYTEA, i INT, del BOOLEAN) ON COMMIT DROP`)
}

// copy COPYs b into the temporary tables, its quads numbered from first,
// skipping the nodes in copied (and adding those it copies).
func (s staged) copy(ctx context.Context, tx *sql.Tx, b *batch, first int, copied nodeSet) error {
	if err := s.k.copyNodes(ctx, tx, b.w, copied); err != nil {
		return err
	}
	return s.k.copyQuads(ctx, tx, b, first)
}

// lockNodes locks nothing: the staged statements lock the nodes they
// write as they go.
func (staged) lockNodes(context.Context, *sql.Tx, *batch) error { return nil }

func (s staged) insert(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error) {
	return s.k.insert(ctx, tx, b.w, counts)
}

func (s staged) remove(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error) {
	return s.k.remove(ctx, tx, b.w, counts)
}

// lockGraphs creates the rows of grove_graphs the batch's labels lack and
// locks them all (in name order, so that writers of several graphs do not
// deadlock) until the transaction ends.
func (k *KG) lockGraphs(ctx context.Context, tx *sql.Tx, labels map[string]string) error {
	if len(labels) == 0 {
		return nil
	}
	names := make([]string, 0, len(labels))
	for _, n := range labels {
		names = append(names, n)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO grove_graphs (name) SELECT DISTINCT unnest($1::text[]) ORDER BY 1
		ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name`, pq.StringArray(names))
	return k.wrap(ctx, err)
}

// insert adds the quads of w.adds not stored yet, with their nodes and
// reference counts, and counts them per label into counts. With
// IgnoreDup false, a quad already stored (or twice in the batch) fails
// the write with graph.ErrQuadExists naming it.
func (k *KG) insert(ctx context.Context, tx *sql.Tx, w *writeSet, counts map[string]*graphDelta) (int64, error) {
	if !w.opts.IgnoreDup {
		if err := k.firstBad(ctx, tx, w, false, stored, graph.ErrQuadExists); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	// The quads not stored yet, and how many of them reference each node:
	// new nodes are inserted with their reference count, existing ones get
	// theirs raised, so a first load never updates a row it just wrote.
	res, err := tx.ExecContext(ctx, `CREATE TEMP TABLE grove_new ON COMMIT DROP AS SELECT DISTINCT s, p, o, l FROM grove_tq t
		WHERE NOT del AND NOT `+stored)
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	fresh, err := res.RowsAffected()
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	if err := k.execAll(ctx, tx,
		`CREATE TEMP TABLE grove_refs ON COMMIT DROP AS SELECT h, count(*) AS n FROM (SELECT s AS h FROM grove_new
			UNION ALL SELECT p FROM grove_new UNION ALL SELECT o FROM grove_new UNION ALL SELECT l FROM grove_new) x
			WHERE h IS NOT NULL GROUP BY h`,
		`ANALYZE grove_new`, `ANALYZE grove_refs`,
		`INSERT INTO nodes (hash, refs, value_string, datatype, language, iri, bnode, value_int, value_bool, value_float, value_time)
			SELECT DISTINCT ON (t.hash) t.hash, coalesce(r.n, 0), t.value_string, t.datatype, t.language, t.iri, t.bnode,
				t.value_int, t.value_bool, t.value_float, t.value_time
			FROM grove_tn t LEFT JOIN grove_refs r ON r.h = t.hash
			ON CONFLICT (hash) DO UPDATE SET refs = nodes.refs + EXCLUDED.refs WHERE EXCLUDED.refs > 0`); err != nil {
		return 0, err
	}
	k.log.Debug("sql write: nodes inserted", "took", time.Since(start))
	start = time.Now()
	if err := k.skipForeignKeys(ctx, tx); err != nil {
		return 0, err
	}
	// The references were counted from grove_new: the write holds its
	// graphs' rows (the quads without a label: graph ""'s), so no other
	// writer of the same quads stores them meanwhile. Should one have
	// (ON CONFLICT skipped its quads), the counts would drift: the write
	// is rolled back and tried again instead (errConcurrentInsert).
	added, err := k.perLabel(ctx, tx, `WITH ins AS (INSERT INTO quads (subject_hash, predicate_hash, object_hash, label_hash, ts)
		SELECT s, p, o, l, now() FROM grove_new ORDER BY s, p, o ON CONFLICT DO NOTHING RETURNING label_hash)
		SELECT label_hash, count(*) FROM ins GROUP BY label_hash`, counts, 1)
	// (A server that reports no row count for CREATE TABLE AS makes fresh
	// 0, and the check inert.)
	if err == nil && added < fresh {
		err = fmt.Errorf("sql write: %d of %d new quads: %w", added, fresh, errConcurrentInsert)
	}
	k.log.Debug("sql write: quads inserted", "added", added, "took", time.Since(start))
	return added, err
}

// errConcurrentInsert is a staged write that found some of its new quads
// stored by another writer between counting their nodes' references and
// inserting them: its transaction is rolled back (nothing of it applied)
// and tried again, as a deadlock's victim is.
var errConcurrentInsert = errors.New("another writer stored some of the same quads meanwhile")

// skipForeignKeys turns the per-row foreign-key triggers of Cayley's
// schema off for the rest of tx when the role may (a superuser): every
// node of the batch is in nodes by now, so they only cost time.
// Otherwise they run.
func (k *KG) skipForeignKeys(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT grove_fk`); err != nil {
		return k.wrap(ctx, err)
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT grove_fk`); err != nil {
			return k.wrap(ctx, err)
		}
		k.log.Debug("sql write: foreign-key checks stay on (not a superuser)", "err", err)
	}
	return nil
}

// remove deletes the stored quads of w.dels, lowers the reference counts
// of their nodes, removes the nodes left with none (as Cayley's
// ApplyDeltas does), and counts the deleted quads per label into counts.
// With IgnoreMissing false, a quad not stored (or twice in the batch)
// fails the write with graph.ErrQuadNotExist naming it.
func (k *KG) remove(ctx context.Context, tx *sql.Tx, w *writeSet, counts map[string]*graphDelta) (int64, error) {
	if !w.opts.IgnoreMissing {
		if err := k.firstBad(ctx, tx, w, true, `NOT `+stored, graph.ErrQuadNotExist); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	if err := k.execAll(ctx, tx, `CREATE TEMP TABLE grove_gone (s BYTEA, p BYTEA, o BYTEA, l BYTEA) ON COMMIT DROP`); err != nil {
		return 0, err
	}
	deleted, err := k.perLabel(ctx, tx, `WITH d AS (DELETE FROM quads q USING (SELECT DISTINCT s, p, o, l FROM grove_tq WHERE del) t
			WHERE q.subject_hash = t.s AND q.predicate_hash = t.p AND q.object_hash = t.o AND q.label_hash IS NOT DISTINCT FROM t.l
			RETURNING q.subject_hash, q.predicate_hash, q.object_hash, q.label_hash),
		g AS (INSERT INTO grove_gone SELECT * FROM d RETURNING l)
		SELECT l, count(*) FROM g GROUP BY l`, counts, -1)
	if err != nil {
		return 0, err
	}
	if err := k.execAll(ctx, tx,
		`CREATE TEMP TABLE grove_unrefs ON COMMIT DROP AS SELECT h, count(*) AS n FROM (SELECT s AS h FROM grove_gone
			UNION ALL SELECT p FROM grove_gone UNION ALL SELECT o FROM grove_gone UNION ALL SELECT l FROM grove_gone) x
			WHERE h IS NOT NULL GROUP BY h`,
		`ANALYZE grove_unrefs`,
		`UPDATE nodes n SET refs = n.refs - r.n FROM grove_unrefs r WHERE n.hash = r.h`); err != nil {
		return 0, err
	}
	// The reference counts are exact (every write keeps them so), so a
	// node at 0 is named by no quad: the foreign keys' per-row checks
	// (four lookups through a trigger per node, 2.4 s of a 10,000-quad
	// delete) are skipped when the role may, as Load skips them.
	if err := k.skipForeignKeys(ctx, tx); err != nil {
		return 0, err
	}
	if err := k.execAll(ctx, tx, `DELETE FROM nodes n USING grove_unrefs r WHERE n.hash = r.h AND n.refs <= 0`); err != nil {
		return 0, err
	}
	k.log.Debug("sql write: quads deleted", "deleted", deleted, "took", time.Since(start))
	return deleted, nil
}

// perLabel runs query, which yields (label hash, quads) rows, adds
// sign*quads to each label's count and returns the total.
func (k *KG) perLabel(ctx context.Context, tx *sql.Tx, query string, counts map[string]*graphDelta, sign int64) (int64, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return 0, k.wrap(ctx, err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var l []byte
		var n int64
		if err := rows.Scan(&l, &n); err != nil {
			return 0, k.wrap(ctx, err)
		}
		total += n
		if c := counts[string(l)]; c != nil {
			c.quads += sign * n
		}
	}
	return total, k.wrap(ctx, rows.Err())
}

// firstBad fails the write when a staged add (del false) or delete
// matches cond or repeats an earlier one of the batch: the error is a
// graph.DeltaError of the first such quad with err.
func (k *KG) firstBad(ctx context.Context, tx *sql.Tx, w *writeSet, del bool, cond string, err error) error {
	var i sql.NullInt64
	qerr := tx.QueryRowContext(ctx, `SELECT min(i) FROM (SELECT i, s, p, o, l,
			row_number() OVER (PARTITION BY s, p, o, l ORDER BY i) AS n FROM grove_tq WHERE del = $1) t
		WHERE n > 1 OR `+cond, del).Scan(&i)
	if qerr != nil {
		return k.wrap(ctx, qerr)
	}
	if !i.Valid {
		return nil
	}
	d := graph.Delta{Quad: w.quad(del, int(i.Int64)), Action: graph.Add}
	if del {
		d.Action = graph.Delete
	}
	return &graph.DeltaError{Delta: d, Err: err}
}

// account updates the counts of the batch's graphs: quads by counts,
// relations by the (graph, predicate) pairs the batch made exist or not.
func (k *KG) account(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) error {
	if len(b.labels) == 0 {
		return nil
	}
	if err := k.relationDeltas(ctx, tx, b, counts); err != nil {
		return err
	}
	labels := b.labels
	names := make([]string, 0, len(counts))
	var quads, rels []int64
	for h, c := range counts {
		names = append(names, labels[h])
		quads, rels = append(quads, c.quads), append(rels, c.relations)
	}
	// Labels that share a name (an IRI and a literal of the same text)
	// share its row.
	_, err := tx.ExecContext(ctx, `UPDATE grove_graphs g SET quads = g.quads + d.q, relations = g.relations + d.r
		FROM (SELECT n, sum(q) AS q, sum(r) AS r FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(n, q, r) GROUP BY n) d
		WHERE g.name = d.n`, pq.StringArray(names), pq.Int64Array(quads), pq.Int64Array(rels))
	return k.wrap(ctx, err)
}

// nodeSet is the hashes of the nodes a write has copied so far. Copying
// a node twice is harmless (the insert takes one row per hash), so a
// write of many chunks may forget them (see streamOnce).
type nodeSet map[string]bool

// copyNodes COPYs every distinct value of w's adds (labels included) that
// is not in copied, and adds it there.
func (k *KG) copyNodes(ctx context.Context, tx *sql.Tx, w *writeSet, copied nodeSet) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("grove_tn", "hash", "value_string", "datatype", "language", "iri", "bnode",
		"value_int", "value_bool", "value_float", "value_time"))
	if err != nil {
		return k.wrap(ctx, err)
	}
	defer stmt.Close()
	add := func(v quad.Value) error {
		h := hashOf(v)
		if copied[string(h)] {
			return nil
		}
		copied[string(h)] = true
		cols, err := nodeColumns(v)
		if err != nil {
			return err
		}
		_, err = stmt.ExecContext(ctx, append([]any{h}, cols...)...)
		return err
	}
	for i := range w.adds {
		q := w.quad(false, i)
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v == nil {
				continue // checked by newBatch
			}
			if err := add(v); err != nil {
				return fmt.Errorf("sql write: quad %d: %w", i+1, k.wrap(ctx, err))
			}
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return k.wrap(ctx, err)
	}
	return k.wrap(ctx, stmt.Close())
}

// copyQuads COPYs the hashes of b's quads, each with its index (plus
// first) and kind.
func (k *KG) copyQuads(ctx context.Context, tx *sql.Tx, b *batch, first int) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("grove_tq", "s", "p", "o", "l", "i", "del"))
	if err != nil {
		return k.wrap(ctx, err)
	}
	defer stmt.Close()
	for _, del := range []bool{false, true} {
		qs := b.adds
		if del {
			qs = b.dels
		}
		for i, h := range qs {
			if _, err := stmt.ExecContext(ctx, h.s, h.p, h.o, nullable(h.l), first+i, del); err != nil {
				return k.wrap(ctx, err)
			}
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
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
