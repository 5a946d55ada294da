package sqlkg

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/lib/pq"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/remote"
	"github.com/grove-kg/grove/store/labelindex"
)

// searchCap bounds the label rows each of a search's two reads (exact,
// then prefix) returns before ranking.
const searchCap = 1000

// Graphs lists the graphs that hold quads, with their counts (kept by
// every write, Load's, Delete's and those of QuadStore's ApplyDeltas). A
// graph whose quads were all deleted is not listed.
func (k *KG) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	return queryAll(ctx, k, func(gi *store.GraphInfo) []any { return []any{&gi.Name, &gi.Quads, &gi.Relations} },
		`SELECT name, quads, relations FROM grove_graphs WHERE quads > 0 ORDER BY name`)
}

func (k *KG) graphNames(ctx context.Context) ([]string, error) {
	return queryAll(ctx, k, single[string], `SELECT name FROM grove_graphs WHERE quads > 0 ORDER BY name`)
}

// homeGraphs lists the graphs where h has edges through predicates other
// than exclude.
func (k *KG) homeGraphs(ctx context.Context, h []byte, exclude [][]byte) ([]string, error) {
	hs, err := queryAll(ctx, k, single[[]byte], `SELECT DISTINCT label_hash FROM quads WHERE subject_hash = $1 AND NOT predicate_hash = ANY($2)
		UNION SELECT DISTINCT label_hash FROM quads WHERE object_hash = $1 AND NOT predicate_hash = ANY($2)`,
		h, pq.ByteaArray(append([][]byte{}, exclude...))) // never NULL: NOT x = ANY(NULL) is NULL
	if err != nil {
		return nil, err
	}
	vals, err := k.values(ctx, hs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range vals {
		if n := graphName(v); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// exists returns the hash of id, or ErrNotFound when no quad has it as
// subject, object or predicate.
func (k *KG) exists(ctx context.Context, id string) ([]byte, error) {
	if id == "" {
		return nil, fmt.Errorf("empty id: %w", store.ErrNotFound)
	}
	h := hashOf(valueOfID(id))
	var one int
	// A predicate is a node too (the engine describes relation ids).
	err := k.db.QueryRowContext(ctx, `SELECT 1 FROM quads WHERE subject_hash = $1 UNION ALL SELECT 1 FROM quads WHERE object_hash = $1
		UNION ALL SELECT 1 FROM quads WHERE predicate_hash = $1 LIMIT 1`, h).Scan(&one)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("entity %q: %w", id, store.ErrNotFound)
	}
	return h, k.wrap(ctx, err)
}

// Entity returns a node's names and graphs.
func (k *KG) Entity(ctx context.Context, id string) (store.Entity, error) {
	if err := k.usable(ctx); err != nil {
		return store.Entity{}, err
	}
	h, err := k.exists(ctx, id)
	if err != nil {
		return store.Entity{}, err
	}
	names, err := k.names(ctx, [][]byte{h})
	if err != nil {
		return store.Entity{}, err
	}
	e := names[string(h)].Entity(id)
	if e.Graphs, err = k.homeGraphs(ctx, h, nil); err != nil {
		return store.Entity{}, err
	}
	return e, nil
}

// names reads the labels, aliases and descriptions of nodes in one query.
func (k *KG) names(ctx context.Context, hashes [][]byte) (map[string]remote.Names, error) {
	out := map[string]remote.Names{}
	if len(hashes) == 0 {
		return out, nil
	}
	preds := slices.Concat(k.labelH, k.aliasH, k.descH)
	type name struct {
		s, p []byte
		text string
		lang sql.NullString
	}
	rs, err := queryAll(ctx, k, func(r *name) []any { return []any{&r.s, &r.p, &r.text, &r.lang} },
		`SELECT q.subject_hash, q.predicate_hash, n.value_string, n.language
		FROM quads q JOIN nodes n ON n.hash = q.object_hash
		WHERE q.subject_hash = ANY($1) AND q.predicate_hash = ANY($2) AND n.value_string IS NOT NULL
		  AND NOT coalesce(n.iri, false) AND NOT coalesce(n.bnode, false)`,
		pq.ByteaArray(hashes), pq.ByteaArray(preds))
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		n := out[string(r.s)]
		if i := indexHash(k.labelH, r.p); i >= 0 {
			n.AddLabel(i, len(k.labelH), r.lang.String, r.text)
		} else if indexHash(k.aliasH, r.p) >= 0 {
			n.AddAlias(r.lang.String, r.text)
		} else if i := indexHash(k.descH, r.p); i >= 0 {
			n.AddDescription(i, len(k.descH), r.lang.String, r.text)
		}
		out[string(r.s)] = n
	}
	return out, nil
}

func indexHash(hs [][]byte, h []byte) int {
	return slices.IndexFunc(hs, func(x []byte) bool { return string(x) == string(h) })
}

// entities builds the entities of node hashes (literals rendered).
func (k *KG) entities(ctx context.Context, hashes [][]byte) (map[string]store.Entity, error) {
	vals, err := k.values(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var nodes [][]byte
	for h, v := range vals {
		if isNode(v) {
			nodes = append(nodes, []byte(h))
		}
	}
	names, err := k.names(ctx, nodes)
	if err != nil {
		return nil, err
	}
	var lits []quad.Value
	for _, v := range vals {
		lits = append(lits, v)
	}
	text, err := remote.LiteralText(ctx, lits, k.namesOf)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.Entity, len(vals))
	for h, v := range vals {
		if isNode(v) {
			out[h] = names[h].Entity(idOf(v))
		} else {
			out[h] = store.Entity{ID: idOf(v), Label: text(v), Literal: true}
		}
	}
	return out, nil
}

// namesOf is names keyed by IRI id instead of hash (remote.LiteralText's
// lookup of a literal's unit or globe).
func (k *KG) namesOf(ctx context.Context, ids []string) (map[string]remote.Names, error) {
	hs := hashIRIs(ids)
	names, err := k.names(ctx, hs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]remote.Names, len(names))
	for i, id := range ids {
		if n, ok := names[string(hs[i])]; ok {
			out[id] = n
		}
	}
	return out, nil
}

func isNode(v quad.Value) bool {
	switch v.(type) {
	case quad.IRI, quad.BNode:
		return true
	}
	return false
}

// hiddenPreds is every predicate hash that "" relations skip: label and
// link predicates, Grove's own and statement-node predicates, and the
// relations marked grove:hidden (see relationMeta).
func (k *KG) hiddenPreds(ctx context.Context) ([][]byte, error) {
	v := k.labelCol("value_string") // the label index's expression: these prefixes are short
	own, err := queryAll(ctx, k, single[[]byte], `SELECT hash FROM nodes WHERE iri AND (`+v+` LIKE 'grove:%'
		OR `+v+` LIKE 'p:%' OR `+v+` LIKE 'ps:%' OR `+v+` LIKE 'pq:%')`)
	if err != nil {
		return nil, err
	}
	// Relations whose node says grove:hidden "true" (external ids).
	marked, err := queryAll(ctx, k, single[[]byte], `SELECT q.subject_hash FROM quads q JOIN nodes n ON n.hash = q.object_hash
		WHERE q.predicate_hash = $1 AND (n.value_string = 'true' OR coalesce(n.value_bool, false))`, k.groveHiddenH)
	if err != nil {
		return nil, err
	}
	return slices.Concat(k.hiddenH, own, marked), nil
}

func (k *KG) hiddenID(id string) bool {
	h := hashOf(quad.IRI(id))
	return indexHash(k.hiddenH, h) >= 0 || strings.HasPrefix(id, "grove:") || strings.HasPrefix(id, store.StatementPrefix) ||
		strings.HasPrefix(id, store.StatementValuePrefix) || strings.HasPrefix(id, store.QualifierPrefix)
}

// cols are the (self, other) columns of a direction.
func cols(d store.Direction) (self, other string) {
	if d == store.In {
		return "object_hash", "subject_hash"
	}
	return "subject_hash", "object_hash"
}

func idHashes(ids []string) [][]byte {
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			out = append(out, hashOf(valueOfID(id)))
		}
	}
	return out
}

// Relations groups the edges of ids by predicate and graph.
func (k *KG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	dirs, err := remote.Directions(dir)
	if err != nil {
		return nil, err
	}
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	hs := idHashes(ids)
	type key struct {
		p, g string
		d    store.Direction
	}
	type count struct {
		p, g []byte
		n    int64
	}
	counts := map[key]int64{}
	var refs [][]byte
	for _, d := range dirs {
		self, _ := cols(d)
		cs, err := queryAll(ctx, k, func(c *count) []any { return []any{&c.p, &c.g, &c.n} },
			`SELECT predicate_hash, label_hash, count(*) FROM quads WHERE `+self+` = ANY($1) GROUP BY 1, 2`, pq.ByteaArray(hs))
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			counts[key{string(c.p), string(c.g), d}] += c.n
			refs = append(refs, c.p, c.g)
		}
	}
	vals, err := k.values(ctx, refs)
	if err != nil {
		return nil, err
	}
	relIDs := make([]string, 0, len(counts))
	for kk := range counts {
		relIDs = append(relIDs, idOf(vals[kk.p]))
	}
	meta, err := k.relationMeta(ctx, relIDs)
	if err != nil {
		return nil, err
	}
	out := make([]store.Relation, 0, len(counts))
	for kk, n := range counts {
		id := idOf(vals[kk.p])
		m := meta[id]
		out = append(out, store.Relation{ID: id, Label: m.label, InverseLabel: m.inverse, Dir: kk.d,
			Graph: graphName(vals[kk.g]), Count: n, Hidden: m.hidden})
	}
	slices.SortFunc(out, store.CompareRelations)
	return out, nil
}

// limitArg is a LIMIT parameter: NULL (no limit) when limit <= 0.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

// Edges returns the edges of relation from ids, by input id.
func (k *KG) Edges(ctx context.Context, ids []string, relation string, dir store.Direction, limit int) ([]store.Edge, error) {
	if dir != store.Out && dir != store.In {
		return nil, fmt.Errorf("edges: direction must be out or in, not %v", dir)
	}
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	hs := idHashes(ids)
	if len(hs) == 0 || relation == "" {
		return nil, nil
	}
	self, other := cols(dir)
	order := ""
	if len(hs) > 1 {
		order = " ORDER BY array_position($1, " + self + ")"
	}
	type edge struct{ a, b, g []byte }
	es, err := queryAll(ctx, k, func(e *edge) []any { return []any{&e.a, &e.b, &e.g} },
		`SELECT `+self+`, `+other+`, label_hash FROM quads WHERE `+self+` = ANY($1) AND predicate_hash = $2`+order+` LIMIT $3`,
		pq.ByteaArray(hs), hashOf(quad.IRI(relation)), limitArg(limit))
	if err != nil {
		return nil, err
	}
	var refs [][]byte
	for _, e := range es {
		refs = append(refs, e.a, e.b, e.g)
	}
	ents, err := k.entities(ctx, refs)
	if err != nil {
		return nil, err
	}
	// The graphs' names in one read (not one per edge).
	var gs [][]byte
	for _, e := range es {
		gs = append(gs, e.g)
	}
	graphs, err := k.values(ctx, gs)
	if err != nil {
		return nil, err
	}
	meta, err := k.relationMeta(ctx, []string{relation})
	if err != nil {
		return nil, err
	}
	label := meta[relation].label
	var subjects [][]byte
	for _, e := range es {
		if dir == store.In {
			subjects = append(subjects, e.b)
		} else {
			subjects = append(subjects, e.a)
		}
	}
	quals, err := k.qualifiers(ctx, subjects, []string{relation})
	if err != nil {
		return nil, err
	}
	ph := string(hashOf(quad.IRI(relation)))
	out := make([]store.Edge, 0, len(es))
	for _, e := range es {
		s, o := ents[string(e.a)], ents[string(e.b)]
		sh, oh := e.a, e.b
		if dir == store.In {
			s, o = o, s
			sh, oh = oh, sh
		}
		out = append(out, store.Edge{Subject: s, Relation: relation, RelationLabel: label, Object: o,
			Graph: graphName(graphs[string(e.g)]), Qualifiers: slices.Clone(quals[qualKey{string(sh), ph, string(oh), string(e.g)}])})
	}
	return out, nil
}

// predFilter is the SQL condition on predicate_hash for relation ("" =
// every non-hidden relation) and its argument.
func (k *KG) predFilter(ctx context.Context, relation string) (string, any, error) {
	if relation != "" {
		return "predicate_hash = $2", hashOf(quad.IRI(relation)), nil
	}
	hidden, err := k.hiddenPreds(ctx)
	return "NOT predicate_hash = ANY($2)", pq.ByteaArray(hidden), err
}

// Neighbors returns distinct non-literal nodes next to id.
func (k *KG) Neighbors(ctx context.Context, id, relation string, dir store.Direction, limit int) ([]store.Entity, error) {
	dirs, err := remote.Directions(dir)
	if err != nil {
		return nil, err
	}
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	h, err := k.exists(ctx, id)
	if err != nil {
		return nil, err
	}
	cond, arg, err := k.predFilter(ctx, relation)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, d := range dirs {
		self, other := cols(d)
		parts = append(parts, `SELECT `+other+` AS n FROM quads WHERE `+self+` = $1 AND `+cond)
	}
	q := `SELECT x.n FROM (SELECT DISTINCT n FROM (` + strings.Join(parts, " UNION ALL ") + `) u) x
		JOIN nodes v ON v.hash = x.n WHERE coalesce(v.iri, false) OR coalesce(v.bnode, false) LIMIT $3`
	hs, err := queryAll(ctx, k, single[[]byte], q, h, arg, limitArg(limit))
	if err != nil {
		return nil, err
	}
	ents, err := k.entities(ctx, hs)
	if err != nil {
		return nil, err
	}
	out := make([]store.Entity, 0, len(hs))
	for _, n := range hs {
		out = append(out, ents[string(n)])
	}
	return out, nil
}

// Degree counts the edges of id.
func (k *KG) Degree(ctx context.Context, id, relation string, dir store.Direction) (int64, error) {
	dirs, err := remote.Directions(dir)
	if err != nil {
		return 0, err
	}
	if err := k.usable(ctx); err != nil {
		return 0, err
	}
	h, err := k.exists(ctx, id)
	if err != nil {
		return 0, err
	}
	cond, arg, err := k.predFilter(ctx, relation)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, d := range dirs {
		self, _ := cols(d)
		var n int64
		if err := k.db.QueryRowContext(ctx, `SELECT count(*) FROM quads WHERE `+self+` = $1 AND `+cond, h, arg).Scan(&n); err != nil {
			return 0, k.wrap(ctx, err)
		}
		total += n
	}
	return total, nil
}

// Features returns the literal-valued properties of a node.
func (k *KG) Features(ctx context.Context, id string) ([]store.Feature, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	h, err := k.exists(ctx, id)
	if err != nil {
		return nil, err
	}
	// A feature: its predicate, graph and value (o: the value's node).
	type feat struct {
		p, g []byte
		o    row
	}
	fs, err := queryAll(ctx, k, func(f *feat) []any { return append([]any{&f.p, &f.g}, f.o.fields()...) },
		`SELECT q.predicate_hash, q.label_hash, `+prefixed("n", nodeCols)+`
		FROM quads q JOIN nodes n ON n.hash = q.object_hash
		WHERE q.subject_hash = $1 AND NOT coalesce(n.iri, false) AND NOT coalesce(n.bnode, false) ORDER BY q.horizon`, h)
	if err != nil {
		return nil, err
	}
	var refs [][]byte
	for _, f := range fs {
		refs = append(refs, f.p, f.g)
	}
	vals, err := k.values(ctx, refs)
	if err != nil {
		return nil, err
	}
	objs := make([]quad.Value, len(fs))
	for i, f := range fs {
		objs[i] = f.o.value()
	}
	text, err := remote.LiteralText(ctx, objs, k.namesOf)
	if err != nil {
		return nil, err
	}
	var out []store.Feature
	var rels []string
	var keys []qualKey
	for _, f := range fs {
		if indexHash(k.labelH, f.p) >= 0 || indexHash(k.aliasH, f.p) >= 0 {
			continue
		}
		rel := idOf(vals[string(f.p)])
		if strings.HasPrefix(rel, "grove:") || strings.HasPrefix(rel, store.StatementPrefix) ||
			strings.HasPrefix(rel, store.StatementValuePrefix) || strings.HasPrefix(rel, store.QualifierPrefix) {
			continue
		}
		rels = append(rels, rel)
		keys = append(keys, qualKey{string(h), string(f.p), string(f.o.hash), string(f.g)})
		out = append(out, store.Feature{Relation: rel, Value: text(f.o.value()),
			Graph: graphName(vals[string(f.g)])})
	}
	meta, err := k.relationMeta(ctx, rels)
	if err != nil {
		return nil, err
	}
	// The statements behind a feature qualify it, as they do an edge;
	// hidden relations (external ids) are looked up, not reasoned about:
	// their qualifiers are not read (as in the engine).
	var qualified []string
	for _, rel := range rels {
		if !meta[rel].hidden && !slices.Contains(qualified, rel) {
			qualified = append(qualified, rel)
		}
	}
	quals, err := k.qualifiers(ctx, [][]byte{h}, qualified)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Name = meta[out[i].Relation].label
		out[i].Qualifiers = slices.Clone(quals[keys[i]])
	}
	return out, nil
}

func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ", ")
	for i, c := range parts {
		parts[i] = alias + "." + c
	}
	return strings.Join(parts, ", ")
}

// SameAs follows owl:sameAs and grove:sameAs both ways.
func (k *KG) SameAs(ctx context.Context, id, graph string) ([]store.Link, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	h, err := k.exists(ctx, id)
	if err != nil {
		return nil, err
	}
	links := hashIRIs([]string{store.GroveSameAs, store.OWLSameAs})
	home, err := k.homeGraphs(ctx, h, links)
	if err != nil {
		return nil, err
	}
	type link struct{ t, p []byte }
	ls, err := queryAll(ctx, k, func(l *link) []any { return []any{&l.t, &l.p} },
		`SELECT object_hash, predicate_hash FROM quads WHERE subject_hash = $1 AND predicate_hash = ANY($2)
		UNION SELECT subject_hash, predicate_hash FROM quads WHERE object_hash = $1 AND predicate_hash = ANY($2)`, h, pq.ByteaArray(links))
	if err != nil {
		return nil, err
	}
	var refs [][]byte
	for _, l := range ls {
		refs = append(refs, l.t, l.p)
	}
	ents, err := k.entities(ctx, refs)
	if err != nil {
		return nil, err
	}
	var out []store.Link
	for _, l := range ls {
		gs, err := k.homeGraphs(ctx, l.t, links)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if g == graph || (graph == "" && !slices.Contains(home, g)) {
				out = append(out, store.Link{Target: ents[string(l.t)], Graph: g, Via: ents[string(l.p)].ID})
			}
		}
	}
	remote.SortLinks(out)
	return out, nil
}

// Search matches labels and aliases exactly or by prefix, case-folded only
// (no accent folding, no fuzzy matching), through the label index (the
// lower-cased first characters of each value, rechecked on the whole
// value; see schema.go), ranked as the engine ranks. Exact matches are read first, so they
// are never lost to the cap on prefix matches.
func (k *KG) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	names, err := k.graphNames(ctx)
	if err != nil {
		return nil, err
	}
	if graph != "" && !slices.Contains(names, graph) {
		return nil, fmt.Errorf("graph %q: %w", graph, store.ErrNotFound)
	}
	text = remote.CleanText(text)
	norm := labelindex.Normalize(text)
	if norm == "" {
		return nil, nil
	}
	var gh any
	if graph != "" {
		gh = hashOf(quad.IRI(graph))
	}
	// Two reads, each capped: the labels equal to the text (case-folded),
	// then the labels it prefixes, shortest first (the ranking prefers
	// them), so that neither a short common text ("M": thousands of labels
	// start with it) nor the table's row order can push an exact match
	// out. The prefix read sorts all prefix matches: a one-letter text on
	// a large graph costs a scan of that letter's labels.
	lower := strings.ToLower(strings.TrimSpace(text))
	head := lower // what the label index holds of a match
	if k.labelChars > 0 {
		head = firstChars(lower, k.labelChars)
	}
	idx := k.labelCol("n.value_string")
	preds := pq.ByteaArray(slices.Concat(k.labelH, k.aliasH))
	const from = `SELECT q.subject_hash, n.value_string, q.label_hash
		FROM nodes n JOIN quads q ON q.object_hash = n.hash
		WHERE q.predicate_hash = ANY($2) AND ($3::bytea IS NULL OR q.label_hash = $3) AND `
	type hit struct {
		x, g  []byte
		label string
	}
	var hits []hit
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{from + idx + ` = $5 AND lower(n.value_string) = $1 ORDER BY q.subject_hash, q.label_hash LIMIT $4`,
			[]any{lower, preds, gh, searchCap, head}},
		{from + idx + ` LIKE $5 AND lower(n.value_string) LIKE $1 AND lower(n.value_string) <> $6
			ORDER BY length(n.value_string), n.value_string, q.subject_hash, q.label_hash LIMIT $4`,
			[]any{likePrefix(lower), preds, gh, searchCap, likePrefix(head), lower}},
	} {
		hs, err := queryAll(ctx, k, func(h *hit) []any { return []any{&h.x, &h.label, &h.g} }, q.sql, q.args...)
		if err != nil {
			return nil, err
		}
		hits = append(hits, hs...)
	}
	var refs [][]byte
	for _, h := range hits {
		refs = append(refs, h.x, h.g)
	}
	vals, err := k.values(ctx, refs)
	if err != nil {
		return nil, err
	}
	// Rank on ids and matched text, cut, then name the survivors only.
	rs := make([]remote.Hit, 0, len(hits))
	byID := map[string][]byte{}
	for _, h := range hits {
		id := idOf(vals[string(h.x)])
		byID[id] = h.x
		rs = append(rs, remote.Hit{ID: id, Graph: graphName(vals[string(h.g)]), Label: h.label})
	}
	out := remote.RankHits(rs, norm, limit)
	hs := make([][]byte, 0, len(out))
	for _, c := range out {
		hs = append(hs, byID[c.ID])
	}
	ents, err := k.entities(ctx, hs)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Entity = ents[string(byID[out[i].ID])]
		out[i].Graphs = []string{out[i].Graph}
	}
	return out, nil
}

// firstChars is s cut to its first n characters.
func firstChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// likePrefix escapes LIKE wildcards and appends %.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}
