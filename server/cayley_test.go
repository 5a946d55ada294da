package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/grove-kg/grove/store"
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
		// GraphQL runs through its session: GET's qu, errors in the
		// server's shape, lists within the result cap (Cayley's handler
		// took none of these).
		{name: "graphql get", path: "/cayley/api/v2/query?lang=graphql&qu=" +
			url.QueryEscape(`{ nodes(id: "<m1>") { id, directed_by: <directed_by> { id } } }`), status: 200,
			contains: []string{`{"data":{"nodes":`, "p1"}},
		{name: "graphql syntax error", method: "POST", path: "/cayley/api/v2/query?lang=graphql", body: "{", status: 400,
			contains: []string{`"error":"graphql: `, `"request_id"`}},
		{name: "graphql empty", method: "POST", path: "/cayley/api/v2/query?lang=graphql", body: " ", status: 400,
			contains: []string{"query is empty"}},
		{name: "graphql over the cap", method: "POST", path: "/cayley/api/v2/query?lang=graphql",
			body: `{ nodes { id } }`, status: 400, contains: []string{"over this server's cap of 2", "first:"}},
		{name: "graphql within the cap with first", method: "POST", path: "/cayley/api/v2/query?lang=graphql",
			body: `{ nodes(first: 2) { id } }`, status: 200, contains: []string{`{"data":{"nodes":[`}},
		{name: "mql", method: "POST", path: "/cayley/api/v2/query?lang=mql",
			body: `[{"id": "<m2>", "<directed_by>": null}]`, status: 200, contains: []string{"p1"}},
		{name: "bad query", path: "/cayley/api/v2/query?lang=gizmo&qu=" + url.QueryEscape("g.V(("), status: 400, contains: []string{"error"}},
		// The server's error shape (with request_id), where Cayley's own
		// answers were {"error":"query language not specified"} and
		// {"error":"unknown query language"}.
		{name: "no language", path: "/cayley/api/v2/query?qu=x", status: 400,
			contains: []string{`missing query parameter \"lang\" (use gizmo, graphql, mql)`, `"request_id"`}},
		{name: "unknown language", path: "/cayley/api/v2/query?lang=sparql&qu=x", status: 400,
			contains: []string{`unknown query language \"sparql\" (use gizmo, graphql, mql)`, `"request_id"`}},
		{name: "unknown language, posted", method: "POST", path: "/cayley/api/v2/query?lang=gremlin", body: "g.V()", status: 400,
			contains: []string{`unknown query language \"gremlin\"`, `"request_id"`}},
		{name: "language twice", path: "/cayley/api/v2/query?lang=gizmo&lang=mql&qu=x", status: 400,
			contains: []string{`\"lang\" given 2 times`}},
		// A mistyped filter was ignored and the whole store read.
		{name: "read with an unknown parameter", path: "/cayley/api/v2/read?subj=" + url.QueryEscape("<m1>"), status: 400,
			contains: []string{`unknown read parameter \"subj\" (allowed: sub, pred, obj, label, format, iri)`, `"request_id"`}},
		{name: "read with iri", path: "/cayley/api/v2/read?iri=full&sub=" + url.QueryEscape("<m1>"), status: 200,
			contains: []string{"<m1> <directed_by> <p1>"}},
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

// TestCayleyReadCap: a read over the byte cap is cut so that what was
// sent stays valid in its format and ends with an explicit marker (an
// N-Quads comment, a json-stream line or a last JSON array element
// {"error": ...}), and the Grove-Truncated trailer says so; a read within
// the cap has neither; a read whose first piece is over the cap is a 413.
func TestCayleyReadCap(t *testing.T) {
	const marker = "truncated: the read exceeded this server's limit of 300 bytes"
	cases := []struct {
		name, query string
		accept      string
		limit       int64
		status      int
		truncated   bool
		check       func(t *testing.T, body string)
	}{
		{name: "nquads", limit: 300, status: 200, truncated: true, check: func(t *testing.T, body string) {
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "# "+marker) || len(lines) < 2 {
				t.Fatalf("no marker line: %q", body)
			}
			for _, l := range lines[:len(lines)-1] {
				if _, err := nquads.Parse(l); err != nil || !strings.HasSuffix(l, " .") {
					t.Errorf("line %q: %v", l, err)
				}
			}
			if len(body)-len(last)-1 > 300 {
				t.Errorf("%d bytes of quads sent", len(body)-len(last)-1)
			}
		}},
		{name: "json", query: "&format=json", limit: 300, status: 200, truncated: true, check: func(t *testing.T, body string) {
			var elems []map[string]string
			if err := json.Unmarshal([]byte(body), &elems); err != nil {
				t.Fatalf("invalid JSON %q: %v", body, err)
			}
			if len(elems) < 2 || !strings.HasPrefix(elems[len(elems)-1]["error"], marker) || elems[0]["subject"] == "" {
				t.Fatalf("elements %v", elems)
			}
		}},
		{name: "json by accept", accept: "application/json", limit: 300, status: 200, truncated: true, check: func(t *testing.T, body string) {
			if !json.Valid([]byte(body)) || !strings.Contains(body, marker) {
				t.Fatalf("body %q", body)
			}
		}},
		{name: "json-stream", query: "&format=json-stream", limit: 300, status: 200, truncated: true, check: func(t *testing.T, body string) {
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			for i, l := range lines {
				var v map[string]string
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				if last := i == len(lines)-1; last != strings.HasPrefix(v["error"], marker) {
					t.Errorf("line %d %q", i, l)
				}
			}
		}},
		{name: "jsonld is written whole or not at all", query: "&format=jsonld", limit: 300, status: 413, check: func(t *testing.T, body string) {
			if !strings.Contains(decode[errorBody](t, []byte(body)).Error, "the read exceeded this server's limit of 300 bytes") {
				t.Fatalf("body %q", body)
			}
		}},
		{name: "within the cap", query: "&format=json", limit: 1 << 20, status: 200, check: func(t *testing.T, body string) {
			var elems []map[string]string
			if err := json.Unmarshal([]byte(body), &elems); err != nil || len(elems) != 15 || strings.Contains(body, "error") {
				t.Fatalf("body %q: %v", body, err)
			}
		}},
		{name: "n-triples alias", query: "&format=ntriples", limit: 1 << 20, status: 200, check: func(t *testing.T, body string) {
			if strings.Count(body, " .\n") != 15 {
				t.Fatalf("body %q", body)
			}
		}},
		{name: "unknown format", query: "&format=nope", limit: 300, status: 400, check: func(t *testing.T, body string) {
			if msg := decode[errorBody](t, []byte(body)).Error; !strings.Contains(msg, `format "nope" cannot be read; use`) ||
				!strings.Contains(msg, "nquads") || !strings.Contains(msg, "json-stream") {
				t.Fatalf("body %q", body)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := cayleyServer(t, Config{MaxCayleyReadBytes: c.limit})
			req, _ := http.NewRequest("GET", ts.url+"/cayley/api/v2/read?label="+url.QueryEscape("<movies>")+c.query, nil)
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			resp, err := ts.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %v %q", resp.StatusCode, c.status, err, b)
			}
			if got := resp.Trailer.Get("Grove-Truncated"); strings.HasPrefix(got, marker) != c.truncated {
				t.Errorf("trailer %q, truncated %v", got, c.truncated)
			}
			c.check(t, string(b))
		})
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

// TestCayleyQueryAnswers: a query answer over MaxCayleyQueryBytes is a 413
// (never held in memory whole nor sent), and a query that runs out of
// time is a 504 like every route, not Cayley's 400.
func TestCayleyQueryAnswers(t *testing.T) {
	ts := cayleyServer(t, Config{MaxCayleyQueryBytes: 4000, RequestTimeout: 300 * time.Millisecond})
	cases := []struct {
		name, lang, body string
		status           int
		want             string
	}{
		{"small answer", "gizmo", `g.Emit("x".repeat(1000))`, 200, `"result"`},
		{"large answer", "gizmo", `var s = "x".repeat(1000); for (var i = 0; i < 10; i++) { g.Emit(s) }`, 413,
			"the answer exceeded this server's limit of 4000 bytes; narrow the query or use Limit"},
		{"timeout", "gizmo", `var i = 0; while (true) { i++ }`, 504, "request timed out"},
		{"bad query", "gizmo", `g.V((`, 400, "error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, hdr, body := ts.do("POST", "/cayley/api/v2/query?lang="+c.lang, c.body, nil)
			if st != c.status || !strings.Contains(string(body), c.want) || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d %q: %.300s", st, hdr.Get("Content-Type"), body)
			}
			if st >= 400 && st != 400 && decode[errorBody](t, body).RequestID == "" {
				t.Errorf("no request id: %s", body)
			}
		})
	}
}

// TestCayleyQueryClientGone: a client that disconnects during a query is
// recorded as 499, as on every route.
func TestCayleyQueryClientGone(t *testing.T) {
	ts := cayleyServer(t, Config{RequestTimeout: 20 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+"/cayley/api/v2/query?lang=gizmo",
		strings.NewReader(`var i = 0; while (true) { i++ }`))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-done
	waitFor(t, "the query to be recorded as 499", func() bool {
		_, m := ts.get("/metrics")
		return strings.Contains(string(m), `grove_http_request_duration_seconds_count{code="499",method="POST",route="/cayley/"} 1`)
	})
}

// TestCayleyRouting: a trailing slash is served as the path without it
// (Cayley's router redirected to a Location without /cayley), and the
// mount's and the static files' 404 and 405 answers are JSON.
func TestCayleyRouting(t *testing.T) {
	ts := cayleyServer(t, Config{})
	gizmo := url.QueryEscape(`g.V("<m1>").Out("<directed_by>").All()`)
	runAPICases(t, ts, []apiCase{
		{name: "query with a trailing slash", path: "/cayley/api/v2/query/?lang=gizmo&qu=" + gizmo, status: 200, contains: []string{`"id":"<p1>"`}},
		{name: "post with a trailing slash", method: "POST", path: "/cayley/api/v2/query/?lang=gizmo",
			body: `g.V("<m1>").Out("<directed_by>").All()`, status: 200, contains: []string{`"id":"<p1>"`}},
		{name: "formats with a trailing slash", path: "/cayley/api/v2/formats/", status: 200, contains: []string{"nquads"}},
		{name: "write with a trailing slash", method: "POST", path: "/cayley/api/v2/write/", body: "<a> <b> <c> .\n",
			status: 403, contains: []string{"writes need authentication"}},
		{name: "mount root", path: "/cayley/", status: 404, contains: []string{`"error":"no route for GET /cayley/"`, "request_id"}},
		{name: "unknown cayley route", path: "/cayley/api/v2/nope", status: 404, contains: []string{"no route for GET /cayley/api/v2/nope"}},
		{name: "other case", path: "/cayley/API/V2/QUERY?lang=gizmo&qu=" + gizmo, status: 404, contains: []string{"no route for GET /cayley/API/V2/QUERY"}},
		{name: "method not allowed", method: "PUT", path: "/cayley/api/v2/formats", status: 405,
			contains: []string{"method PUT not allowed on /cayley/api/v2/formats (allowed: GET"}},
		{name: "static file missing", path: "/static/nope.js", status: 404, contains: []string{`"error":"no file /static/nope.js"`}},
		{name: "static file", path: "/static/app.js", status: 200},
	})
}

// TestCayleyMethods: every Cayley route answers a method it does not
// serve with 405 and an Allow header naming the ones it does (as Cayley's
// router does), and runs or writes nothing; /query ran a PUT or DELETE as a
// query (200).
func TestCayleyMethods(t *testing.T) {
	const token = "method-token"
	ts := cayleyServer(t, Config{Token: token})
	gizmo := url.QueryEscape(`g.V("<m1>").Out("<directed_by>").All()`)
	cases := []struct {
		path    string
		methods []string
		allow   string
	}{
		{"/cayley/api/v2/query?lang=gizmo&qu=" + gizmo, []string{"PUT", "DELETE", "PATCH", "HEAD"}, "GET, POST"},
		{"/cayley/api/v2/query/?lang=gizmo&qu=" + gizmo, []string{"PUT"}, "GET, POST"},
		{"/cayley/api/v2/read?sub=" + url.QueryEscape("<m1>"), []string{"PUT", "DELETE", "PATCH"}, "GET, POST"},
		{"/cayley/api/v2/write", []string{"GET", "PUT"}, "POST"},
		{"/cayley/api/v2/delete", []string{"GET", "DELETE"}, "POST"},
		{"/cayley/api/v2/node/delete", []string{"GET", "DELETE"}, "POST"},
	}
	for _, c := range cases {
		for _, m := range c.methods {
			t.Run(m+" "+c.path, func(t *testing.T) {
				st, hdr, b := ts.do(m, c.path, "<m1> <directed_by> <p1> .\n", nil)
				if st != 405 || hdr.Get("Allow") != c.allow {
					t.Fatalf("status %d Allow %q: %s; want 405 Allow %q", st, hdr.Get("Allow"), b, c.allow)
				}
				if m != "HEAD" && !strings.Contains(string(b), "not allowed") {
					t.Fatalf("body does not say the method is not allowed: %s", b)
				}
			})
		}
	}
	if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<m1>"), "", nil); st != 200 ||
		!strings.Contains(string(b), "<m1> <directed_by> <p1>") {
		t.Fatalf("a refused method changed the store: %d %s", st, b)
	}
}

// TestCayleyReadPosted: a posted read takes the same parameters as a GET
// (an unknown one is a 400) and a body over the limit is a 413 as on every
// route (it was a 400 quoting "http: request body too large").
func TestCayleyReadPosted(t *testing.T) {
	ts := cayleyServer(t, Config{MaxBodyBytes: 1024})
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"filters", "sub=" + url.QueryEscape("<m1>") + "&pred=" + url.QueryEscape("<directed_by>"), 200, "<m1> <directed_by> <p1>"},
		{"unknown parameter", "subj=" + url.QueryEscape("<m1>"), 400, `unknown read parameter \"subj\"`},
		{"body over the limit", "sub=" + url.QueryEscape("<m1>") + "&label=" + strings.Repeat("x", 2000), 413,
			"request body too large (limit 1024 bytes)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, body := ts.do("POST", "/cayley/api/v2/read", c.body, form)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("status %d body %.300s, want %d %q", st, body, c.status, c.want)
			}
		})
	}
}

// TestCayleyReadTypedLiterals: /read gives back typed literals as they
// were written, in RDF form with full XSD datatype IRIs, where Cayley's
// writers rendered the store's native values ("True"^^<xsd:boolean>,
// "2.5E+00"^^<xsd:double>: another datatype to other RDF tools); a
// native written in Cayley's own form reads back in the RDF form it is
// stored in; a read filtered on such a literal finds it.
func TestCayleyReadTypedLiterals(t *testing.T) {
	const token = "write-token-1"
	const x = "http://www.w3.org/2001/XMLSchema#"
	written := []string{
		`<t1> <b> "true"^^<` + x + `boolean> <lit> .`,
		`<t1> <d> "2.5"^^<` + x + `double> <lit> .`,
		`<t1> <i> "7"^^<` + x + `integer> <lit> .`,
		`<t1> <t> "2008-05-19T12:00:00Z"^^<` + x + `dateTime> <lit> .`,
		`<t1> <i2> "01"^^<` + x + `integer> <lit> .`, // not canonical: a typed string throughout
	}
	ts := cayleyServer(t, Config{Token: token})
	hdr := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/n-quads"}
	body := strings.Join(written, "\n") + "\n" + `<t2> <f> "False"^^<xsd:boolean> <lit> .` + "\n"
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", body, hdr); st != 200 {
		t.Fatalf("write: %d %s", st, b)
	}
	want := append(written, `<t2> <f> "false"^^<`+x+`boolean> <lit> .`)
	for _, c := range []struct{ name, query string }{
		{"nquads", "label=" + url.QueryEscape("<lit>")},
		{"a filter on a literal", "obj=" + url.QueryEscape(`"2.5"^^<`+x+`double>`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, _, b := ts.do("GET", "/cayley/api/v2/read?"+c.query, "", hdr)
			if st != 200 {
				t.Fatalf("read: %d %s", st, b)
			}
			got := strings.Split(strings.TrimSpace(string(b)), "\n")
			for _, line := range got {
				if strings.Contains(line, "<xsd:") || strings.Contains(line, "E+") || strings.Contains(line, `"True"`) {
					t.Errorf("Cayley's rendering of a native value: %s", line)
				}
				if !slices.Contains(want, line) {
					t.Errorf("read %q, not a quad written", line)
				}
			}
			if c.name == "nquads" && len(got) != len(want) {
				t.Errorf("read %d quads, want %d:\n%s", len(got), len(want), b)
			}
			if c.name != "nquads" && (len(got) != 1 || got[0] != written[1]) {
				t.Errorf("filtered read %q, want %q", got, written[1])
			}
		})
	}
}

// readFailStore is a quad store whose every quad listing fails with a
// database error naming its internals.
type readFailStore struct{ graph.QuadStore }

const readFailSecret = `pq: relation "quads" at 10.1.2.3:5432 is locked`

func (readFailStore) QuadsAllIterator() iterator.Shape {
	return iterator.NewError(errors.New(readFailSecret))
}

// unavailableKG is a KG whose database does not answer.
type unavailableKG struct{ store.KG }

func (unavailableKG) Graphs(context.Context) ([]store.GraphInfo, error) {
	return nil, fmt.Errorf("sql: list graphs: %w", store.ErrUnavailable)
}

// TestCayleyReadStoreError: a /read the store fails is answered as every
// route answers a store error, a 503 when the store does not answer and
// otherwise a 500 naming the request id, never Cayley's 500 with the raw
// error (which named the database's address).
func TestCayleyReadStoreError(t *testing.T) {
	for _, c := range []struct {
		name   string
		kg     func(store.KG) store.KG
		status int
		want   string
	}{
		{"store unavailable", func(k store.KG) store.KG { return unavailableKG{k} }, 503, "store unavailable"},
		{"other error", func(k store.KG) store.KG { return k }, 500, "internal error; see the server log for request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := testDB(t)
			ts := startServer(t, Config{}, c.kg(db), Deps{QuadStore: readFailStore{db}})
			st, _, body := ts.do("GET", "/cayley/api/v2/read", "", nil)
			if st != c.status || !strings.Contains(string(body), c.want) || strings.Contains(string(body), "10.1.2.3") {
				t.Errorf("read: %d %s; want %d %q without the database's address", st, body, c.status, c.want)
			}
		})
	}
}

// TestCayleyJSONLDTypedLiterals: a JSON-LD body's typed literals are
// stored as sent (Cayley's reader turned "01"^^xsd:integer into 1, moved a
// dateTime's zone to UTC and read xsd:float as a double), so the JSON-LD
// /read gives out deletes and writes back as the same quads.
func TestCayleyJSONLDTypedLiterals(t *testing.T) {
	const token = "write-token-1"
	const x = "http://www.w3.org/2001/XMLSchema#"
	written := []string{
		`<http://ex.org/t1> <http://ex.org/i> "01"^^<` + x + `integer> <http://ex.org/ld> .`,
		`<http://ex.org/t1> <http://ex.org/z> "2008-05-19T12:00:00+02:00"^^<` + x + `dateTime> <http://ex.org/ld> .`,
		`<http://ex.org/t1> <http://ex.org/f> "2.5"^^<` + x + `float> <http://ex.org/ld> .`,
		`<http://ex.org/t1> <http://ex.org/b> "1"^^<` + x + `boolean> <http://ex.org/ld> .`,
		`<http://ex.org/t1> <http://ex.org/n> "7"^^<` + x + `integer> <http://ex.org/ld> .`,
	}
	ts := cayleyServer(t, Config{Token: token})
	hdr := map[string]string{"Authorization": "Bearer " + token}
	read := func(format string) string {
		t.Helper()
		st, _, b := ts.do("GET", "/cayley/api/v2/read?format="+format+"&label="+url.QueryEscape("<http://ex.org/ld>"), "", hdr)
		if st != 200 {
			t.Fatalf("read %s: %d %s", format, st, b)
		}
		return string(b)
	}
	sorted := func(nq string) []string {
		lines := strings.Split(strings.TrimSpace(nq), "\n")
		slices.Sort(lines)
		return lines
	}
	want := slices.Sorted(slices.Values(written))
	// Written as JSON-LD (the N-Quads above, as /read gives them in JSON-LD).
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", strings.Join(written, "\n")+"\n", hdr); st != 200 {
		t.Fatalf("write: %d %s", st, b)
	}
	doc := read("jsonld")
	for _, step := range []string{"delete", "write"} {
		if st, _, b := ts.do("POST", "/cayley/api/v2/"+step+"?format=jsonld", doc, hdr); st != 200 {
			t.Fatalf("%s of the JSON-LD read: %d %s", step, st, b)
		}
		if step == "delete" && strings.TrimSpace(read("nquads")) != "" {
			t.Fatalf("left after the JSON-LD delete:\n%s", read("nquads"))
		}
	}
	if got := sorted(read("nquads")); !slices.Equal(got, want) {
		t.Errorf("after a JSON-LD delete and write back:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCayleyReadJSONLDLimit: a JSON-LD read over maxJSONLDQuads quads is
// refused before anything is sent (Cayley's writer converts the whole
// answer when closed, in time growing with the square of a node's values:
// a hub of 40,000 values took two minutes past every time limit); one
// within it, or the same quads in N-Quads, is read.
func TestCayleyReadJSONLDLimit(t *testing.T) {
	const token = "write-token-1"
	var body strings.Builder
	for i := range maxJSONLDQuads + 1 {
		fmt.Fprintf(&body, "<http://ex.org/hub> <http://ex.org/p> \"v%d\" <http://ex.org/hub> .\n", i)
	}
	ts := cayleyServer(t, Config{Token: token, MaxBodyBytes: 16 << 20})
	hdr := map[string]string{"Authorization": "Bearer " + token}
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", body.String(), hdr); st != 200 {
		t.Fatalf("write: %d %s", st, b)
	}
	label := "&label=" + url.QueryEscape("<http://ex.org/hub>")
	for _, c := range []struct {
		query  string
		status int
		want   string
	}{
		{"format=jsonld" + label, 413, "a JSON-LD read holds at most 10000 quads"},
		{"format=jsonld&obj=v7", 200, `"v7"`}, // a plain string filter is unquoted, as in Cayley
		{"format=nquads" + label, 200, `"v10000"`},
	} {
		st, _, b := ts.do("GET", "/cayley/api/v2/read?"+c.query, "", hdr)
		if st != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %.300s; want %d with %q", c.query, st, b, c.status, c.want)
		}
	}
}

// TestCayleyReadJSONLDTimeLimit: a JSON-LD read within the quad limit
// whose conversion (quadratic in a node's values: 8,000 values of one
// node take seconds) outlasts the request's time limit is a 504 within
// it, where the conversion ran on and the client got an empty reply.
func TestCayleyReadJSONLDTimeLimit(t *testing.T) {
	db := testDB(t)
	ds := make([]graph.Delta, 8000)
	for i := range ds {
		ds[i] = graph.Delta{Action: graph.Add, Quad: quad.Make(quad.IRI("http://ex.org/hub"), quad.IRI("http://ex.org/p"),
			quad.String(fmt.Sprintf("v%d", i)), quad.IRI("http://ex.org/hub"))}
	}
	if err := db.ApplyDeltas(ds, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{RequestTimeout: 300 * time.Millisecond}, db, Deps{QuadStore: db})
	start := time.Now()
	st, _, b := ts.do("GET", "/cayley/api/v2/read?format=jsonld&sub="+url.QueryEscape("<http://ex.org/hub>"), "", nil)
	if took := time.Since(start); st != http.StatusGatewayTimeout || took > 3*time.Second {
		t.Errorf("a slow JSON-LD conversion: %d %.200s after %v; want a 504 near the 300 ms limit", st, b, took)
	}
}

// TestCayleyReadForms: a read's filters in a multipart form body are
// applied (they were dropped and the whole store read), and an iri value
// other than short or full is refused.
func TestCayleyReadForms(t *testing.T) {
	ts := cayleyServer(t, Config{})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range map[string]string{"sub": "<m1>", "pred": "<directed_by>"} {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	mw.Close()
	st, _, b := ts.do("POST", "/cayley/api/v2/read", body.String(), map[string]string{"Content-Type": mw.FormDataContentType()})
	if got := strings.TrimSpace(string(b)); st != 200 || got != "<m1> <directed_by> <p1> <movies> ." {
		t.Errorf("a multipart read of <m1> <directed_by>: %d %q", st, got)
	}
	st, _, b = ts.do("GET", "/cayley/api/v2/read?iri=bogus", "", nil)
	if st != 400 || !strings.Contains(string(b), `iri \"bogus\": use short or full`) {
		t.Errorf("iri=bogus: %d %s", st, b)
	}
}

// TestCayleyReadPquadsCutWhole: a pquads read cut at the byte cap ends
// after a whole record: Cayley's writer sends a record's length and its
// message as two writes, and a cut between them left a lone length.
func TestCayleyReadPquadsCutWhole(t *testing.T) {
	for _, limit := range []int64{300, 1000, 5000} {
		ts := cayleyServer(t, Config{MaxCayleyReadBytes: limit})
		st, h, b := ts.do("GET", "/cayley/api/v2/read?format=pquads", "", nil)
		if st != 200 || len(b) < 8 {
			t.Fatalf("limit %d: %d, %d bytes", limit, st, len(b))
		}
		rest, records := b[8:], 0 // the magic and version
		for len(rest) > 0 {
			n, k := binary.Uvarint(rest)
			if k <= 0 || uint64(len(rest)-k) < n {
				t.Fatalf("limit %d: record %d is cut (length %d, %d bytes left); trailer %q", limit, records, n, len(rest)-k, h.Get("Grove-Truncated"))
			}
			rest, records = rest[k+int(n):], records+1
		}
		if records < 2 {
			t.Errorf("limit %d: %d records", limit, records)
		}
	}
}
