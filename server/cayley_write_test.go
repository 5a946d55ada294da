package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// TestCayleyWriteFormats writes through /cayley/api/v2/write in each
// supported format, chosen by Content-Type or ?format=, and reads every
// write back; unsupported formats are refused with the list of usable ones.
func TestCayleyWriteFormats(t *testing.T) {
	const token = "write-token-2"
	cases := []struct {
		name, query, ctype, body string
		status                   int
		subject                  string // read back when status is 200
		want                     string
	}{
		{"n-quads by content type", "", "application/n-quads", "<w1> <directed_by> <p1> <movies> .\n", 200, "<w1>", `"count":1`},
		{"n-triples by content type", "", "application/n-triples", "<w2> <directed_by> <p1> .\n", 200, "<w2>", `"count":1`},
		{"n-triples by format", "?format=ntriples", "application/x-www-form-urlencoded", "<w3> <directed_by> <p1> .\n", 200, "<w3>", `"count":1`},
		{"json by content type", "", "application/json; charset=utf-8",
			`[{"subject":"<w4>","predicate":"<directed_by>","object":"<p1>","label":"<movies>"}]`, 200, "<w4>", `"count":1`},
		{"json by format", "?format=json", "",
			`[{"subject":"<w5>","predicate":"<directed_by>","object":"<p1>"},{"subject":"<w5>","predicate":"<name>","object":"\"W5\""}]`, 200, "<w5>", `"count":2`},
		{"no content type", "", "", "<w6> <directed_by> <p1> .\n", 200, "<w6>", `"count":1`},
		{"unknown format", "?format=turtle", "", "<w7> <directed_by> <p1> .\n", 400, "", `format \"turtle\" cannot be written`},
		{"write-only format", "?format=graphviz", "", "x", 400, "", "cannot be written"},
		{"unknown content type", "", "text/turtle", "<w8> <directed_by> <p1> .\n", 415, "", `Content-Type \"text/turtle\" cannot be written`},
		{"bad n-quads", "", "application/n-quads", "<w9> <directed_by> <p1> .\n<w9> <directed_by .\n", 400, "", "nquads body, quad 2: "},
		{"json without a predicate", "?format=json-stream", "", `{"subject":"<w9>","object":"<p1>"}` + "\n", 400, "",
			"json-stream body, quad 1: subject, predicate and object are required"},
	}
	ts := cayleyServer(t, Config{Token: token})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"Content-Type": c.ctype}
			st, _, body := ts.do("POST", "/cayley/api/v2/write"+c.query, c.body, hdr)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("write: status %d body %s", st, body)
			}
			if c.status != 200 {
				// Nothing of a refused body is written.
				if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<w9>"), "", nil); st != 200 || strings.Contains(string(b), "<w9>") {
					t.Fatalf("refused write left quads: %d %s", st, b)
				}
				if c.status != 400 || !strings.Contains(c.want, "body, quad") {
					if !strings.Contains(string(body), "nquads") || !strings.Contains(string(body), "json") {
						t.Errorf("refusal does not list the usable formats: %s", body)
					}
				}
				return
			}
			st, _, body = ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(c.subject), "", nil)
			if st != 200 || !strings.Contains(string(body), c.subject+" <directed_by> <p1>") {
				t.Fatalf("read back %s: %d %s", c.subject, st, body)
			}
		})
	}
}

// failingStore fails ApplyDeltas with err from call number failAt on
// (1-based; 0: never), and with store.ErrTooBig for batches of more than
// maxBatch deltas (negative: every batch).
type failingStore struct {
	graph.QuadStore
	failAt   int
	err      error
	maxBatch int
	noDelete bool // deletes report success and change nothing
	calls    int
}

func (f *failingStore) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	f.calls++
	if f.failAt > 0 && f.calls >= f.failAt {
		return f.err
	}
	if f.noDelete && in[0].Action == graph.Delete {
		return nil
	}
	if f.maxBatch != 0 && len(in) > f.maxBatch {
		return fmt.Errorf("apply deltas: %d deltas are %w", len(in), store.ErrTooBig)
	}
	return f.QuadStore.ApplyDeltas(in, opts)
}

// failingEngine is a failingStore that keeps the engine's own methods
// (DeleteNode).
type failingEngine struct {
	*engine.DB
	f *failingStore
}

func (e failingEngine) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	return e.f.ApplyDeltas(in, opts)
}

// deltas makes one delta of action per quad.
func deltas(action graph.Procedure, qs []quad.Quad) []graph.Delta {
	ds := make([]graph.Delta, len(qs))
	for i, q := range qs {
		ds[i] = graph.Delta{Quad: q, Action: action}
	}
	return ds
}

// TestCayleyWriteErrors checks how writes and deletes that the store
// refuses are answered: the status, a message that names the client's quad
// or node but never the database's directory, how many quads were applied
// before the error, and what the store holds afterwards.
func TestCayleyWriteErrors(t *testing.T) {
	const token = "write-token-3"
	const secret = "/srv/secret-db-dir"
	diskFull := fmt.Errorf("apply deltas: %w: 2 MiB left on %s", store.ErrDiskFull, secret)
	var big strings.Builder // three batches of Cayley's batch size
	for i := range 2*quad.DefaultBatch + 5 {
		fmt.Fprintf(&big, "<big%d> <directed_by> <p1> .\n", i)
	}
	cases := []struct {
		name, path, body string
		failAt           int    // ApplyDeltas call that fails; 0: none
		err              error  // its error
		maxBatch         int    // larger batches are too big for the store; 0: no limit, -1: all
		noDelete         bool   // the store reports deletes it does not make
		setup            string // N-Quads written to the store first
		engine           bool   // the failing store keeps the engine's own methods
		status           int
		want             []string // in the body
		count            int
		stored           []string // subjects that must be stored afterwards
		gone             []string // and that must not
		logged           bool     // the full error is in the server log
	}{
		{name: "delete a missing quad", path: "/api/v2/delete", body: "<nosuch> <directed_by> <p1> .\n",
			status: 404, want: []string{"<nosuch> -- <directed_by> -> <p1>", "quad does not exist", "nothing was deleted"}},
		// With a graph label the quad is named with it: the same triple may
		// be stored in another graph.
		{name: "delete a missing quad of a graph", path: "/api/v2/delete", body: "<m1> <directed_by> <p1> <nosuchgraph> .\n",
			status: 404, want: []string{"delete <m1> <directed_by> <p1> <nosuchgraph>: quad does not exist", "nothing was deleted"}},
		{name: "delete a node that does not exist", path: "/api/v2/node/delete", body: "<nosuch>",
			status: 404, want: []string{"node <nosuch>", "node does not exist"}},
		{name: "delete a node", path: "/api/v2/node/delete", body: "<m3>",
			status: 200, want: []string{`"count":1`}, gone: []string{"<m3>"}},
		{name: "disk full in the first batch", path: "/api/v2/write", body: "<d1> <directed_by> <p1> .\n",
			failAt: 1, err: diskFull, status: 507, want: []string{"disk is full", "nothing was written"},
			gone: []string{"<d1>"}, logged: true},
		// A body of more than Cayley's batch of 10,000 quads is one
		// transaction: a failure writes none of it, where Cayley's batches
		// left the first 10,000 written.
		{name: "disk full writing a body of 20,005 quads", path: "/api/v2/write", body: big.String(),
			failAt: 1, err: diskFull, status: 507, want: []string{"the server's disk is full", "nothing was written"},
			gone: []string{"<big0>", "<big9999>", "<big20004>"}, logged: true},
		{name: "a missing quad after 10,000 deletes nothing", path: "/api/v2/delete", setup: big.String(),
			body:   big.String() + "<nosuch> <directed_by> <p1> .\n",
			status: 404, want: []string{"<nosuch> -- <directed_by> -> <p1>", "quad does not exist", "nothing was deleted"},
			stored: []string{"<big0>", "<big9999>", "<big20004>"}},
		{name: "a body too big for one transaction is split; disk full in its second part", path: "/api/v2/write",
			body: big.String(), maxBatch: 12000, failAt: 3, err: diskFull, status: 507,
			want:  []string{"the server's disk is full", "10002 quads were written before it"},
			count: 10002, stored: []string{"<big0>", "<big10001>"}, gone: []string{"<big10002>", "<big20004>"}, logged: true},
		{name: "out of files", path: "/api/v2/delete", body: "<m1> <directed_by> <p1> .\n",
			failAt: 1, err: fmt.Errorf("open %s/000001.sst: %w", secret, store.ErrTooManyFiles), status: 503,
			want: []string{"out of open files", "nothing was deleted"}, stored: []string{"<m1>"}, logged: true},
		{name: "batches too big for the store are split", path: "/api/v2/write", body: big.String(), maxBatch: 3000,
			status: 200, want: []string{`"count":20005`}, stored: []string{"<big0>", "<big10000>", "<big20004>"}},
		{name: "a quad too big for the store", path: "/api/v2/write", body: "<t1> <directed_by> <p1> .\n", maxBatch: -1,
			status: 413, want: []string{"a quad is too large for one transaction", "nothing was written"}, gone: []string{"<t1>"}},
		// p1 is the subject of one quad (its label) and the object of three.
		{name: "delete a node in two positions", path: "/api/v2/node/delete", body: "<p1>",
			status: 200, want: []string{`"count":1`, `"quads":4`}, gone: []string{"<p1>"}, stored: []string{"<m1>", "<m3>"}},
		// A store other than the engine gets a node's quads in one delete
		// (they were deleted direction by direction, each its own batch).
		{name: "disk full deleting a node", path: "/api/v2/node/delete", body: "<p1>", failAt: 1, err: diskFull,
			status: 507, want: []string{"disk is full", "nothing was deleted"}, stored: []string{"<p1>", "<m1>"}, logged: true},
		// The engine deletes a node in one transaction of its own, never
		// through the Cayley writer's batches: a failure that would hit
		// the writer's second batch does not happen.
		{name: "the engine deletes a node of 20,009 quads at once", path: "/api/v2/node/delete", body: "<p1>",
			setup: big.String(), engine: true, failAt: 2, err: diskFull,
			status: 200, want: []string{`"quads":20009`}, gone: []string{"<p1>", "<big0>", "<big20004>"}, stored: []string{"<m1>"}},
		{name: "a node delete the store does not make", path: "/api/v2/node/delete", body: "<m1>", noDelete: true,
			status: 500, want: []string{"internal error; see the server log"}, count: 6, stored: []string{"<m1>"}},
		// The SQL backend's deadline during COMMIT (sqlkg.ErrCommitUnknown):
		// the batch may have been applied, so "nothing was written" would
		// be untrue.
		{name: "the outcome is unknown", path: "/api/v2/write", body: "<u1> <directed_by> <p1> .\n",
			failAt: 1, err: fmt.Errorf("sql write: %w (%w)", store.ErrOutcomeUnknown, context.DeadlineExceeded), status: 504,
			want: []string{"request timed out", "0 quads were written before the last batch, which may or may not have been applied"}},
		{name: "any other error", path: "/api/v2/write", body: "<e1> <directed_by> <p1> .\n",
			failAt: 1, err: fmt.Errorf("badger: read %s/MANIFEST: input/output error", secret), status: 500,
			want: []string{"internal error; see the server log for request", "nothing was written"}, gone: []string{"<e1>"}, logged: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testDB(t)
			if c.setup != "" {
				qs, err := storetest.Parse("", strings.NewReader(c.setup))
				if err != nil {
					t.Fatal(err)
				}
				if err := db.ApplyDeltas(deltas(graph.Add, qs), graph.IgnoreOpts{}); err != nil {
					t.Fatal(err)
				}
			}
			var qs graph.QuadStore = db
			if c.failAt > 0 || c.maxBatch != 0 || c.noDelete {
				f := &failingStore{QuadStore: db, failAt: c.failAt, err: c.err, maxBatch: c.maxBatch, noDelete: c.noDelete}
				qs = f
				if c.engine {
					qs = failingEngine{DB: db, f: f}
				}
			}
			ts := startServer(t, Config{Token: token}, db, Deps{QuadStore: qs})
			st, _, body := ts.do("POST", "/cayley"+c.path, c.body, nil)
			if st != c.status {
				t.Fatalf("status %d, want %d: %s", st, c.status, body)
			}
			text := string(body)
			if c.status != 200 {
				res := decode[changeErrorBody](t, body)
				if res.Count != c.count || res.RequestID == "" {
					t.Errorf("count %v request id %q, want count %d: %s", res.Count, res.RequestID, c.count, body)
				}
				text = res.Error
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q: %s", w, text)
				}
			}
			if strings.Contains(text, secret) {
				t.Errorf("answer names the database directory: %s", text)
			}
			if logged := strings.Contains(ts.logs.String(), secret); logged != c.logged {
				t.Errorf("full error in the server log: %v, want %v:\n%s", logged, c.logged, ts.logs.String())
			}
			for _, sub := range c.stored {
				if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(sub), "", nil); st != 200 || !strings.Contains(string(b), sub+" ") {
					t.Errorf("%s not stored: %d %s", sub, st, b)
				}
			}
			for _, sub := range c.gone {
				if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(sub), "", nil); st != 200 || strings.Contains(string(b), sub+" ") {
					t.Errorf("%s stored: %d %s", sub, st, b)
				}
			}
		})
	}
}

// FuzzCayleyWrite sends arbitrary bodies in each write format to the write
// and delete routes: no body may crash the server or be answered as an
// internal error, and a body written whole can be deleted whole.
func FuzzCayleyWrite(f *testing.F) {
	for _, seed := range []struct {
		format uint8
		body   string
	}{
		{0, "<w1> <directed_by> <p1> .\n"},
		{0, "<w1> <directed_by> <p1> <movies> .\n<w1> <name> \"W\"@en .\n"},
		{0, "_:b1 <directed_by> \"x\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"},
		{1, `[{"subject":"<w4>","predicate":"<directed_by>","object":"<p1>","label":"<movies>"}]`},
		{2, `{"subject":"<w5>","predicate":"<name>","object":"\"W5\""}` + "\n"},
		{0, "<w9> <directed_by .\n"},
		{0, ""},
		{1, "null"},
	} {
		f.Add(seed.format, []byte(seed.body))
	}
	const token = "fuzz-token"
	db := testDB(f)
	s, err := New(Config{Token: token}, db, Deps{QuadStore: db,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	send := func(path, format string, body []byte) (int, string) {
		req := httptest.NewRequest("POST", "/cayley/api/v2/"+path+"?format="+format, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	formats := []string{"nquads", "json", "json-stream"}
	f.Fuzz(func(t *testing.T, fi uint8, body []byte) {
		format := formats[int(fi)%len(formats)]
		// A node delete reads one term: anything else is a 400, never a
		// deletion of a node the body does not name (an empty body once
		// deleted <l>, the node of Cayley's value template).
		if st, out := send("write", "nquads", []byte("<l> <directed_by> <p1> .\n")); st != 200 {
			t.Fatalf("write <l>: %d %s", st, out)
		}
		switch st, out := send("node/delete", format, body); st {
		case 200, 400, 404, 415: // 415: json-stream cannot name a node
			if st == 200 && len(bytes.TrimSpace(body)) == 0 {
				t.Fatalf("node delete of an empty body succeeded: %s", out)
			}
		default:
			t.Fatalf("node delete %q as %s: %d %s", body, format, st, out)
		}
		st, out := send("write", format, body)
		switch st {
		case 200, 400:
		default:
			t.Fatalf("write %q as %s: %d %s", body, format, st, out)
		}
		if st != 200 {
			return
		}
		// Deleting what was just written succeeds unless the body names
		// a quad twice (the second delete finds it gone: 404).
		if st, out := send("delete", format, body); st != 200 && st != 404 {
			t.Fatalf("delete %q as %s: %d %s", body, format, st, out)
		}
	})
}

// TestCayleyNodeDeleteBody checks how a node delete reads its body: one
// term exactly, and an empty or blank body deletes nothing (Cayley's
// value parser read it as the node <l> of its own quad template).
func TestCayleyNodeDeleteBody(t *testing.T) {
	const token = "write-token-4"
	ts := cayleyServer(t, Config{Token: token})
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", "<l> <directed_by> <p1> .\n", nil); st != 200 {
		t.Fatalf("write <l>: %d %s", st, b)
	}
	cases := []struct {
		name, query, body string
		status            int
		want              string
	}{
		{"empty", "", "", 400, "the body names no node"},
		{"blank", "", " \n\t ", 400, "the body names no node"},
		{"json null", "?format=json", "null", 400, "the body names no node"},
		{"json blank string", "?format=json", `"  "`, 400, "the body names no node"},
		{"json not a string", "?format=json", "hello", 400, "not one json value"},
		{"bare words", "", "hello world", 400, `"hello world" is not an N-Quads term`},
		{"broken iri", "", "<<<", 400, "is not one N-Quads term"},
		{"iri with a space", "", "<a b>", 400, "is not one N-Quads term"},
		{"two terms", "", "<m1> <m2>", 400, "more than one term"},
		{"a statement", "", "<m1> <directed_by> <p1> .", 400, "is not one N-Quads term"},
		{"two lines", "", "<m1>\n<m2>", 400, "spans several lines"},
		{"a comment", "", "<m1> # x", 400, "is not one N-Quads term"},
		{"unknown node", "", "<nosuch>", 404, "node does not exist"},
		{"literal", "", `"Gladiator"`, 200, `"quads":1`},
		{"json iri", "?format=json", `"<m3>"`, 200, `"quads":1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, hdr, body := ts.do("POST", "/cayley/api/v2/node/delete"+c.query, c.body, nil)
			text := string(body)
			if st != 200 {
				text = decode[changeErrorBody](t, body).Error
			}
			if st != c.status || !strings.Contains(text, c.want) {
				t.Fatalf("status %d, want %d with %q: %s", st, c.status, c.want, body)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("content type %q", hdr.Get("Content-Type"))
			}
			if strings.Contains(text, "<s> <p>") || strings.Contains(text, "<l> .") {
				t.Errorf("answer shows the parser's template: %s", text)
			}
			if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<l>"), "", nil); st != 200 || !strings.Contains(string(b), "<l> <directed_by>") {
				t.Fatalf("node <l> deleted: %d %s", st, b)
			}
		})
	}
}

// TestCayleyWriteMethods: the write routes take POST only; any other
// method is a 405 with Allow: POST and writes nothing.
func TestCayleyWriteMethods(t *testing.T) {
	const token = "write-token-5"
	for _, path := range []string{"/cayley/api/v2/write", "/cayley/api/v2/delete", "/cayley/api/v2/node/delete"} {
		for _, c := range []struct {
			name string
			cfg  Config
		}{{"writable", Config{Token: token}}, {"read-only", Config{Token: token, ReadOnly: true}}} {
			ts := cayleyServer(t, c.cfg)
			for _, m := range []string{"GET", "PUT", "DELETE", "PATCH"} {
				t.Run(c.name+" "+m+" "+path, func(t *testing.T) {
					body := "<x1> <directed_by> <p1> .\n"
					if strings.HasSuffix(path, "node/delete") {
						body = "<m1>"
					}
					st, hdr, b := ts.do(m, path, body, nil)
					if st != 405 || hdr.Get("Allow") != "POST" || !strings.Contains(decode[errorBody](t, b).Error, "not allowed") {
						t.Fatalf("status %d Allow %q: %s", st, hdr.Get("Allow"), b)
					}
				})
			}
			for _, sub := range []string{"<x1>", "<m1>"} {
				st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(sub), "", nil)
				if stored := strings.Contains(string(b), sub+" "); st != 200 || stored != (sub == "<m1>") {
					t.Errorf("%s %s: %s stored %v: %d %s", c.name, path, sub, stored, st, b)
				}
			}
		}
	}
}

// TestCayleyWriteGzip: a gzip body is read decompressed, within
// inflateFactor times the body limit; past it the write is a 413 that
// writes nothing, where a body within the limit could inflate a
// thousandfold.
func TestCayleyWriteGzip(t *testing.T) {
	const token = "write-token-gz"
	ts := cayleyServer(t, Config{Token: token, MaxBodyBytes: 4096}) // inflates to 128 KiB at most
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return b.String()
	}
	many := func(subject string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s <directed_by> <p%d> .\n", subject, i%7)
		}
		return b.String()
	}
	// sized is quads of subject making exactly n bytes.
	sized := func(subject string, n int) string {
		line := fmt.Sprintf("%s <directed_by> <p1> .\n", subject)
		body := strings.Repeat(line, n/len(line)-1)
		pad := n - len(body) - len(line) // the last quad's object takes the rest
		return body + fmt.Sprintf("%s <directed_by> <p%s> .\n", subject, strings.Repeat("x", pad+1))
	}
	if got := len(sized("<gz5>", 131072)); got != 131072 {
		t.Fatalf("sized body of %d bytes", got)
	}
	for _, c := range []struct {
		name, body string
		status     int
		want       string
		subject    string
		stored     bool
	}{
		{"small", gz(many("<gz1>", 3)), 200, `"count":3`, "<gz1>", true},
		{"inflates within the limit", gz(many("<gz2>", 3000)), 200, `"count":3000`, "<gz2>", true}, // ~90 KiB
		{"inflates past the limit", gz(many("<gz3>", 10000)), 413, "inflates to more than 131072 bytes", "<gz3>", false},
		{"inflates to the limit exactly", gz(sized("<gz5>", 131072)), 200, `"count":`, "<gz5>", true},
		{"one byte past the limit", gz(sized("<gz6>", 131073)), 413, "inflates to more than 131072 bytes", "<gz6>", false},
		{"corrupt", "\x1f\x8b\x08\x00junk", 400, "gzip body", "<gz4>", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.body) > 4096 {
				t.Fatalf("test body of %d bytes is over the body limit", len(c.body))
			}
			st, _, body := ts.do("POST", "/cayley/api/v2/write", c.body, map[string]string{"Content-Encoding": "gzip"})
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("status %d body %s, want %d %q", st, body, c.status, c.want)
			}
			st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(c.subject), "", nil)
			if st != 200 || strings.Contains(string(b), c.subject) != c.stored {
				t.Fatalf("read back %s: %d, stored %v, want %v", c.subject, st, !c.stored, c.stored)
			}
		})
	}
}

// TestCayleyWriteKeepsLexicalForms: a typed literal written or deleted
// over HTTP is the term grove ingest stores for the same line: "07" and "7"
// as integers are two quads, and deleting one leaves the other (Cayley's
// reader turned both into the integer 7).
func TestCayleyWriteKeepsLexicalForms(t *testing.T) {
	const token = "write-token-lex"
	ts := cayleyServer(t, Config{Token: token})
	const xsdInt = "<http://www.w3.org/2001/XMLSchema#integer>"
	body := `<lx> <p> "07"^^` + xsdInt + " .\n" + `<lx> <p> "7"^^` + xsdInt + " .\n" +
		`<lx> <q> "2020-01-01T10:00:00+02:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .` + "\n"
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", body, nil); st != 200 || !strings.Contains(string(b), `"count":3`) {
		t.Fatalf("write: %d %s", st, b)
	}
	del := `<lx> <p> "7"^^` + xsdInt + " .\n" + `<lx> <q> "2020-01-01T10:00:00+02:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .` + "\n"
	if st, _, b := ts.do("POST", "/cayley/api/v2/delete", del, nil); st != 200 || !strings.Contains(string(b), `"count":2`) {
		t.Fatalf("delete: %d %s", st, b)
	}
	st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<lx>"), "", nil)
	if st != 200 || !strings.Contains(string(b), `"07"^^`) || strings.Count(string(b), "<lx>") != 1 {
		t.Fatalf("after deleting \"7\" and the dateTime, <lx> has: %d %s", st, b)
	}
}

// TestCayleyWriteJSONLDLoadsNothing: a JSON-LD write never makes the
// server open a file or fetch a URL (Cayley's reader loaded any context
// named by reference, with no timeout); such a body is a 400 that writes
// nothing, an inline context works, and a body that is not a JSON-LD
// object or array is a 400 rather than "wrote 0 quads".
func TestCayleyWriteJSONLDLoadsNothing(t *testing.T) {
	const token = "write-token-jsonld"
	var hits atomic.Int64
	release := make(chan struct{})
	ctxDoc := `{"@context":{"p":"http://x/p"}}`
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/hang" {
			// Long enough to fail the test, bounded so that a server that
			// does fetch still shuts down.
			select {
			case <-release:
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/ld+json")
		_, _ = io.WriteString(w, ctxDoc)
	}))
	defer remote.Close()
	defer close(release)
	file := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(file, []byte(ctxDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	const refused = "remote JSON-LD contexts are not loaded; inline the context"
	cases := []struct {
		name, body string
		status     int
		want       string
		subject    string // stored afterwards when status is 200, else not
	}{
		{"local file", `{"@context":"` + file + `","@id":"http://x/lfi","p":"v"}`, 400, refused, "<http://x/lfi>"},
		{"url", `{"@context":"` + remote.URL + `/ctx.jsonld","@id":"http://x/url","p":"v"}`, 400, refused, "<http://x/url>"},
		{"url that never answers", `{"@context":"` + remote.URL + `/hang","@id":"http://x/hang","p":"v"}`, 400, refused, "<http://x/hang>"},
		{"url in an array", `{"@context":[{"q":"http://x/q"},"` + remote.URL + `/ctx.jsonld"],"@id":"http://x/arr","q":"v"}`,
			400, refused, "<http://x/arr>"},
		{"nested context", `{"@context":{"p":"http://x/p"},"@id":"http://x/nest","p":{"@context":"` + remote.URL +
			`/ctx.jsonld","@id":"http://x/in"}}`, 400, refused, "<http://x/nest>"},
		{"import", `{"@context":{"@version":1.1,"@import":"` + remote.URL + `/ctx.jsonld"},"@id":"http://x/imp","p":"v"}`,
			400, refused, "<http://x/imp>"},
		{"body is a url", `"` + remote.URL + `/doc.jsonld"`, 400, "the body is a string", ""},
		{"body is a number", `5`, 400, "the body is a number", ""},
		{"body is null", `null`, 400, "the body is null", ""},
		{"empty body", ``, 400, "the body is empty", ""},
		{"trailing data", `{"@id":"http://x/tr","http://x/p":"v"} {}`, 400, "unexpected data after", "<http://x/tr>"},
		{"not json", `{"@id":`, 400, "jsonld body: invalid JSON", ""},
		{"inline context", `{"@context":{"p":"http://x/p"},"@id":"http://x/ok","p":"v"}`, 200, `"count":1`, "<http://x/ok>"},
	}
	ts := cayleyServer(t, Config{Token: token})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			st, _, body := ts.do("POST", "/cayley/api/v2/write?format=jsonld", c.body, nil)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("status %d body %s, want %d %q", st, body, c.status, c.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the write took %s", d)
			}
			if n := hits.Load(); n != 0 {
				t.Fatalf("the server fetched %d documents", n)
			}
			if strings.Contains(string(body), "Successfully") != (c.status == 200) {
				t.Errorf("answer: %s", body)
			}
			if c.subject == "" {
				return
			}
			st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(c.subject), "", nil)
			if stored := strings.Contains(string(b), c.subject); st != 200 || stored != (c.status == 200) {
				t.Fatalf("read back %s: %d stored %v: %s", c.subject, st, stored, b)
			}
		})
	}
	// The delete route reads the same way.
	st, _, body := ts.do("POST", "/cayley/api/v2/delete?format=jsonld", `{"@context":"`+file+`","@id":"http://x/ok","p":"v"}`, nil)
	if st != 400 || !strings.Contains(string(body), refused) || hits.Load() != 0 {
		t.Fatalf("delete: %d %s", st, body)
	}
}

// TestCayleyWriteMalformedPQuads: pquads bodies its decoder panics on
// (an empty value) are a 400 naming the format, not a 500, and change
// nothing.
func TestCayleyWriteMalformedPQuads(t *testing.T) {
	const token = "write-token-pq"
	ts := cayleyServer(t, Config{Token: token})
	before := func() string {
		_, _, b := ts.do("GET", "/cayley/api/v2/read", "", nil)
		return string(b)
	}()
	cases := []struct {
		name, path, body string
	}{
		{"node delete of junk", "/cayley/api/v2/node/delete?format=pquads", "xx"},
		{"write with an empty value", "/cayley/api/v2/write?format=pquads", "\x00pq\x00\x01\x00\x00\x00\x02\x10\x01\x02\x0a\x00"},
		{"delete with an empty value", "/cayley/api/v2/delete?format=pquads", "\x00pq\x00\x01\x00\x00\x00\x02\x10\x01\x02\x0a\x00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, body := ts.do("POST", c.path, c.body, nil)
			msg := decode[changeErrorBody](t, body).Error
			if st != 400 || !strings.Contains(msg, "pquads") || !strings.Contains(msg, "malformed") {
				t.Fatalf("status %d body %s", st, body)
			}
			if strings.Contains(ts.logs.String(), "panic serving request") {
				t.Errorf("the panic reached the middleware")
			}
			if after := func() string { _, _, b := ts.do("GET", "/cayley/api/v2/read", "", nil); return string(b) }(); after != before {
				t.Errorf("the store changed")
			}
		})
	}
}

// TestCayleyWriteBlankNodeNQuads: the scoped blank node names Grove gives
// at ingest, as /read writes them in N-Quads, are accepted by /write,
// /delete and /node/delete in N-Quads and kept as sent; a character a
// label may not hold is an error of the term holding it.
func TestCayleyWriteBlankNodeNQuads(t *testing.T) {
	const token = "write-token-bnode"
	ts := cayleyServer(t, Config{Token: token})
	for _, name := range []string{"_:film/100000", "_:film/anon.ttl@ef10db003eea#1", "_:musicbrainz/mbrel-0a1b2c3d4e5f60718293a4b5"} {
		t.Run(name, func(t *testing.T) {
			line := name + " <directed_by> " + name + "x <movies> ."
			read := func() string {
				st, _, b := ts.do("GET", "/cayley/api/v2/read?format=nquads&sub="+url.QueryEscape(name), "", nil)
				if st != 200 {
					t.Fatalf("read %s: %d %s", name, st, b)
				}
				return strings.TrimSpace(string(b))
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/write", line+"\n", nil); st != 200 || !strings.Contains(string(b), `"count":1`) {
				t.Fatalf("write %q: %d %s", line, st, b)
			}
			got := read()
			if got != line {
				t.Fatalf("read back %q, want %q", got, line)
			}
			// The line /read wrote deletes the quad.
			if st, _, b := ts.do("POST", "/cayley/api/v2/delete", got+"\n", nil); st != 200 || !strings.Contains(string(b), `"count":1`) {
				t.Fatalf("delete %q: %d %s", got, st, b)
			}
			if got := read(); got != "" {
				t.Fatalf("after the delete %s has %q", name, got)
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/write", line+"\n", nil); st != 200 {
				t.Fatalf("write again: %d %s", st, b)
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/node/delete", name, nil); st != 200 || !strings.Contains(string(b), `"quads":1`) {
				t.Fatalf("node delete %s: %d %s", name, st, b)
			}
			if got := read(); got != "" {
				t.Fatalf("after the node delete %s has %q", name, got)
			}
		})
	}
	for _, c := range []struct{ path, body, want string }{
		{"/cayley/api/v2/write", "_:film/x{y} <directed_by> <p1> .\n",
			"nquads body, quad 1: line 1: subject at column 9: character '{' not allowed in blank node label"},
		{"/cayley/api/v2/delete", "<m1> <directed_by> _:film/1, _:film/2 .\n",
			"nquads body, quad 1: line 1: object at column 28: character ',' not allowed in blank node label"},
	} {
		st, _, b := ts.do("POST", c.path, c.body, nil)
		if got := decode[changeErrorBody](t, b).Error; st != 400 || got != c.want {
			t.Errorf("%s %q: %d %q, want 400 %q", c.path, c.body, st, got, c.want)
		}
	}
}

// TestCayleyWriteContentTypes: application/octet-stream is one of pquads'
// types (as /formats says and Cayley reads it), not a generic type read as
// N-Quads; text/plain, curl's form type and none still mean N-Quads. A
// node delete reads an octet-stream body as one pquads value.
func TestCayleyWriteContentTypes(t *testing.T) {
	const token = "write-token-ctype"
	ts := cayleyServer(t, Config{Token: token})
	pq := func(qs ...quad.Quad) string {
		var b bytes.Buffer
		w := pquads.NewWriter(&b, &pquads.Options{Full: true})
		for _, q := range qs {
			if err := w.WriteQuad(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	value := func(v quad.Value) string {
		b, err := pquads.MarshalValue(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	oct := func(s string) quad.Quad { return quad.MakeIRI(s, "directed_by", "p1", "movies") }
	cases := []struct {
		name, path, ctype, body string
		status                  int
		want, stored, gone      string
	}{
		{"pquads write as octet-stream", "/cayley/api/v2/write", "application/octet-stream", pq(oct("o1"), oct("o2")), 200, `"count":2`, "<o1>", ""},
		{"pquads delete as octet-stream", "/cayley/api/v2/delete", "application/octet-stream", pq(oct("o2")), 200, `"count":1`, "<o1>", "<o2>"},
		{"pquads node delete as octet-stream", "/cayley/api/v2/node/delete", "application/octet-stream", value(quad.IRI("o1")), 200, `"quads":1`, "", "<o1>"},
		{"n-quads sent as octet-stream", "/cayley/api/v2/write", "application/octet-stream", "<o3> <directed_by> <p1> .\n", 400, "pquads", "", "<o3>"},
		{"text/plain is n-quads", "/cayley/api/v2/write", "text/plain", "<o4> <directed_by> <p1> .\n", 200, `"count":1`, "<o4>", ""},
		{"form type is n-quads", "/cayley/api/v2/write", "application/x-www-form-urlencoded", "<o5> <directed_by> <p1> .\n", 200, `"count":1`, "<o5>", ""},
		{"no type is n-quads", "/cayley/api/v2/write", "", "<o6> <directed_by> <p1> .\n", 200, `"count":1`, "<o6>", ""},
		{"json with invalid UTF-8", "/cayley/api/v2/write", "application/json",
			`[{"subject":"<o7>","predicate":"<directed_by>","object":"<p1>"},{"subject":"<o8>","predicate":"<directed_by>","object":"\"x` + "\xff" + `y\""}]`,
			400, "invalid UTF-8 at byte", "", "<o7>"},
		{"json with UTF-8", "/cayley/api/v2/write", "application/json",
			`[{"subject":"<o9>","predicate":"<directed_by>","object":"<p1>"},{"subject":"<o9>","predicate":"<directed_by>","object":"\"café\""}]`,
			200, `"count":2`, "<o9>", ""},
		{"jsonld with invalid UTF-8", "/cayley/api/v2/write", "application/ld+json",
			`{"@id":"http://ex/o10","http://ex/p":"x` + "\xc3" + `"}`, 400, "invalid UTF-8", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, b := ts.do("POST", c.path, c.body, map[string]string{"Content-Type": c.ctype})
			if st != c.status || !strings.Contains(string(b), c.want) {
				t.Fatalf("status %d body %s, want %d %q", st, b, c.status, c.want)
			}
			for sub, want := range map[string]bool{c.stored: true, c.gone: false} {
				if sub == "" {
					continue
				}
				_, _, got := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(sub), "", nil)
				if has := strings.Contains(string(got), sub+" <directed_by> <p1>"); has != want {
					t.Errorf("%s stored %v, want %v: %s", sub, has, want, got)
				}
			}
		})
	}
}

// TestREADMEWriteTransactions: README's account of how a write body is
// applied matches writeTxnQuads (it said "batches of 10,000 quads, each a
// transaction", Cayley's batching, which the handlers do not use).
func TestREADMEWriteTransactions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	n := fmt.Sprintf("%d,%03d", writeTxnQuads/1000, writeTxnQuads%1000)
	for _, c := range []struct {
		phrase string
		want   bool
	}{
		{"A body of up to " + n + " quads is applied in one transaction, whole or not at all", true},
		{"in transactions of " + n + " quads", true},
		{"The body is applied in batches of 10,000 quads", false},
	} {
		if got := strings.Contains(readme, c.phrase); got != c.want {
			t.Errorf("README says %q: %v, want %v", c.phrase, got, c.want)
		}
	}
}

// TestCayleyWriteJSONLDBlankNodes: the unnamed nodes of separate JSON-LD
// writes stay distinct (json-gold names them _:b0, _:b1, ... in every
// document, and stored as named one person's address became everyone's),
// an N-Quads _:b0 does not join them, the name /read gives one deletes it,
// and N-Quads blank node names are kept as sent: _:x in two requests is
// one node, as in Cayley.
func TestCayleyWriteJSONLDBlankNodes(t *testing.T) {
	const token = "write-token-jsonld-bnode"
	ts := cayleyServer(t, Config{Token: token})
	ld := map[string]string{"Content-Type": "application/ld+json"}
	for _, n := range []string{"Ann", "Ben"} {
		body := `{"@context":{"@vocab":"http://v/"},"@id":"http://ex/` + n + `","address":{"city":"C` + n + `"}}`
		if st, _, b := ts.do("POST", "/cayley/api/v2/write", body, ld); st != 200 || !strings.Contains(string(b), `"count":2`) {
			t.Fatalf("write %s: %d %s", n, st, b)
		}
	}
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", `_:b0 <http://v/city> "Elsewhere" .`+"\n", nil); st != 200 {
		t.Fatalf("n-quads write: %d %s", st, b)
	}
	city := func(person string) string {
		t.Helper()
		q := `g.V("<http://ex/` + person + `>").Out("<http://v/address>").Out("<http://v/city>").All()`
		st, _, b := ts.do("POST", "/cayley/api/v2/query?lang=gizmo", q, nil)
		if st != 200 {
			t.Fatalf("query: %d %s", st, b)
		}
		return string(b)
	}
	for _, c := range []struct{ person, want string }{{"Ann", `{"result":[{"id":"CAnn"}]}`}, {"Ben", `{"result":[{"id":"CBen"}]}`}} {
		if got := strings.TrimSpace(city(c.person)); got != c.want {
			t.Errorf("%s's city: %s, want %s", c.person, got, c.want)
		}
	}
	// The address node's name is scoped to its request, reads back as
	// N-Quads and deletes as /read gave it.
	_, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<http://ex/Ann>"), "", nil)
	line := strings.TrimSpace(string(b))
	addr := strings.Fields(line)[2]
	// A label the N-Quads grammar allows (BLANK_NODE_LABEL, its ASCII
	// part), so other tools read /read's output too.
	if !strings.HasPrefix(addr, "_:jsonld-") || !strings.HasSuffix(addr, "-b0") ||
		!regexp.MustCompile(`^_:[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_-])?$`).MatchString(addr) {
		t.Fatalf("Ann's address is %q, want a name scoped to its request that N-Quads allows (_:jsonld-...-b0)", addr)
	}
	_, _, b = ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(addr), "", nil)
	if st, _, out := ts.do("POST", "/cayley/api/v2/delete", string(b), nil); st != 200 || !strings.Contains(string(out), `"count":1`) {
		t.Fatalf("delete %q: %d %s", b, st, out)
	}
	if got := strings.TrimSpace(city("Ann")); got != `{"result":null}` && got != `{"result":[]}` {
		t.Errorf("after the delete Ann's city is %s", got)
	}
	// N-Quads names are the client's: _:x named twice is one node.
	for _, l := range []string{`<http://ex/Cy> <http://v/address> _:x .`, `_:x <http://v/city> "CCy" .`} {
		if st, _, b := ts.do("POST", "/cayley/api/v2/write", l+"\n", nil); st != 200 {
			t.Fatalf("write %q: %d %s", l, st, b)
		}
	}
	if got := strings.TrimSpace(city("Cy")); got != `{"result":[{"id":"CCy"}]}` {
		t.Errorf("Cy's city: %s", got)
	}
}

// TestCayleyWriteGeneralizedQuads: quads with a literal subject, predicate
// or label, or a blank node predicate, which Cayley's JSON format stores
// (as the engine's quad writer does), read back through /read as N-Quads
// that /delete deletes and /write writes back as they are (the N-Quads
// reader refused them: "a literal cannot be the subject"), and a literal
// graph label is listed by /v1/graphs under its N-Quads form.
func TestCayleyWriteGeneralizedQuads(t *testing.T) {
	const token = "write-token-general"
	ts := cayleyServer(t, Config{Token: token})
	cases := []struct {
		name, json, obj, line string
	}{
		{"literal subject and label", `[{"subject":"\"litsubj\"","predicate":"<p>","object":"<lo1>","label":"\"litlabel\""}]`,
			"<lo1>", `"litsubj" <p> <lo1> "litlabel" .`},
		{"typed literal subject", `[{"subject":"\"5\"^^<http://ex/t>","predicate":"<p>","object":"<lo2>","label":"<movies>"}]`,
			"<lo2>", `"5"^^<http://ex/t> <p> <lo2> <movies> .`},
		{"literal predicate", `[{"subject":"<ls3>","predicate":"\"lp\"@en","object":"<lo3>"}]`,
			"<lo3>", `<ls3> "lp"@en <lo3> .`},
		{"blank predicate", `[{"subject":"<ls4>","predicate":"_:bp","object":"<lo4>"}]`,
			"<lo4>", `<ls4> _:bp <lo4> .`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			read := func() string {
				st, _, b := ts.do("GET", "/cayley/api/v2/read?obj="+url.QueryEscape(c.obj), "", nil)
				if st != 200 {
					t.Fatalf("read: %d %s", st, b)
				}
				return strings.TrimSpace(string(b))
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/write?format=json", c.json, nil); st != 200 || !strings.Contains(string(b), `"count":1`) {
				t.Fatalf("json write: %d %s", st, b)
			}
			got := read()
			if got != c.line {
				t.Fatalf("read %q, want %q", got, c.line)
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/delete", got+"\n", nil); st != 200 || !strings.Contains(string(b), `"count":1`) {
				t.Fatalf("delete of the line /read gave: %d %s", st, b)
			}
			if after := read(); after != "" {
				t.Fatalf("after the delete: %q", after)
			}
			if st, _, b := ts.do("POST", "/cayley/api/v2/write", got+"\n", nil); st != 200 || !strings.Contains(string(b), `"count":1`) {
				t.Fatalf("n-quads write back: %d %s", st, b)
			}
			if again := read(); again != c.line {
				t.Fatalf("written back, read %q, want %q", again, c.line)
			}
		})
	}
	st, b := ts.get("/v1/graphs")
	if st != 200 || !strings.Contains(string(b), `"name":"\"litlabel\""`) {
		t.Errorf("/v1/graphs does not list the literal label's graph as \"litlabel\" in quotes: %d %s", st, b)
	}
}

// silentStore is a quad store whose database stopped answering: a write
// with a context (ApplyDeltasContext, as sqlkg's) returns when its
// context ends, one without (Cayley's ApplyDeltas) only after hang, as
// sqlkg's idle bound would end it. Nothing is written either way.
type silentStore struct {
	graph.QuadStore
	hang time.Duration
}

func (s silentStore) ApplyDeltas([]graph.Delta, graph.IgnoreOpts) error {
	time.Sleep(s.hang)
	return errors.New("the database sent nothing for the idle bound")
}

func (s silentStore) ApplyDeltasContext(ctx context.Context, _ []graph.Delta, _ graph.IgnoreOpts) error {
	<-ctx.Done()
	return fmt.Errorf("sql: %w", ctx.Err())
}

// TestCayleyWriteSilentStore: a write, delete or node delete to a store
// that stopped answering is answered within the request's time limit by a
// JSON 504 saying nothing was written, instead of waiting for the store's
// own bound past the connection's write deadline (an empty reply).
func TestCayleyWriteSilentStore(t *testing.T) {
	const token = "silent-token"
	const limit = 300 * time.Millisecond
	db := testDB(t)
	ts := startServer(t, Config{Token: token, RequestTimeout: limit}, db,
		Deps{QuadStore: silentStore{QuadStore: db, hang: 5 * time.Second}})
	cases := []struct{ name, path, body, want string }{
		{"write", "/cayley/api/v2/write", "<w1> <name> \"W1\" <film> .\n", "request timed out; nothing was written"},
		{"delete", "/cayley/api/v2/delete", "<f1> <directed_by> <p1> .\n", "request timed out; nothing was deleted"},
		{"node delete", "/cayley/api/v2/node/delete", "<p1>", "request timed out; nothing was deleted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			st, hdr, body := ts.do("POST", c.path, c.body, map[string]string{"Authorization": "Bearer " + token})
			took := time.Since(start)
			if st != http.StatusGatewayTimeout || !strings.Contains(string(body), c.want) ||
				!strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || took > limit+2*time.Second {
				t.Errorf("%s to a silent store: %d %s after %v; want a JSON 504 %q soon after %v", c.name, st, body, took, c.want, limit)
			}
		})
	}
}

// TestCayleyLargeDeleteWhole: a delete body larger than one Badger
// transaction holds (the store splits it) is still whole or nothing: one
// missing quad anywhere deletes nothing, and a repeated line is one quad
// (the second delete of a quad applied in an earlier part, or batch,
// found it gone).
func TestCayleyLargeDeleteWhole(t *testing.T) {
	const token = "write-token-1"
	const n = 60000
	var body strings.Builder
	for i := range n {
		fmt.Fprintf(&body, "<http://ex.org/s%d> <http://ex.org/p> \"value %d\" <bulk> .\n", i, i)
	}
	all := body.String()
	lines := strings.SplitAfter(all, "\n")
	ts := cayleyServer(t, Config{Token: token, MaxBodyBytes: 16 << 20})
	hdr := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/n-quads"}
	stored := func() int {
		st, b := ts.get("/v1/graphs")
		var gs struct {
			Graphs []struct {
				Name  string `json:"name"`
				Quads int    `json:"quads"`
			} `json:"graphs"`
		}
		if st != 200 || json.Unmarshal(b, &gs) != nil {
			t.Fatalf("graphs: %d %s", st, b)
		}
		for _, g := range gs.Graphs {
			if g.Name == "bulk" {
				return g.Quads
			}
		}
		return 0
	}
	ts.token = token
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", all, hdr); st != 200 {
		t.Fatalf("write: %d %s", st, b)
	}
	missing := strings.Join(lines[:n-10], "") + "<http://ex.org/s0> <http://ex.org/p> \"NOT THERE\" <bulk> .\n" + strings.Join(lines[n-9:], "")
	st, _, b := ts.do("POST", "/cayley/api/v2/delete", missing, hdr)
	if st != 404 || !strings.Contains(string(b), "nothing was deleted") || stored() != n {
		t.Fatalf("a delete naming one missing quad: %d %s, %d quads left; want 404, nothing deleted, %d left", st, b, stored(), n)
	}
	st, _, b = ts.do("POST", "/cayley/api/v2/delete", all+lines[0], hdr)
	if st != 200 || !strings.Contains(string(b), fmt.Sprintf(`"count":%d`, n+1)) || stored() != 0 {
		t.Fatalf("a delete repeating a line: %d %s, %d quads left; want 200, count %d (lines) and none left", st, b, stored(), n+1)
	}
	// A body of more lines than one batch (65,536) repeating ten quads:
	// each is deleted once; the count is of lines, as Cayley's.
	ten := strings.Join(lines[:10], "")
	if st, _, b := ts.do("POST", "/cayley/api/v2/write", ten, hdr); st != 200 {
		t.Fatalf("write: %d %s", st, b)
	}
	st, _, b = ts.do("POST", "/cayley/api/v2/delete", strings.Repeat(ten, 7000), hdr)
	if st != 200 || !strings.Contains(string(b), `"count":70000`) || stored() != 0 {
		t.Fatalf("a 70,000-line delete of ten quads: %d %s, %d quads left; want 200, count 70000, none left", st, b, stored())
	}
}

// The engine's writes take the request's context (requestWriter).
var _ ctxDeltaApplier = (*engine.DB)(nil)

// TestCayleyWriteTimeLimit: a large body's write stops at the request's
// time limit inside a part (the engine takes the request's context), not
// after the part: the answer comes near the limit, and its count is what
// is stored.
func TestCayleyWriteTimeLimit(t *testing.T) {
	const token = "write-token-1"
	var body strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&body, "<http://ex.org/s%d> <http://ex.org/p> \"value %d\" <bulk> .\n", i, i)
	}
	limit := 300 * time.Millisecond
	ts := cayleyServer(t, Config{Token: token, MaxBodyBytes: 16 << 20, RequestTimeout: limit})
	hdr := map[string]string{"Authorization": "Bearer " + token}
	start := time.Now()
	st, _, b := ts.do("POST", "/cayley/api/v2/write", body.String(), hdr)
	took := time.Since(start)
	var ans struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		t.Fatalf("%d %s: %v", st, b, err)
	}
	if st != http.StatusGatewayTimeout || took > limit+time.Second {
		t.Errorf("a 60,000-quad write under a %v limit: %d %s after %v; want a 504 within a second of the limit", limit, st, b, took)
	}
	ts.token = token
	_, gb := ts.get("/v1/graphs")
	if want := fmt.Sprintf(`"name":"bulk","quads":%d`, ans.Count); ans.Count > 0 && !strings.Contains(string(gb), want) {
		t.Errorf("count %d, graphs %s", ans.Count, gb)
	}
}
