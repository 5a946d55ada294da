package sparqlkg

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grove-kg/grove/store"
)

const okBody = `{"head":{"vars":["s"]},"results":{"bindings":[]}}`

// endpoint is a real HTTP server on loopback answering with handler.
func endpoint(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/sparql"
}

func rdf(t *testing.T) Dialect {
	d, err := LookupDialect("rdf")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		url     string
		want    []string
	}{
		{name: "unreachable", url: "http://127.0.0.1:1/sparql", want: []string{"127.0.0.1:1", "unreachable"}},
		{name: "bad url", url: "ftp://x", want: []string{"want http(s)"}},
		{name: "not SPARQL", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>hello</html>"))
		}, want: []string{"not a SPARQL endpoint", "text/html"}},
		{name: "JSON but not results", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"hello":1}`))
		}, want: []string{"not a SPARQL JSON result"}},
		{name: "wrong password", handler: func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Basic dTpyaWdodA==" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/sparql-results+json")
			w.Write([]byte(okBody))
		}, want: []string{"HTTP 401", "rejected the credentials"}},
		{name: "rejected query", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte("Virtuoso 37000 Error SP030: syntax error"))
		}, want: []string{"rejected the query", "SP030"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if c.handler != nil {
				url = endpoint(t, c.handler)
			}
			_, err := Open(ctx, Config{URL: url, Dialect: rdf(t), Auth: "Basic d3Jvbmc6cGFzcw==", Retries: -1, Timeout: 2 * time.Second})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "d3Jvbmc6cGFzcw") {
				t.Errorf("error leaks the credentials: %v", err)
			}
		})
	}
}

func TestUnknownDialectAndSearch(t *testing.T) {
	if _, err := LookupDialect("nope"); err == nil || !strings.Contains(err.Error(), "known: freebase") {
		t.Errorf("unknown dialect error = %v", err)
	}
	d := rdf(t)
	d.Search = "lucene"
	if err := d.validate(); err == nil || !strings.Contains(err.Error(), "unknown search method") {
		t.Errorf("unknown search method error = %v", err)
	}
	for _, c := range []struct {
		field string
		set   func(d *Dialect, bad []string)
	}{
		{"label", func(d *Dialect, bad []string) { d.Label = bad }},
		{"hidden", func(d *Dialect, bad []string) { d.Hidden = bad }},
		{"hidden_property_types", func(d *Dialect, bad []string) { d.HiddenPropertyTypes = bad }},
	} {
		d = rdf(t)
		c.set(&d, []string{"http://x/name> } DROP ALL {"})
		if err := d.validate(); err == nil || !strings.Contains(err.Error(), c.field+`: "http://x/name> } DROP ALL {" is not an IRI`) {
			t.Errorf("a %s entry that is not an IRI: %v", c.field, err)
		}
	}
}

// TestRetryAfter: a 429 with Retry-After is retried after the wait, and
// the answer is cached: the same query again sends nothing.
func TestRetryAfter(t *testing.T) {
	var calls atomic.Int32
	url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 { // the first call is Open's probe
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okBody))
	})
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := kg.Graphs(ctx); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, Retry-After said 1s", waited)
	}
	if _, err := kg.Graphs(ctx); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d requests, want 3 (probe, 429, retry; then the cache)", n)
	}
}

func TestBoundedInFlight(t *testing.T) {
	var now, peak atomic.Int32
	url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okBody))
	})
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t), MaxInFlight: 2})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for i := range 8 {
		go func() {
			_, err := kg.Degree(ctx, "http://x/"+string(rune('a'+i)), "", 0)
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Error(err) // every node is unknown to this endpoint: ErrNotFound only
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d requests in flight, limit 2", p)
	}
}

func TestReadAuth(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "auth")
	if err := os.WriteFile(file, []byte("user:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, env, want string }{
		{file, "", "Basic dXNlcjpzZWNyZXQ="},
		{"", "Bearer abc", "Bearer abc"},
		{"", "tok", "Bearer tok"},
		{"", "", ""},
	}
	for _, c := range cases {
		got, err := ReadAuth(c.file, c.env)
		if err != nil || got != c.want {
			t.Errorf("ReadAuth(%q, %q) = %q, %v; want %q", c.file, c.env, got, err, c.want)
		}
	}
	if _, err := ReadAuth(filepath.Join(dir, "missing"), ""); err == nil {
		t.Error("missing auth file accepted")
	}
}

func TestIDMapping(t *testing.T) {
	d, _ := LookupDialect("wikidata")
	if err := d.validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ps       []Prefix
		id, iri  string
		relation bool
	}{
		{d.Nodes, "Q42", "http://www.wikidata.org/entity/Q42", false},
		{d.Relations, "P31", "http://www.wikidata.org/prop/direct/P31", true},
		{d.Nodes, "http://schema.org/x", "http://schema.org/x", false},
	}
	for _, c := range cases {
		if got := toIRI(c.ps, c.id); got != c.iri {
			t.Errorf("toIRI(%q) = %q, want %q", c.id, got, c.iri)
		}
		if got := fromIRI(c.ps, c.iri); got != c.id {
			t.Errorf("fromIRI(%q) = %q, want %q", c.iri, got, c.id)
		}
	}
	for iri, hidden := range map[string]bool{
		"http://www.wikidata.org/prop/P31":            true,
		"http://www.wikidata.org/prop/qualifier/P580": true,
		"http://www.wikidata.org/prop/direct/P31":     false,
		"http://www.w3.org/2000/01/rdf-schema#label":  true,
	} {
		if got := d.hidden(iri); got != hidden {
			t.Errorf("hidden(%s) = %v, want %v", iri, got, hidden)
		}
	}
}

func TestQuoteAndValidIRI(t *testing.T) {
	if got := quote(`a "b" \ c'`); got != `"a \"b\" \\ c\'"` {
		t.Errorf("quote = %s", got)
	}
	for _, bad := range []string{"", "http://x/a b", "http://x/>", "http://x/{"} {
		if validIRI(bad) {
			t.Errorf("validIRI(%q) = true", bad)
		}
	}
}

func FuzzParseResults(f *testing.F) {
	f.Add([]byte(okBody))
	f.Add([]byte(`{"head":{},"boolean":true}`))
	f.Add([]byte(`{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"v","xml:lang":"en"}}]}}`))
	f.Add([]byte(`<html>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseResults("h", "q", b)
		if err == nil && r.Boolean == nil && r.Head.Vars == nil {
			t.Fatal("accepted a document with neither head.vars nor boolean")
		}
	})
}

func FuzzSearchExpr(f *testing.F) {
	f.Add("Blade Runner")
	f.Add(`a "b' \ c*`)
	f.Fuzz(func(t *testing.T, s string) {
		e := virtuosoExpr(s)
		if strings.Count(e, `"`)%2 != 0 {
			t.Fatalf("unbalanced quotes in %q", e)
		}
		_ = qleverExpr(s)
		if q := quote(e); !strings.HasPrefix(q, `"`) || !strings.HasSuffix(q, `"`) {
			t.Fatalf("quote(%q) = %q", e, q)
		}
	})
}

// TestWikidataAPISearch: the wikidata dialect searches through the
// wbsearchentities API (here a loopback server answering as Wikidata does)
// and names the hits through the SPARQL endpoint.
func TestWikidataAPISearch(t *testing.T) {
	var apiQuery atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/w/api.php":
			apiQuery.Store(r.URL.RawQuery)
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`{"searchinfo":{"search":"douglas adams"},"search":[
				{"id":"Q42","match":{"type":"label","language":"en","text":"Douglas Adams"}},
				{"id":"Q28421831","match":{"type":"alias","language":"en","text":"Douglas Adams (disambiguation)"}}]}`))
		case "/sparql":
			w.Header().Set("Content-Type", "application/sparql-results+json")
			if !strings.Contains(r.FormValue("query"), "VALUES ?x") {
				w.Write([]byte(okBody))
				return
			}
			w.Write([]byte(`{"head":{"vars":["x","p","l"]},"results":{"bindings":[
				{"x":{"type":"uri","value":"http://www.wikidata.org/entity/Q42"},
				 "p":{"type":"uri","value":"http://www.w3.org/2000/01/rdf-schema#label"},
				 "l":{"type":"literal","value":"Douglas Adams","xml:lang":"en"}}]}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	d, _ := LookupDialect("wikidata")
	d.SearchAPI = srv.URL + "/w/api.php"
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: srv.URL + "/sparql", Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kg.Search(ctx, "", "douglas adams", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != "Q42" || cs[0].Match != "exact" || cs[0].Label != "Douglas Adams" || cs[1].Match != "prefix" {
		t.Errorf("candidates = %+v", cs)
	}
	q, _ := apiQuery.Load().(string)
	if !strings.Contains(q, "action=wbsearchentities") || !strings.Contains(q, "search=douglas+adams") {
		t.Errorf("API query = %q", q)
	}
}

func TestDigestParams(t *testing.T) {
	got := digestParams(`realm="SPARQL", domain="/sparql-auth", nonce="ab,c", qop="auth", algorithm=MD5`)
	want := map[string]string{"realm": "SPARQL", "domain": "/sparql-auth", "nonce": "ab,c", "qop": "auth", "algorithm": "MD5"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

func FuzzDigestParams(f *testing.F) {
	f.Add(`realm="SPARQL", nonce="x", qop="auth", algorithm=MD5`)
	f.Add(`a="unterminated`)
	f.Fuzz(func(t *testing.T, s string) {
		_ = digestParams(s)
		req, _ := http.NewRequest(http.MethodPost, "http://h/sparql-auth", nil)
		_, _ = digestAuth("Digest "+s, "Basic ZGJhOmRiYQ==", req)
	})
}

// TestErrorsHideSecrets: no error names the API keys, tokens or passwords
// an endpoint URL carries, whatever went wrong.
func TestErrorsHideSecrets(t *testing.T) {
	ctx := context.Background()
	slow := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
	})
	cases := []struct {
		name string
		url  string
		want string // what the error still says
	}{
		{"unreachable, apikey", "http://127.0.0.1:1/sparql?apikey=SECRETKEY", "127.0.0.1:1"},
		{"unreachable, several params", "http://127.0.0.1:1/sparql?default-graph-uri=x&access_token=SECRETKEY&api_key=SECRETKEY", "unreachable"},
		{"unreachable, user info", "http://grove:SECRETKEY@127.0.0.1:1/sparql", "unreachable"},
		{"unreachable, token and password", "http://127.0.0.1:1/sparql?token=SECRETKEY&password=SECRETKEY&secret=SECRETKEY", "unreachable"},
		{"timeout, key", slow + "?key=SECRETKEY", "no answer within"},
		{"bad scheme", "ftp://u:SECRETKEY@x/sparql?apikey=SECRETKEY", "want http(s)"},
		{"does not parse", "http://[::1/sparql?apikey=SECRETKEY", "want http(s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(ctx, Config{URL: c.url, Dialect: rdf(t), Retries: -1, Timeout: 300 * time.Millisecond})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "SECRETKEY") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: must name no secret and say %q", err, c.want)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://h:8890/sparql", "http://h:8890/sparql"},
		{"http://h/sparql?apikey=K", "http://h/sparql?apikey=***"},
		{"https://u:p@h/sparql?a=1&token=T#frag", "https://***@h/sparql?a=***&token=***"},
		{"http://h/sparql?flag", "http://h/sparql?flag"},
		{"http://[::1/x?key=K", "(an endpoint URL that does not parse)"},
	} {
		if got := redactURL(c.in); got != c.want {
			t.Errorf("redactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
