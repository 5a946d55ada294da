package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/storetest"
)

// TestCayleyQueryPanic checks the recover boundary around Cayley queries:
// a store panic in any query language (for Gizmo, in the goroutine Gizmo
// evaluates queries in) is answered as a 500 naming the request id, the
// panic goes to the log, and the server keeps serving.
func TestCayleyQueryPanic(t *testing.T) {
	queries := map[string]string{
		"gizmo":   `g.V("<m1>").Out("<directed_by>").All()`,
		"graphql": `{ nodes(id: "<m1>") { id, directed_by: <directed_by> { id } } }`,
		"mql":     `[{"id": "<m1>", "<directed_by>": null}]`,
	}
	for _, where := range []string{storetest.PanicIterate, storetest.PanicNameOf, storetest.PanicValueOf} {
		t.Run(where, func(t *testing.T) {
			db := testDB(t)
			ts := startServer(t, Config{}, db, Deps{QuadStore: &storetest.Panicking{QuadStore: db, In: where}})
			for lang, q := range queries {
				st, hdr, body := ts.do("POST", "/cayley/api/v2/query?lang="+url.QueryEscape(lang), q, nil)
				id := hdr.Get("X-Request-Id")
				res := decode[errorBody](t, body)
				if st != 500 || id == "" || res.RequestID != id || !strings.Contains(res.Error, id) {
					t.Fatalf("%s: status %d body %s (request id %q)", lang, st, body, id)
				}
				if strings.Contains(string(body), storetest.PanicValue) {
					t.Fatalf("%s: panic value leaked to the client: %s", lang, body)
				}
				if !strings.Contains(ts.logs.String(), storetest.PanicValue) {
					t.Fatalf("%s: panic not logged", lang)
				}
			}
			if st, body := ts.get("/v1/graphs"); st != 200 {
				t.Fatalf("after the panics: /v1/graphs %d %s", st, body)
			}
		})
	}
}

// TestCayleyGizmoBadPathArg sends a Gizmo program that used to crash the
// server from Gizmo's own goroutine (Except(g) makes Cayley dereference a
// nil path): it is refused as a bad query, and the server keeps serving.
func TestCayleyGizmoBadPathArg(t *testing.T) {
	ts := cayleyServer(t, Config{})
	st, _, body := ts.do("POST", "/cayley/api/v2/query?lang=gizmo", `g.V("<m1>").Except(g).All()`, nil)
	if st != 400 || !strings.Contains(string(body), "Except: argument 1 must be a path") {
		t.Fatalf("status %d body %s", st, body)
	}
	st, _, body = ts.do("POST", "/cayley/api/v2/query?lang=gizmo", `g.V("<m1>").Out("<directed_by>").All()`, nil)
	if st != 200 || !strings.Contains(string(body), "<p1>") {
		t.Fatalf("after the bad query: %d %s", st, body)
	}
}
