package server

import (
	"net/url"
	"strings"
	"testing"
	"time"

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

// TestCayleyGizmoHostileQueries sends Gizmo programs that used to end the
// server (a fatal stack overflow walking a cyclic or deep argument, a
// fatal out-of-memory in one builtin call) or were answered as crashes
// (the graph object as an Out argument): each is a 400 saying what was
// refused, quickly, and the server keeps serving.
func TestCayleyGizmoHostileQueries(t *testing.T) {
	ts := cayleyServer(t, Config{})
	for _, tc := range []struct{ query, want string }{
		{`var a = {}; a.a = a; g.Emit(a)`, "Emit: argument 1 contains a cycle"},
		{`var a = []; a.push(a); g.V(a).All()`, "V: argument 1 contains a cycle"},
		{`var a = []; for (var i = 0; i < 100000; i++) a = [a]; g.Emit(a)`, "Emit: argument 1 is nested deeper than 1000 levels"},
		{`var a = []; a.length = 4294967295; a.sort(); 1`, "Array.prototype.sort: an array of 4294967295 elements"},
		{`new Array(1e8).fill(0); 1`, "Array.prototype.fill: an array of 100000000 elements"},
		{`"x".repeat(1 << 30); 1`, "String.prototype.repeat: a string of 1073741824 characters"},
		{`function f(n) { return f(n + 1) + 1 }; f(0)`, "stack overflow"},
		{`g.V().Out(g).All()`, "Out: argument 1 must not be the graph object g"},
		// 800 KB of nested parentheses overflowed goja's parser stack: fatal.
		{"g.Emit(" + strings.Repeat("(", 400000) + "1" + strings.Repeat(")", 400000) + ")", "brackets and arrows"},
	} {
		t.Run(tc.query[:min(len(tc.query), 60)], func(t *testing.T) {
			start := time.Now()
			st, _, body := ts.do("POST", "/cayley/api/v2/query?lang=gizmo", tc.query, nil)
			if st != 400 || !strings.Contains(string(body), tc.want) {
				t.Fatalf("status %d body %s, want a 400 with %q", st, body, tc.want)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	st, _, body := ts.do("POST", "/cayley/api/v2/query?lang=gizmo", `g.V("<m1>").Out("<directed_by>").All()`, nil)
	if st != 200 || !strings.Contains(string(body), "<p1>") {
		t.Fatalf("after the hostile queries: %d %s", st, body)
	}
}

// TestCayleyQueryHeapLimit: a query that keeps more memory than
// MaxQueryHeapBytes, though every allocation is within the sandbox's
// limits, is stopped and answered 413 naming the limit, and the server
// keeps serving.
func TestCayleyQueryHeapLimit(t *testing.T) {
	ts := cayleyServer(t, Config{MaxQueryHeapBytes: 64 << 20, RequestTimeout: 20 * time.Second})
	for _, tc := range []struct{ name, lang, query string }{
		{"gizmo", "gizmo", `var a = []; for (var i = 0; i < 4000; i++) a.push("x".repeat(1 << 20) + i); a.length`},
		{"gizmo doubling", "gizmo", `var s = "xy"; for (var i = 0; i < 30; i++) s += s;
			var t = Date.now(); while (Date.now() - t < 5000) {}; s.length`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, body := ts.do("POST", "/cayley/api/v2/query?lang="+tc.lang, tc.query, nil)
			if st != 413 || !strings.Contains(decode[errorBody](t, body).Error, "over the 64 MiB a query may use") {
				t.Fatalf("status %d body %.300s, want a 413 naming the limit", st, body)
			}
		})
	}
	st, _, body := ts.do("POST", "/cayley/api/v2/query?lang=gizmo", `g.V("<m1>").Out("<directed_by>").All()`, nil)
	if st != 200 || !strings.Contains(string(body), "<p1>") {
		t.Fatalf("after the stopped queries: %d %s", st, body)
	}
}
