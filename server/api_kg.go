package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/store"
)

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"internal error: response could not be encoded"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	b = append(b, '\n')
	_, _ = w.Write(b)
}

// kgHandler parses the query parameters of spec, checks the graph
// parameter, calls fn and answers its result as JSON.
func (s *Server) kgHandler(spec querySpec, fn func(ctx context.Context, q kgQuery) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		values, err := url.ParseQuery(r.URL.RawQuery)
		var q kgQuery
		if err != nil {
			// r.URL.Query() drops what it cannot decode ("?q=%" would read
			// as a missing q).
			err = badRequest("malformed query string: %v", err)
		} else {
			q, err = parseQuery(values, spec, s.queryLimits())
		}
		if err == nil && q.Graph != "" {
			err = s.checkGraph(r.Context(), q.Graph)
		}
		var out any
		if err == nil {
			out, err = fn(r.Context(), q)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func (s *Server) queryLimits() queryLimits {
	return queryLimits{maxIDs: s.cfg.MaxIDs, maxResults: s.cfg.MaxResults, defaultLimit: s.cfg.DefaultLimit}
}

// checkGraph answers 404 for a graph the database does not hold.
func (s *Server) checkGraph(ctx context.Context, name string) error {
	gs, err := s.kg.Graphs(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(gs, func(g store.GraphInfo) bool { return g.Name == name }) {
		return &apiError{http.StatusNotFound, "unknown graph " + strconv.Quote(clip(name)) + " (see GET /v1/graphs)"}
	}
	return nil
}

// Response bodies. Lists are wrapped in objects so fields can be added.
type (
	graphsBody struct {
		Graphs []store.GraphInfo `json:"graphs"`
	}
	statsBody struct {
		Graphs            int               `json:"graphs"`
		Quads             int64             `json:"quads"`
		Relations         int64             `json:"relations"`
		Labels            int64             `json:"labels"`
		PerGraph          []store.GraphInfo `json:"per_graph"`
		ReadOnly          bool              `json:"read_only"`
		Cayley            bool              `json:"cayley"`
		Methods           []string          `json:"methods"`
		RunsInFlight      int               `json:"runs_in_flight"`
		MaxConcurrentRuns int               `json:"max_concurrent_runs"`
		MaxResults        int               `json:"max_results"`
		UptimeSeconds     float64           `json:"uptime_seconds"`
		// Warnings are the store's unfinished writes (see warner).
		Warnings []string `json:"warnings,omitempty"`
	}
	searchBody struct {
		Query      string            `json:"query"`
		Graph      string            `json:"graph,omitempty"`
		Candidates []store.Candidate `json:"candidates"`
	}
	relationsBody struct {
		Relations []relationJSON `json:"relations"`
		Truncated bool           `json:"truncated"`
	}
	edgesBody struct {
		Edges     []store.Edge `json:"edges"`
		Truncated bool         `json:"truncated"`
	}
	neighborsBody struct {
		Neighbors []store.Entity `json:"neighbors"`
		Truncated bool           `json:"truncated"`
	}
	degreeBody struct {
		ID       string `json:"id"`
		Relation string `json:"relation,omitempty"`
		Dir      string `json:"dir"`
		Degree   int64  `json:"degree"`
	}
	featuresBody struct {
		Features  []store.Feature `json:"features"`
		Truncated bool            `json:"truncated"`
	}
	sameAsBody struct {
		Links []store.Link `json:"links"`
	}
)

// relationJSON renders Relation.Dir as "out"/"in" instead of a number.
type relationJSON struct {
	store.Relation
	Dir string `json:"dir"`
}

// nonNil keeps empty lists as [] rather than null in JSON.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// truncate cuts xs to n and says whether anything was cut.
func truncate[T any](xs []T, n int) ([]T, bool) {
	if len(xs) > n {
		return xs[:n], true
	}
	return nonNil(xs), false
}

func (s *Server) handleGraphs(ctx context.Context, _ kgQuery) (any, error) {
	gs, err := s.kg.Graphs(ctx)
	return graphsBody{Graphs: nonNil(gs)}, err
}

func (s *Server) handleGraph(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.kgHandler(querySpec{}, func(ctx context.Context, _ kgQuery) (any, error) {
		gs, err := s.kg.Graphs(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if g.Name == name {
				return g, nil
			}
		}
		return nil, &apiError{http.StatusNotFound, "unknown graph " + strconv.Quote(clip(name)) + " (see GET /v1/graphs)"}
	})(w, r)
}

func (s *Server) handleStats(ctx context.Context, _ kgQuery) (any, error) {
	gs, err := s.kg.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	b := statsBody{Graphs: len(gs), PerGraph: nonNil(gs), ReadOnly: s.readOnly(), Cayley: s.hasCayley,
		Methods: nonNil(s.ask.methodNames()), RunsInFlight: s.ask.inFlight(), MaxConcurrentRuns: s.cfg.MaxConcurrentRuns,
		MaxResults: s.cfg.MaxResults, UptimeSeconds: time.Since(s.started).Seconds()}
	for _, g := range gs {
		b.Quads += g.Quads
		b.Relations += g.Relations
		b.Labels += g.Labels
	}
	if b.Warnings, err = s.storeWarnings(); err != nil {
		return nil, err
	}
	return b, nil
}

var searchSpec = querySpec{text: required, graph: optional, limit: optional, limitDefault: 10}

func (s *Server) handleSearch(ctx context.Context, q kgQuery) (any, error) {
	cs, err := s.kg.Search(ctx, q.Graph, q.Text, q.Limit)
	if len(cs) > q.Limit {
		cs = cs[:q.Limit]
	}
	return searchBody{Query: q.Text, Graph: q.Graph, Candidates: nonNil(cs)}, err
}

var entitySpec = querySpec{id: required}

func (s *Server) handleEntity(ctx context.Context, q kgQuery) (any, error) {
	return s.kg.Entity(ctx, q.ID())
}

var relationsSpec = querySpec{ids: required, dir: optional, dirDefault: store.Both, allowBoth: true, limit: optional,
	limitDefault: 1 << 30}

func (s *Server) handleRelations(ctx context.Context, q kgQuery) (any, error) {
	rels, err := s.kg.Relations(ctx, q.IDs, q.Dir)
	if err != nil {
		return nil, err
	}
	rels, cut := truncate(rels, q.Limit)
	out := make([]relationJSON, len(rels))
	for i, r := range rels {
		out[i] = relationJSON{Relation: r, Dir: r.Dir.String()}
	}
	return relationsBody{Relations: out, Truncated: cut}, nil
}

var edgesSpec = querySpec{ids: required, relation: required, dir: optional, dirDefault: store.Out, limit: optional}

func (s *Server) handleEdges(ctx context.Context, q kgQuery) (any, error) {
	edges, err := s.kg.Edges(ctx, q.IDs, q.Relation, q.Dir, q.Limit+1)
	if err != nil {
		return nil, err
	}
	edges, cut := truncate(edges, q.Limit)
	return edgesBody{Edges: edges, Truncated: cut}, nil
}

var neighborsSpec = querySpec{id: required, relation: optional, dir: optional, dirDefault: store.Out,
	allowBoth: true, limit: optional}

func (s *Server) handleNeighbors(ctx context.Context, q kgQuery) (any, error) {
	ns, err := s.kg.Neighbors(ctx, q.ID(), q.Relation, q.Dir, q.Limit+1)
	if err != nil {
		return nil, err
	}
	ns, cut := truncate(ns, q.Limit)
	return neighborsBody{Neighbors: ns, Truncated: cut}, nil
}

var degreeSpec = querySpec{id: required, relation: optional, dir: optional, dirDefault: store.Both, allowBoth: true}

func (s *Server) handleDegree(ctx context.Context, q kgQuery) (any, error) {
	n, err := s.kg.Degree(ctx, q.ID(), q.Relation, q.Dir)
	return degreeBody{ID: q.ID(), Relation: q.Relation, Dir: q.Dir.String(), Degree: n}, err
}

var featuresSpec = querySpec{id: required, limit: optional, limitDefault: 1 << 30}

func (s *Server) handleFeatures(ctx context.Context, q kgQuery) (any, error) {
	fs, err := s.kg.Features(ctx, q.ID())
	if err != nil {
		return nil, err
	}
	fs, cut := truncate(fs, q.Limit)
	return featuresBody{Features: fs, Truncated: cut}, nil
}

var sameAsSpec = querySpec{id: required, graph: optional}

func (s *Server) handleSameAs(ctx context.Context, q kgQuery) (any, error) {
	links, err := s.kg.SameAs(ctx, q.ID(), q.Graph)
	return sameAsBody{Links: nonNil(links)}, err
}
