// Package sparqlkg is a store.KG over a remote SPARQL 1.1 endpoint
// (Virtuoso, QLever, Blazegraph, GraphDB, Stardog, Neptune, the Wikidata
// query service): Grove's reasoners run unchanged on a KG that already
// lives in a cluster.
//
// Design. A Dialect (configuration, not code) says how the KG is laid out:
// how ids map to IRIs, which predicates are names, aliases and
// descriptions, which are hidden, which named graphs are which Grove
// graphs, and how to search (the endpoint's text index or a label match).
// Every KG call becomes a few SELECT queries: ids travel in VALUES blocks
// of at most Config.Batch (a lone id in a BIND: Virtuoso finds no single
// blank node in a VALUES block), relation counts are aggregated by the endpoint
// under a cap (Relation.AtLeast marks a lower bound on hubs), and node
// names are fetched in one batched query per call. Wikidata-style
// statements (the dialect's Statement, StatementValue and Qualifier
// prefixes) qualify edges and literal features as in the engine, read in
// one batched query per call; the relations whose node says
// <grove:hidden> "true" are read once per KG and hidden as the engine
// hides them, and so are, with Dialect.HiddenPropertyTypes, those whose
// Wikibase property type is hidden (Wikidata's external ids: a graph
// pattern in "" degree and neighbour queries, and one question per
// relation per KG for Relation.Hidden); a relation's node names it (its
// label and grove:inverseLabel). The client bounds the requests in
// flight, times each out, retries 429/502/503/504 honouring
// Retry-After (the waits of one request's retries add up to at most
// Config.Timeout and end before the call's deadline: a longer wait fails
// at once, naming it; each wait is logged as a warning), and caches every response body by query text in memory and,
// with Config.CacheDir, on disk: a re-run of an experiment sends no request
// twice.
//
// The backend is read-only: load data with the endpoint's own bulk loader.
// Credentials (Config.Auth) are sent as the Authorization header and never
// logged or put into errors.
package sparqlkg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/remote"
	"github.com/grove-kg/grove/store/internal/urlsafe"
)

// Config configures a SPARQL backend.
type Config struct {
	// URL is the endpoint, e.g. http://localhost:8890/sparql.
	URL     string
	Dialect Dialect
	// Auth is the Authorization header value ("Basic ...", "Bearer ...").
	Auth string
	// Timeout bounds each request (default 60s), and the total wait
	// between its retries: a Retry-After (or backoff) beyond what is left
	// of it fails the request at once.
	Timeout time.Duration
	// MaxInFlight bounds concurrent requests (default 4).
	MaxInFlight int
	// Retries of throttled or failed-gateway requests (default 4).
	Retries int
	// CacheDir, when set, keeps response bodies on disk across runs,
	// Open's probe included: a re-run sends only the queries the cache
	// does not hold (none for an identical re-run, which then works with
	// the endpoint offline; so does a cache without the probe's answer,
	// which an older grove filled: see probe).
	CacheDir string
	// HubCap caps the edges a relation count aggregates (default 100,000);
	// counts that reach it are lower bounds (Relation.AtLeast).
	HubCap int
	// Batch is the number of ids per VALUES block (default 100).
	Batch int
	// MaxResponseBytes bounds the size of one response (default 256
	// MiB; <= 0 means the default); a larger answer fails the call rather
	// than exhaust memory.
	MaxResponseBytes int64
	// HTTP is the client to use (default: a new http.Client).
	HTTP   *http.Client
	Logger *slog.Logger
}

// KG is a store.KG over a SPARQL endpoint. It is safe for concurrent use.
type KG struct {
	d      Dialect
	c      *client
	hubCap int
	batch  int
	closed atomic.Bool
	// hidden caches hiddenSet (nil until read), typed what typedHidden
	// has read (predicate IRI -> of a hidden property type); hidMu
	// guards both.
	hidMu  sync.Mutex
	hidden map[string]bool
	typed  map[string]bool
}

var _ store.KG = (*KG)(nil)

// probeQuery is the query Open sends to check the endpoint.
const probeQuery = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"

// Open checks the configuration and that the endpoint answers SPARQL
// (probe: with Config.CacheDir, an earlier run's answer will do).
func Open(ctx context.Context, cfg Config) (*KG, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sparql url %q: want http(s)://host[:port]/path", redactURL(cfg.URL))
	}
	d := cfg.Dialect
	if err := d.validate(); err != nil {
		return nil, err
	}
	k := &KG{d: d, hubCap: cmp.Or(cfg.HubCap, 100000), batch: cmp.Or(cfg.Batch, 100)}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	k.c = &client{
		endpoint: cfg.URL, host: u.Host, auth: cfg.Auth, http: hc,
		sem:     make(chan struct{}, cmp.Or(cfg.MaxInFlight, 4)),
		timeout: cmp.Or(cfg.Timeout, 60*time.Second), retries: cmp.Or(cfg.Retries, 4),
		maxBody: cmp.Or(cfg.MaxResponseBytes, 256<<20),
		log:     log, cacheDir: cfg.CacheDir, mem: map[string][]byte{}, inflight: map[string]*call{},
	}
	if cfg.Retries < 0 {
		k.c.retries = 0
	}
	if k.c.maxBody <= 0 {
		k.c.maxBody = 256 << 20
	}
	if err := k.probe(ctx); err != nil {
		return nil, err
	}
	return k, nil
}

// probe checks that the endpoint answers SPARQL: an unreachable or
// non-SPARQL endpoint, or wrong credentials, fail here with a clear
// error. The answer is cached like any other, so with Config.CacheDir a
// re-run sends no probe: the disk cache holds an earlier run's, and a
// re-run answered wholly from the cache works with the endpoint offline.
//
// A cache filled by an older grove lacks the probe's answer: when the
// endpoint cannot be reached then but the cache holds some answers, Open
// goes on with a warning that the endpoint was not checked, so the
// queries the cache holds answer (the others fail as unreachable).
func (k *KG) probe(ctx context.Context) error {
	before := k.Requests()
	if _, err := k.c.query(ctx, probeQuery); err != nil {
		if !unreachable(err) || ctx.Err() != nil || !k.c.cacheHoldsAnswers() {
			return err
		}
		k.c.log.Warn("sparql endpoint not checked: it cannot be reached and the response cache lacks the probe's answer "+
			"(an older grove filled it); queries the cache holds answer, others fail", "host", k.c.host, "cache", k.c.cacheDir, "err", err)
		return nil
	}
	if k.Requests() == before {
		k.c.log.Debug("sparql endpoint not probed: the response cache holds an earlier probe's answer", "host", k.c.host, "cache", k.c.cacheDir)
	}
	return nil
}

// unreachable reports an error of an endpoint that could not be reached
// (no HTTP answer at all).
func unreachable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == 0
}

// redactURL is an endpoint URL fit for errors and logs: the user info
// becomes *** and every query-string value *** (endpoints take API keys
// and tokens as query parameters: ?apikey=..., ?access_token=...). A URL
// that does not parse is not quoted at all.
func redactURL(s string) string {
	r, ok := urlsafe.Redact(s, true, nil)
	if !ok {
		return "(an endpoint URL that does not parse)"
	}
	return r
}

// Close marks the KG closed; it is idempotent.
func (k *KG) Close() error {
	k.closed.Store(true)
	return nil
}

// Requests returns the number of HTTP requests sent (cache misses).
func (k *KG) Requests() int64 {
	k.c.mu.Lock()
	defer k.c.mu.Unlock()
	return k.c.requests
}

func (k *KG) usable(ctx context.Context) error {
	if k.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// --- terms ---------------------------------------------------------------

// nodeTerm is the SPARQL term of an entity id, or an error wrapping
// store.ErrNotFound when no node can have that id.
func (k *KG) nodeTerm(id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("empty id: %w", store.ErrNotFound)
	}
	if b, ok := strings.CutPrefix(id, "_:"); ok {
		if strings.HasPrefix(b, "nodeID://") && validIRI(b) { // Virtuoso's blank node names
			return "<" + b + ">", nil
		}
		return "", fmt.Errorf("blank node %q cannot be addressed on this endpoint: %w", id, store.ErrNotFound)
	}
	iri := toIRI(k.d.Nodes, id)
	if !validIRI(iri) {
		return "", fmt.Errorf("entity %q is not an IRI: %w", id, store.ErrNotFound)
	}
	return "<" + iri + ">", nil
}

// relTerm is the SPARQL term of a relation id ("" if it cannot exist).
func (k *KG) relTerm(rel string) string {
	iri := toIRI(k.d.Relations, rel)
	if !validIRI(iri) {
		return ""
	}
	return "<" + iri + ">"
}

func validIRI(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || strings.ContainsRune("<>\"{}|^`\\", r) {
			return false
		}
	}
	return true
}

func iris(ps []string) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("<" + p + ">")
	}
	return b.String()
}

// quote is a SPARQL string literal.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "'", `\'`)
	return `"` + r.Replace(s) + `"`
}

// inGraphs wraps a pattern in GRAPH ?g with the configured graphs, or
// leaves it on the default graph.
func (k *KG) inGraphs(pattern string) string {
	return k.inGraphsAs("?g", pattern)
}

// inGraphsAs is inGraphs with the graph in variable v.
func (k *KG) inGraphsAs(v, pattern string) string {
	if !k.d.named() {
		return pattern
	}
	var gs []string
	for _, n := range k.d.graphNames() {
		gs = append(gs, k.d.Graphs[n])
	}
	return "VALUES " + v + " { " + iris(gs) + " } GRAPH " + v + " { " + pattern + " }"
}

// graphName of a binding's ?g.
func (k *KG) graphName(b map[string]term) string {
	return k.d.graphOf(b["g"].Value)
}

// nodeID turns a binding term into an id.
func (k *KG) nodeID(t term) string {
	if t.Type == "bnode" {
		return "_:" + t.Value
	}
	return fromIRI(k.d.Nodes, t.Value)
}

func (k *KG) relID(iri string) string { return fromIRI(k.d.Relations, iri) }

func isLiteral(t term) bool { return t.Type == "literal" || t.Type == "typed-literal" }

func count(t term) int64 {
	n, _ := strconv.ParseInt(t.Value, 10, 64)
	return n
}

// visible is a FILTER keeping non-hidden predicates in variable v: not
// the dialect's hidden predicates, Grove's own or statement predicates,
// nor those marked grove:hidden in the data (marked, from hiddenSet).
func (k *KG) visible(v string, marked map[string]bool) string {
	preds := k.d.hiddenPreds()
	for _, p := range slices.Sorted(maps.Keys(marked)) { // sorted: the same query text (cache key) every time
		if !slices.Contains(preds, p) {
			preds = append(slices.Clip(preds), p)
		}
	}
	f := "FILTER(" + v + " NOT IN (" + strings.Join(strings.Fields(iris(preds)), ", ") + ")"
	if len(preds) == 0 {
		f = "FILTER(true"
	}
	f += ` && !STRSTARTS(STR(` + v + `), "grove:")`
	if k.d.Statement != "" {
		for _, p := range []string{k.d.StatementValue, k.d.Qualifier} {
			if p != "" {
				f += " && !STRSTARTS(STR(" + v + "), " + quote(p) + ")"
			}
		}
		f += " && !(STRSTARTS(STR(" + v + "), " + quote(k.d.Statement) + ") && !CONTAINS(STRAFTER(STR(" + v + "), " + quote(k.d.Statement) + `), "/"))`
	}
	return f + ")"
}

// visibleFilter is the FILTER of an "" relation (every visible one), or
// "" for a named relation, which is followed even when hidden.
func (k *KG) visibleFilter(ctx context.Context, relation string) (string, error) {
	if relation != "" {
		return "", nil
	}
	marked, err := k.hiddenSet(ctx)
	if err != nil {
		return "", err
	}
	return k.visible("?p", marked), nil
}

// bindValues binds variable v to each of terms: a VALUES block, or a BIND
// for a single term. Virtuoso 7 finds nothing when a VALUES block (or an
// IN or = filter) holds a single blank node (<nodeID://...>), while
// BIND and constants in patterns find it.
func bindValues(v string, terms []string) string {
	if len(terms) == 1 {
		return "BIND(" + terms[0] + " AS " + v + ")"
	}
	return "VALUES " + v + " { " + strings.Join(terms, " ") + " }"
}

// batches splits terms into VALUES-sized groups.
func (k *KG) batches(terms []string) [][]string {
	var out [][]string
	for len(terms) > 0 {
		n := min(k.batch, len(terms))
		out = append(out, terms[:n])
		terms = terms[n:]
	}
	return out
}

// --- graphs ----------------------------------------------------------------

// Graphs lists the configured graphs with their triple and predicate
// counts.
func (k *KG) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	q := "SELECT ?g (COUNT(*) AS ?n) (COUNT(DISTINCT ?p) AS ?r) WHERE { " + k.inGraphs("?s ?p ?o") + " } GROUP BY ?g"
	if !k.d.named() {
		q = "SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?p) AS ?r) WHERE { ?s ?p ?o }"
	}
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	byName := map[string]store.GraphInfo{}
	for _, b := range r.Results.Bindings {
		n := k.graphName(b)
		byName[n] = store.GraphInfo{Name: n, Quads: count(b["n"]), Relations: count(b["r"])}
	}
	var out []store.GraphInfo
	for _, n := range k.d.graphNames() {
		gi := byName[n]
		gi.Name = n
		out = append(out, gi)
	}
	return out, nil
}

// homeGraphs lists the graphs where node has edges through predicates not
// in exclude; empty means the node does not exist.
func (k *KG) homeGraphs(ctx context.Context, node string, exclude []string) ([]string, error) {
	filter := ""
	if len(exclude) > 0 {
		filter = "FILTER(?p NOT IN (" + strings.Join(strings.Fields(iris(exclude)), ", ") + "))"
	}
	pattern := "{ " + node + " ?p ?o " + filter + " } UNION { ?s ?p " + node + " " + filter + " }"
	if !k.d.named() {
		// SELECT ... LIMIT 1 rather than ASK: endpoints disagree on ASK's
		// JSON form (Virtuoso answers with a binding, not "boolean").
		r, err := k.c.query(ctx, "SELECT ?p WHERE { "+pattern+" } LIMIT 1")
		if err != nil {
			return nil, err
		}
		if len(r.Results.Bindings) > 0 {
			return []string{k.d.Name}, nil
		}
		return nil, nil
	}
	var gs []string
	for _, n := range k.d.graphNames() {
		gs = append(gs, k.d.Graphs[n])
	}
	q := "SELECT ?g WHERE { VALUES ?g { " + iris(gs) + " } FILTER EXISTS { GRAPH ?g { " + pattern + " } } }"
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range r.Results.Bindings {
		if n := k.graphName(b); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// exists resolves an id to its term, or returns ErrNotFound when no
// triple (of the configured graphs) has it as subject, object or
// predicate.
func (k *KG) exists(ctx context.Context, id string) (string, error) {
	node, err := k.nodeTerm(id)
	if err != nil {
		return "", err
	}
	gs, err := k.homeGraphs(ctx, node, nil)
	if err != nil {
		return "", err
	}
	if len(gs) == 0 {
		pred, err := k.isPredicate(ctx, node)
		if err != nil {
			return "", err
		}
		if !pred {
			return "", fmt.Errorf("entity %q: %w", id, store.ErrNotFound)
		}
	}
	return node, nil
}

// isPredicate reports whether node is the predicate of a triple: a
// relation id is a node of the database, as in the engine.
func (k *KG) isPredicate(ctx context.Context, node string) (bool, error) {
	r, err := k.c.query(ctx, "SELECT ?s WHERE { "+k.inGraphs("?s "+node+" ?o")+" } LIMIT 1")
	if err != nil {
		return false, err
	}
	return len(r.Results.Bindings) > 0, nil
}

// Entity returns a node's name, description, aliases and graphs.
func (k *KG) Entity(ctx context.Context, id string) (store.Entity, error) {
	if err := k.usable(ctx); err != nil {
		return store.Entity{}, err
	}
	node, err := k.nodeTerm(id)
	if err != nil {
		return store.Entity{}, err
	}
	gs, err := k.homeGraphs(ctx, node, nil)
	if err != nil {
		return store.Entity{}, err
	}
	if len(gs) == 0 {
		if _, err := k.exists(ctx, id); err != nil {
			return store.Entity{}, err
		}
	}
	names, err := k.describe(ctx, []string{node})
	if err != nil {
		return store.Entity{}, err
	}
	e := names[node].Entity(id)
	e.Graphs = gs
	return e, nil
}

// --- relations and edges -----------------------------------------------------

// edgePattern is "?x ?p ?o" for Out and "?o ?p ?x" for In.
func edgePattern(dir store.Direction, x, p, o string) string {
	if dir == store.In {
		return o + " " + p + " " + x
	}
	return x + " " + p + " " + o
}

// knownTerms maps ids to terms, skipping ids no node can have.
func (k *KG) knownTerms(ids []string) []string {
	var out []string
	for _, id := range ids {
		if t, err := k.nodeTerm(id); err == nil && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Relations lists the relation types of ids with counts aggregated by the
// endpoint under HubCap.
func (k *KG) Relations(ctx context.Context, ids []string, dir store.Direction) ([]store.Relation, error) {
	dirs, err := remote.Directions(dir)
	if err != nil {
		return nil, err
	}
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	type key struct {
		p, g string
		dir  store.Direction
	}
	counts := map[key]int64{}
	capped := map[store.Direction]bool{}
	for _, batch := range k.batches(k.knownTerms(ids)) {
		for _, d := range dirs {
			q := fmt.Sprintf("SELECT ?p ?g (COUNT(*) AS ?n) WHERE { { SELECT ?p ?g WHERE { %s %s } LIMIT %d } } GROUP BY ?p ?g",
				bindValues("?x", batch), k.inGraphs(edgePattern(d, "?x", "?p", "?o")), k.hubCap)
			r, err := k.c.query(ctx, q)
			if err != nil {
				return nil, err
			}
			var total int64
			for _, b := range r.Results.Bindings {
				n := count(b["n"])
				total += n
				counts[key{b["p"].Value, k.graphName(b), d}] += n
			}
			if total >= int64(k.hubCap) {
				capped[d] = true
			}
		}
	}
	out := make([]store.Relation, 0, len(counts))
	var relIDs, preds []string
	for kk := range counts {
		relIDs = append(relIDs, k.relID(kk.p))
		preds = append(preds, kk.p)
	}
	slices.Sort(relIDs) // the same query text (cache key) every time
	_, meta, err := k.lookup(ctx, nil, slices.Compact(relIDs))
	if err != nil {
		return nil, err
	}
	hidden, err := k.hiddenAmong(ctx, preds)
	if err != nil {
		return nil, err
	}
	for kk, n := range counts {
		id := k.relID(kk.p)
		m := meta[id]
		out = append(out, store.Relation{ID: id, Label: m.label, InverseLabel: m.inverse, Dir: kk.dir,
			Graph: kk.g, Count: n, AtLeast: capped[kk.dir], Hidden: hidden[kk.p]})
	}
	slices.SortFunc(out, store.CompareRelations)
	return out, nil
}

// edgeRow is one edge as bound: x the input node, other the node or
// literal at the other end.
type edgeRow struct {
	x, other term
	g, gIRI  string // Grove graph name, named graph IRI
}

// edgeRows reads the edges of predicate p from ids, by input id, up to
// limit (0: all), in batches of Config.Batch ids.
func (k *KG) edgeRows(ctx context.Context, ids []string, p string, dir store.Direction, limit int) ([]edgeRow, error) {
	var rows []edgeRow
	for _, batch := range k.batches(k.knownTerms(ids)) {
		left := ""
		if limit > 0 {
			if len(rows) >= limit {
				break
			}
			left = fmt.Sprintf(" LIMIT %d", limit-len(rows))
		}
		var vals strings.Builder
		for i, t := range batch {
			fmt.Fprintf(&vals, "(%s %d) ", t, i)
		}
		order := ""
		if len(batch) > 1 {
			order = " ORDER BY ?i"
		}
		q := fmt.Sprintf("SELECT ?x ?i ?o ?g WHERE { VALUES (?x ?i) { %s} %s }%s%s",
			vals.String(), k.inGraphs(edgePattern(dir, "?x", p, "?o")), order, left)
		r, err := k.c.query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, b := range r.Results.Bindings {
			rows = append(rows, edgeRow{x: b["x"], other: b["o"], g: k.graphName(b), gIRI: b["g"].Value})
		}
	}
	return rows, nil
}

// Edges returns edges of relation from ids, by input id.
func (k *KG) Edges(ctx context.Context, ids []string, relation string, dir store.Direction, limit int) ([]store.Edge, error) {
	if dir != store.Out && dir != store.In {
		return nil, fmt.Errorf("edges: direction must be out or in, not %v", dir)
	}
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	p := k.relTerm(relation)
	if p == "" {
		return nil, nil
	}
	rows, err := k.edgeRows(ctx, ids, p, dir, limit)
	if err != nil {
		return nil, err
	}
	facts := make([]fact, len(rows))
	for i, r := range rows {
		s, o := r.x, r.other
		if dir == store.In {
			s, o = o, s
		}
		facts[i] = fact{s: termString(s), rel: relation, o: valueTerm(o), g: r.gIRI}
	}
	quals, err := k.qualifierRows(ctx, facts)
	if err != nil {
		return nil, err
	}
	nodes, rels := k.qualifierRefs(quals)
	for _, r := range rows {
		nodes = append(nodes, termString(r.x))
		if isLiteral(r.other) {
			nodes = append(nodes, k.literalTerms(r.other)...)
		} else {
			nodes = append(nodes, termString(r.other))
		}
	}
	names, meta, err := k.lookup(ctx, nodes, append(rels, relation))
	if err != nil {
		return nil, err
	}
	byFact := k.qualifierFeatures(quals, names, meta, func(i int) string { return rows[i].g })
	out := make([]store.Edge, 0, len(rows))
	for i, r := range rows {
		self, other := k.entityOf(r.x, names), k.entityOf(r.other, names)
		e := store.Edge{Subject: self, Relation: relation, RelationLabel: meta[relation].label, Object: other, Graph: r.g,
			Qualifiers: byFact[i]}
		if dir == store.In {
			e.Subject, e.Object = other, self
		}
		out = append(out, e)
	}
	return out, nil
}

// valueTerm is the SPARQL form of any binding (literals included).
func valueTerm(t term) string {
	if !isLiteral(t) {
		return termString(t)
	}
	switch {
	case t.Lang != "":
		return quote(t.Value) + "@" + t.Lang
	case t.Datatype != "" && t.Datatype != xsdString: // RDF 1.1: "x"^^xsd:string is "x"
		return quote(t.Value) + "^^<" + t.Datatype + ">"
	}
	return quote(t.Value)
}

// termString is the SPARQL form of an IRI or blank node binding.
func termString(t term) string {
	if t.Type == "bnode" && !strings.HasPrefix(t.Value, "nodeID://") {
		return "" // not addressable; describe skips it
	}
	return "<" + t.Value + ">"
}

// entityOf builds the entity of a binding from described names.
func (k *KG) entityOf(t term, names map[string]remote.Names) store.Entity {
	if isLiteral(t) {
		v := toValue(t)
		return store.Entity{ID: v.String(), Label: k.literalText(t, names), Literal: true}
	}
	return names[termString(t)].Entity(k.nodeID(t))
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
	node, err := k.exists(ctx, id)
	if err != nil {
		return nil, err
	}
	pred := "?p"
	if relation != "" {
		if pred = k.relTerm(relation); pred == "" {
			return nil, nil
		}
	}
	var parts []string
	for _, d := range dirs {
		edges, err := k.visibleEdges(ctx, relation, edgePattern(d, node, pred, "?n"))
		if err != nil {
			return nil, err
		}
		parts = append(parts, "{ "+edges+" }")
	}
	q := "SELECT DISTINCT ?n WHERE { " + strings.Join(parts, " UNION ") + " FILTER(!isLiteral(?n)) }"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var terms []string
	for _, b := range r.Results.Bindings {
		terms = append(terms, termString(b["n"]))
	}
	names, err := k.describe(ctx, terms)
	if err != nil {
		return nil, err
	}
	out := make([]store.Entity, 0, len(r.Results.Bindings))
	for _, b := range r.Results.Bindings {
		out = append(out, k.entityOf(b["n"], names))
	}
	return out, nil
}

// Degree counts the edges of id (exactly: the endpoint aggregates).
func (k *KG) Degree(ctx context.Context, id, relation string, dir store.Direction) (int64, error) {
	dirs, err := remote.Directions(dir)
	if err != nil {
		return 0, err
	}
	if err := k.usable(ctx); err != nil {
		return 0, err
	}
	node, err := k.exists(ctx, id)
	if err != nil {
		return 0, err
	}
	pred := "?p"
	if relation != "" {
		if pred = k.relTerm(relation); pred == "" {
			return 0, nil
		}
	}
	var n int64
	for _, d := range dirs {
		edges, err := k.visibleEdges(ctx, relation, edgePattern(d, node, pred, "?o"))
		if err != nil {
			return 0, err
		}
		r, err := k.c.query(ctx, "SELECT (COUNT(*) AS ?n) WHERE { "+edges+" }")
		if err != nil {
			return 0, err
		}
		for _, b := range r.Results.Bindings {
			n += count(b["n"])
		}
	}
	return n, nil
}

// Features returns the literal-valued properties of a node (not its names).
func (k *KG) Features(ctx context.Context, id string) ([]store.Feature, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	node, err := k.exists(ctx, id)
	if err != nil {
		return nil, err
	}
	q := "SELECT ?p ?o ?g WHERE { " + k.inGraphs(node+" ?p ?o FILTER(isLiteral(?o))") + " }"
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []store.Feature
	var objs []term
	var rels []string
	var facts []fact
	for _, b := range r.Results.Bindings {
		p := b["p"].Value
		if slices.Contains(k.d.Label, p) || slices.Contains(k.d.Alias, p) || strings.HasPrefix(p, "grove:") || k.d.statementPred(p) {
			continue
		}
		rel := k.relID(p)
		rels = append(rels, rel)
		facts = append(facts, fact{s: node, rel: rel, o: valueTerm(b["o"]), g: b["g"].Value})
		objs = append(objs, b["o"])
		out = append(out, store.Feature{Relation: rel, Graph: k.graphName(b)})
	}
	quals, err := k.featureQualifiers(ctx, facts)
	if err != nil {
		return nil, err
	}
	nodes, qrels := k.qualifierRefs(quals)
	nodes = append(nodes, k.literalTerms(objs...)...)
	slices.Sort(rels) // the same query text (cache key) every time
	names, meta, err := k.lookup(ctx, nodes, append(qrels, slices.Compact(slices.Clone(rels))...))
	if err != nil {
		return nil, err
	}
	byFact := k.qualifierFeatures(quals, names, meta, func(i int) string { return out[i].Graph })
	for i := range out {
		out[i].Value = k.literalText(objs[i], names)
		out[i].Name = meta[out[i].Relation].label
		out[i].Qualifiers = byFact[i]
	}
	return out, nil
}

// featureQualifiers reads the qualifiers of the statements behind a
// node's literal features (see qualifierRows), except those of hidden
// relations (external ids): they are looked up, not reasoned about, as
// in the engine. facts are the features, in order.
func (k *KG) featureQualifiers(ctx context.Context, facts []fact) ([]qualRow, error) {
	if !slices.ContainsFunc(facts, func(f fact) bool { return k.qualifiable(f.rel) }) {
		return nil, nil // no request, not even for the hidden set
	}
	var preds []string
	for _, f := range facts {
		if k.qualifiable(f.rel) {
			preds = append(preds, toIRI(k.d.Relations, f.rel))
		}
	}
	hidden, err := k.hiddenAmong(ctx, preds)
	if err != nil {
		return nil, err
	}
	keep := slices.Clone(facts)
	for i, f := range keep {
		if hidden[toIRI(k.d.Relations, f.rel)] {
			keep[i].rel = "" // not qualifiable: skipped, indexes kept
		}
	}
	return k.qualifierRows(ctx, keep)
}

// SameAs follows the dialect's link predicates both ways and keeps the
// targets' home graphs that are graph, or, when graph is "", that are not
// home graphs of id.
func (k *KG) SameAs(ctx context.Context, id, graph string) ([]store.Link, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	node, err := k.exists(ctx, id)
	if err != nil || len(k.d.SameAs) == 0 {
		return nil, err
	}
	home, err := k.homeGraphs(ctx, node, k.d.SameAs)
	if err != nil {
		return nil, err
	}
	q := "SELECT DISTINCT ?t ?p WHERE { VALUES ?p { " + iris(k.d.SameAs) + " } { " + node + " ?p ?t } UNION { ?t ?p " + node + " } FILTER(!isLiteral(?t)) }"
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []store.Link
	for _, b := range r.Results.Bindings {
		t := termString(b["t"])
		if t == "" {
			continue
		}
		gs, err := k.homeGraphs(ctx, t, k.d.SameAs)
		if err != nil {
			return nil, err
		}
		names, err := k.describe(ctx, []string{t})
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if g == graph || (graph == "" && !slices.Contains(home, g)) {
				out = append(out, store.Link{Target: k.entityOf(b["t"], names), Graph: g, Via: k.relID(b["p"].Value)})
			}
		}
	}
	remote.SortLinks(out)
	return out, nil
}
