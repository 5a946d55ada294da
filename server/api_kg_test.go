package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
)

// apiCase is one request against the test server and what must come back.
type apiCase struct {
	name   string
	method string // GET when empty
	path   string
	body   string
	status int
	// contains must all occur in the body.
	contains []string
	check    func(t *testing.T, body []byte)
}

func runAPICases(t *testing.T, ts *testServer, cases []apiCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.method
			if m == "" {
				m = http.MethodGet
			}
			st, hdr, body := ts.do(m, c.path, c.body, nil)
			if st != c.status {
				t.Fatalf("%s %s: status %d, want %d; body %s", m, c.path, st, c.status, body)
			}
			if st >= 400 && !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("error content type %q", hdr.Get("Content-Type"))
			}
			for _, s := range c.contains {
				if !strings.Contains(string(body), s) {
					t.Errorf("body lacks %q: %s", s, body)
				}
			}
			if c.check != nil {
				c.check(t, body)
			}
		})
	}
}

func TestKGRoutes(t *testing.T) {
	ts := startServer(t, Config{MaxResults: 100}, testDB(t), Deps{})
	runAPICases(t, ts, []apiCase{
		{name: "graphs", path: "/v1/graphs", status: 200, check: func(t *testing.T, b []byte) {
			g := decode[graphsBody](t, b)
			if len(g.Graphs) != 2 || g.Graphs[0].Name != "movies" || g.Graphs[1].Name != "wiki" || g.Graphs[0].Quads != 15 {
				t.Errorf("graphs = %+v", g.Graphs)
			}
		}},
		{name: "graph", path: "/v1/graphs/wiki", status: 200, contains: []string{`"name":"wiki"`, `"quads":4`}},
		{name: "graph unknown", path: "/v1/graphs/nope", status: 404, contains: []string{`unknown graph \"nope\"`}},
		{name: "stats", path: "/v1/stats", status: 200, check: func(t *testing.T, b []byte) {
			s := decode[statsBody](t, b)
			// No QuadStore: nothing can be written (TestStatsReadOnly
			// has a writable server).
			if s.Graphs != 2 || s.Quads != 19 || !s.ReadOnly || s.Cayley || s.MaxResults != 100 {
				t.Errorf("stats = %+v", s)
			}
		}},
		{name: "stats params", path: "/v1/stats?x=1", status: 400, contains: []string{`unknown query parameter \"x\"`}},
		{name: "search", path: "/v1/search?q=blade+runner&graph=movies", status: 200, check: func(t *testing.T, b []byte) {
			s := decode[searchBody](t, b)
			if len(s.Candidates) != 1 || s.Candidates[0].ID != "m1" || s.Candidates[0].Match != "exact" {
				t.Errorf("search = %+v", s)
			}
		}},
		{name: "search all graphs", path: "/v1/search?q=Ridley+Scott", status: 200, check: func(t *testing.T, b []byte) {
			s := decode[searchBody](t, b)
			ids := candidateIDs(s.Candidates)
			if !slices.Contains(ids, "p1") || !slices.Contains(ids, "Q56005") {
				t.Errorf("search ids = %v", ids)
			}
		}},
		{name: "search limit", path: "/v1/search?q=Ridley+Scott&limit=1", status: 200, check: func(t *testing.T, b []byte) {
			if n := len(decode[searchBody](t, b).Candidates); n != 1 {
				t.Errorf("%d candidates, want 1", n)
			}
		}},
		{name: "search no q", path: "/v1/search", status: 400, contains: []string{`missing query parameter \"q\"`}},
		{name: "malformed query string", path: "/v1/search?q=%", status: 400, contains: []string{`malformed query string`}},
		{name: "search unknown graph", path: "/v1/search?q=x&graph=nope", status: 404, contains: []string{"unknown graph"}},
		{name: "search limit 0", path: "/v1/search?q=x&limit=0", status: 400, contains: []string{"from 1 to 100"}},
		{name: "search limit cap", path: "/v1/search?q=x&limit=101", status: 400, contains: []string{"from 1 to 100"}},
		{name: "search typo", path: "/v1/search?q=x&lmit=3", status: 400, contains: []string{`\"lmit\"`, "allowed: graph, q, limit"}},
		{name: "entity", path: "/v1/entity?id=m1", status: 200, check: func(t *testing.T, b []byte) {
			e := decode[store.Entity](t, b)
			if e.Label != "Blade Runner" || e.Description != "1982 science fiction film" || !slices.Equal(e.Graphs, []string{"movies"}) {
				t.Errorf("entity = %+v", e)
			}
		}},
		{name: "entity unknown", path: "/v1/entity?id=nope", status: 404, contains: []string{`\"nope\"`, "not found"}},
		{name: "entity no id", path: "/v1/entity", status: 400, contains: []string{`missing query parameter \"id\"`}},
		{name: "entity two ids", path: "/v1/entity?id=m1&id=m2", status: 400, contains: []string{"takes one id"}},
		{name: "entity control char", path: "/v1/entity?id=a%00b", status: 400, contains: []string{"control characters"}},
		{name: "relations", path: "/v1/relations?id=m1", status: 200, check: func(t *testing.T, b []byte) {
			r := decode[relationsBody](t, b)
			d := findRelation(r.Relations, "directed_by", "out")
			if d == nil || d.Label != "directed by" || d.InverseLabel != "directed" || d.Count != 1 || d.Graph != "movies" {
				t.Errorf("relations = %+v", r.Relations)
			}
		}},
		{name: "relations in", path: "/v1/relations?id=p1&dir=in", status: 200, check: func(t *testing.T, b []byte) {
			r := decode[relationsBody](t, b)
			if d := findRelation(r.Relations, "directed_by", "in"); d == nil || d.Count != 3 || len(r.Relations) != 1 {
				t.Errorf("relations = %+v", r.Relations)
			}
		}},
		{name: "relations two ids", path: "/v1/relations?id=m1&id=m2&dir=out", status: 200, check: func(t *testing.T, b []byte) {
			if d := findRelation(decode[relationsBody](t, b).Relations, "directed_by", "out"); d == nil || d.Count != 2 {
				t.Errorf("directed_by = %+v", d)
			}
		}},
		{name: "relations limit", path: "/v1/relations?id=m1&limit=1", status: 200, check: func(t *testing.T, b []byte) {
			r := decode[relationsBody](t, b)
			if len(r.Relations) != 1 || !r.Truncated {
				t.Errorf("relations = %+v", r)
			}
		}},
		{name: "relations bad dir", path: "/v1/relations?id=m1&dir=up", status: 400, contains: []string{`\"dir\"`}},
		// The store.KG contract: an unknown id in a batch is skipped.
		{name: "relations unknown id", path: "/v1/relations?id=m1&id=zz", status: 200, contains: []string{`"directed_by"`}},
		{name: "edges", path: "/v1/edges?id=m1&relation=directed_by", status: 200, check: func(t *testing.T, b []byte) {
			e := decode[edgesBody](t, b)
			if len(e.Edges) != 1 || e.Edges[0].Object.Label != "Ridley Scott" || e.Edges[0].RelationLabel != "directed by" || e.Truncated {
				t.Errorf("edges = %+v", e)
			}
		}},
		{name: "edges in truncated", path: "/v1/edges?id=p1&relation=directed_by&dir=in&limit=2", status: 200, check: func(t *testing.T, b []byte) {
			e := decode[edgesBody](t, b)
			if len(e.Edges) != 2 || !e.Truncated || e.Edges[0].Object.ID != "p1" {
				t.Errorf("edges = %+v", e)
			}
		}},
		{name: "edges both", path: "/v1/edges?id=m1&relation=directed_by&dir=both", status: 400, contains: []string{`\"out\" or \"in\"`}},
		{name: "edges no relation", path: "/v1/edges?id=m1", status: 400, contains: []string{`\"relation\"`}},
		// An unknown relation has no edges.
		{name: "edges unknown relation", path: "/v1/edges?id=m1&relation=nope", status: 200, contains: []string{`"edges":[]`}},
		{name: "edges unknown id", path: "/v1/edges?id=zz&relation=directed_by", status: 200, contains: []string{`"edges":[]`}},
		{name: "neighbors", path: "/v1/neighbors?id=p1&dir=in", status: 200, check: func(t *testing.T, b []byte) {
			n := decode[neighborsBody](t, b)
			if len(n.Neighbors) != 3 || n.Truncated {
				t.Errorf("neighbors = %+v", n)
			}
		}},
		{name: "neighbors limit", path: "/v1/neighbors?id=p1&dir=in&limit=2", status: 200, check: func(t *testing.T, b []byte) {
			n := decode[neighborsBody](t, b)
			if len(n.Neighbors) != 2 || !n.Truncated {
				t.Errorf("neighbors = %+v", n)
			}
		}},
		{name: "degree", path: "/v1/degree?id=p1&relation=directed_by&dir=in", status: 200, check: func(t *testing.T, b []byte) {
			d := decode[degreeBody](t, b)
			if d.Degree != 3 || d.Dir != "in" || d.ID != "p1" {
				t.Errorf("degree = %+v", d)
			}
		}},
		{name: "degree both", path: "/v1/degree?id=m1", status: 200, contains: []string{`"dir":"both"`}},
		{name: "features", path: "/v1/features?id=m1", status: 200, check: func(t *testing.T, b []byte) {
			f := decode[featuresBody](t, b)
			if !slices.ContainsFunc(f.Features, func(f store.Feature) bool { return f.Relation == "release_year" && f.Value == "1982" }) {
				t.Errorf("features = %+v", f)
			}
		}},
		{name: "sameas", path: "/v1/sameas?id=m1", status: 200, check: func(t *testing.T, b []byte) {
			l := decode[sameAsBody](t, b)
			if !slices.ContainsFunc(l.Links, func(l store.Link) bool { return l.Target.ID == "Q184843" && l.Graph == "wiki" }) {
				t.Errorf("links = %+v", l)
			}
		}},
		{name: "sameas graph", path: "/v1/sameas?id=m1&graph=wiki", status: 200, contains: []string{`"Q184843"`}},
		{name: "sameas unknown graph", path: "/v1/sameas?id=m1&graph=zz", status: 404, contains: []string{"unknown graph"}},
		{name: "methods without model", path: "/v1/methods", status: 200, contains: []string{`"methods":[]`, `"param_caps"`}},
		{name: "ask without model", method: "POST", path: "/v1/ask", body: `{"question":"x"}`, status: 503,
			contains: []string{"not configured"}},
		{name: "openapi", path: "/v1/openapi.json", status: 200, contains: []string{`"openapi": "3.0.3"`}},
		{name: "unknown route", path: "/v2/graphs", status: 404, contains: []string{"no route for GET /v2/graphs"}},
		{name: "wrong method", method: "DELETE", path: "/v1/graphs", status: 405, contains: []string{"method DELETE not allowed"}},
		{name: "wrong method ask", method: "GET", path: "/v1/ask", status: 405, contains: []string{"allowed: POST"}},
		{name: "healthz", path: "/healthz", status: 200, contains: []string{`"ok"`}},
		{name: "readyz", path: "/readyz", status: 200, contains: []string{`"ready"`, `"graphs":2`}},
		{name: "page", path: "/", status: 200, contains: []string{"<title>Grove</title>"}},
		{name: "script", path: "/static/app.js", status: 200, contains: []string{"/v1/ask/stream"}},
		{name: "no cayley", path: "/cayley/api/v2/formats", status: 501, contains: []string{"has no Cayley quad store"}},
	})
	// The metrics saw the calls above.
	st, body := ts.get("/metrics")
	for _, want := range []string{
		`grove_http_request_duration_seconds_count{code="200",method="GET",route="GET /v1/entity"}`,
		`grove_http_request_duration_seconds_count{code="404",method="GET",route="GET /v1/entity"} 1`,
		`grove_kg_call_duration_seconds_count{op="entity",outcome="not_found"} 1`,
		`grove_reasoning_runs_in_flight 0`,
		`go_goroutines`,
	} {
		if st != 200 || !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func candidateIDs(cs []store.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func findRelation(rs []relationJSON, id, dir string) *relationJSON {
	for i := range rs {
		if rs[i].ID == id && rs[i].Dir == dir {
			return &rs[i]
		}
	}
	return nil
}

// silentKG is a store that stopped answering: Graphs returns only when
// its context ends.
type silentKG struct{ store.KG }

func (silentKG) Graphs(ctx context.Context) ([]store.GraphInfo, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestReadySilentStore: /readyz on a store that does not answer says 503
// "store unavailable" within readyTimeout (a probe gives up after 1 to 10
// s), not after the request's time limit.
func TestReadySilentStore(t *testing.T) {
	ts := startServer(t, Config{RequestTimeout: 20 * time.Second}, silentKG{testDB(t)}, Deps{})
	start := time.Now()
	st, body := ts.get("/readyz")
	took := time.Since(start)
	if st != http.StatusServiceUnavailable || !strings.Contains(string(body), "store unavailable") ||
		took < readyTimeout || took > readyTimeout+2*time.Second {
		t.Errorf("/readyz on a silent store: %d %s after %v; want 503 store unavailable after %v", st, body, took, readyTimeout)
	}
}
