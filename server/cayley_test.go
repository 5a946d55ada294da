package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
)

// cayleyServer serves testDB with the engine as Cayley's QuadStore.
func cayleyServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	db := testDB(t)
	var qs graph.QuadStore = db
	return startServer(t, cfg, db, Deps{QuadStore: qs})
}

func TestCayleyMount(t *testing.T) {
	ts := cayleyServer(t, Config{MaxResults: 2})
	gizmo := url.QueryEscape(`g.V("<p1>").In("<directed_by>").Out("<http://www.w3.org/2000/01/rdf-schema#label>").All()`)
	runAPICases(t, ts, []apiCase{
		{name: "gizmo", path: "/cayley/api/v2/query?lang=gizmo&qu=" + gizmo, status: 200, check: func(t *testing.T, b []byte) {
			res := decode[struct {
				Result []map[string]any `json:"result"`
			}](t, b)
			// Three films were directed by p1; the server caps results at 2.
			if len(res.Result) != 2 {
				t.Fatalf("gizmo result %s", b)
			}
			for _, r := range res.Result {
				if id, _ := r["id"].(string); !strings.Contains("Blade Runner Alien Gladiator", id) || id == "" {
					t.Errorf("unexpected result %v", r)
				}
			}
		}},
		{name: "gizmo post", method: "POST", path: "/cayley/api/v2/query?lang=gizmo",
			body: `g.V("<m1>").Out("<directed_by>").All()`, status: 200, contains: []string{`"id":"<p1>"`}},
		{name: "graphql", method: "POST", path: "/cayley/api/v2/query?lang=graphql",
			body: `{ nodes(id: "<m1>") { id, directed_by: <directed_by> { id } } }`, status: 200, contains: []string{"p1"}},
		{name: "mql", method: "POST", path: "/cayley/api/v2/query?lang=mql",
			body: `[{"id": "<m2>", "<directed_by>": null}]`, status: 200, contains: []string{"p1"}},
		{name: "bad query", path: "/cayley/api/v2/query?lang=gizmo&qu=" + url.QueryEscape("g.V(("), status: 400, contains: []string{"error"}},
		{name: "no language", path: "/cayley/api/v2/query?qu=x", status: 400, contains: []string{"query language not specified"}},
		{name: "read", path: "/cayley/api/v2/read?sub=" + url.QueryEscape("<m1>") + "&pred=" + url.QueryEscape("<directed_by>"),
			status: 200, contains: []string{"<m1> <directed_by> <p1> <movies> ."}},
		{name: "formats", path: "/cayley/api/v2/formats", status: 200, contains: []string{"nquads"}},
		{name: "write without token", method: "POST", path: "/cayley/api/v2/write", body: "<a> <b> <c> .\n",
			status: 403, contains: []string{"writes need authentication"}},
	})
}

func TestCayleyReadOnlyAndWrites(t *testing.T) {
	const token = "write-token-1"
	quads := "<m4> <http://www.w3.org/2000/01/rdf-schema#label> \"Prometheus\" <movies> .\n<m4> <directed_by> <p1> <movies> .\n"
	cases := []struct {
		name     string
		cfg      Config
		auth     string
		status   int
		want     string
		readBack bool
	}{
		{"read-only", Config{ReadOnly: true, Token: token}, "Bearer " + token, 403, "read-only", false},
		{"no token configured", Config{}, "", 403, "writes need authentication", false},
		{"wrong token", Config{Token: token}, "Bearer nope", 401, "invalid bearer token", false},
		{"authorised", Config{Token: token}, "Bearer " + token, 200, `"count":2`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := cayleyServer(t, c.cfg)
			hdr := map[string]string{"Authorization": c.auth, "Content-Type": "application/n-quads"}
			st, _, body := ts.do("POST", "/cayley/api/v2/write", quads, hdr)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("write: status %d body %s", st, body)
			}
			for _, p := range []string{"/cayley/api/v2/delete", "/cayley/api/v2/node/delete"} {
				if c.status == 200 {
					break
				}
				if st, _, _ := ts.do("POST", p, "<m1> <directed_by> <p1> <movies> .\n", hdr); st != c.status {
					t.Errorf("%s: status %d, want %d", p, st, c.status)
				}
			}
			// Written quads are visible through Cayley and the KG API.
			st, _, body = ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<m4>"), "", hdr)
			if c.readBack && (st != 200 || !strings.Contains(string(body), "<m4> <directed_by> <p1>")) {
				t.Errorf("read back: %d %s", st, body)
			}
			if c.readBack {
				ts.token = token
				if st, body := ts.get("/v1/edges?id=m4&relation=directed_by"); st != 200 || !strings.Contains(string(body), "Ridley Scott") {
					t.Errorf("KG after write: %d %s", st, body)
				}
			}
		})
	}
}

func TestCayleyReadCap(t *testing.T) {
	ts := cayleyServer(t, Config{MaxCayleyReadBytes: 100})
	st, body := ts.get("/cayley/api/v2/read?label=" + url.QueryEscape("<movies>"))
	// The cut falls on a line boundary: only whole quads are sent.
	if st != 200 || len(body) > 100 || len(body) < 20 || !strings.HasSuffix(string(body), " .\n") {
		t.Fatalf("capped read: status %d, %d bytes: %q", st, len(body), body)
	}
}

// TestCayleyQueryBodyLimit: a query body over the server's body limit is
// a 413 in every language, never run cut short.
func TestCayleyQueryBodyLimit(t *testing.T) {
	ts := cayleyServer(t, Config{MaxBodyBytes: 1 << 20})
	pad := strings.Repeat(" ", 1<<20)
	cases := []struct{ name, lang, body string }{
		{"gizmo", "gizmo", `g.V("<m1>").All()` + pad + `g.V("<m2>").All()`},
		{"graphql", "graphql", `{ nodes(id: "<m1>") { id } }` + pad},
		{"mql", "mql", `[{"id": "<m2>", "<directed_by>": null}]` + pad},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, hdr, body := ts.do("POST", "/cayley/api/v2/query?lang="+c.lang, c.body, nil)
			if st != 413 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") ||
				!strings.Contains(decode[errorBody](t, body).Error, "request body too large (limit 1048576 bytes)") {
				t.Fatalf("status %d %q: %.300s", st, hdr.Get("Content-Type"), body)
			}
		})
	}
}
