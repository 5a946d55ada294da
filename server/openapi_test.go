package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

type openAPIDoc struct {
	OpenAPI string                               `json:"openapi"`
	Paths   map[string]map[string]map[string]any `json:"paths"`
}

// docPath maps a route pattern's path to its OpenAPI path.
func docPath(p string) string {
	switch p {
	case "/{$}":
		return "/"
	case "/static/":
		return "/static/{file}"
	}
	return p
}

func TestOpenAPICoversRoutes(t *testing.T) {
	db := testDB(t)
	s, err := New(Config{}, db, Deps{QuadStore: db, Model: newLexicalModel(0), Reasoners: registry()})
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	for _, pattern := range s.Routes() {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok { // a subtree mounted for every method
			path = method
			if !documentedUnder(doc, path) {
				t.Errorf("route %q: no documented path under it", pattern)
			}
			continue
		}
		if _, ok := doc.Paths[docPath(path)][strings.ToLower(method)]; !ok {
			t.Errorf("route %q is not in openapi.json", pattern)
		}
	}
	// And the reverse: every documented operation is served.
	for path, ops := range doc.Paths {
		for method := range ops {
			req := httptest.NewRequest(strings.ToUpper(method), strings.NewReplacer("{name}", "g", "{file}", "app.js").Replace(path), nil)
			if _, pattern := s.handler.(*http.ServeMux).Handler(req); pattern == "/" || pattern == "" {
				t.Errorf("documented %s %s has no route", method, path)
			}
		}
	}
}

func documentedUnder(doc openAPIDoc, prefix string) bool {
	for p := range doc.Paths {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// TestOpenAPIRefs checks that every $ref points at a defined component.
func TestOpenAPIRefs(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(OpenAPI(), &root); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	n := 0
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				n++
				if !resolves(root, ref) {
					t.Errorf("unresolved $ref %q", ref)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(root)
	if n < 20 {
		t.Errorf("only %d $refs: the walk is broken", n)
	}
}

func resolves(root map[string]any, ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var cur any = root
	for _, part := range strings.Split(p, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// TestOpenAPIAskSchemas: every field of a real /v1/ask answer and of its
// trace is described by the AskResponse and Trace schemas.
func TestOpenAPIAskSchemas(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	ts := askServer(t, Config{}, newLexicalModel(0))
	st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
	if st != 200 {
		t.Fatalf("ask: %d %s", st, body)
	}
	var res map[string]json.RawMessage
	mustJSON(t, string(body), &res)
	var tr map[string]json.RawMessage
	mustJSON(t, string(res["trace"]), &tr)
	var model map[string]json.RawMessage
	mustJSON(t, string(res["model"]), &model)
	for _, c := range []struct {
		schema string
		fields map[string]json.RawMessage
	}{{"AskResponse", res}, {"Trace", tr}, {"ModelInfo", model}} {
		for f := range c.fields {
			if _, ok := doc.Components.Schemas[c.schema].Properties[f]; !ok {
				t.Errorf("schema %s lacks field %q", c.schema, f)
			}
		}
	}
}

// TestOpenAPIBodyAnswers: every operation that takes a body documents the
// answers every body can get (408 not received in time, 413 over the
// limit), and the read formats listed are exactly the ones a read takes.
func TestOpenAPIBodyAnswers(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		if op, ok := ops["post"]; ok {
			for _, code := range []string{"408", "413"} {
				if _, ok := op.Responses[code]; !ok {
					t.Errorf("POST %s does not document %s", path, code)
				}
			}
		}
	}
	var formats []string
	for _, p := range doc.Paths["/cayley/api/v2/read"]["get"].Parameters {
		if p.Name == "format" {
			formats = p.Schema.Enum
		}
	}
	ts := cayleyServer(t, Config{})
	for _, f := range formats {
		if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub=%3Cm1%3E&format="+f, "", nil); st != 200 {
			t.Errorf("documented read format %s: %d %s", f, st, b)
		}
	}
	for _, f := range quad.Formats() {
		if f.Writer != nil && !slices.Contains(formats, f.Name) {
			t.Errorf("read format %s is not documented", f.Name)
		}
	}
}

// TestOpenAPICayleyWriteRefusals: the refusals of Cayley's write routes
// (an unreadable Content-Type or Content-Encoding, a format that cannot
// name a node) get the status the OpenAPI document lists for the route,
// and the node delete's refusal names every format that can name a node.
func TestOpenAPICayleyWriteRefusals(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	ts := cayleyServer(t, Config{Token: "openapi-write-token"})
	cases := []struct {
		name, path, body string
		hdr              map[string]string
		status           int
		want             []string
	}{
		{"write turtle", "/cayley/api/v2/write", "<a> <b> <c> .\n", map[string]string{"Content-Type": "text/turtle"}, 415, []string{"text/turtle"}},
		{"delete turtle", "/cayley/api/v2/delete", "<a> <b> <c> .\n", map[string]string{"Content-Type": "text/turtle"}, 415, []string{"text/turtle"}},
		{"write x-gzip", "/cayley/api/v2/write", "<a> <b> <c> .\n", map[string]string{"Content-Encoding": "x-gzip"}, 415, []string{"x-gzip"}},
		{"delete x-gzip", "/cayley/api/v2/delete", "<a> <b> <c> .\n", map[string]string{"Content-Encoding": "x-gzip"}, 415, []string{"x-gzip"}},
		{"node delete jsonld", "/cayley/api/v2/node/delete", `{"@id":"http://ex/a"}`, map[string]string{"Content-Type": "application/ld+json"}, 415,
			[]string{"jsonld cannot name a node", "nquads", "json", "pquads"}},
		{"node delete turtle", "/cayley/api/v2/node/delete", "<m1>", map[string]string{"Content-Type": "text/turtle"}, 415, []string{"text/turtle"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, b := ts.do("POST", c.path, c.body, c.hdr)
			if st != c.status {
				t.Fatalf("status %d body %s, want %d", st, b, c.status)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("answer %s does not say %q", b, w)
				}
			}
			if _, ok := doc.Paths[c.path]["post"]["responses"].(map[string]any)[strconv.Itoa(st)]; !ok {
				t.Errorf("POST %s answers %d, which openapi.json does not list", c.path, st)
			}
		})
	}
}

// TestOpenAPIStoreUnavailable: every route that answers 503 "store
// unavailable" when the store's database does not answer (classify's
// store.ErrUnavailable; TestStoreUnavailable) documents it, through the
// shared StoreUnavailable answer or in its own 503's description.
func TestOpenAPIStoreUnavailable(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	routes := []struct{ method, path string }{
		{"get", "/v1/graphs"}, {"get", "/v1/graphs/{name}"}, {"get", "/v1/stats"}, {"get", "/v1/search"},
		{"get", "/v1/entity"}, {"get", "/v1/relations"}, {"get", "/v1/edges"}, {"get", "/v1/neighbors"},
		{"get", "/v1/degree"}, {"get", "/v1/features"}, {"get", "/v1/sameas"}, {"post", "/v1/ask"},
		{"get", "/cayley/api/v2/query"}, {"post", "/cayley/api/v2/query"}, {"post", "/cayley/api/v2/write"},
		{"post", "/cayley/api/v2/delete"}, {"post", "/cayley/api/v2/node/delete"},
	}
	for _, rt := range routes {
		resp, _ := doc.Paths[rt.path][rt.method]["responses"].(map[string]any)
		a, ok := resp["503"].(map[string]any)
		if !ok {
			t.Errorf("%s %s: no 503 documented", rt.method, rt.path)
			continue
		}
		ref, _ := a["$ref"].(string)
		desc, _ := a["description"].(string)
		if ref != "#/components/responses/StoreUnavailable" && !strings.Contains(desc, unavailableMsg) {
			t.Errorf("%s %s: its 503 (%v) does not document %q", rt.method, rt.path, a, unavailableMsg)
		}
	}
}
