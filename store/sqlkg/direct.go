package sqlkg

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/lib/pq"
)

// smallWrite is the largest batch (adds plus deletes) written with direct
// statements; larger ones are staged. Staging costs about ten statements
// (temporary tables, their statistics) whatever the batch; direct
// statements grow with it, and overtake staging between 50 and 100 quads
// (BenchmarkWriteStrategies, BENCHMARKS.md session 23).
const smallWrite = 64

// nodeParams is the number of parameters of a node row.
const nodeParams = 11

// A direct insert passes every node of the batch (at most four per quad)
// as parameters of one statement: PostgreSQL takes at most 65,535. The
// constant overflows, failing the build, if smallWrite is too large.
const _ uint16 = smallWrite * 4 * nodeParams

// writeStrategy is how a batch's quads reach the tables, inside the
// transaction write opens, after the graphs' rows are locked.
type writeStrategy interface {
	// prepare runs before the graphs' rows are locked.
	prepare(ctx context.Context, tx *sql.Tx, b *batch) error
	// lockNodes runs after the graphs' rows are locked.
	lockNodes(ctx context.Context, tx *sql.Tx, b *batch) error
	// insert adds the batch's quads not stored yet with their nodes and
	// reference counts, counting them per label into counts, and returns
	// how many it added.
	insert(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error)
	// remove deletes the batch's stored deletes, lowers their nodes'
	// reference counts, removes the nodes left without any, counts them
	// per label into counts, and returns how many it deleted.
	remove(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error)
}

// strategyFor picks direct statements for a small batch, staging
// otherwise.
func (k *KG) strategyFor(b *batch) writeStrategy {
	if len(b.adds)+len(b.dels) <= smallWrite {
		return direct{k}
	}
	return staged{k}
}

// direct writes a batch with parameterised statements, no temporary
// table: the quads added (deleted) are those INSERT (DELETE) RETURNING
// names, so the counts are exact however the batch repeats itself or the
// table.
//
// Direct writers cannot deadlock each other: each takes the rows it
// writes in one order, its graphs' (by name), then the stored nodes its
// quads name (by hash), then the nodes it creates (by hash, a writer
// creating the same node waits for the first), and only then quads,
// whose nodes it holds (so a writer of the same quad waited before).
type direct struct{ k *KG }

func (direct) prepare(context.Context, *sql.Tx, *batch) error { return nil }

// lockNodes locks the stored nodes that the batch's quads name, in hash
// order, for the rest of the transaction.
func (d direct) lockNodes(ctx context.Context, tx *sql.Tx, b *batch) error {
	seen := map[string]bool{}
	for _, qs := range [][]hashedQuad{b.adds, b.dels} {
		for _, h := range qs {
			for _, v := range [][]byte{h.s, h.p, h.o, h.l} {
				if v != nil {
					seen[string(v)] = true
				}
			}
		}
	}
	hs := make(pq.ByteaArray, 0, len(seen))
	for _, h := range slices.Sorted(maps.Keys(seen)) {
		hs = append(hs, []byte(h))
	}
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM nodes WHERE hash = ANY($1) ORDER BY hash FOR NO KEY UPDATE`, hs)
	return d.k.wrap(ctx, err)
}

// insert inserts the batch's nodes (reference count 0, existing ones
// left alone) and quads in one statement, then raises the reference
// counts of the nodes of the quads it inserted.
func (d direct) insert(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error) {
	nodes, err := b.addedNodes()
	if err != nil {
		return 0, err
	}
	qs := distinctSorted(b.adds)
	var q strings.Builder
	args := make([]any, 0, len(nodes)*nodeParams+len(qs)*4)
	q.WriteString(`WITH n AS (INSERT INTO nodes (hash, refs, value_string, datatype, language, iri, bnode,
		value_int, value_bool, value_float, value_time) VALUES `)
	for i, n := range nodes {
		q.WriteString(sep(i) + "(" + placeholders(len(args), nodeParams) + ")")
		args = append(args, n...)
	}
	q.WriteString(` ON CONFLICT (hash) DO NOTHING)
		INSERT INTO quads (subject_hash, predicate_hash, object_hash, label_hash, ts) VALUES `)
	for i, h := range qs {
		q.WriteString(sep(i) + "(" + placeholders(len(args), 4) + ", now())")
		args = append(args, h.s, h.p, h.o, nullable(h.l))
	}
	q.WriteString(` ON CONFLICT DO NOTHING RETURNING subject_hash, predicate_hash, object_hash, label_hash`)
	done, err := d.k.changed(ctx, tx, q.String(), args, counts, 1)
	if err != nil {
		return 0, err
	}
	if !b.w.opts.IgnoreDup {
		if i := firstRejected(b.adds, done); i >= 0 {
			return 0, deltaError(b.w, false, i)
		}
	}
	return int64(len(done)), d.k.addRefs(ctx, tx, refDeltas(qs, done, 1))
}

// remove deletes the batch's deletes in one statement, lowers the
// reference counts of the nodes of the quads it deleted, and removes
// those nodes left without any.
func (d direct) remove(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) (int64, error) {
	qs := distinctSorted(b.dels)
	var q strings.Builder
	args := make([]any, 0, len(qs)*4)
	q.WriteString(`DELETE FROM quads q USING (VALUES `)
	for i, h := range qs {
		q.WriteString(sep(i) + "(" + placeholders(len(args), 4, "::bytea") + ")")
		args = append(args, h.s, h.p, h.o, nullable(h.l))
	}
	q.WriteString(`) t(s, p, o, l) WHERE q.subject_hash = t.s AND q.predicate_hash = t.p AND q.object_hash = t.o
		AND q.label_hash IS NOT DISTINCT FROM t.l
		RETURNING q.subject_hash, q.predicate_hash, q.object_hash, q.label_hash`)
	done, err := d.k.changed(ctx, tx, q.String(), args, counts, -1)
	if err != nil {
		return 0, err
	}
	if !b.w.opts.IgnoreMissing {
		if i := firstRejected(b.dels, done); i >= 0 {
			return 0, deltaError(b.w, true, i)
		}
	}
	refs := refDeltas(qs, done, -1)
	if err := d.k.addRefs(ctx, tx, refs); err != nil {
		return 0, err
	}
	var hs pq.ByteaArray
	for _, h := range slices.Sorted(maps.Keys(refs)) {
		hs = append(hs, []byte(h))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE hash = ANY($1) AND refs <= 0`, hs); err != nil {
		return 0, d.k.wrap(ctx, err)
	}
	return int64(len(done)), nil
}

// changed runs query, an INSERT or DELETE returning the hashes of the
// quads it wrote, and returns their keys, adding sign per quad to its
// label's count.
func (k *KG) changed(ctx context.Context, tx *sql.Tx, query string, args []any, counts map[string]*graphDelta, sign int64) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, k.wrap(ctx, err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var h hashedQuad
		if err := rows.Scan(&h.s, &h.p, &h.o, &h.l); err != nil {
			return nil, k.wrap(ctx, err)
		}
		done[h.key()] = true
		if c := counts[string(h.l)]; c != nil { // a nil label: graph ""
			c.quads += sign
		}
	}
	return done, k.wrap(ctx, rows.Err())
}

// addRefs adds each node's delta to its reference count, in hash order so
// that writers sharing nodes lock them in the same order. Every node
// named exists (inserted before its quads, or named by a quad the write
// deleted); were one missing, the row inserted would have no value and,
// its count negative, be removed with the nodes left without references.
func (k *KG) addRefs(ctx context.Context, tx *sql.Tx, deltas map[string]int64) error {
	if len(deltas) == 0 {
		return nil
	}
	var q strings.Builder
	args := make([]any, 0, 2*len(deltas))
	q.WriteString(`INSERT INTO nodes (hash, refs) VALUES `)
	for i, h := range slices.Sorted(maps.Keys(deltas)) {
		q.WriteString(sep(i) + "(" + placeholders(len(args), 2) + ")")
		args = append(args, []byte(h), deltas[h])
	}
	q.WriteString(` ON CONFLICT (hash) DO UPDATE SET refs = nodes.refs + EXCLUDED.refs`)
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return k.wrap(ctx, err)
}

// refDeltas is sign times the number of references that the quads of qs
// in done make to each node.
func refDeltas(qs []hashedQuad, done map[string]bool, sign int64) map[string]int64 {
	out := map[string]int64{}
	for _, h := range qs {
		if !done[h.key()] {
			continue
		}
		for _, v := range [][]byte{h.s, h.p, h.o, h.l} {
			if v != nil {
				out[string(v)] += sign
			}
		}
	}
	return out
}

// addedNodes are the parameters of a node row (hash, reference count 0,
// value columns) for each distinct value of the batch's adds, labels
// included, in hash order (writers inserting the same nodes wait for
// each other in the same order).
func (b *batch) addedNodes() ([][]any, error) {
	byHash := map[string][]any{}
	for i := range b.w.adds {
		q := b.w.quad(false, i)
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v == nil {
				continue
			}
			h := hashOf(v)
			if byHash[string(h)] != nil {
				continue
			}
			cols, err := nodeColumns(v)
			if err != nil {
				return nil, fmt.Errorf("sql write: quad %d: %w", i+1, err)
			}
			byHash[string(h)] = append([]any{h, 0}, cols...)
		}
	}
	out := make([][]any, 0, len(byHash))
	for _, h := range slices.Sorted(maps.Keys(byHash)) {
		out = append(out, byHash[h])
	}
	return out, nil
}

// distinctSorted is qs without repeats, in hash order (writers inserting
// or deleting the same quads wait for each other in the same order).
func distinctSorted(qs []hashedQuad) []hashedQuad {
	out := slices.SortedFunc(slices.Values(qs), hashedQuad.compare)
	return slices.CompactFunc(out, func(a, b hashedQuad) bool { return a.compare(b) == 0 })
}

// placeholders is "$n+1, ..., $n+cols", each followed by cast (a type
// cast such as "::bytea", or nothing).
func placeholders(n, cols int, cast ...string) string {
	var s strings.Builder
	for i := range cols {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "$%d%s", n+i+1, strings.Join(cast, ""))
	}
	return s.String()
}

// sep is the separator before the i-th row of a VALUES list.
func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ", "
}

// nullable is h as a parameter, NULL when nil.
func nullable(h []byte) any {
	if h == nil {
		return nil
	}
	return h
}
