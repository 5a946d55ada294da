// Package testserver starts real database servers for tests: a private
// Virtuoso 7 or PostgreSQL instance on loopback in a temporary directory,
// stopped when the test ends. A missing Debian package fails the test with
// the command that installs it.
package testserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// need returns the path of a program or fails with the install command.
func need(t testing.TB, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Fatalf("%s not found (%v): install it with `apt-get install -y %s`", prog, err, pkg)
	}
	return p
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Virtuoso is a running private Virtuoso instance.
type Virtuoso struct {
	// SPARQL is the endpoint URL.
	SPARQL string
	Dir    string
	port   int
	isql   string
}

// StartVirtuoso starts Virtuoso 7 (Debian package virtuoso-opensource-7-bin)
// with its database in a temp dir, serving SPARQL on a loopback port.
func StartVirtuoso(t testing.TB) *Virtuoso {
	t.Helper()
	bin := need(t, "virtuoso-t", "virtuoso-opensource-7-bin")
	isql := need(t, "isql-vt", "virtuoso-opensource-7-bin")
	dir := t.TempDir()
	port, httpPort := FreePort(t), FreePort(t)
	ini := fmt.Sprintf(virtuosoINI, dir, port, httpPort)
	if err := os.WriteFile(filepath.Join(dir, "virtuoso.ini"), []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-f", "-c", "virtuoso.ini")
	cmd.Dir = dir
	logf, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start virtuoso: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	v := &Virtuoso{SPARQL: fmt.Sprintf("http://127.0.0.1:%d/sparql", httpPort), Dir: dir, port: port, isql: isql}
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("virtuoso exited: %v\n%s", err, tail(filepath.Join(dir, "virtuoso.log")))
		default:
		}
		if resp, err := http.Get(v.SPARQL + "?query=" + url.QueryEscape("ASK {}")); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return v
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("virtuoso did not come up in 90s\n%s", tail(filepath.Join(dir, "virtuoso.log")))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Exec runs SQL statements through isql as dba.
func (v *Virtuoso) Exec(t testing.TB, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, v.isql, fmt.Sprint(v.port), "dba", "dba", "exec="+sql)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "*** Error") {
		t.Fatalf("isql %q: %v\n%s", sql, err, out)
	}
	return string(out)
}

// Load bulk-loads quads into a named graph with Virtuoso's bulk loader,
// writing IRIs without a scheme under base and blank nodes as fresh
// blank nodes. The free-text index covers every literal.
func (v *Virtuoso) Load(t testing.TB, graphIRI, base string, qs []quad.Quad) {
	t.Helper()
	name := fmt.Sprintf("load-%d.nt", time.Now().UnixNano())
	f, err := os.Create(filepath.Join(v.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteNTriples(f, qs, base); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	v.Exec(t, fmt.Sprintf("DB.DBA.RDF_OBJ_FT_RULE_ADD(null, null, 'All'); ld_dir('%s', '%s', '%s'); rdf_loader_run(); checkpoint; DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ();",
		v.Dir, name, graphIRI))
	out := v.Exec(t, "select ll_file, ll_error from DB.DBA.load_list where ll_error is not null;")
	if strings.Contains(out, name) {
		t.Fatalf("virtuoso bulk load of %s failed:\n%s", name, out)
	}
}

// WriteNTriples writes quads as N-Triples: IRIs without a scheme go under
// base ("/en/x" -> <base/en/x>), except Grove's own vocabulary, which
// stays as Grove writes it (<grove:hidden>); blank nodes get
// N-Triples-safe labels.
func WriteNTriples(w io.Writer, qs []quad.Quad, base string) error {
	bw := bufio.NewWriter(w)
	term := func(v quad.Value) string {
		switch v := v.(type) {
		case quad.IRI:
			s := string(v)
			if !strings.Contains(s, "://") && !strings.HasPrefix(s, "urn:") && !strings.HasPrefix(s, "grove:") {
				s = base + s
			}
			return "<" + s + ">"
		case quad.BNode:
			return "_:b" + strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
					return r
				}
				return '_'
			}, string(v))
		}
		return v.String()
	}
	for _, q := range qs {
		if _, err := fmt.Fprintf(bw, "%s %s %s .\n", term(q.Subject), term(q.Predicate), term(q.Object)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

const virtuosoINI = `[Database]
DatabaseFile = %[1]s/virtuoso.db
ErrorLogFile = %[1]s/virtuoso.log
LockFile = %[1]s/virtuoso.lck
TransactionFile = %[1]s/virtuoso.trx
xa_persistent_file = %[1]s/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = %[1]s/virtuoso-temp.db
TransactionFile = %[1]s/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:%[2]d
ServerThreads = 10
CheckpointInterval = 0
NumberOfBuffers = 100000
MaxDirtyBuffers = 60000
DirsAllowed = ., %[1]s
ThreadCleanupInterval = 0
ResourcesCleanupInterval = 0
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 60
DefaultIsolation = 2
MaxMemPoolSize = 200000000

[HTTPServer]
ServerPort = 127.0.0.1:%[3]d
ServerRoot = %[1]s
ServerThreads = 10
MaxKeepAlives = 10
KeepAliveTimeout = 10
DavRoot = DAV
EnabledDavVSP = 0
HTTPProxyEnabled = 0
TransactionTimeout = 300

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 60
DeferInferenceRulesInit = 0
`
