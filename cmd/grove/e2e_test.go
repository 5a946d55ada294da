package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2EBinary builds cmd/grove with `go build` and runs the binary as a
// user does, with the flags README.md documents: ingest the demo KG, the kg
// commands, Gizmo queries, ask (lexical policy and a fake OpenAI-compatible
// server on loopback), eval on two questions, then serve with HTTP calls
// (a KG call, the README's Cayley write example run verbatim with curl, a
// Gizmo query reading the write back) and SIGTERM with a clean exit. It
// exists so that a difference between the test binary and the shipped one
// (a format or language registered only by a test import) cannot hide.
func TestE2EBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildGrove(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	film, err := filepath.Abs(filepath.Join("..", "..", "data", "film.nq.gz"))
	if err != nil {
		t.Fatal(err)
	}
	g := &groveCLI{t: t, bin: bin, db: db, home: dir}

	out := g.ok("ingest", "--graph", "film", film)
	mustContain(t, "ingest", out, "471705 new")

	t.Run("kg", func(t *testing.T) {
		mustContain(t, "kg search", g.ok("kg", "search", "Blade Runner", "--limit", "1"), "/en/blade_runner")
		mustContain(t, "kg entity", g.ok("kg", "entity", "/en/blade_runner"), "Blade Runner", "graphs: film")
		mustContain(t, "kg relations", g.ok("kg", "relations", "/en/blade_runner"), "directed by")
		mustContain(t, "kg edges", g.ok("kg", "edges", "/film/film/directed_by", "/en/blade_runner"), "Ridley Scott")
		// A blank node (a film performance) by its graph-scoped name.
		mustContain(t, "kg entity blank", g.ok("kg", "entity", "_:film/100000"), "_:film/100000", "graphs: film",
			"scoped to graph film at ingest (the source file's _:100000)")
		mustContain(t, "kg entity help", g.ok("kg", "entity", "--help"), "_:film/100000")
		if _, stderr, err := g.run("kg", "entity", "/en/no_such_entity"); err == nil || !strings.Contains(stderr, "not found") {
			t.Fatalf("unknown entity: %v, %s", err, stderr)
		}
	})

	t.Run("table compression", func(t *testing.T) {
		zg := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-zstd"), home: dir}
		zg.ok("ingest", "--graph", "film", "--table-compression", "zstd", film)
		recorded := func() string {
			b, err := os.ReadFile(filepath.Join(zg.db, "COMPRESSION"))
			if err != nil {
				t.Fatal(err)
			}
			return strings.TrimSpace(string(b))
		}
		if got := recorded(); got != "zstd" {
			t.Fatalf("COMPRESSION = %q after ingest --table-compression zstd", got)
		}
		mustContain(t, "kg entity (zstd)", zg.ok("kg", "entity", "/en/blade_runner"), "Blade Runner")
		mustContain(t, "stats (zstd)", zg.ok("stats"), "471705 quads", "zstd tables")
		zg.ok("ingest", "--graph", "film2", film) // no choice: the database keeps zstd
		if got := recorded(); got != "zstd" {
			t.Fatalf("COMPRESSION = %q after an ingest without the flag", got)
		}
		bad := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-lz4"), home: dir}
		if _, stderr, err := bad.run("ingest", "--table-compression", "lz4", film); err == nil || !strings.Contains(stderr, `table compression "lz4": want snappy or zstd`) {
			t.Fatalf("--table-compression lz4: %v, %s", err, stderr)
		}
	})

	t.Run("query", func(t *testing.T) {
		mustContain(t, "gizmo", g.ok("query", `g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`),
			"Ridley Scott")
		// Two co-star sets intersected: the query shape that crashed the
		// engine's scanner (Badger Next past the end) before.
		costars := `var actors = g.M().Out("</film/film/starring>").Out("</film/performance/actor>");
g.V().Has("<name>", "The Net").Follow(actors).Intersect(g.V().Has("<name>", "Speed").Follow(actors)).Out("<name>").All()`
		mustContain(t, "co-stars", g.ok("query", costars), "Sandra Bullock")
		mustContain(t, "blank node", g.ok("query", `g.V("_:film/100000").Out("</film/performance/actor>").All()`), "/en/larry_fine_1902")
		// The source file's own blank node name, on this one-graph database.
		mustContain(t, "file blank node", g.ok("query", `g.V("_:100000").Out("</film/performance/actor>").All()`), "/en/larry_fine_1902")
		if _, stderr, err := g.run("query", `g.V(`); err == nil || stderr == "" {
			t.Fatalf("a bad query exited 0 (stderr %q)", stderr)
		}
		// A program that used to make Cayley's Gizmo panic in its own
		// goroutine: an error and a non-zero exit, not a crash.
		_, stderr, err := g.run("query", `g.V("</en/blade_runner>").Except(g).All()`)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() <= 0 || !strings.Contains(stderr, "must be a path") ||
			strings.Contains(stderr, "goroutine ") {
			t.Fatalf("crashing query: %v\n%s", err, stderr)
		}
		// A program keeping 1.4 GB in strings each within the builtin
		// limits is stopped by the heap watch (1 GiB of growth), not run
		// until the process is killed.
		_, stderr, err = g.run("query", `var a = []; for (var i = 0; i < 1400; i++) a.push("x".repeat(1 << 20) + i); a.length`)
		if !errors.As(err, &ee) || ee.ExitCode() <= 0 || !strings.Contains(stderr, "the live heap grew by") ||
			!strings.Contains(stderr, "over the 1024 MiB a query may use") {
			t.Fatalf("memory-hungry query: %v\n%s", err, stderr)
		}
	})

	srv := newFakeLLM(t, fakeTotModel)
	t.Run("ask", func(t *testing.T) {
		out, stderr, err := g.run("ask", "Who directed Blade Runner?")
		if err != nil {
			t.Fatalf("lexical ask: %v\n%s", err, stderr)
		}
		mustContain(t, "lexical ask", out, "answer: Ridley Scott")
		mustContain(t, "lexical ask stderr", stderr, "not an LLM")
		out = g.ok("ask", "Who directed Blade Runner?", "--llm", srv.BaseURL(), "--model", "fake-e2e", "--cache", "off")
		mustContain(t, "model ask", out, "answer: Ridley Scott")
		if srv.RequestCount() == 0 {
			t.Fatal("ask --llm sent no request to the fake server")
		}
	})

	t.Run("eval", func(t *testing.T) {
		questions, err := filepath.Abs(filepath.Join("..", "..", "data", "film-questions.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		runs := filepath.Join(dir, "runs")
		g.ok("eval", "--dataset", questions, "--method", "tot", "--limit", "2", "--out", runs,
			"--llm", srv.BaseURL(), "--model", "fake-e2e", "--cache", "off")
		b, err := os.ReadFile(filepath.Join(runs, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 {
			t.Fatalf("results.jsonl has %d records, want 2:\n%s", len(lines), b)
		}
		for _, l := range lines {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["method"] != "tot" {
				t.Fatalf("result record %s: %v", l, err)
			}
		}
		// Each result's trace names the model that produced it.
		var rec struct{ Trace string }
		if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Trace == "" {
			t.Fatalf("result without a trace: %s", lines[0])
		}
		f, err := os.Open(filepath.Join(runs, rec.Trace))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := io.ReadAll(zr)
		if err != nil || !bytes.Contains(tr, []byte(`"model":"fake-e2e"`)) {
			t.Errorf("trace %s does not name the model (%v)", rec.Trace, err)
		}
	})

	t.Run("graph per file", func(t *testing.T) {
		g2 := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-graphs"), home: dir}
		a, b := filepath.Join(dir, "a.nt"), filepath.Join(dir, "b.nt")
		for p, text := range map[string]string{
			a: "<x> <knows> <y> .\n<y> <knows> <z> .\n",
			b: "<y> <likes> <w> .\n",
		} {
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := g2.ok("ingest", "--quiet", "--graph", "ga", a, "--graph-file", "gb="+b)
		mustContain(t, "ingest --graph-file", out, `into graph "gb"`, `graphs "ga", "gb": 3 quads read`)
		stats := g2.ok("stats")
		for _, row := range []string{"ga      2", "gb      1"} {
			if !strings.Contains(strings.Join(strings.Fields(stats), " "), strings.Join(strings.Fields(row), " ")) {
				t.Fatalf("stats has no row %q:\n%s", row, stats)
			}
		}
		if _, stderr, err := g2.run("ingest", "--incremental", "--graph-file", "gb="+b); err == nil ||
			!strings.Contains(stderr, "needs the bulk loader") {
			t.Fatalf("--graph-file with --incremental: %v, %s", err, stderr)
		}
	})

	t.Run("truncated input", func(t *testing.T) { testE2ETruncated(t, g, dir, film) })
	t.Run("budget sizes tables", func(t *testing.T) { testE2ETableSize(t, bin, dir, film) })
	t.Run("second graph in a segment", func(t *testing.T) { testE2ESegments(t, bin, dir) })
	t.Run("serve", func(t *testing.T) { testE2EServe(t, g) })
	t.Run("shared reads", func(t *testing.T) { testE2ESharedReads(t, bin, dir, film) })
	t.Run("node delete killed", func(t *testing.T) { testE2ENodeDeleteKilled(t, bin, dir, film) })
}

// testE2ENodeDeleteKilled: grove serve killed (SIGKILL) while it deletes
// a node of 44,956 quads (</people/person>, the type of every person)
// leaves either all of them or none: the node's degree and grove stats
// agree with one of the two (it was deleted in batches of 10,000 quads, so
// a kill part-way left some deleted and some not); a restarted server
// deletes it whole.
func testE2ENodeDeleteKilled(t *testing.T, bin, dir, film string) {
	g := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "nodedel-db"), home: dir}
	g.ok("ingest", "--quiet", "--graph", "film", film)
	const node, all, people = "/people/person", 471705, 44956
	check := func(when string) bool {
		t.Helper()
		out, stderr, err := g.run("kg", "degree", node, "--dir", "in")
		degree := strings.TrimSpace(out)
		if err != nil && strings.Contains(stderr, "not found") {
			degree = "0"
		} else if err != nil {
			t.Fatalf("%s: kg degree: %v %s", when, err, stderr)
		}
		stats := g.ok("stats")
		switch {
		case degree == fmt.Sprint(people) && strings.Contains(stats, fmt.Sprint(all, " quads")):
			return false
		case degree == "0" && strings.Contains(stats, fmt.Sprint(all-people, " quads")) && !strings.Contains(stats, "warning"):
			return true
		}
		t.Fatalf("%s: a node delete left part of the node: degree %s, stats:\n%s", when, degree, stats)
		return false
	}
	p := startServe(t, g)
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, err := http.NewRequest("POST", p.base+"/cayley/api/v2/node/delete", strings.NewReader("<"+node+">"))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+p.token)
		if resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(600 * time.Millisecond) // the delete takes about a second
	if err := p.stop(t, syscall.SIGKILL); err == nil {
		t.Fatal("serve exited cleanly after SIGKILL")
	}
	<-done
	if check("after the kill") {
		return
	}
	p = startServe(t, g)
	if st, body := p.call(t, "POST", "/cayley/api/v2/node/delete", "", "<"+node+">"); st != 200 || !strings.Contains(body, fmt.Sprintf(`"quads":%d`, people)) {
		t.Fatalf("node delete: %d %s", st, body)
	}
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("serve exited with %v after SIGTERM; output:\n%s", err, p.output.String())
	}
	if !check("after the delete") {
		t.Fatalf("%s is still stored after its delete", node)
	}
}

// testE2ESharedReads: commands that only read open the database read-only,
// so they run beside each other and beside grove serve --read-only; a
// process writing it makes them fail naming that process; a writer killed
// with writes in its log leaves a database the next reader opens (it
// replays the log first) with the writes in it.
func testE2ESharedReads(t *testing.T, bin, dir, film string) {
	g := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-shared"), home: dir}
	g.ok("ingest", "--quiet", "--graph", "film", film)

	// Readers do not create a database: a missing or empty directory is
	// reported, and stays as it was.
	for _, d := range []string{filepath.Join(dir, "no-db"), filepath.Join(dir, "empty-db")} {
		if strings.HasSuffix(d, "empty-db") {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		none := &groveCLI{t: t, bin: bin, db: d, home: dir}
		if _, stderr, err := none.run("stats"); err == nil || !strings.Contains(stderr, "no database at "+d+": run `grove ingest` first") {
			t.Fatalf("stats on %s: %v, %s", d, err, stderr)
		}
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("a reader wrote %d files into %s", len(entries), d)
		}
	}

	ro := startServe(t, g, "--read-only")
	mustContain(t, "kg beside serve --read-only", g.ok("kg", "search", "Blade Runner", "--limit", "1"), "/en/blade_runner")
	mustContain(t, "stats beside serve --read-only", g.ok("stats"), "film")
	// The holders are named from Linux's /proc/locks.
	named := func(stderr string, p *serveProc, how string) bool {
		if runtime.GOOS != "linux" {
			return strings.Contains(stderr, "another process")
		}
		return strings.Contains(stderr, fmt.Sprintf("process %d", p.cmd.Process.Pid)) && strings.Contains(stderr, how)
	}
	_, stderr, err := g.run("ingest", "--incremental", "--graph", "x", film)
	if err == nil || !strings.Contains(stderr, "in use") || !named(stderr, ro, "reading it") {
		t.Fatalf("ingest beside serve --read-only: %v, %s", err, stderr)
	}
	if err := ro.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("serve --read-only exited with %v after SIGTERM", err)
	}

	rw := startServe(t, g)
	_, stderr, err = g.run("kg", "search", "Blade Runner")
	if err == nil || !strings.Contains(stderr, "in use") || !named(stderr, rw, "serve") || !named(stderr, rw, "writing it") {
		t.Fatalf("kg beside a writing serve: %v, %s", err, stderr)
	}
	if st, body := rw.call(t, "POST", "/cayley/api/v2/write", "application/n-quads",
		"</en/killed_film> <name> \"Killed Film\" <film> .\n"); st != 200 {
		t.Fatalf("write: %d %s", st, body)
	}
	_ = rw.stop(t, syscall.SIGKILL) // killed on purpose
	mustContain(t, "kg after the writer was killed", g.ok("kg", "entity", "/en/killed_film"), "Killed Film")
	mustContain(t, "kg again, read-only", g.ok("kg", "entity", "/en/killed_film"), "Killed Film")
}

// serveProc is a grove serve process started by startServe.
type serveProc struct {
	cmd    *exec.Cmd
	base   string
	token  string
	exited chan error
	output *bytes.Buffer
}

// startServe starts grove serve on g's database with a token (in the
// file "token" of g's home, which the README's examples read) and extra
// flags, and waits until it is ready.
func startServe(t *testing.T, g *groveCLI, extra ...string) *serveProc {
	t.Helper()
	const token = "e2e-token-0123456789"
	tokenFile := filepath.Join(g.home, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	args := append([]string{"--db", g.db, "serve", "--addr", addr, "--token-file", tokenFile}, extra...)
	p := &serveProc{cmd: exec.Command(g.bin, args...), base: "http://" + addr, token: token,
		exited: make(chan error, 1), output: &bytes.Buffer{}}
	p.cmd.Env = g.env()
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	waitReady(t, &http.Client{Timeout: 30 * time.Second}, p.base+"/readyz", p.exited, p.output)
	return p
}

// call sends one request with the token.
func (p *serveProc) call(t *testing.T, method, path, ctype, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// stop sends sig and returns the process's exit error once it has ended.
func (p *serveProc) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("serve still running 30 s after %v:\n%s", sig, p.output.String())
		return nil
	}
}

// testE2ETruncated: a gzip dump cut in the middle fails the load, naming
// the file and the truncation, and loads nothing (it loaded the quads
// before the cut and reported success).
func testE2ETruncated(t *testing.T, g *groveCLI, dir, film string) {
	data, err := os.ReadFile(film)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.nq.gz")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	before := g.ok("stats")
	_, stderr, err := g.run("ingest", "--quiet", "--graph", "cut", cut)
	if err == nil || !strings.Contains(stderr, cut+": read gzip: the stream ends early (is the file truncated?)") {
		t.Fatalf("truncated gzip: %v\n%s", err, stderr)
	}
	if after := g.ok("stats"); after != before {
		t.Errorf("stats changed by a failed load:\n%s\nthen\n%s", before, after)
	}
}

// testE2ETableSize: the --max-memory of grove ingest reaches the database
// it opens, so a small budget writes small tables (2 MiB at 512 MiB, 32
// MiB at 4 GiB), which bounds Badger's share of the write phase.
func testE2ETableSize(t *testing.T, bin, dir, film string) {
	largest := map[string]int64{}
	for _, budget := range []string{"512MiB", "4GiB"} {
		db := filepath.Join(dir, "db-"+budget)
		g := &groveCLI{t: t, bin: bin, db: db, home: dir}
		mustContain(t, "ingest --max-memory "+budget, g.ok("ingest", "--quiet", "--graph", "film", "--max-memory", budget, film), "471705 new")
		ssts, err := filepath.Glob(filepath.Join(db, "*.sst"))
		if err != nil || len(ssts) == 0 {
			t.Fatalf("%s: no tables (%v)", db, err)
		}
		for _, p := range ssts {
			if fi, err := os.Stat(p); err == nil {
				largest[budget] = max(largest[budget], fi.Size())
			}
		}
	}
	const small = 5 << 19 // 2.5 MiB: a 2 MiB table and Badger's overshoot
	if largest["512MiB"] > small || largest["4GiB"] <= small {
		t.Errorf("largest table %d bytes with --max-memory 512MiB, %d with 4GiB; want at most %d, then more",
			largest["512MiB"], largest["4GiB"], small)
	}
	// A budget the load cannot keep to is refused before anything is opened.
	db := filepath.Join(dir, "db-128MiB")
	g := &groveCLI{t: t, bin: bin, db: db, home: dir}
	_, stderr, err := g.run("ingest", "--quiet", "--max-memory", "128MiB", film)
	if err == nil || !strings.Contains(stderr, "--max-memory 128MiB is below 512 MiB") {
		t.Errorf("ingest --max-memory 128MiB: %v, stderr %q; want a refusal naming the floor", err, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("ingest --max-memory 128MiB created %s", db)
	}
	testE2EFileLimit(t, bin, dir, film)
}

// testE2EFileLimit: under a limit on open files too low for the tables a
// load would leave (Badger keeps each open), grove ingest refuses before
// writing and says what to raise; the same load then goes through.
func testE2EFileLimit(t *testing.T, bin, dir, film string) {
	wrapper := filepath.Join(dir, "grove-ulimit")
	script := "#!/bin/sh\nulimit -n 48 || exit 99\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db-ulimit")
	low := &groveCLI{t: t, bin: wrapper, db: db, home: dir}
	_, stderr, err := low.run("ingest", "--quiet", "--graph", "film", "--max-memory", "512MiB", film)
	if err == nil || !strings.Contains(stderr, "raise ulimit -n to at least") || !strings.Contains(stderr, "nothing was written") {
		t.Fatalf("ingest under ulimit -n 48: %v, stderr %q; want a refusal naming the limit", err, stderr)
	}
	g := &groveCLI{t: t, bin: bin, db: db, home: dir}
	mustContain(t, "ingest after the refusal", g.ok("ingest", "--quiet", "--graph", "film", film), "471705 new")
}

// canonJSON returns the elements of a JSON array (or the one value), each
// re-encoded, sorted.
func canonJSON(t *testing.T, out string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	items, ok := v.([]any)
	if !ok {
		items = []any{v}
	}
	var keys []string
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(b))
	}
	slices.Sort(keys)
	return keys
}

// firstDiff shows the first element where two sorted lists differ.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%.500s\n%.500s", a[i], b[i])
		}
	}
	return "(one list is a prefix of the other)"
}

// testE2ESegments loads a second graph of more than a million quads, which
// shares every entity with the first, in a second ingest (its node blocks
// go to a segment of their own), and checks the KG answers against a
// database that loaded both graphs in one ingest (one segment).
func testE2ESegments(t *testing.T, bin, dir string) {
	a, b := filepath.Join(dir, "seg-a.nt"), filepath.Join(dir, "seg-b.nt")
	gen := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-gen"), home: dir}
	gen.ok("gen", "--quads", "1100000", "--seed", "1", "--out", a)
	gen.ok("gen", "--quads", "1100000", "--seed", "2", "--out", b)
	two := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-two-loads"), home: dir}
	two.ok("ingest", "--quiet", "--graph", "a", a)
	mustContain(t, "second ingest", two.ok("ingest", "--quiet", "--graph", "b", b),
		"node blocks in 2 segments", "grove optimize merges them")
	one := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-one-load"), home: dir}
	one.ok("ingest", "--quiet", "--graph", "a", a, "--graph-file", "b="+b)
	// --own-segment=false: the second graph is merged into segment 0, which
	// the node-block log line says.
	merged := &groveCLI{t: t, bin: bin, db: filepath.Join(dir, "db-merged"), home: dir}
	merged.ok("ingest", "--quiet", "--graph", "a", a)
	_, stderr, err := merged.run("--log-level", "info", "ingest", "--quiet", "--own-segment=false", "--graph", "b", b)
	if err != nil || !strings.Contains(stderr, "new_segment=false") {
		t.Fatalf("ingest --own-segment=false: %v\n%s", err, stderr)
	}
	mustContain(t, "stats after two loads", two.ok("stats"), "node blocks in 2 segments")
	compareTwoLoads(t, two, one)
	// The same comparison as a benchmark users run.
	bench := two.ok("bench", "ingest", "--systems", "grove", "--onto", a, b)
	// 1,089,069 distinct quads in the 1,100,000 lines of seed 2 (grove gen repeats about 1% of its lines).
	mustContain(t, "bench ingest --onto", bench, "grove-second  1089069", "second graph: ", "x the first load's rate")

	// grove optimize merges the segments: the same answers, one segment.
	var st struct {
		Before int   `json:"segments_before"`
		After  int   `json:"segments"`
		Moved  int64 `json:"blocks_moved"`
		Merged int64 `json:"blocks_merged"`
	}
	if err := json.Unmarshal([]byte(two.ok("--json", "optimize")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Before != 2 || st.After != 1 || st.Moved == 0 || st.Merged == 0 {
		t.Fatalf("optimize: %+v", st)
	}
	if out := two.ok("stats"); strings.Contains(out, "segments") {
		t.Fatalf("stats after optimize:\n%s", out)
	}
	compareTwoLoads(t, two, one)
	mustContain(t, "a second optimize", two.ok("optimize"), "nothing to merge", "flattened the LSM tree")
	// A third graph gets a segment again.
	_, stderr, err = two.run("--log-level", "info", "ingest", "--quiet", "--graph", "c", a)
	if err != nil || !strings.Contains(stderr, "segment=1 new_segment=true") {
		t.Fatalf("third graph: %v\n%s", err, stderr)
	}
}

// compareTwoLoads compares the stats, KG answers and a Gizmo query of a
// database that loaded graphs a and b in two ingests with one that loaded
// them in one.
func compareTwoLoads(t *testing.T, two, one *groveCLI) {
	t.Helper()
	stats := func(g *groveCLI) string {
		out := strings.ReplaceAll(g.ok("stats"), filepath.Base(g.db), "")
		var keep []string
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "node blocks in ") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	if s1, s2 := stats(two), stats(one); s1 != s2 {
		t.Fatalf("stats differ:\n%s\n%s", s1, s2)
	}
	mustContain(t, "relations of Q1", two.ok("kg", "relations", "Q1"), " a\n", " b\n")
	for _, args := range [][]string{
		{"kg", "relations", "--all", "Q1", "Q2", "Q77"},
		{"kg", "neighbors", "Q5", "--limit", "0"},
		{"kg", "edges", "P31", "Q3", "--dir", "in", "--limit", "0"},
		{"kg", "entity", "Q1234"},
		{"kg", "degree", "Q1"},
		{"kg", "search", "--limit", "5", "Kadu"},
	} {
		// The term ids differ (one load numbers both files' terms in one
		// pass), and lists come in id order where the KG interface sets
		// none: compare them as sets.
		got := canonJSON(t, two.ok(append([]string{"--json"}, args...)...))
		want := canonJSON(t, one.ok(append([]string{"--json"}, args...)...))
		if !slices.Equal(got, want) {
			t.Fatalf("grove %v: %d items after two loads, %d after one; first differences:\n%v", args, len(got), len(want),
				firstDiff(got, want))
		}
	}
	q := `g.V("<Q1>").Out().All()`
	got := strings.Split(two.ok("query", q), "\n")
	want := strings.Split(one.ok("query", q), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(got) < 10 {
		t.Fatalf("query %s: %d lines after two loads, %d after one", q, len(got), len(want))
	}
}

// testE2EServe runs `grove serve`, calls it, and stops it with SIGTERM.
func testE2EServe(t *testing.T, g *groveCLI) {
	p := startServe(t, g)
	base := p.base
	call := func(method, path, ctype, body string) (int, string) {
		t.Helper()
		return p.call(t, method, path, ctype, body)
	}

	if st, body := call("GET", "/v1/search?q=blade+runner&graph=film&limit=1", "", ""); st != 200 || !strings.Contains(body, "/en/blade_runner") {
		t.Fatalf("search: %d %s", st, body)
	}
	// The README's write example, run as written.
	out := runReadmeBlock(t, "cayley-write", g.home, base)
	mustContain(t, "README write example", out, `{"result":"Successfully wrote 2 quads.","count":2}`)
	gizmo := `g.V("</en/the_new_film>").Out("</film/film/directed_by>").Out("<name>").All()`
	if st, body := call("POST", "/cayley/api/v2/query?lang=gizmo", "", gizmo); st != 200 || !strings.Contains(body, "Ridley Scott") {
		t.Fatalf("gizmo after write: %d %s", st, body)
	}
	if st, body := call("GET", "/v1/entity?id="+url.QueryEscape("/en/the_new_film"), "", ""); st != 200 || !strings.Contains(body, "The New Film") {
		t.Fatalf("KG entity after write: %d %s", st, body)
	}
	// N-Triples by ?format= and Cayley's JSON by Content-Type.
	if st, body := call("POST", "/cayley/api/v2/write?format=ntriples", "", "</en/nt_film> <name> \"NT Film\" .\n"); st != 200 || !strings.Contains(body, `"count":1`) {
		t.Fatalf("n-triples write: %d %s", st, body)
	}
	if st, body := call("POST", "/cayley/api/v2/write", "application/json",
		`[{"subject":"</en/json_film>","predicate":"<name>","object":"\"JSON Film\"","label":"<film>"}]`); st != 200 || !strings.Contains(body, `"count":1`) {
		t.Fatalf("json write: %d %s", st, body)
	}
	if st, body := call("POST", "/cayley/api/v2/query?lang=gizmo", "", `g.V("NT Film", "JSON Film").In("<name>").All()`); st != 200 ||
		!strings.Contains(body, "</en/nt_film>") || !strings.Contains(body, "</en/json_film>") {
		t.Fatalf("gizmo after n-triples and json writes: %d %s", st, body)
	}

	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("serve exited with %v after SIGTERM; output:\n%s", err, p.output.String())
	}
	if strings.Contains(p.output.String(), "panic") {
		t.Fatalf("serve output mentions a panic:\n%s", p.output.String())
	}
	// The database closed cleanly: it opens again and holds the writes.
	mustContain(t, "reopen", g.ok("kg", "entity", "/en/the_new_film"), "The New Film")
}

// groveCLI runs the built binary against one database with an isolated
// home and configuration.
type groveCLI struct {
	t    *testing.T
	bin  string
	db   string
	home string
}

func (g *groveCLI) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GROVE_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+g.home, "XDG_DATA_HOME="+filepath.Join(g.home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(g.home, "config"), "XDG_CACHE_HOME="+filepath.Join(g.home, "cache"))
}

// run runs grove --db DB ARGS... and returns stdout, stderr and the error.
func (g *groveCLI) run(args ...string) (string, string, error) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.bin, append([]string{"--db", g.db}, args...)...)
	cmd.Env = g.env()
	cmd.Dir = g.home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// ok is run that fails the test unless grove exits 0.
func (g *groveCLI) ok(args ...string) string {
	g.t.Helper()
	out, stderr, err := g.run(args...)
	if err != nil {
		g.t.Fatalf("grove %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// buildGrove builds this package's binary into a temporary directory.
func buildGrove(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "grove")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func mustContain(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("%s: output lacks %q:\n%s", what, w, out)
		}
	}
}

// freeAddr returns a loopback address with a port that was free.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// waitReady polls url until it answers 200, failing if the server exits.
func waitReady(t *testing.T, client *http.Client, url string, exited <-chan error, output *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("serve exited early: %v\n%s", err, output.String())
		default:
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("serve not ready after 30 s:\n%s", output.String())
}

// runReadmeBlock runs the sh block README.md marks with
// "<!-- e2e: NAME -->" in dir, with G (the server's base URL) preset and
// the block's own G= line dropped, and returns its output.
func runReadmeBlock(t *testing.T, name, dir, base string) string {
	t.Helper()
	block, err := readmeBlock(filepath.Join("..", "..", "README.md"), name)
	if err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, "G=") {
			script = append(script, l)
		}
	}
	cmd := exec.Command("sh", "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "G="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README block %q: %v\n%s", name, err, out)
	}
	return string(out)
}

// readmeBlock returns the body of the first fenced code block after the
// marker line "<!-- e2e: NAME -->".
func readmeBlock(path, name string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	marker := "<!-- e2e: " + name + " -->"
	var found, in bool
	var body []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !found:
			found = strings.HasPrefix(strings.TrimSpace(l), marker)
		case !in:
			in = strings.HasPrefix(l, "```")
		case strings.HasPrefix(l, "```"):
			return strings.Join(body, "\n"), nil
		default:
			body = append(body, l)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("%s: no %s marker", path, marker)
	}
	return "", errors.New(path + ": unterminated code block after " + marker)
}
