package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/storetest/testserver"
)

// sqlFixture is a small film graph: two films of one director, a CVT
// node for a performance.
const sqlFixture = `</en/blade_runner> <name> "Blade Runner" .
</en/blade_runner> <type> </film/film> .
</en/blade_runner> </film/film/directed_by> </en/ridley_scott> .
</en/blade_runner> </film/film/starring> _:p1 .
_:p1 </film/performance/actor> </en/harrison_ford> .
_:p1 </film/performance/character> </en/rick_deckard> .
</en/ridley_scott> <name> "Ridley Scott" .
</en/harrison_ford> <name> "Harrison Ford" .
</en/rick_deckard> <name> "Rick Deckard" .
</en/alien_1979> <name> "Alien" .
</en/alien_1979> <type> </film/film> .
</en/alien_1979> </film/film/directed_by> </en/ridley_scott> .
`

// TestE2ESQLBackend drives the binary on --kg-backend sql against a
// private PostgreSQL: ingest, the KG calls, Cayley's Gizmo (through the
// query path every Cayley route takes) and a question.
func TestE2ESQLBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts PostgreSQL")
	}
	pg := testserver.StartPostgres(t)
	dir := t.TempDir()
	g := &groveCLI{t: t, bin: buildGrove(t), db: filepath.Join(dir, "unused-db"), home: dir}
	nt := filepath.Join(dir, "film.nt")
	if err := os.WriteFile(nt, []byte(sqlFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	sql := func(args ...string) string {
		t.Helper()
		return g.ok(append([]string{"--kg-backend", "sql", "--sql-url", pg.URL}, args...)...)
	}
	sql("ingest", "--graph", "film", nt)
	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"search", []string{"kg", "search", "blade runner"}, []string{"/en/blade_runner", "Blade Runner"}},
		{"relations", []string{"kg", "relations", "/en/ridley_scott"}, []string{"directed_by", "2"}},
		{"edges", []string{"kg", "edges", "/film/film/directed_by", "/en/blade_runner"}, []string{"Ridley Scott"}},
		{"gizmo chain", []string{"query", "--lang", "gizmo",
			`g.V("</en/ridley_scott>").In("</film/film/directed_by>").Out("<name>").All()`}, []string{"Blade Runner", "Alien"}},
		{"gizmo cvt", []string{"query", "--lang", "gizmo",
			`g.V("</en/harrison_ford>").In("</film/performance/actor>").Out("</film/performance/character>").Out("<name>").All()`},
			[]string{"Rick Deckard"}},
		{"gizmo count", []string{"query", "--lang", "gizmo",
			`g.emit(g.V("</en/ridley_scott>").In("</film/film/directed_by>").Count())`}, []string{"2"}},
		{"graphql", []string{"query", "--lang", "graphql",
			`{ nodes(id: "</en/blade_runner>") { id, d: </film/film/directed_by> { name: <name> } } }`}, []string{"Ridley Scott"}},
		{"graphql nested", []string{"query", "--lang", "graphql",
			`{ nodes(id: "</en/ridley_scott>") { f: </film/film/directed_by> @rev { n: <name>, s: </film/film/starring> { a: </film/performance/actor> { id } } } } }`},
			[]string{"Blade Runner", "Alien", "/en/harrison_ford"}},
		{"mql", []string{"query", "--lang", "mql", `[{"id": "</en/alien_1979>", "</film/film/directed_by>": null}]`},
			[]string{"/en/ridley_scott"}},
		{"ask", []string{"ask", "Who directed Blade Runner?"}, []string{"answer: Ridley Scott"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := sql(c.args...)
			mustContain(t, strings.Join(c.args, " "), out, c.wants...)
		})
	}
	t.Run("incremental and delete", func(t *testing.T) { checkSQLUpdates(t, g, pg.URL, sql) })
	// The Wikidata reader's flags reach the SQL backend's load too.
	wd, err := filepath.Abs(filepath.Join("..", "..", "data", "wikidata-sample-entities.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sql("ingest", "--graph", "wd", "--wikidata-ids", "Q64", wd)
	mustContain(t, "search Berlin", sql("kg", "search", "--graph", "wd", "Berlin"), "Q64")
	if out := sql("kg", "search", "--graph", "wd", "Scotland"); strings.Contains(out, "Q22") {
		t.Errorf("--wikidata-ids Q64 loaded Scotland (Q22) too:\n%s", out)
	}
	// --keep-labels puts each quad into the graph its label names, as on
	// badger; a small --max-memory spools the parsed quads to disk.
	nq := filepath.Join(dir, "labelled.nq")
	if err := os.WriteFile(nq, []byte(`<http://ex.org/s> <http://ex.org/p> "in A" <http://ex.org/gA> .
<http://ex.org/s> <http://ex.org/p> "unlabelled" .
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := g.run("--kg-backend", "sql", "--sql-url", pg.URL, "ingest", "--graph", "kept", "--keep-labels", "--max-memory", "512MiB", nq)
	if err != nil {
		t.Fatalf("ingest --keep-labels: %v\n%s", err, stderr)
	}
	// Without a terminal, one log line per phase: reading, the copy into
	// the staging tables, then the database's insert.
	mustContain(t, "ingest's phases", stderr, "phase=read", "phase=copy", "phase=insert")
	mustContain(t, "stats after --keep-labels", sql("stats"), "http://ex.org/gA", "kept")
	var st struct {
		Backend string            `json:"backend"`
		Graphs  []json.RawMessage `json:"graphs"`
	}
	if err := json.Unmarshal([]byte(sql("--json", "stats")), &st); err != nil || st.Backend != "sql" || len(st.Graphs) == 0 {
		t.Errorf("stats --json on sql: %+v, %v; want an object naming the backend with its graphs, as on badger", st, err)
	}
}

// checkSQLUpdates: ingest --incremental and --delete on the SQL backend
// change the film graph (12 quads, 6 relations) by what they report, and
// stats keeps counting exactly.
func checkSQLUpdates(t *testing.T, g *groveCLI, url string, sql func(...string) string) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	year := `</en/alien_1979> </film/film/release_year> "1979" .` + "\n"
	add := write("add.nt", year+`</en/alien_1979> <name> "Alien" .`+"\n")
	del := write("del.nt", year+`</en/alien_1979> </film/film/release_year> "2079" .`+"\n")
	steps := []struct {
		args            []string
		want            string
		quads, relation string
	}{
		{[]string{"ingest", "--graph", "film", "--incremental", add}, "graph film: 1 new quads written", "13", "7"},
		{[]string{"ingest", "--graph", "film", "--delete", del}, "graph film: 1 quads deleted", "12", "6"},
		{[]string{"ingest", "--graph", "film", "--delete", del}, "graph film: 0 quads deleted", "12", "6"},
	}
	for _, s := range steps {
		mustContain(t, strings.Join(s.args, " "), sql(s.args...), s.want)
		stats := sql("stats")
		var fields []string
		for _, line := range strings.Split(stats, "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "film" {
				fields = f
			}
		}
		if len(fields) < 3 || fields[1] != s.quads || fields[2] != s.relation {
			t.Errorf("after %v, stats:\n%s\nwant film with %s quads, %s relations", s.args, stats, s.quads, s.relation)
		}
		if n := countQuads(t, url); n != s.quads {
			t.Errorf("after %v, the quads table holds %s quads, want %s", s.args, n, s.quads)
		}
	}
	if _, stderr, err := g.run("--kg-backend", "sql", "--sql-url", url, "ingest", "--graph", "nope", "--delete", del); err == nil ||
		!strings.Contains(stderr, `graph "nope"`) {
		t.Errorf("ingest --delete from an unknown graph: %v, %s; want a not-found error", err, stderr)
	}
}

// countQuads counts the rows of the quads table.
func countQuads(t *testing.T, url string) string {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n string
	if err := db.QueryRow(`SELECT count(*) FROM quads`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
