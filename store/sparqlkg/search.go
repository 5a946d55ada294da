package sparqlkg

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/remote"
	"github.com/grove-kg/grove/store/labelindex"
)

// searchCap bounds the label hits one search reads before ranking.
const searchCap = 1000

// hit is one (node, matching label) pair.
type hit struct {
	x     term
	label string
	graph string
}

// Search finds candidates through the dialect's search method, then ranks
// them as the engine does: exact over prefix over other matches, then edit
// distance.
func (k *KG) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	if err := k.usable(ctx); err != nil {
		return nil, err
	}
	if graph != "" && !slices.Contains(k.d.graphNames(), graph) {
		return nil, fmt.Errorf("graph %q: %w", graph, store.ErrNotFound)
	}
	text = remote.CleanText(text)
	norm := labelindex.Normalize(text)
	if norm == "" {
		return nil, nil
	}
	var hits []hit
	var err error
	if k.d.Search == SearchWikidataAPI {
		hits, err = k.searchAPI(ctx, text, limit)
	} else {
		hits, err = k.searchSPARQL(ctx, graph, text, norm)
	}
	if err != nil {
		return nil, err
	}
	return k.rank(ctx, hits, norm, limit)
}

// searchSPARQL runs the exact-literal query (indexed everywhere) and the
// text-index or prefix query.
func (k *KG) searchSPARQL(ctx context.Context, graph, text, norm string) ([]hit, error) {
	preds := iris(slices.Concat(k.d.Label, k.d.Alias))
	saved := k.d.Graphs
	d := k.d
	if graph != "" && d.named() {
		d.Graphs = map[string]string{graph: saved[graph]}
	}
	scoped := &KG{d: d}
	exact := fmt.Sprintf(`SELECT ?x ?l ?g WHERE { VALUES ?l { %s %s } VALUES ?p { %s } %s } LIMIT %d`,
		quote(text), quote(text)+"@en", preds, scoped.inGraphs("?x ?p ?l"), searchCap)
	var match string
	switch k.d.Search {
	case SearchVirtuoso:
		expr := virtuosoExpr(text)
		if expr == "" {
			return k.hits(ctx, exact)
		}
		match = "?l bif:contains " + quote(expr)
	case SearchQLever:
		match = "?l ql:contains-word " + quote(qleverExpr(norm))
	default:
		match = "FILTER(STRSTARTS(LCASE(STR(?l)), " + quote(strings.ToLower(strings.TrimSpace(text))) + "))"
	}
	text2 := fmt.Sprintf(`SELECT ?x ?l ?g WHERE { VALUES ?p { %s } %s } LIMIT %d`,
		preds, scoped.inGraphs("?x ?p ?l . "+match), searchCap)
	a, err := k.hits(ctx, exact)
	if err != nil {
		return nil, err
	}
	b, err := k.hits(ctx, text2)
	return append(a, b...), err
}

func (k *KG) hits(ctx context.Context, q string) ([]hit, error) {
	r, err := k.c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]hit, 0, len(r.Results.Bindings))
	for _, b := range r.Results.Bindings {
		out = append(out, hit{x: b["x"], label: b["l"].Value, graph: k.graphName(b)})
	}
	return out, nil
}

// words splits text into letter/digit words.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// virtuosoExpr is a bif:contains expression: every word, the last one as a
// prefix when it is long enough for Virtuoso's wildcard (4+ characters).
func virtuosoExpr(text string) string {
	ws := words(text)
	var parts []string
	for i, w := range ws {
		if i == len(ws)-1 && len([]rune(w)) >= 4 {
			w += "*"
		}
		parts = append(parts, `"`+w+`"`)
	}
	return strings.Join(parts, " AND ")
}

// qleverExpr is a ql:contains-word expression: words, the last a prefix.
func qleverExpr(norm string) string {
	ws := words(norm)
	if len(ws) > 0 {
		ws[len(ws)-1] += "*"
	}
	return strings.Join(ws, " ")
}

// searchAPI calls a Wikibase wbsearchentities API.
func (k *KG) searchAPI(ctx context.Context, text string, limit int) ([]hit, error) {
	u, err := url.Parse(k.d.SearchAPI)
	if err != nil {
		return nil, fmt.Errorf("search_api %s: does not parse as a URL", redactURL(k.d.SearchAPI))
	}
	qv := url.Values{"action": {"wbsearchentities"}, "search": {text}, "language": {"en"}, "format": {"json"},
		"limit": {fmt.Sprint(min(max(limit, 1)*2, 50))}}
	u.RawQuery = qv.Encode()
	key := "api " + u.String()
	body, err := k.c.cached(ctx, key, func(ctx context.Context) ([]byte, error) {
		// Errors show the request with the API's query values redacted.
		return k.c.do(ctx, "api "+redactURL(u.String()), func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		}, "application/json")
	})
	if err != nil {
		return nil, err
	}
	var resp struct {
		Search []struct {
			ID    string `json:"id"`
			Match struct {
				Text string `json:"text"`
			} `json:"match"`
		} `json:"search"`
		Error *struct {
			Info string `json:"info"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("search API %s: %w", u.Host, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("search API %s: %s", u.Host, resp.Error.Info)
	}
	out := make([]hit, 0, len(resp.Search))
	for _, s := range resp.Search {
		t, err := k.nodeTerm(s.ID)
		if err != nil {
			continue
		}
		out = append(out, hit{x: term{Type: "uri", Value: strings.Trim(t, "<>")}, label: s.Match.Text, graph: k.d.graphNames()[0]})
	}
	return out, nil
}

// rank keeps each node's best hit, scores and orders them.
func (k *KG) rank(ctx context.Context, hits []hit, norm string, limit int) ([]store.Candidate, error) {
	terms := map[string]term{}
	rs := make([]remote.Hit, 0, len(hits))
	for _, h := range hits {
		id := k.nodeID(h.x)
		terms[id] = h.x
		rs = append(rs, remote.Hit{ID: id, Graph: h.graph, Label: h.label})
	}
	// The score needs only the matched text: rank and cut first, then
	// fetch names for the survivors alone.
	out := remote.RankHits(rs, norm, limit)
	nodes := make([]string, 0, len(out))
	for _, c := range out {
		nodes = append(nodes, termString(terms[c.ID]))
	}
	names, err := k.describe(ctx, nodes)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Entity = k.entityOf(terms[out[i].ID], names)
		out[i].Entity.Graphs = []string{out[i].Graph}
	}
	return out, nil
}
