package server

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// errStalled is what the SQL backend returns when PostgreSQL stops
// answering: it matches store.ErrUnavailable, and its text names SQL and
// local addresses, which must not reach clients.
var errStalled = fmt.Errorf("sql query failed: %w (5s): read tcp 127.0.0.1:46050->127.0.0.1:55481: i/o timeout\n"+
	"query: SELECT object_hash AS __node FROM quads WHERE subject_hash = $1", store.ErrUnavailable)

// stalledQuads is a quad store whose lookups fail as a stopped
// PostgreSQL's do, in one place (in: "nameof" or "valueof").
type stalledQuads struct {
	graph.QuadStore
	in string
}

func (s *stalledQuads) NameOf(r graph.Ref) (quad.Value, error) {
	if s.in == "nameof" {
		return nil, errStalled
	}
	return s.QuadStore.NameOf(r)
}

func (s *stalledQuads) ValueOf(v quad.Value) (graph.Ref, error) {
	if s.in == "valueof" {
		return nil, errStalled
	}
	return s.QuadStore.ValueOf(v)
}

// stalledKG is a knowledge graph whose reads fail as a stopped
// PostgreSQL's do.
type stalledKG struct{ store.KG }

func (stalledKG) Entity(context.Context, string) (store.Entity, error) {
	return store.Entity{}, fmt.Errorf("entity: %w", errStalled)
}

func (stalledKG) Search(context.Context, string, string, int) ([]store.Candidate, error) {
	return nil, fmt.Errorf("search: %w", errStalled)
}

// TestStoreUnavailable checks that every route answers a store whose
// database does not answer with the same 503, whose body names neither
// SQL nor addresses (the log has the full error): the KG routes answered
// a 500, Cayley queries a 400 with the store's error text.
func TestStoreUnavailable(t *testing.T) {
	queries := []struct {
		lang, query string
		valueOf     bool // the query looks a value up
	}{
		{"gizmo", `g.V("<m1>").Out("<directed_by>").All()`, true},
		{"gizmo", `g.V().All()`, false},
		{"graphql", `{ nodes(id: "<m1>") { id, directed_by: <directed_by> { id } } }`, true},
		{"mql", `[{"id": "<m1>", "<directed_by>": null}]`, true},
	}
	type request struct {
		name, method, path, body string
		valueOf                  bool
	}
	var reqs []request
	for _, q := range queries {
		reqs = append(reqs, request{q.lang + " " + q.query, "POST", "/cayley/api/v2/query?lang=" + url.QueryEscape(q.lang), q.query, q.valueOf})
	}
	reqs = append(reqs, request{"entity", "GET", "/v1/entity?id=m1", "", true}, request{"search", "GET", "/v1/search?q=film", "", true})
	for _, where := range []string{"nameof", "valueof"} {
		t.Run(where, func(t *testing.T) {
			db := testDB(t)
			ts := startServer(t, Config{}, stalledKG{db}, Deps{QuadStore: &stalledQuads{QuadStore: db, in: where}})
			for _, rq := range reqs {
				if where == "valueof" && !rq.valueOf {
					continue
				}
				st, _, body := ts.do(rq.method, rq.path, rq.body, nil)
				res := decode[errorBody](t, body)
				if st != 503 || res.Error != unavailableMsg {
					t.Errorf("%s: status %d body %s; want 503 %q", rq.name, st, body, unavailableMsg)
				}
				for _, leak := range []string{"SELECT", "127.0.0.1"} {
					if strings.Contains(string(body), leak) {
						t.Errorf("%s: the answer shows %q: %s", rq.name, leak, body)
					}
				}
			}
			if !strings.Contains(ts.logs.String(), "SELECT object_hash") {
				t.Errorf("the full error is not in the log")
			}
		})
	}
}
