package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/server"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/sparqlkg"
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
	empty := emptySPARQL(t)
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
		{"sparql has no Cayley", []string{"--kg-backend", "sparql", "--sparql-url", empty.URL, "query", "g.V().All()"},
			"grove query runs Cayley queries (Gizmo, GraphQL, MQL); the *sparqlkg.KG backend has no Cayley quad store: send SPARQL to the endpoint itself"},
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

// readmeDialectYAML is the README's example of a dialect of one's own.
func readmeDialectYAML(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "dialect: film") {
			return block
		}
	}
	t.Fatal("README has no ```yaml block with dialect: film")
	return ""
}

// TestConfigDialectHiddenPropertyTypes: hidden_property_types comes from
// the base dialect (wikidata hides external ids) and a config entry can
// replace or empty it.
func TestConfigDialectHiddenPropertyTypes(t *testing.T) {
	const extID = "http://wikiba.se/ontology#ExternalId"
	cases := []struct{ name, yaml, want string }{
		{"built-in wikidata", "sparql:\n  dialect: wikidata\n", "[" + extID + "]"},
		{"kept from the base", "sparql:\n  dialect: wd\n  dialects:\n    wd:\n      base: wikidata\n      search: bif:contains\n", "[" + extID + "]"},
		{"replaced", "sparql:\n  dialect: wd\n  dialects:\n    wd:\n      base: wikidata\n      hidden_property_types: [\"" + extID + "\", \"http://wikiba.se/ontology#CommonsMedia\"]\n",
			"[" + extID + " http://wikiba.se/ontology#CommonsMedia]"},
		{"emptied", "sparql:\n  dialect: wd\n  dialects:\n    wd:\n      base: wikidata\n      hidden_property_types: []\n", "[]"},
		{"rdf sets none", "sparql:\n  dialect: rdf\n", "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := dialectFromYAML(t, c.yaml)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(d.HiddenPropertyTypes); got != c.want {
				t.Errorf("hidden_property_types = %s, want %s", got, c.want)
			}
		})
	}
}

// TestConfigDialect: a dialect defined in the config file starts from a
// built-in (its base:, else rdf) and keeps the name, alias and description
// predicates it does not set; one named like a built-in overrides it.
func TestConfigDialect(t *testing.T) {
	const (
		rdfsLabel  = "http://www.w3.org/2000/01/rdf-schema#label"
		skosAlt    = "http://www.w3.org/2004/02/skos/core#altLabel"
		schemaDesc = "http://schema.org/description"
		fbAlias    = "http://rdf.freebase.com/ns/common.topic.alias"
	)
	cases := []struct {
		name, yaml string
		want       string // name search label alias description same_as
		err        string
	}{
		{"README example", readmeDialectYAML(t),
			"film bif:contains [http://film.grove/name " + rdfsLabel + "] [" + skosAlt + "] [" + schemaDesc + "] [http://www.w3.org/2002/07/owl#sameAs]", ""},
		{"base freebase", "sparql:\n  dialect: fb2\n  dialects:\n    fb2:\n      base: freebase\n      label: [\"http://x/name\"]\n",
			"fb2 bif:contains [http://x/name] [" + fbAlias + "] [http://rdf.freebase.com/ns/common.topic.description] [http://www.w3.org/2002/07/owl#sameAs]", ""},
		{"overrides a built-in", "sparql:\n  dialect: virtuoso\n  dialects:\n    virtuoso:\n      description: [\"http://x/abstract\"]\n",
			"virtuoso bif:contains [" + rdfsLabel + " http://www.w3.org/2004/02/skos/core#prefLabel http://schema.org/name] [" + skosAlt + "] [http://x/abstract] [http://www.w3.org/2002/07/owl#sameAs]", ""},
		{"alias list emptied", "sparql:\n  dialect: bare\n  dialects:\n    bare:\n      alias: []\n      label: [\"http://x/name\"]\n",
			"bare label [http://x/name] [] [" + schemaDesc + "] [http://www.w3.org/2002/07/owl#sameAs]", ""},
		{"built-in, no config entry", "sparql:\n  dialect: qlever\n",
			"qlever ql:contains-word [" + rdfsLabel + " http://www.w3.org/2004/02/skos/core#prefLabel http://schema.org/name] [" + skosAlt + "] [" + schemaDesc + "] [http://www.w3.org/2002/07/owl#sameAs]", ""},
		{"unknown base", "sparql:\n  dialect: x\n  dialects:\n    x:\n      base: nope\n", "", `sparql.dialects.x.base: unknown SPARQL dialect "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := dialectFromYAML(t, c.yaml)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(d.Name, " ", d.Search, " ", d.Label, " ", d.Alias, " ", d.Description, " ", d.SameAs)
			if got != c.want {
				t.Errorf("dialect =\n %s\nwant\n %s", got, c.want)
			}
		})
	}
}

// TestDescribeKGFromConfig: the endpoint a run records is read from the
// backend's setting, whichever of flag, environment or config file set it.
func TestDescribeKGFromConfig(t *testing.T) {
	cases := []struct {
		backend, key, url, want string
	}{
		{"sql", "sql.url", "postgres://u:secret@db.example:5432/kg?sslmode=disable", "sql postgres://db.example:5432/kg"},
		{"sparql", "sparql.url", "http://u:pw@sparql.example:8890/sparql?key=k", "sparql http://sparql.example:8890/sparql"},
	}
	for _, c := range cases {
		a := newApp()
		a.v.Set("kg-backend", c.backend)
		a.v.Set(c.key, c.url) // as a config file's sql: / sparql: section sets it
		if got := a.describeKG(); got != c.want {
			t.Errorf("%s: describeKG() = %q, want %q", c.backend, got, c.want)
		}
	}
}

// emptySPARQL is a SPARQL endpoint that answers every query with no rows.
func emptySPARQL(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(`{"head":{"vars":["s"]},"results":{"bindings":[]}}`))
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestMountCayley: grove serve gives the server the backend's quad store,
// or, when it has none, the reason its /cayley/ routes answer with.
func TestMountCayley(t *testing.T) {
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := sparqlkg.LookupDialect("rdf")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sparqlkg.Open(context.Background(), sparqlkg.Config{URL: emptySPARQL(t).URL, Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	cases := []struct {
		name      string
		kg        store.KG
		quadStore bool
		reason    string
	}{
		{"badger", db, true, ""},
		{"sparql", sp, false, "the *sparqlkg.KG backend has no Cayley quad store: send SPARQL to the endpoint itself"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var deps server.Deps
			mountCayley(&deps, c.kg)
			if (deps.QuadStore != nil) != c.quadStore {
				t.Errorf("QuadStore = %v, want set %v", deps.QuadStore, c.quadStore)
			}
			switch {
			case c.reason == "" && deps.NoCayley != nil:
				t.Errorf("NoCayley = %v, want nil", deps.NoCayley)
			case c.reason != "" && (deps.NoCayley == nil || deps.NoCayley.Error() != c.reason ||
				!errors.Is(deps.NoCayley, store.ErrNoQuadStore)):
				t.Errorf("NoCayley = %v, want %q wrapping store.ErrNoQuadStore", deps.NoCayley, c.reason)
			}
		})
	}
}

// dialectFromYAML is the SPARQL dialect a config file holding yaml selects.
func dialectFromYAML(t *testing.T, yaml string) (sparqlkg.Dialect, error) {
	t.Helper()
	a := newApp()
	a.v.SetConfigType("yaml")
	if err := a.v.ReadConfig(strings.NewReader(yaml)); err != nil {
		t.Fatal(err)
	}
	return a.dialect()
}
