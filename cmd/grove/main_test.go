package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/store/engine"
)

// run executes the CLI in-process and returns stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runStreams(t, args...)
	return out, err
}

// runStreams executes the CLI in-process and returns stdout and stderr.
func runStreams(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp()
	a.stdout, a.stderr = &out, &errb
	cmd := a.root()
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	if err != nil {
		t.Logf("stderr: %s", errb.String())
	}
	return out.String(), errb.String(), err
}

func TestCLIIngestAndQuery(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	film := filepath.Join("..", "..", "data", "film.nq.gz")
	out, err := run(t, "--db", db, "ingest", "--graph", "film", film)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "471705 new") {
		t.Fatalf("ingest output: %s", out)
	}
	out, err = run(t, "--db", db, "--json", "stats")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Counts struct{ Quads int64 } `json:"counts"`
		Graphs []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Counts.Quads != 471705 || len(st.Graphs) != 1 {
		t.Fatalf("stats = %s (%v)", out, err)
	}
	out, err = run(t, "--db", db, "kg", "search", "Blade Runner", "--limit", "1")
	if err != nil || !strings.Contains(out, "/en/blade_runner") {
		t.Fatalf("search = %s, %v", out, err)
	}
	out, err = run(t, "--db", db, "kg", "edges", "/film/film/directed_by", "/en/blade_runner")
	if err != nil || !strings.Contains(out, "Ridley Scott") {
		t.Fatalf("edges = %s, %v", out, err)
	}
	out, err = run(t, "--db", db, "query", `g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`)
	if err != nil || !strings.Contains(out, "Ridley Scott") {
		t.Fatalf("query = %s, %v", out, err)
	}
	if _, err := run(t, "--db", db, "kg", "entity", "/en/nope"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown entity: %v", err)
	}
	if _, err := run(t, "--db", db, "kg", "relations", "--dir", "sideways", "/en/blade_runner"); err == nil {
		t.Fatal("bad --dir accepted")
	}
}

func TestCLIEnvAndConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GROVE_DB", filepath.Join(dir, "fromenv"))
	if _, err := run(t, "stats"); err == nil || !strings.Contains(err.Error(), "fromenv") {
		t.Fatalf("GROVE_DB not used: %v", err)
	}
	// A flag beats the environment.
	if _, err := run(t, "--db", filepath.Join(dir, "fromflag"), "stats"); err == nil || !strings.Contains(err.Error(), "fromflag") {
		t.Fatalf("--db did not win over GROVE_DB: %v", err)
	}
}

// TestFlagsFromEnvAndConfig: every command flag takes its GROVE_*
// variable or config file key when not given (they were accepted and
// ignored), a flag beats the environment and the environment the file, and
// a bad value names its source.
func TestFlagsFromEnvAndConfig(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "g.nt")
	if err := os.WriteFile(nt, []byte("<a> <p> <b> .\n<b> <p> <c> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "grove.yaml")
	if err := os.WriteFile(cfg, []byte("graph: fromfile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	graphs := func(db string) string {
		out, err := run(t, "--db", db, "stats")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"config file", "", nil, "fromfile"},
		{"environment over file", "fromenv", nil, "fromenv"},
		{"flag over environment", "fromenv", []string{"--graph", "fromflag"}, "fromflag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("GROVE_GRAPH", c.env)
			}
			db := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			args := append([]string{"--config", cfg, "--db", db, "ingest", "--quiet"}, c.args...)
			if _, err := run(t, append(args, nt)...); err != nil {
				t.Fatal(err)
			}
			if out := graphs(db); !strings.Contains(out, c.want) {
				t.Errorf("graphs after the load:\n%s\nwant %s", out, c.want)
			}
		})
	}
	t.Setenv("GROVE_MAX_MEMORY", "100")
	_, err := run(t, "--db", filepath.Join(dir, "bad"), "ingest", "--quiet", nt)
	if err == nil || !strings.Contains(err.Error(), "--max-memory 100 is below") {
		t.Errorf("GROVE_MAX_MEMORY=100: %v", err)
	}
}

// TestNoDatabaseCreated: commands that open the database writable without
// being meant to create one (optimize, serve) refuse a missing or empty
// database with the message every reader gives, and write nothing there.
func TestNoDatabaseCreated(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "missing")
	notDB := filepath.Join(root, "notes")
	if err := os.MkdirAll(notDB, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notDB, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		dir  string
	}{
		{"optimize, missing", []string{"optimize", "--quiet"}, missing},
		{"optimize, not a database", []string{"optimize", "--quiet"}, notDB},
		// serve is checked without starting it: a check that let it
		// through would block the test in a running server.
		{"serve --read-only, not a database", []string{"serve", "--read-only"}, notDB},
		{"serve, missing", []string{"serve"}, missing},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.args[0] == "serve" {
				err = serveDatabase(c.dir, len(c.args) > 1)
			} else {
				_, err = run(t, append([]string{"--db", c.dir}, c.args...)...)
			}
			if err == nil || !strings.Contains(err.Error(), "no database at "+c.dir) {
				t.Fatalf("err %v, want no database at %s", err, c.dir)
			}
			entries, _ := os.ReadDir(c.dir)
			for _, e := range entries {
				if e.Name() != "notes.txt" {
					t.Errorf("%s created in %s", e.Name(), c.dir)
				}
			}
		})
	}
}

// TestConfigUnknownKeys: a config file key no setting reads is an error
// naming it (a typo would otherwise fall back to a default silently); flag
// names and known section keys are accepted.
func TestConfigUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "g.nt")
	if err := os.WriteFile(nt, []byte(`<a> <http://www.w3.org/2000/01/rdf-schema#label> "A" .`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "--db", filepath.Join(dir, "nodb"), "ingest", "--quiet", nt); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"top-level typo", "dbb: /x\n", "unknown key(s) dbb"},
		{"section typo", "sparql:\n  urll: x\n", "unknown key(s) sparql.urll"},
		{"llm typo", "llm:\n  urll: http://127.0.0.1:9/v1\n", "llm settings: unknown key(s) llm.urll"},
		{"serve typo", "serve:\n  adr: x\n", ""}, // decoded by serve only
		{"known keys", "db: " + filepath.Join(dir, "nodb") + "\nmax-memory: 2GiB\nlog-level: warn\nsql:\n  flavor: postgres\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
			if err := os.WriteFile(cfg, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := run(t, "--config", cfg, "--db", filepath.Join(dir, "nodb"), "ask", "Who?")
			if c.want == "" {
				if err != nil && strings.Contains(err.Error(), "unknown key") {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// TestKGCommandsExplainEmptyAnswers: what would print nothing says why
// (an unknown id, arguments in the wrong order), and an empty list in
// JSON is [], as over HTTP.
func TestKGCommandsExplainEmptyAnswers(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "g.nt")
	data := `<film> <http://www.w3.org/2000/01/rdf-schema#label> "Blade Runner" .` + "\n" +
		`<film> <directed_by> <ridley> .` + "\n"
	if err := os.WriteFile(nt, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if _, err := run(t, "--db", db, "ingest", "--quiet", nt); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		out  string // wanted in stdout, when no error is wanted
		err  string
	}{
		{"entity by name", []string{"kg", "entity", "Blade Runner"}, "", "grove kg search TEXT"},
		{"relations of an unknown id", []string{"kg", "relations", "flim"}, "", `no entity "flim" in the KG`},
		{"edges, arguments swapped", []string{"kg", "edges", "film", "directed_by"}, "", "the relation comes first"},
		{"edges, no such relation", []string{"kg", "edges", "produced_by", "film"}, "", "its relations: directed_by"},
		{"edges", []string{"kg", "edges", "directed_by", "film"}, "-directed by->", ""},
		{"no features in JSON", []string{"--json", "kg", "features", "film"}, "[]", ""},
		{"sameas in an unknown graph", []string{"kg", "sameas", "--graph", "nosuch", "film"}, "", `graph "nosuch": not found`},
		{"sameas in an unknown graph, JSON", []string{"--json", "kg", "sameas", "--graph", "nosuch", "film"}, "", `graph "nosuch": not found`},
		{"search in an unknown graph", []string{"kg", "search", "--graph", "nosuch", "Blade"}, "", `graph "nosuch": not found`},
		{"sameas in a known graph", []string{"--json", "kg", "sameas", "--graph", "default", "film"}, "[]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, append([]string{"--db", db}, c.args...)...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !strings.Contains(out, c.out) {
				t.Fatalf("out %q, err %v; want %q", out, err, c.out)
			}
		})
	}
}

// TestVersionFlag: grove --version prints the version traces record.
func TestVersionFlag(t *testing.T) {
	out, err := run(t, "--version")
	if err != nil || out != "grove version "+reasoner.Version()+"\n" {
		t.Fatalf("--version: %q, %v", out, err)
	}
}

// TestCLIRefusesNonsense: unknown subcommands of command groups and
// numbers out of range are errors naming what was wrong (they printed help
// and exited 0, or were taken as given).
func TestCLIRefusesNonsense(t *testing.T) {
	db := tinyDB(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kg", "bogus"}, `unknown command "bogus" for "grove kg"`},
		{[]string{"bench", "bogus"}, `unknown command "bogus" for "grove bench"`},
		{[]string{"kg", "search", "blade", "--limit", "-1"}, "--limit -1: want at least 1"},
		{[]string{"kg", "edges", "p", "x", "--limit", "-1"}, "--limit -1: want at least 0"},
		{[]string{"query", "g.V().All()", "--limit", "0"}, "--limit 0: want at least 1"},
		{[]string{"ingest", "--incremental", "--batch", "0", "x.nt"}, "--batch 0: want at least 1"},
		{[]string{"ingest", "--format", "banana", "x.nt"}, "want one of auto,"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, err := run(t, append([]string{"--db", db}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "want one of") > 1 {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := run(t, "--db", db, "kg"); err != nil {
		t.Errorf("grove kg alone (help): %v", err)
	}
}

// TestCLIWarnsNothingLoaded: a file from which the chosen format reads no
// quad is named with a warning (a wrong --format loaded nothing quietly).
func TestCLIWarnsNothingLoaded(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "film.nt")
	if err := os.WriteFile(nt, []byte("<http://ex/a> <http://ex/p> <http://ex/b> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "--db", filepath.Join(dir, "db"), "ingest", "--quiet", "--format", "wikidata-truthy", nt)
	if err != nil || !strings.Contains(out, nt+": wikidata-truthy, 0 quads (warning: nothing loaded from it: the wikidata-truthy "+
		"format left out all 1 statements read; is it wikidata-truthy?)\n") {
		t.Errorf("%v\n%s", err, out)
	}
	out, err = run(t, "--db", filepath.Join(dir, "db2"), "ingest", "--quiet", nt)
	if err != nil || strings.Contains(out, "warning") {
		t.Errorf("a file that loads: %v\n%s", err, out)
	}
}

// TestDirFlagHelp: each kg subcommand's --dir help lists the directions it
// takes (kg edges refused "both", which its help offered), and kg edges
// --dir both says what to use instead, before opening any database.
func TestDirFlagHelp(t *testing.T) {
	cases := []struct {
		cmd, help string
	}{
		{"edges", "direction: out or in"},
		{"relations", "direction: out, in or both"},
		{"neighbors", "direction: out, in or both"},
		{"degree", "direction: out, in or both"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			out, err := run(t, "kg", c.cmd, "--help")
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`--dir string +` + regexp.QuoteMeta(c.help) + ` \(default`).MatchString(out) {
				t.Errorf("kg %s --help lacks --dir %q:\n%s", c.cmd, c.help, out)
			}
		})
	}
	_, err := run(t, "--db", filepath.Join(t.TempDir(), "none"), "kg", "edges", "--dir", "both", "/film/film/directed_by", "/en/blade_runner")
	if err == nil || !strings.Contains(err.Error(), "use --dir out or --dir in") {
		t.Errorf("kg edges --dir both = %v, want a refusal naming out and in", err)
	}
}

// TestCLIReportsUnfinishedIncremental: a grove ingest --incremental run
// stopped part-way (its record left in the database) is reported by grove
// stats (text and JSON) and by the log of the next grove ingest, and the
// same command run again completes it and clears the report.
func TestCLIReportsUnfinishedIncremental(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	upd := filepath.Join(dir, "upd.nt")
	if err := os.WriteFile(upd, []byte("<a> <p> <b> .\n<b> <p> <c> .\n<c> <p> <d> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edb, err := engine.Open(db, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := edb.BeginWriteRun(engine.WriteRun{Graph: "g", Files: []engine.WriteRunFile{{Name: upd, Size: 42}}, Total: 3})
	if err != nil {
		t.Fatal(err)
	}
	q := quad.Quad{Subject: quad.IRI("a"), Predicate: quad.IRI("p"), Object: quad.IRI("b"), Label: quad.IRI("g")}
	if err := w.ApplyDeltas([]graph.Delta{{Quad: q, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	_ = w.Stop(context.Canceled)
	edb.Close()

	want := `warning: an incremental ingest (grove ingest --incremental) into graph "g" of ` + upd +
		` (42 bytes) stopped after 1 of 3 quads; run the same command again to complete it (it is idempotent)`
	if out, err := run(t, "--db", db, "stats"); err != nil || !strings.Contains(out, want) {
		t.Fatalf("stats = %s, %v; want %q", out, err, want)
	}
	out, err := run(t, "--db", db, "--json", "stats")
	var st struct {
		Runs []engine.WriteRun `json:"unfinished_write_runs"`
	}
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || len(st.Runs) != 1 || st.Runs[0].Done != 1 {
		t.Fatalf("stats --json = %s, %v", out, err)
	}
	_, stderr, err := runStreams(t, "--db", db, "ingest", "--quiet", "--incremental", "--graph", "g", upd)
	if err != nil || !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, "stopped after 1 of 3 quads") {
		t.Fatalf("ingest --incremental: %v; stderr:\n%s", err, stderr)
	}
	if out, err := run(t, "--db", db, "stats"); err != nil || strings.Contains(out, "warning") || !strings.Contains(out, "3 quads") {
		t.Fatalf("stats after the re-run = %s, %v", out, err)
	}
}

// TestInterrupted: the error of a command a signal cancelled says it was
// interrupted, by which signal, before the store's own error (which may
// be only a socket's "i/o timeout"); other errors are left as they are.
func TestInterrupted(t *testing.T) {
	storeErr := errors.New("sql: read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout")
	signalled, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("terminated signal received"))
	exit := exitError{code: 3, err: storeErr}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"interrupted", signalled, storeErr, "interrupted (terminated signal received) before the command finished: " + storeErr.Error()},
		{"not interrupted", context.Background(), storeErr, storeErr.Error()},
		{"interrupted, no error", signalled, nil, ""},
		{"interrupted, exit status", signalled, exit, storeErr.Error()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := interrupted(c.ctx, c.err)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want || (c.err != nil && !errors.Is(err, c.err)) {
				t.Errorf("interrupted(%v) = %q, want %q wrapping the error", c.err, got, c.want)
			}
		})
	}
}
