package sqlkg

import (
	"context"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/lib/pq"

	"github.com/grove-kg/grove/store"
)

// relMeta is how a relation is named and shown, as the embedded engine
// derives it: from what the relation's own node says.
type relMeta struct {
	label, inverse string
	hidden         bool
}

// relationMeta names relations (by id) as the engine does: the label of
// the relation's node when it has one (Wikidata: P57 "director",
// schema:subjectOf "Wikipedia article"), else words derived from the id;
// a qualifier pq:Q is named after property Q. The inverse label is the
// node's grove:inverseLabel, else derived from the label. A relation is
// hidden when it is a label, alias, description or link predicate, one
// of Grove's own or a statement predicate, or when its node says
// grove:hidden "true" (Wikidata's external ids).
func (k *KG) relationMeta(ctx context.Context, ids []string) (map[string]relMeta, error) {
	out := make(map[string]relMeta, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	named := make(map[string][]byte, len(ids)) // id -> hash of the node that names it
	self := make(map[string][]byte, len(ids))  // id -> hash of its own node
	var hs [][]byte
	for _, id := range ids {
		n := id
		if q, ok := strings.CutPrefix(id, store.QualifierPrefix); ok {
			n = q
		}
		named[id] = hashOf(quad.IRI(n))
		self[id] = hashOf(quad.IRI(id))
		hs = append(hs, named[id], self[id])
	}
	names, err := k.names(ctx, hs)
	if err != nil {
		return nil, err
	}
	type flags struct {
		hidden  bool
		inverse string
	}
	fl := map[string]flags{}
	rows, err := k.db.QueryContext(ctx, `SELECT q.subject_hash, q.predicate_hash, n.value_string, coalesce(n.value_bool, false)
		FROM quads q JOIN nodes n ON n.hash = q.object_hash
		WHERE q.subject_hash = ANY($1) AND q.predicate_hash = ANY($2)`,
		pq.ByteaArray(hs), pq.ByteaArray{k.groveHiddenH, k.groveInverseH})
	if err != nil {
		return nil, k.wrap(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s, p []byte
		var text *string
		var b bool
		if err := rows.Scan(&s, &p, &text, &b); err != nil {
			return nil, k.wrap(ctx, err)
		}
		f := fl[string(s)]
		if string(p) == string(k.groveHiddenH) {
			f.hidden = b || text != nil && *text == "true"
		} else if text != nil && *text != "" {
			f.inverse = *text
		}
		fl[string(s)] = f
	}
	if err := rows.Err(); err != nil {
		return nil, k.wrap(ctx, err)
	}
	for _, id := range ids {
		m := relMeta{label: names[string(named[id])].Entity(id).Label}
		if m.label == "" {
			m.label = store.DeriveLabel(strings.TrimPrefix(id, store.QualifierPrefix))
		}
		f := fl[string(self[id])]
		m.inverse = f.inverse
		if m.inverse == "" {
			m.inverse = store.InverseLabel(m.label)
		}
		m.hidden = k.hiddenID(id) || f.hidden
		out[id] = m
	}
	return out, nil
}

// qualKey names one fact: subject, relation, value and graph hashes.
type qualKey struct{ s, p, o, g string }

// qualifiers reads the statement qualifiers of the facts of subjects
// along rels, as the engine stores them (see store.StatementPrefix): S
// p:P T, T ps:P O and T pq:Q V for each qualifier, all in one graph. It
// returns them by fact, each statement's together (statements by id,
// qualifiers by relation, then value), named like the engine's: the
// qualifier after property Q, a node value by its label (its id when it
// has none), a literal rendered.
func (k *KG) qualifiers(ctx context.Context, subjects [][]byte, rels []string) (map[qualKey][]store.Feature, error) {
	out := map[qualKey][]store.Feature{}
	if len(subjects) == 0 || len(rels) == 0 {
		return out, nil
	}
	var ps, stmts, vals pq.ByteaArray
	for _, r := range rels {
		ps = append(ps, hashOf(quad.IRI(r)))
		stmts = append(stmts, hashOf(quad.IRI(store.StatementPrefix+r)))
		vals = append(vals, hashOf(quad.IRI(store.StatementValuePrefix+r)))
	}
	rows, err := k.db.QueryContext(ctx, `SELECT st.subject_hash, r.p, sv.object_hash, st.label_hash, st.object_hash, q.predicate_hash, q.object_hash
		FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS r(p, stmt, val)
		JOIN quads st ON st.predicate_hash = r.stmt
		JOIN quads sv ON sv.subject_hash = st.object_hash AND sv.predicate_hash = r.val AND sv.label_hash = st.label_hash
		JOIN quads q ON q.subject_hash = st.object_hash AND q.label_hash = st.label_hash
		JOIN nodes qp ON qp.hash = q.predicate_hash
		WHERE st.subject_hash = ANY($1) AND coalesce(qp.iri, false) AND qp.value_string LIKE 'pq:%'`,
		pq.ByteaArray(subjects), ps, stmts, vals)
	if err != nil {
		return nil, k.wrap(ctx, err)
	}
	type row struct {
		key           qualKey
		stmt, qp, val []byte
	}
	var rs []row
	var refs [][]byte
	for rows.Next() {
		var s, p, o, g []byte
		var r row
		if err := rows.Scan(&s, &p, &o, &g, &r.stmt, &r.qp, &r.val); err != nil {
			rows.Close()
			return nil, k.wrap(ctx, err)
		}
		r.key = qualKey{string(s), string(p), string(o), string(g)}
		rs = append(rs, r)
		refs = append(refs, r.stmt, r.qp, r.val, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, k.wrap(ctx, err)
	}
	if len(rs) == 0 {
		return out, nil
	}
	ents, err := k.entities(ctx, refs)
	if err != nil {
		return nil, err
	}
	graphs, err := k.values(ctx, refs)
	if err != nil {
		return nil, err
	}
	var qrels []string
	for _, r := range rs {
		qrels = append(qrels, ents[string(r.qp)].ID)
	}
	meta, err := k.relationMeta(ctx, qrels)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		v := ents[string(r.val)]
		rel := ents[string(r.qp)].ID
		f := store.Feature{Relation: rel, Name: meta[rel].label, Value: v.Name(), Graph: graphName(graphs[r.key.g]),
			Statement: ents[string(r.stmt)].ID}
		if !v.Literal {
			f.ValueID = v.ID
		}
		out[r.key] = append(out[r.key], f)
	}
	for _, fs := range out {
		store.SortQualifiers(fs)
	}
	return out, nil
}
