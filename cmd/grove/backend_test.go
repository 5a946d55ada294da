package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
)

// TestBackendChoiceErrors: every misconfiguration of --kg-backend fails
// with a message that says what to do. (The backends themselves are tested
// against real Virtuoso and PostgreSQL servers in store/sparqlkg and
// store/sqlkg.)
func TestBackendChoiceErrors(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>not sparql</html>"))
	}))
	defer html.Close()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown backend", []string{"--kg-backend", "neo4j", "kg", "entity", "x"}, `want badger, sparql or sql`},
		{"sparql without url", []string{"--kg-backend", "sparql", "kg", "entity", "x"}, "needs --sparql-url"},
		{"sql without url", []string{"--kg-backend", "sql", "kg", "entity", "x"}, "needs --sql-url"},
		{"unknown dialect", []string{"--kg-backend", "sparql", "--sparql-url", html.URL, "--sparql-dialect", "nope", "kg", "entity", "x"}, `unknown SPARQL dialect "nope"`},
		{"not a SPARQL endpoint", []string{"--kg-backend", "sparql", "--sparql-url", html.URL, "ask", "Who?"}, "not a SPARQL endpoint"},
		{"unreachable", []string{"--kg-backend", "sparql", "--sparql-url", "http://127.0.0.1:1/sparql", "kg", "search", "x"}, "unreachable"},
		{"sparql is read-only", []string{"--kg-backend", "sparql", "--sparql-url", html.URL, "ingest", "--graph", "g", "x.nt"}, "read-only"},
		{"sql unreachable", []string{"--kg-backend", "sql", "--sql-url", "postgres://grove@127.0.0.1:1/grove?sslmode=disable&connect_timeout=2", "stats"}, "127.0.0.1:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
		})
	}
	t.Setenv("GROVE_KG_BACKEND", "sparql")
	t.Setenv("GROVE_SPARQL_URL", html.URL)
	_, err := run(t, "ingest", "--graph", "g", "x.nt")
	if !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("GROVE_KG_BACKEND=sparql ingest = %v, want ErrReadOnly", err)
	}
}
