package server

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
)

// kgOnly hides the engine's QuadStore methods: a backend like the SPARQL
// one, which has no Cayley quad store.
type kgOnly struct{ store.KG }

// TestNoQuadStoreRoutes: on a backend without a Cayley quad store every
// /cayley/ route answers with the reason (403 for a write, since the server
// cannot be written, 405 for a write route's other methods, 501 for the
// rest), never "no route", and the token is still required.
func TestNoQuadStoreRoutes(t *testing.T) {
	const token = "no-cayley-token"
	const reason = "the *sparqlkg.KG backend has no Cayley quad store: send SPARQL to the endpoint itself"
	ts := startServer(t, Config{Token: token}, kgOnly{testDB(t)}, Deps{NoCayley: errors.New(reason)})
	runAPICases(t, ts, []apiCase{
		{name: "gizmo get", path: "/cayley/api/v2/query?lang=gizmo&qu=g.V().All()", status: 501,
			contains: []string{"is not served: " + reason, `"request_id"`}},
		{name: "gizmo post", method: "POST", path: "/cayley/api/v2/query?lang=gizmo", body: "g.V().All()", status: 501,
			contains: []string{reason}},
		{name: "read", path: "/cayley/api/v2/read?sub=%3Cm1%3E", status: 501, contains: []string{reason}},
		{name: "formats", path: "/cayley/api/v2/formats", status: 501, contains: []string{reason}},
		{name: "unknown path", path: "/cayley/api/v2/nosuch", status: 501, contains: []string{reason}},
		{name: "write", method: "POST", path: "/cayley/api/v2/write", body: "<a> <b> <c> .\n", status: 403,
			contains: []string{`"the server is read-only: ` + reason}},
		{name: "write trailing slash", method: "POST", path: "/cayley/api/v2/write/", body: "<a> <b> <c> .\n", status: 403,
			contains: []string{"read-only"}},
		{name: "delete", method: "POST", path: "/cayley/api/v2/delete", body: "<a> <b> <c> .\n", status: 403,
			contains: []string{"read-only: " + reason}},
		{name: "node delete", method: "POST", path: "/cayley/api/v2/node/delete", body: "<a>", status: 403,
			contains: []string{"read-only: " + reason}},
		{name: "write by GET", path: "/cayley/api/v2/write", status: 405,
			contains: []string{"method GET not allowed on /cayley/api/v2/write (allowed: POST)"}},
	})
	ts.token = ""
	if st, body := ts.get("/cayley/api/v2/query?lang=gizmo&qu=g.V().All()"); st != 401 {
		t.Errorf("without the token: %d %s, want 401", st, body)
	}
}

// TestNoQuadStoreDefaultReason: without Deps.NoCayley the refusal names the
// backend's type and store.ErrNoQuadStore.
func TestNoQuadStoreDefaultReason(t *testing.T) {
	ts := startServer(t, Config{}, kgOnly{testDB(t)}, Deps{})
	st, body := ts.get("/cayley/api/v2/query?lang=gizmo&qu=g.V().All()")
	if want := "the server.kgOnly backend has " + store.ErrNoQuadStore.Error(); st != 501 || !strings.Contains(string(body), want) {
		t.Fatalf("status %d body %s; want 501 and %q", st, body, want)
	}
}

// TestStatsReadOnly: /v1/stats reports read_only whenever the server
// cannot be written: when configured so, and when the backend has no
// Cayley quad store (a SPARQL endpoint), not only with --read-only.
func TestStatsReadOnly(t *testing.T) {
	cases := []struct {
		name           string
		cfg            Config
		quadStore      bool
		readOnly, cayl bool
	}{
		{"cayley writable", Config{}, true, false, true},
		{"cayley read-only", Config{ReadOnly: true}, true, true, true},
		{"no quad store", Config{}, false, true, false},
		{"no quad store read-only", Config{ReadOnly: true}, false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testDB(t)
			var ts *testServer
			if c.quadStore {
				ts = startServer(t, c.cfg, db, Deps{QuadStore: db})
			} else {
				ts = startServer(t, c.cfg, kgOnly{db}, Deps{})
			}
			st, body := ts.get("/v1/stats")
			if st != 200 {
				t.Fatalf("stats: %d %s", st, body)
			}
			if s := decode[statsBody](t, body); s.ReadOnly != c.readOnly || s.Cayley != c.cayl {
				t.Errorf("read_only %v cayley %v, want %v %v", s.ReadOnly, s.Cayley, c.readOnly, c.cayl)
			}
		})
	}
}

// TestOpenAPINoQuadStore: every answer a server without a Cayley quad
// store gives to a documented /cayley/ operation is documented for it.
func TestOpenAPINoQuadStore(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{}, kgOnly{testDB(t)}, Deps{})
	n := 0
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/cayley/") {
			continue
		}
		for method, op := range ops {
			n++
			st, _, body := ts.do(strings.ToUpper(method), path, "x", nil)
			if _, ok := op.Responses[strconv.Itoa(st)]; !ok {
				t.Errorf("%s %s answers %d (%s), which it does not document", method, path, st, body)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d /cayley/ operations documented", n)
	}
}
