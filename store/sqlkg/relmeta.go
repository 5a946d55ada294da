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
	// A flag: a relation node's grove:hidden or grove:inverseLabel.
	type flag struct {
		s, p []byte
		text *string
		b    bool
	}
	rs, err := queryAll(ctx, k, func(r *flag) []any { return []any{&r.s, &r.p, &r.text, &r.b} },
		`SELECT q.subject_hash, q.predicate_hash, n.value_string, coalesce(n.value_bool, false)
		FROM quads q JOIN nodes n ON n.hash = q.object_hash
		WHERE q.subject_hash = ANY($1) AND q.predicate_hash = ANY($2)`,
		pq.ByteaArray(hs), pq.ByteaArray{k.groveHiddenH, k.groveInverseH})
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		f := fl[string(r.s)]
		if string(r.p) == string(k.groveHiddenH) {
			f.hidden = r.b || r.text != nil && *r.text == "true"
		} else if r.text != nil && *r.text != "" {
			f.inverse = *r.text
		}
		fl[string(r.s)] = f
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
	// A qualifier: its fact (s p o in graph g), statement, relation (qp) and value.
	type qual struct{ s, p, o, g, stmt, qp, val []byte }
	rs, err := queryAll(ctx, k, func(q *qual) []any { return []any{&q.s, &q.p, &q.o, &q.g, &q.stmt, &q.qp, &q.val} },
		`SELECT st.subject_hash, r.p, sv.object_hash, st.label_hash, st.object_hash, q.predicate_hash, q.object_hash
		FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS r(p, stmt, val)
		JOIN quads st ON st.predicate_hash = r.stmt
		JOIN quads sv ON sv.subject_hash = st.object_hash AND sv.predicate_hash = r.val AND sv.label_hash = st.label_hash
		JOIN quads q ON q.subject_hash = st.object_hash AND q.label_hash = st.label_hash
		JOIN nodes qp ON qp.hash = q.predicate_hash
		WHERE st.subject_hash = ANY($1) AND coalesce(qp.iri, false) AND qp.value_string LIKE 'pq:%'`,
		pq.ByteaArray(subjects), ps, stmts, vals)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return out, nil
	}
	var refs [][]byte
	for _, r := range rs {
		refs = append(refs, r.stmt, r.qp, r.val, r.g)
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
		f := store.Feature{Relation: rel, Name: meta[rel].label, Value: v.Name(), Graph: graphName(graphs[string(r.g)]),
			Statement: ents[string(r.stmt)].ID}
		if !v.Literal {
			f.ValueID = v.ID
		}
		key := qualKey{string(r.s), string(r.p), string(r.o), string(r.g)}
		out[key] = append(out[key], f)
	}
	for _, fs := range out {
		store.SortQualifiers(fs)
	}
	return out, nil
}
