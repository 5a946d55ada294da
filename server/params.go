package server

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grove-kg/grove/store"
)

// maxIDBytes bounds one id or relation id in a query string.
const maxIDBytes = 4096

// need says whether a query parameter is accepted and whether it must be
// present.
type need uint8

const (
	absent need = iota
	optional
	required
)

// querySpec describes the query parameters of one KG endpoint.
type querySpec struct {
	id       need // "id", once
	ids      need // "id", repeatable (Relations, Edges)
	relation need
	graph    need
	text     need // "q"
	dir      need
	// dirDefault is the direction when dir is omitted; allowBoth accepts "both".
	dirDefault store.Direction
	allowBoth  bool
	limit      need
	// limitDefault is used when limit is omitted (0 = Config.DefaultLimit).
	limitDefault int
}

// kgQuery is a validated set of query parameters.
type kgQuery struct {
	IDs      []string
	Relation string
	Graph    string
	Text     string
	Dir      store.Direction
	Limit    int
}

// ID is the single id of one-id endpoints.
func (q kgQuery) ID() string {
	if len(q.IDs) == 0 {
		return ""
	}
	return q.IDs[0]
}

// queryLimits are the server bounds the parser enforces.
type queryLimits struct {
	maxIDs, maxResults, defaultLimit int
}

// parseQuery validates v against spec. Every error is a 400 naming the
// offending parameter.
func parseQuery(v url.Values, spec querySpec, lim queryLimits) (kgQuery, error) {
	var q kgQuery
	if err := checkKnown(v, spec); err != nil {
		return q, err
	}
	var err error
	if q.IDs, err = parseIDs(v, spec, lim.maxIDs); err != nil {
		return q, err
	}
	if q.Relation, err = stringParam(v, "relation", spec.relation, maxIDBytes); err != nil {
		return q, err
	}
	if q.Graph, err = stringParam(v, "graph", spec.graph, 256); err != nil {
		return q, err
	}
	if q.Text, err = stringParam(v, "q", spec.text, 512); err != nil {
		return q, err
	}
	if q.Dir, err = parseDir(v, spec); err != nil {
		return q, err
	}
	q.Limit, err = parseLimit(v, spec, lim)
	return q, err
}

// names lists the parameters spec accepts.
func (spec querySpec) names() []string {
	var out []string
	add := func(n need, name string) {
		if n != absent && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	add(spec.id, "id")
	add(spec.ids, "id")
	add(spec.relation, "relation")
	add(spec.graph, "graph")
	add(spec.text, "q")
	add(spec.dir, "dir")
	add(spec.limit, "limit")
	return out
}

func checkKnown(v url.Values, spec querySpec) error {
	allowed := spec.names()
	for name := range v {
		if !slices.Contains(allowed, name) {
			if len(allowed) == 0 {
				return badRequest("unknown query parameter %q: this endpoint takes none", clip(name))
			}
			return badRequest("unknown query parameter %q (allowed: %s)", clip(name), strings.Join(allowed, ", "))
		}
	}
	return nil
}

// clip shortens a client string for an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

func parseIDs(v url.Values, spec querySpec, maxIDs int) ([]string, error) {
	vals := v["id"]
	switch {
	case spec.id == absent && spec.ids == absent:
		return nil, nil
	case len(vals) == 0 && (spec.id == required || spec.ids == required):
		return nil, badRequest("missing query parameter \"id\"")
	case spec.id != absent && len(vals) > 1:
		return nil, badRequest("query parameter \"id\" given %d times; this endpoint takes one id", len(vals))
	case len(vals) > maxIDs:
		return nil, badRequest("too many ids: %d (at most %d per request)", len(vals), maxIDs)
	}
	for i, id := range vals {
		if err := checkText("id", id, maxIDBytes); err != nil {
			return nil, err
		}
		if id == "" {
			return nil, badRequest("query parameter \"id\" #%d is empty", i+1)
		}
	}
	return vals, nil
}

// stringParam reads a parameter given at most once.
func stringParam(v url.Values, name string, n need, maxLen int) (string, error) {
	vals := v[name]
	switch {
	case n == absent || (len(vals) == 0 && n == optional):
		return "", nil
	case len(vals) == 0:
		return "", badRequest("missing query parameter %q", name)
	case len(vals) > 1:
		return "", badRequest("query parameter %q given %d times", name, len(vals))
	}
	if n == required && strings.TrimSpace(vals[0]) == "" {
		return "", badRequest("query parameter %q is empty", name)
	}
	return vals[0], checkText(name, vals[0], maxLen)
}

// checkText rejects over-long, non-UTF-8 or control-character values.
func checkText(name, s string, maxLen int) error {
	switch {
	case len(s) > maxLen:
		return badRequest("query parameter %q is %d bytes long (at most %d)", name, len(s), maxLen)
	case !utf8.ValidString(s):
		return badRequest("query parameter %q is not valid UTF-8", name)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return badRequest("query parameter %q contains control characters", name)
	}
	return nil
}

func parseDir(v url.Values, spec querySpec) (store.Direction, error) {
	if spec.dir == absent {
		return spec.dirDefault, nil
	}
	s, err := stringParam(v, "dir", optional, 8)
	if err != nil || s == "" {
		return spec.dirDefault, err
	}
	d, err := store.ParseDirection(s)
	if err != nil {
		return 0, badRequest("query parameter \"dir\": %v", err)
	}
	if d == store.Both && !spec.allowBoth {
		return 0, badRequest("query parameter \"dir\" must be \"out\" or \"in\" here")
	}
	return d, nil
}

func parseLimit(v url.Values, spec querySpec, lim queryLimits) (int, error) {
	if spec.limit == absent {
		return 0, nil
	}
	def := spec.limitDefault
	if def <= 0 {
		def = lim.defaultLimit
	}
	s, err := stringParam(v, "limit", optional, 20)
	if err != nil || s == "" {
		return min(def, lim.maxResults), err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > lim.maxResults {
		return 0, badRequest("query parameter \"limit\" must be an integer from 1 to %d, not %q", lim.maxResults, clip(s))
	}
	return n, nil
}
