package sqlkg

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// hashedQuad is a quad as the quads table keys it: the hashes of its four
// directions (l nil: no label).
type hashedQuad struct{ s, p, o, l []byte }

// key identifies the quad (hashes have a fixed length, so the
// concatenation is unambiguous).
func (h hashedQuad) key() string { return string(h.s) + string(h.p) + string(h.o) + string(h.l) }

// compare orders quads as PostgreSQL orders their hashes (bytea compares
// bytewise), a missing label first.
func (h hashedQuad) compare(o hashedQuad) int {
	if c := bytes.Compare(h.s, o.s); c != 0 {
		return c
	}
	if c := bytes.Compare(h.p, o.p); c != 0 {
		return c
	}
	if c := bytes.Compare(h.o, o.o); c != 0 {
		return c
	}
	return bytes.Compare(h.l, o.l)
}

// pair is a (label, predicate) pair that a batch writes quads of: one
// relation of the label's graph while some quad of the label has the
// predicate.
type pair struct {
	l, p       []byte
	adds, dels bool // the batch adds (deletes) quads of the pair
	before     bool // a quad of the pair was stored before the batch
}

// batch is a writeSet with its quads checked and hashed, what both write
// strategies start from.
type batch struct {
	w          *writeSet
	adds, dels []hashedQuad
	// labels is the graph name of each label hash ("" for the quads
	// without a label, which are graph "").
	labels map[string]string
	// pairs are the batch's (label, predicate) pairs (a nil label: the
	// quads without one).
	pairs []*pair
}

// newBatch hashes w's quads, failing on a quad that lacks a direction or
// an add that PostgreSQL cannot store (see storable).
func newBatch(w *writeSet) (*batch, error) {
	b := &batch{w: w, labels: map[string]string{}}
	seen := map[string]*pair{}
	var lastL quad.Value
	var lastH []byte
	for _, del := range []bool{false, true} {
		n := len(w.adds)
		if del {
			n = len(w.dels)
		}
		out := make([]hashedQuad, n)
		for i := range n {
			q := w.quad(del, i)
			if q.Subject == nil || q.Predicate == nil || q.Object == nil {
				return nil, fmt.Errorf("sql write: quad %d (%v) lacks a direction", i+1, q)
			}
			if !del {
				if err := storable(q); err != nil {
					return nil, fmt.Errorf("sql write: quad %d (%s): %w", i+1, quadNames(q), err)
				}
			}
			h := hashedQuad{s: hashOf(q.Subject), p: hashOf(q.Predicate), o: hashOf(q.Object)}
			switch {
			case q.Label == nil:
				b.labels[""] = "" // graph "", as the embedded store lists it
			case q.Label != lastL: // most batches have one label
				lastL, lastH = q.Label, hashOf(q.Label)
				b.labels[string(lastH)] = graphName(q.Label)
				h.l = lastH
			default:
				h.l = lastH
			}
			b.notePair(seen, h, del)
			out[i] = h
		}
		if del {
			b.dels = out
		} else {
			b.adds = out
		}
	}
	return b, nil
}

// notePair records that the batch adds (del false) or deletes a quad of
// h's (label, predicate) pair.
func (b *batch) notePair(seen map[string]*pair, h hashedQuad, del bool) {
	k := string(h.l) + string(h.p)
	p := seen[k]
	if p == nil {
		p = &pair{l: h.l, p: h.p}
		seen[k] = p
		b.pairs = append(b.pairs, p)
	}
	if del {
		p.dels = true
	} else {
		p.adds = true
	}
}

// firstRejected is the index of the first of qs that repeats an earlier one or
// is not in done (by key), or -1: the quad a strict write (IgnoreDup or
// IgnoreMissing false) fails on.
func firstRejected(qs []hashedQuad, done map[string]bool) int {
	seen := make(map[string]bool, len(qs))
	for i, h := range qs {
		k := h.key()
		if seen[k] || !done[k] {
			return i
		}
		seen[k] = true
	}
	return -1
}

// deltaError is the error of a strict write that fails on the i-th
// delete (del) or add of w.
func deltaError(w *writeSet, del bool, i int) error {
	d := graph.Delta{Quad: w.quad(del, i), Action: graph.Add}
	err := graph.ErrQuadExists
	if del {
		d.Action, err = graph.Delete, graph.ErrQuadNotExist
	}
	return &graph.DeltaError{Delta: d, Err: err}
}

// pairsPerQuery bounds the pairs one existence query checks (two
// parameters each).
const pairsPerQuery = 500

// pairsExist reports which of ps some stored quad has (by index into ps).
// Each pair is its own EXISTS with parameters rather than a join with a
// staged table: PostgreSQL plans an unnamed statement with its parameters'
// values, so it looks a pair up through an index when its predicate is
// rare instead of scanning the label's quads (a join plans for an average
// pair; for a predicate the graph lacks that was a scan of the whole
// graph, 70-120 ms on the film graph).
func (k *KG) pairsExist(ctx context.Context, tx *sql.Tx, ps []*pair) (map[int]bool, error) {
	out := map[int]bool{}
	for start := 0; start < len(ps); start += pairsPerQuery {
		chunk := ps[start:min(start+pairsPerQuery, len(ps))]
		var q strings.Builder
		args := make([]any, 0, 2*len(chunk))
		q.WriteString(`SELECT i FROM (VALUES `)
		for i, p := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			// A nil label is the quads without one (label_hash IS NULL:
			// "= NULL" matches nothing).
			if p.l == nil {
				fmt.Fprintf(&q, `(%d, EXISTS (SELECT 1 FROM quads WHERE label_hash IS NULL AND predicate_hash = $%d))`,
					start+i, len(args)+1)
				args = append(args, p.p)
				continue
			}
			fmt.Fprintf(&q, `(%d, EXISTS (SELECT 1 FROM quads WHERE label_hash = $%d AND predicate_hash = $%d))`,
				start+i, len(args)+1, len(args)+2)
			args = append(args, p.l, p.p)
		}
		q.WriteString(`) v(i, e) WHERE e`)
		if err := k.scanInts(ctx, tx, q.String(), args, func(i int64) { out[int(i)] = true }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanInts runs query, which yields one integer column, calling f on each.
func (k *KG) scanInts(ctx context.Context, tx *sql.Tx, query string, args []any, f func(int64)) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return k.wrap(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return k.wrap(ctx, err)
		}
		f(n)
	}
	return k.wrap(ctx, rows.Err())
}

// notePairsBefore records which of b's pairs exist before the batch is
// applied (its graphs' rows locked, so no other writer changes them).
func (k *KG) notePairsBefore(ctx context.Context, tx *sql.Tx, b *batch) error {
	found, err := k.pairsExist(ctx, tx, b.pairs)
	if err != nil {
		return err
	}
	for i, p := range b.pairs {
		p.before = found[i]
	}
	return nil
}

// relationDeltas adds to counts how the batch changed each label's number
// of relations: a pair it only added to exists now; one it deleted from
// is looked up again.
func (k *KG) relationDeltas(ctx context.Context, tx *sql.Tx, b *batch, counts map[string]*graphDelta) error {
	var again []*pair
	for _, p := range b.pairs {
		if p.dels {
			again = append(again, p)
		}
	}
	found, err := k.pairsExist(ctx, tx, again)
	if err != nil {
		return err
	}
	after := make(map[*pair]bool, len(b.pairs))
	for i, p := range again {
		after[p] = found[i]
	}
	for _, p := range b.pairs {
		now := p.before || p.adds
		if p.dels {
			now = after[p]
		}
		c := counts[string(p.l)]
		if c == nil {
			continue
		}
		if now && !p.before {
			c.relations++
		} else if p.before && !now {
			c.relations--
		}
	}
	return nil
}
