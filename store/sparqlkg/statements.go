package sparqlkg

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/remote"
)

// fact is one triple whose Wikidata-style statements may qualify it: s
// and o are SPARQL terms (o may be a literal), rel a relation id, g the
// named graph's IRI ("" on the default graph).
type fact struct {
	s, rel, o, g string
}

// qualRow is one qualifier of the statements behind facts[i]: statement
// node st says qualifier predicate q has value v.
type qualRow struct {
	i     int
	st, v term
	q     string
}

// qualifiable reports whether the statements of rel can be read: the
// dialect names the statement prefixes and rel is a local name that
// follows them (Wikidata's P69: p:P69, ps:P69, pq:P582).
func (k *KG) qualifiable(rel string) bool {
	return k.d.Statement != "" && k.d.StatementValue != "" && k.d.Qualifier != "" && rel != "" &&
		!strings.ContainsAny(rel, "/#:")
}

// qualifierRows reads the qualifiers of the statements behind facts, as
// the engine stores them: S p:P ?st . ?st ps:P O . ?st pq:Q V, all in the
// fact's graph. One query per Config.Batch facts, whatever their
// relations; facts that are not qualifiable are skipped.
func (k *KG) qualifierRows(ctx context.Context, facts []fact) ([]qualRow, error) {
	named := k.d.named()
	vars := []string{"?i", "?x", "?sp", "?sv", "?o"}
	if named {
		vars = append(vars, "?g")
	}
	var rows [][]string
	for i, f := range facts {
		if f.s == "" || f.o == "" || !k.qualifiable(f.rel) || named && f.g == "" {
			continue
		}
		row := []string{fmt.Sprint(i), f.s, "<" + k.d.Statement + f.rel + ">", "<" + k.d.StatementValue + f.rel + ">", f.o}
		if named {
			row = append(row, "<"+f.g+">")
		}
		rows = append(rows, row)
	}
	pattern := "?x ?sp ?st . ?st ?sv ?o . ?st ?q ?v"
	if named {
		pattern = "GRAPH ?g { " + pattern + " }"
	}
	var out []qualRow
	for len(rows) > 0 {
		n := min(k.batch, len(rows))
		q := "SELECT ?i ?st ?q ?v WHERE { " + bindRows(vars, rows[:n]) + " " + pattern +
			" FILTER(STRSTARTS(STR(?q), " + quote(k.d.Qualifier) + ")) }"
		rows = rows[n:]
		r, err := k.c.query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, b := range r.Results.Bindings {
			i := int(count(b["i"]))
			if i < 0 || i >= len(facts) {
				continue
			}
			out = append(out, qualRow{i: i, st: b["st"], q: b["q"].Value, v: b["v"]})
		}
	}
	return out, nil
}

// bindRows binds vars to rows of terms: a VALUES block, or BINDs for a
// single row (Virtuoso 7 finds nothing when a VALUES block holds a single
// blank node; see bindValues).
func bindRows(vars []string, rows [][]string) string {
	var b strings.Builder
	if len(rows) == 1 {
		for j, v := range vars {
			fmt.Fprintf(&b, "BIND(%s AS %s) ", rows[0][j], v)
		}
		return strings.TrimSpace(b.String())
	}
	b.WriteString("VALUES (" + strings.Join(vars, " ") + ") {")
	for _, r := range rows {
		b.WriteString(" (" + strings.Join(r, " ") + ")")
	}
	b.WriteString(" }")
	return b.String()
}

// qualifierID is the relation id of a qualifier predicate: pq:Q.
func (k *KG) qualifierID(q string) string {
	return store.QualifierPrefix + strings.TrimPrefix(q, k.d.Qualifier)
}

// qualifierRefs lists what naming rows' qualifiers needs: the nodes among
// their values and the qualifier relation ids.
func (k *KG) qualifierRefs(rows []qualRow) (nodes, rels []string) {
	for _, r := range rows {
		if isLiteral(r.v) {
			nodes = append(nodes, k.literalTerms(r.v)...)
		} else {
			nodes = append(nodes, termString(r.v))
		}
		if id := k.qualifierID(r.q); !slices.Contains(rels, id) {
			rels = append(rels, id)
		}
	}
	return nodes, rels
}

// qualifierFeatures turns rows into the qualifiers of each fact, by fact
// index: named like the engine's (a qualifier after its property, a node
// value by its label, else its id, a literal rendered), each statement's
// together, statements by id, qualifiers by relation, then value. graph
// names fact i's Grove graph.
func (k *KG) qualifierFeatures(rows []qualRow, names map[string]remote.Names, meta map[string]relMeta, graph func(i int) string) map[int][]store.Feature {
	out := map[int][]store.Feature{}
	for _, r := range rows {
		id := k.qualifierID(r.q)
		v := k.entityOf(r.v, names)
		f := store.Feature{Relation: id, Name: meta[id].label, Value: v.Name(), Graph: graph(r.i), Statement: k.nodeID(r.st)}
		if !v.Literal {
			f.ValueID = v.ID
		}
		out[r.i] = append(out[r.i], f)
	}
	for _, fs := range out {
		store.SortQualifiers(fs)
	}
	return out
}

// hiddenSet returns the predicate IRIs of the relations whose node says
// <grove:hidden> "true" in the configured graphs (Wikidata's external ids
// as Grove's ingest marks them), read once per KG: one query the first
// time, none after (and, with Config.CacheDir, none on a re-run). The
// set holds one entry per marked relation; the data bounds it. A failed
// read is not kept: the next call asks again. The lock is not held
// across the query: concurrent first callers share the client's one
// request, each waiting under its own context.
func (k *KG) hiddenSet(ctx context.Context) (map[string]bool, error) {
	k.hidMu.Lock()
	set := k.hidden
	k.hidMu.Unlock()
	if set != nil {
		return set, nil
	}
	q := "SELECT DISTINCT ?r WHERE { " + k.inGraphs("?r <"+store.GroveHidden+"> ?h") + ` FILTER(STR(?h) = "true") }`
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("reading the relations marked %s: %w", store.GroveHidden, err)
	}
	set = make(map[string]bool, len(r.Results.Bindings))
	for _, b := range r.Results.Bindings {
		if b["r"].Type == "bnode" {
			continue // a relation is named by an IRI
		}
		set[toIRI(k.d.Relations, k.nodeID(b["r"]))] = true
	}
	k.hidMu.Lock()
	k.hidden = set
	k.hidMu.Unlock()
	return set, nil
}

// hiddenPred reports a predicate reasoners hide: the dialect's (labels,
// links, statement predicates, Grove's own) or one marked grove:hidden in
// the data (set, from hiddenSet).
func (k *KG) hiddenPred(iri string, set map[string]bool) bool {
	return k.d.hidden(iri) || set[iri]
}
