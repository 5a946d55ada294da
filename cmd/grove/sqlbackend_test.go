package main

import (
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
}
